"""Headers every answer carries, whoever made it: the application, the rate limits, a
static file, a stream, the health probes.

- ``X-Content-Type-Options: nosniff`` on every answer: a browser takes each one for what its
  ``Content-Type`` says (a problem+json body, a stream, a module) and never guesses.
- Pages (``text/html``) also say which powerful browser features they never use
  (``Permissions-Policy``: none of camera, microphone, geolocation, payment, USB, sensors)
  and keep their window to themselves (``Cross-Origin-Opener-Policy: same-origin``: a page
  of another origin that opened it, or that it opens, gets no handle on it).

A header the application set already is left as it is.
"""

from __future__ import annotations

from typing import Any

from litestar.types import ASGIApp, Message, Receive, Send

EVERY_ANSWER = ((b"x-content-type-options", b"nosniff"),)
PAGES = (
    (
        b"permissions-policy",
        b"accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), "
        b"microphone=(), payment=(), usb=()",
    ),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def _with(headers: list[tuple[bytes, bytes]], more: tuple[tuple[bytes, bytes], ...]) -> None:
    present = {name.lower() for name, _ in headers}
    headers.extend(header for header in more if header[0] not in present)


def secure_headers(app: ASGIApp) -> ASGIApp:
    """``app`` whose every HTTP answer carries the headers of the module docstring."""

    async def handle(scope: Any, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                _with(headers, EVERY_ANSWER)
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if content_type.startswith(b"text/html"):
                    _with(headers, PAGES)
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, sending)

    return handle
