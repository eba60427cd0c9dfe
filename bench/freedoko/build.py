"""Build FreeDoko (without its GUI, sound and network) and our line driver around it.

    nice -n 19 python3 bench/freedoko/build.py --source /path/to/freedoko [--out DIR] [--jobs N]

``--source`` is a FreeDoko source folder (its root, holding ``src/`` and ``data/``; the
public repository svenihoney/freedoko at commit d3a892f is FreeDoko 0.7.13). It is never
changed: the source is copied to ``OUT/<key>/freedoko`` (``OUT`` defaults to
``~/.cache/doko-freedoko``, outside the repository), our patch
(``announcement-copies.patch``) is applied to the copy, FreeDoko is built there once with
``make USE_UI_GTKMM=false USE_SOUND=false USE_NETWORK=false`` and its objects are put in
an archive; the driver (``driver.cpp``, GPL-2.0-or-later, see README.md) is compiled and
linked against it as ``OUT/<key>/fd-driver``, whose path is printed last. ``<key>`` names
the source's git commit (or a digest of its files) and our patch and flags: a second run
for the same source only relinks the driver when it changed, and prints the same path.

Standard library only; needs make, g++, ar and patch (or git).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.cpp"
PATCH = HERE / "announcement-copies.patch"
DEFAULT_OUT = Path.home() / ".cache" / "doko-freedoko"
CXXFLAGS = "-O2 -w -pipe -std=gnu++98"
"""FreeDoko 0.7.13 is C++98 of 2013: a newer standard or -Werror (its default) fails with
today's compilers; -O2 needs our patch (dangling references read freed memory)."""

MAKE_VARIABLES = ("USE_UI_GTKMM=false", "USE_SOUND=false", "USE_NETWORK=false")

CONFIG_H = """\
/* written by doko's bench/freedoko/build.py in place of CMake's config.h */
#ifndef CONFIGURATION_HEADER
#define CONFIGURATION_HEADER
#define HAVE_GETPWUID 1
#define HAVE_GETENV 1
#define HAVE_LSTAT 1
#define UNIX 1
static const char* g_system_name = "Linux";
#endif
"""
"""FreeDoko's last commits generate ``src/config.h`` with CMake; its Makefiles expect it."""


def source_id(source: Path) -> str:
    """The source's git commit (with ``-dirty`` and a digest of its changes if the work
    tree differs from it), else a digest of its files' names, sizes and times."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        diff = subprocess.run(
            ["git", "-C", str(source), "diff", "HEAD"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        digest = hashlib.sha256()
        for path in sorted((source / "src").rglob("*")):
            if path.is_file():
                stat = path.stat()
                name = path.relative_to(source)
                digest.update(f"{name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
        return "files-" + digest.hexdigest()[:12]
    if diff:
        return f"{commit[:12]}-dirty-{hashlib.sha256(diff).hexdigest()[:8]}"
    return commit[:12]


def build_key(source: str, patch: bytes, cxxflags: str) -> str:
    """The folder name of one build: the source's id, then a digest of what else
    decides FreeDoko's objects (our patch, the compiler flags)."""
    digest = hashlib.sha256(patch + b"\0" + cxxflags.encode()).hexdigest()[:8]
    return f"{source}-{digest}"


def make_command(tree: Path, jobs: int, cxxflags: str) -> list[str]:
    """The make run that builds FreeDoko headless in ``tree`` (the copy's root)."""
    src = tree / "src"
    return [
        "make",
        f"-j{jobs}",
        *MAKE_VARIABLES,
        f"CXXFLAGS={cxxflags} -I{src}",
    ]


def compile_command(tree: Path, cxxflags: str, output: Path) -> list[str]:
    """The compilation of the driver against the copy's headers."""
    return [
        "g++",
        *cxxflags.split(),
        f"-I{tree / 'src'}",
        f'-DFD_DATA_DIRECTORY="{tree / "data"}"',
        "-c",
        str(DRIVER),
        "-o",
        str(output),
    ]


def link_command(driver_object: Path, archive: Path, output: Path) -> list[str]:
    """The link of the driver with FreeDoko's objects (an archive: of its objects only
    those needed are taken, so the test programs' own ``main`` stay out)."""
    return ["g++", "-o", str(output), str(driver_object), str(archive), "-lm"]


def objects(src: Path) -> list[Path]:
    """FreeDoko's object files but its own main (``src/freedoko.o``)."""
    return sorted(p for p in src.rglob("*.o") if p != src / "freedoko.o")


def run(command: list[str], cwd: Path) -> None:
    """Run a build step; its output goes to stderr (stdout is the driver's path alone)."""
    print("+", " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, cwd=cwd, check=True, stdout=sys.stderr)


def apply_patch(tree: Path) -> None:
    """Apply our patch to the copy (``patch``, else ``git apply``)."""
    if shutil.which("patch"):
        run(["patch", "-p1", "--forward", "--batch", "-i", str(PATCH)], tree)
    else:
        run(["git", "apply", str(PATCH)], tree)


def build_freedoko(source: Path, tree: Path, jobs: int, cxxflags: str) -> Path:
    """Copy, patch and build FreeDoko in ``tree`` unless done before; its objects'
    archive."""
    archive = tree.parent / "libfreedoko.a"
    stamp = tree.parent / "freedoko.built"
    if stamp.exists() and archive.exists():
        print(f"FreeDoko already built in {tree}", file=sys.stderr)
        return archive
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".git"), symlinks=True)
    apply_patch(tree)
    src = tree / "src"
    (src / "config.h").write_text(CONFIG_H)
    run(["sh", "./create_standard_aiconfigs"], src / "player" / "aiconfigs.preset")
    run(make_command(tree, jobs, cxxflags), src)
    archive.unlink(missing_ok=True)
    run(["ar", "rcs", str(archive), *(str(p.relative_to(src)) for p in objects(src))], src)
    stamp.write_text(f"{source}\n")
    return archive


def build_driver(tree: Path, archive: Path, cxxflags: str) -> Path:
    """Compile and link the driver unless the one there is of this driver source."""
    driver = tree.parent / "fd-driver"
    stamp = tree.parent / "fd-driver.source"
    digest = hashlib.sha256(DRIVER.read_bytes()).hexdigest()
    if driver.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return driver
    driver_object = tree.parent / "driver.o"
    run(compile_command(tree, cxxflags, driver_object), tree.parent)
    run(link_command(driver_object, archive, driver), tree.parent)
    stamp.write_text(digest + "\n")
    return driver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="FreeDoko's source root")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default {DEFAULT_OUT}")
    parser.add_argument("--jobs", type=int, default=1, help="make's -j (default 1)")
    parser.add_argument("--cxxflags", default=CXXFLAGS, help=f"default {CXXFLAGS!r}")
    args = parser.parse_args()
    source = args.source.resolve()
    if not (source / "src" / "party" / "party.cpp").is_file():
        parser.error(f"{source} is not a FreeDoko source folder (no src/party/party.cpp)")
    key = build_key(source_id(source), PATCH.read_bytes(), args.cxxflags)
    tree = args.out.expanduser().resolve() / key / "freedoko"
    tree.parent.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("LC_ALL", "C")
    archive = build_freedoko(source, tree, args.jobs, args.cxxflags)
    print(build_driver(tree, archive, args.cxxflags))


if __name__ == "__main__":
    main()
