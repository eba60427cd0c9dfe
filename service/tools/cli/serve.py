"""``doko serve``: the HTTP service's process, its workers, its logging and its listening
socket."""

from __future__ import annotations

import argparse
import socket

from service.tools.cli.shared import (
    Subparsers,
    add_database_options,
    add_key_options,
    database_url_of,
)


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket for uvicorn, created with IPPROTO_TCP so that asyncio sets TCP_NODELAY on
    every connection (without it, responses written in two parts wait ~40 ms for delayed ACKs)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def serve(args: argparse.Namespace) -> int:
    """Run the HTTP service: migrate, then serve with uvicorn (several workers if asked), until
    SIGTERM or SIGINT stops it (`service.edge.shutdown`: 0 when it stopped cleanly within
    ``--shutdown-seconds``; a second signal, or the bound running out, ends it at once).

    When the service started the embedded PostgreSQL itself, it stops it again on the way
    out (unless another process still uses it).
    """
    import os
    import sys

    import msgspec

    from infra.database import embedded_data_dir, stop_embedded
    from infra.key_folder import key_dir
    from infra.signing import KeyFileError
    from service.app import Settings
    from service.edge.http import Config, Edge, HttpProtocol
    from service.edge.keys import key_file, load_signer
    from service.edge.logs import log_config
    from service.edge.shutdown import Server, Stopping, Workers

    signing_key = key_file(args.signing_key)
    try:
        load_signer(signing_key)
    except KeyFileError as error:
        print(f"--signing-key: {error}", file=sys.stderr)
        return 2
    if args.shutdown_seconds <= 0:
        print("--shutdown-seconds: must be more than 0", file=sys.stderr)
        return 2
    pgdata = embedded_data_dir(args.database_url, data_dir=args.data_dir)
    stopping = Stopping(args.shutdown_seconds, embedded=pgdata)
    stopping.install()  # from here on a signal stops the embedded PostgreSQL too
    settings = Settings(
        database_url=database_url_of(args),
        cors_origins=tuple(args.cors_origin),
        signing_key=str(signing_key) if signing_key is not None else None,
        key_dir=str(key_dir(args.key_dir).absolute()),
        db_timeout=args.db_timeout,
        rate_per_token=args.rate_per_token,
        rate_per_address=args.rate_per_address,
        rate_expensive=args.rate_expensive,
        max_streams_per_address=args.max_streams_per_address,
        rate_creations=args.rate_creations,
        talk_messages=args.talk_messages,
        talk_seconds=args.talk_seconds,
        embedded_data_dir=str(pgdata) if pgdata is not None else None,
        bot_delay=args.bot_delay,
        bot_workers=args.bot_workers,
        shutdown_seconds=args.shutdown_seconds,
    )
    edge = Edge(
        max_header_bytes=args.max_header_bytes,
        max_headers=args.max_headers,
        read_timeout=args.read_timeout,
        keep_alive=args.keep_alive,
        max_connections=args.max_connections,
        max_connections_per_address=args.max_connections_per_address,
    )
    os.environ["DOKO_SETTINGS"] = msgspec.json.encode(settings).decode()
    config = Config(
        "service.app:app_from_env",
        edge=edge,
        factory=True,
        http=HttpProtocol,
        workers=args.workers,
        log_config=log_config(args.log_level),
        access_log=False,
        shutdown_seconds=args.shutdown_seconds,
    )
    sock = listening_socket(args.host, args.port)
    print(f"doko serving on http://{args.host}:{args.port} (OpenAPI at /schema)", flush=True)
    clean = True
    try:
        if stopping.stopping:  # a signal while it started: nothing to serve
            pass
        elif args.workers > 1:
            clean = Workers(config, [sock], stopping).run()
        else:
            Server(config, stopping).run(sockets=[sock])
    finally:
        sock.close()
        if pgdata is not None:
            stop_embedded(pgdata)
    return 0 if clean else 1


def register_serve(subparsers: Subparsers) -> None:
    """``doko serve``."""
    from service.app import Settings
    from service.edge.http import Edge

    defaults, edge = Settings(database_url=""), Edge()
    parser = subparsers.add_parser("serve", help="run the HTTP service")
    add_database_options(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--cors-origin", action="append", default=[], help="allow this browser origin (repeat)"
    )
    parser.add_argument("--log-level", default="info", help="debug, info, warning, error")
    parser.add_argument(
        "--shutdown-seconds",
        type=float,
        default=defaults.shutdown_seconds,
        help="seconds a stop by SIGTERM or SIGINT may take: streams end at once, requests in"
        " flight may take half of it; past it, or on a second signal, the process ends at"
        f" once (default {defaults.shutdown_seconds}; README: Operations)",
    )
    add_key_options(parser, signing_key=True)
    limits = parser.add_argument_group(
        "limits", "what clients may send and hold (README: Operations)"
    )
    options: list[tuple[str, type, object, str]] = [
        ("--db-timeout", float, defaults.db_timeout, "seconds a database wait may take (503)"),
        ("--rate-per-token", int, defaults.rate_per_token, "requests a second per token"),
        ("--rate-per-address", int, defaults.rate_per_address, "requests a second per address"),
        ("--rate-expensive", int, defaults.rate_expensive, "replays a second per address"),
        (
            "--rate-creations",
            int,
            defaults.rate_creations,
            "tables, stream tickets and registrations a minute per address",
        ),
        ("--talk-messages", int, defaults.talk_messages, "table talk per sender a window"),
        ("--talk-seconds", float, defaults.talk_seconds, "the table talk window in seconds"),
        ("--max-header-bytes", int, edge.max_header_bytes, "bytes of request line and headers"),
        ("--max-headers", int, edge.max_headers, "header fields a request (431)"),
        ("--read-timeout", float, edge.read_timeout, "seconds to send a whole request (408)"),
        ("--keep-alive", float, edge.keep_alive, "seconds an idle connection stays open"),
        ("--max-connections", int, edge.max_connections, "open connections (503 beyond)"),
        (
            "--max-connections-per-address",
            int,
            edge.max_connections_per_address,
            "open connections per client address (429 beyond)",
        ),
        (
            "--max-streams-per-address",
            int,
            defaults.max_streams_per_address,
            "open event streams per client address (429 beyond)",
        ),
        ("--bot-delay", float, defaults.bot_delay, "seconds an expert bot waits near people"),
        (
            "--bot-workers",
            int,
            defaults.bot_workers,
            "processes bots search in (None: a core each)",
        ),
    ]
    for flag, kind, default, meaning in options:
        limits.add_argument(flag, type=kind, default=default, help=f"{meaning} (default {default})")
    parser.set_defaults(handler=serve)
