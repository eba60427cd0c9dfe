"""The ``doko`` command line as a whole (`service.tools.cli.main`): a command is required; the
commands refuse what they cannot do with status 2 and write what they are asked to."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from service.tools.cli import main


def test_a_command_is_required() -> None:
    with pytest.raises(SystemExit) as exit_:
        main([])
    assert exit_.value.code == 2


async def test_cli_refusals_and_outputs(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Unknown tables and contradictory arguments are refused with status 2 and a message
    on stderr, writing nothing; `doko openapi -o` writes the document."""
    url = ("--database-url", db_url)
    target = tmp_path / "none.json"
    for args, message in [
        (["verify", "nope", "--file", str(target)], "give a TABLE or --file, not both"),
        (["verify", "nope", *url], "no table 'nope'"),
        (["export", "nope", "-o", str(target), *url], "no table 'nope'"),
        (["replay", "nope", *url], "nope"),
    ]:
        status = await asyncio.to_thread(main, args)
        assert status == 2, args
        assert message in capsys.readouterr().err, args
    assert not target.exists()
    document = tmp_path / "openapi.json"
    assert await asyncio.to_thread(main, ["openapi", "-o", str(document)]) == 0
    assert document.read_text() == (Path(__file__).parents[4] / "openapi/openapi.json").read_text()
