"""The FreeDoko builder's pure parts (bench/freedoko/build.py): its command lines, build
keys and object list. Nothing is built or run here: no FreeDoko, compiler or network."""

from __future__ import annotations

from pathlib import Path

from bench.freedoko import build


def test_make_builds_headless_with_the_copys_headers() -> None:
    tree = Path("/out/key/freedoko")
    command = build.make_command(tree, 2, "-O2 -w")
    assert command[:2] == ["make", "-j2"]
    assert {"USE_UI_GTKMM=false", "USE_SOUND=false", "USE_NETWORK=false"} <= set(command)
    assert command[-1] == "CXXFLAGS=-O2 -w -I/out/key/freedoko/src"


def test_the_driver_is_compiled_against_the_copy_and_linked_with_the_archive() -> None:
    tree = Path("/out/key/freedoko")
    compile_ = build.compile_command(tree, "-O2 -std=gnu++98", Path("/out/key/driver.o"))
    assert compile_[:3] == ["g++", "-O2", "-std=gnu++98"]
    assert "-I/out/key/freedoko/src" in compile_
    assert '-DFD_DATA_DIRECTORY="/out/key/freedoko/data"' in compile_
    assert compile_[-4:] == ["-c", str(build.DRIVER), "-o", "/out/key/driver.o"]
    link = build.link_command(Path("d.o"), Path("lib.a"), Path("fd-driver"))
    assert link == ["g++", "-o", "fd-driver", "d.o", "lib.a", "-lm"]


def test_the_build_key_names_the_source_and_changes_with_patch_and_flags() -> None:
    key = build.build_key("d3a892f40fac", b"patch", "-O2")
    assert key.startswith("d3a892f40fac-")
    assert key == build.build_key("d3a892f40fac", b"patch", "-O2")
    assert key != build.build_key("d3a892f40fac", b"other patch", "-O2")
    assert key != build.build_key("d3a892f40fac", b"patch", "-O0")


def test_objects_leave_freedokos_main_out(tmp_path: Path) -> None:
    for name in ("freedoko.o", "constants.o", "party/party.o", "party/party.cpp"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert build.objects(tmp_path) == [tmp_path / "constants.o", tmp_path / "party/party.o"]


def test_a_source_outside_git_is_named_by_its_files(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cpp").write_text("int a;")
    first = build.source_id(tmp_path)
    assert first.startswith("files-")
    assert build.source_id(tmp_path) == first
    (tmp_path / "src" / "b.cpp").write_text("int b;")
    assert build.source_id(tmp_path) != first


def test_our_files_are_there() -> None:
    assert build.DRIVER.is_file()
    assert "GPL-2.0-or-later" in build.DRIVER.read_text()
    patch = build.PATCH.read_text()
    assert patch.count("-  Announcement const& ") + patch.count("-    Announcement const& ") == 4
    assert "#define UNIX 1" in build.CONFIG_H
