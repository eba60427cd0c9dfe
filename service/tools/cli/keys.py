"""``doko keys list|rotate|revoke|generate``: the deployment's signing keys."""

from __future__ import annotations

import argparse
from pathlib import Path

from service.tools.cli.shared import (
    Subparsers,
    add_database_options,
    add_key_options,
    connect,
    on_pool,
)


def keys_list(args: argparse.Namespace) -> int:
    """Print the deployment's public keys (or their JWK set)."""
    import msgspec

    from infra.keyring import Keyring
    from infra.signing import key_set

    keys = on_pool(connect(args), lambda pool: Keyring(pool).keys())
    if args.jwks:
        print(msgspec.json.format(msgspec.json.encode(key_set(keys)), indent=2).decode())
        return 0
    for key in keys:
        retired = f", retired {key.retired:%Y-%m-%d %H:%M:%S %Z}" if key.retired else ""
        if key.revoked_from is not None:
            retired += f", REVOKED from {key.revoked_from:%Y-%m-%d %H:%M:%S %Z}"
        print(f"{key.kid}  {key.status:<7}  created {key.created:%Y-%m-%d %H:%M:%S %Z}{retired}")
    if not keys:
        print("no signing keys yet (the service makes one when it first starts)")
    return 0


def keys_rotate(args: argparse.Namespace) -> int:
    """Retire the current key and make a new one."""
    import sys

    from infra.key_folder import KeyFolder
    from infra.keyring import KeyConfigured, rotate

    folder = KeyFolder(args.key_dir)
    try:
        old, new = on_pool(connect(args), lambda pool: rotate(pool, folder))
    except KeyConfigured as error:
        print(f"not rotated: {error}", file=sys.stderr)
        return 2
    if old is not None:
        print(f"retired {old.kid}")
    print(f"current {new.kid} (its private key in {folder.path})")
    return 0


def keys_revoke(args: argparse.Namespace) -> int:
    """Mark a key compromised from a time on; a current key is replaced."""
    import sys
    from datetime import datetime

    from infra.key_folder import KeyFolder
    from infra.keyring import UnknownKey, revoke

    try:
        since = datetime.fromisoformat(args.since)
    except ValueError as error:
        print(f"--from {args.since!r}: not an ISO 8601 time ({error})", file=sys.stderr)
        return 2
    if since.tzinfo is None:
        print(f"--from {args.since!r}: give its time zone (e.g. Z)", file=sys.stderr)
        return 2
    folder = KeyFolder(args.key_dir)
    try:
        revoked, new = on_pool(connect(args), lambda pool: revoke(pool, folder, args.kid, since))
    except (UnknownKey, ValueError) as error:
        print(f"not revoked: {error}", file=sys.stderr)
        return 2
    assert revoked.revoked_from is not None
    print(f"revoked {revoked.kid} from {revoked.revoked_from.isoformat()}")
    if new is not None:
        print(f"current {new.kid} (its private key in {folder.path})")
    return 0


def keys_generate(args: argparse.Namespace) -> int:
    """Write a new Ed25519 private key as a PEM file readable by its owner only."""
    import os
    import sys

    from infra.signing import Signer

    signer = Signer.generate()
    try:
        descriptor = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        print(f"{args.output} exists: not overwritten", file=sys.stderr)
        return 2
    with os.fdopen(descriptor, "wb") as file:
        file.write(signer.pem())
    print(f"wrote key {signer.kid} to {args.output} (give it to `doko serve --signing-key`)")
    return 0


def register_keys(subparsers: Subparsers) -> None:
    """``doko keys list|rotate|revoke|generate``."""
    keys = subparsers.add_parser("keys", help="the keys that sign exports and reports")
    actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the public keys, current, retired and revoked")
    listing.add_argument("--jwks", action="store_true", help="as the JWK set the service serves")
    add_database_options(listing)
    listing.set_defaults(handler=keys_list)
    rotate = actions.add_parser(
        "rotate", help="retire the current key (it keeps verifying) and make a new one"
    )
    add_database_options(rotate)
    add_key_options(rotate)
    rotate.set_defaults(handler=keys_rotate)
    revoking = actions.add_parser(
        "revoke",
        help="mark a key compromised from a time on: what it signed from then is refused, "
        "what it signed before is flagged",
    )
    revoking.add_argument(
        "kid", help="the key's id (one that begins with '-' goes last, after '--')"
    )
    revoking.add_argument(
        "--from",
        dest="since",
        required=True,
        metavar="TIME",
        help="since when the key may be in other hands (ISO 8601 with time zone, not later "
        "than now)",
    )
    add_database_options(revoking)
    add_key_options(revoking)
    revoking.set_defaults(handler=keys_revoke)
    generate = actions.add_parser(
        "generate", help="write a new private key file, for services sharing one key"
    )
    generate.add_argument("-o", "--output", type=Path, required=True, help="the PEM file")
    generate.set_defaults(handler=keys_generate)
