"""The shipped TypeScript client (clients/typescript): its types are the document's, it
compiles under ``tsc --strict``, its own tests (Node's test runner) pass against a live
doko service, and the web client (service/web) type-checks against its types.

Node and npm are needed; without them the tests are skipped with one line saying so,
except under CI (``CI=true``), where they must run (`.ci/run` installs them).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from tests.web.conftest import in_ci

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NO_NODE = "TypeScript client tests skipped: no node/npm found (apt-get install nodejs npm)"


async def run(*command: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run ``command`` in the client's folder without blocking the event loop (the live
    service of the module answers on it); its exit code and output."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=CLIENT,
        env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()


@pytest.fixture(scope="module")
async def npm() -> str:
    """npm, with the client's locked dependencies installed."""
    path = shutil.which("npm")
    if path is None or shutil.which("node") is None:
        if in_ci():
            pytest.fail("CI=true but no node/npm")
        pytest.skip(NO_NODE)
    if not (CLIENT / "node_modules" / ".package-lock.json").exists():
        code, output = await run(path, "ci", "--no-audit", "--no-fund")
        assert code == 0, output
    return path


async def test_the_generated_types_are_the_documents(npm: str) -> None:
    """``src/schema.d.ts`` is what openapi-typescript makes of openapi/openapi.json now."""
    code, output = await run(npm, "run", "-s", "types")
    assert code == 0, output
    assert output == (CLIENT / "src" / "schema.d.ts").read_text(), (
        "clients/typescript/src/schema.d.ts is stale: run `npm run generate` there"
    )


async def test_the_client_compiles_strictly_and_passes_its_tests(npm: str, base_url: str) -> None:
    """``tsc --strict`` accepts the client and refuses what its typing test expects it to
    refuse (``@ts-expect-error``), then Node's test runner plays a deal through it."""
    code, output = await run(npm, "test", env={"DOKO_URL": base_url})
    assert code == 0, output
    assert "# fail 0" in output and "# pass 4" in output, output


async def test_the_web_client_type_checks_against_the_documents_types(npm: str) -> None:
    """The web client's modules take the types of their requests and answers from the client
    (JSDoc imports, no build step): ``tsc --checkJs`` accepts them, service/web/api.js under
    ``--strict``, and refuses the wrong requests ``test/web-refusals.js`` expects it to
    refuse (a wrong path, a missing parameter, a wrong member or card, a 304's body)."""
    code, output = await run(npm, "run", "-s", "check:web")
    assert code == 0, output
