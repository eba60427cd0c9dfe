#!/usr/bin/env python3
"""Set up and run doko with nothing but Python 3.11+.

    python3 dev.py serve [ARGS]   create .venv if needed, then run `doko serve ARGS`
    python3 dev.py test [ARGS]    create .venv if needed, then run the whole test suite, one
                                  worker per CPU core (pytest-xdist; `-n 0` runs it in one)
    python3 dev.py check          ruff check, ruff format --check, mypy
    python3 dev.py doko ARGS      any other `doko` command (db upgrade, replay, verify, ...)

The virtual environment is (re)installed whenever pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".pyproject.sha256"


def ensure_venv() -> None:
    """Create the virtual environment and install doko with its dev extras."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == digest:
        return
    if not (BIN / "python").exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-e", f"{ROOT}[dev]"], check=True)
    STAMP.write_text(digest)


def run(*args: str) -> int:
    return subprocess.run(list(args), cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"serve", "test", "check", "doko"}:
        print(__doc__)
        return 2
    ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "serve":
        return run(str(BIN / "doko"), "serve", *rest)
    if command == "doko":
        return run(str(BIN / "doko"), *rest)
    if command == "check":
        return (
            run(str(BIN / "ruff"), "check", ".")
            or run(str(BIN / "ruff"), "format", "--check", ".")
            or run(str(BIN / "mypy"))
        )
    return run(
        str(BIN / "python"),
        "-m",
        "pytest",
        "-n",
        "auto",
        "--dist",
        "loadgroup",
        "--cov",
        "--cov-report=term",
        *rest,
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
