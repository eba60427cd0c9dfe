"""The TypeScript "bot in 50 lines" (examples/typescript/bot.ts) compiled as its README says
(``tsc --strict`` in a project that installed the client from its path) and played against a
live service over the plan's preset deals (`tests.examples.harness`: every covered case
checked in the table's log, the scoresheet in the final view, no request but sitting down,
stream tickets, streams and commands).

Node and npm are needed (the client's own tests install its dependencies the same way);
without them the test is skipped, except under CI (``CI=true``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.examples.harness import ROOT, Service, check, play, run_example
from tests.web.conftest import in_ci

pytestmark = pytest.mark.xdist_group("typescript_client")
"""It builds and reads the client's folder (clients/typescript), as the client's own tests do:
the same worker runs them one after the other."""

CLIENT = ROOT / "clients" / "typescript"


@pytest.fixture(scope="module")
async def typescript_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The TypeScript example compiled (``tsc --strict``) in a fresh project that installed
    the client from its path, as the example's README says."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        if in_ci():
            pytest.fail("CI=true but no node/npm")
        pytest.skip("the TypeScript example needs node and npm (apt-get install nodejs npm)")
    if not (CLIENT / "dist" / "index.js").exists():
        code, output = await run_example([npm, "ci", "--no-audit", "--no-fund"], cwd=str(CLIENT))
        assert code == 0, output
    folder = tmp_path_factory.mktemp("example")
    for name in ("bot.ts", "tsconfig.json"):
        shutil.copy(ROOT / "examples" / "typescript" / name, folder / name)
    (folder / "package.json").write_text('{"name": "bot", "private": true, "type": "module"}')
    install = [npm, "install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"]
    code, output = await run_example([*install, str(CLIENT)], cwd=str(folder))
    assert code == 0, output
    (folder / "node_modules" / "@types").symlink_to(CLIENT / "node_modules" / "@types")
    compiler = str(CLIENT / "node_modules" / "typescript" / "bin" / "tsc")
    code, output = await run_example([node, compiler, "-p", "tsconfig.json"], cwd=str(folder))
    assert code == 0, output
    return folder / "build" / "bot.js"


async def test_the_typescript_example_plays_a_session_from_its_stream(
    service: Service, typescript_example: Path
) -> None:
    node = shutil.which("node") or "node"
    script = str(typescript_example)
    played = await play(service, lambda url, table, code: [node, script, url, table, code])
    check(played)
