"""uvicorn's HTTP/1.1 protocol (httptools), sending each response in one write.

uvicorn writes a response's status line and headers as soon as the application starts
the response, and the body in a second write: two ``send`` system calls, and two
wake-ups of the client, per response. `HttpProtocol` holds the header block back until
the body comes (a JSON response starts and ends in the same step), or until the event
loop's next turn when it does not (a stream), so that both go out together. The bytes
and their order are unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class _HeldWrites:
    """A transport that keeps a written header block until the next write (or the next
    turn of the loop), and hands everything else to the real transport."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        if self._held is not None:
            data, self._held = self._held + data, None
            self._transport.write(data)
        elif data.startswith(b"HTTP/1.1 ") and data.endswith(b"\r\n\r\n"):
            self._held = data
            self._loop.call_soon(self.flush)
        else:
            self._transport.write(data)

    def flush(self) -> None:
        """Write what is held, if anything."""
        if self._held is not None:
            held, self._held = self._held, None
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol on a `_HeldWrites` transport (give it as ``http=``)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(cast(asyncio.Transport, _HeldWrites(transport, self.loop)))
