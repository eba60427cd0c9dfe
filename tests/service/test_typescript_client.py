"""The shipped TypeScript client (clients/typescript): its types are the document's, it
compiles under ``tsc --strict``, its own tests (Node's test runner) pass against a live
doko service, the web client (service/web) type-checks against its types, and it installs
as a front end would install it: packed (`npm pack`, which builds it) into a fresh project,
whose strict compile (with the libraries checked: no ``skipLibCheck``) takes the client's
types and refuses a card that does not exist.

Node and npm are needed; without them the tests are skipped with one line saying so,
except under CI (``CI=true``), where they must run (`.ci/run` installs them).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.web.conftest import in_ci

pytestmark = pytest.mark.xdist_group("typescript_client")
"""The tests share the client's folder (its node_modules, the dist that `npm pack` builds):
one worker runs them all (`--dist loadgroup`, README)."""

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"
NO_NODE = "TypeScript client tests skipped: no node/npm found (apt-get install nodejs npm)"


async def run(
    *command: str, env: dict[str, str] | None = None, cwd: Path = CLIENT, merged: bool = True
) -> tuple[int, str]:
    """Run ``command`` in ``cwd`` (the client's folder) without blocking the event loop (the
    live service of the module answers on it); its exit code and output (stdout alone when
    not ``merged``: npm writes its scripts' output to stderr)."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT if merged else asyncio.subprocess.PIPE,
    )
    output, errors = await process.communicate()
    if process.returncode and errors:
        output += b"\n" + errors
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
    """``src/schema.ts`` is what openapi-typescript makes of openapi/openapi.json now (the
    types, each schema by name and each enum's values)."""
    code, output = await run(npm, "run", "-s", "types")
    assert code == 0, output
    assert output == (CLIENT / "src" / "schema.ts").read_text(), (
        "clients/typescript/src/schema.ts is stale: run `npm run generate` there"
    )


async def test_the_client_compiles_strictly_and_passes_its_tests(npm: str, base_url: str) -> None:
    """``tsc --strict`` accepts the client and refuses what its typing test expects it to
    refuse (``@ts-expect-error``), then Node's test runner plays a session through it, reads
    streams with stream tickets, says something at a table (T5), and (against a local
    stand-in) reconnects with a new ticket after 429/503 with Retry-After and a stream the
    server ended, and gets network errors as values."""
    code, output = await run(npm, "test", env={"DOKO_URL": base_url})
    assert code == 0, output
    assert "# fail 0" in output and "# pass 12" in output, output


async def test_the_web_client_type_checks_against_the_documents_types(npm: str) -> None:
    """The web client's modules take the types of their requests and answers from the client
    (JSDoc imports, no build step): ``tsc --checkJs`` accepts them, service/web/api.js under
    ``--strict``, and refuses the wrong requests ``test/web-refusals.js`` expects it to
    refuse (a wrong path, a missing parameter, a wrong member or card, a 304's body)."""
    code, output = await run(npm, "run", "-s", "check:web")
    assert code == 0, output


PROGRAM = """\
import { cardValues, createDokoClient, tableEvents, type Card, type StreamEnd } from "@doko/client";

export const deck: readonly Card[] = cardValues;

/** A bot's loop: no try/catch, no retry loop; every problem is a value with a code. */
export async function bot(
  base: string,
  tableId: string,
  token: string,
): Promise<StreamEnd | undefined> {
  const doko = createDokoClient(base, { token });
  const stream = tableEvents(base, tableId, { token });
  for await (const { data } of stream) {
    if (data.type !== "deal_dealt") continue;
    const played = await doko.POST("/tables/{table_id}/seats/{seat}/play", {
      params: { path: { table_id: tableId, seat: 0 } },
      body: { card: "QC" },
    });
    if (played.error) console.log(played.error.code, played.error.detail);
    else console.log(played.data.version);
  }
  return stream.end;
}
"""

NO_SUCH_CARD = """\
import { createDokoClient, type Card } from "@doko/client";

export const card: Card = "QX";
const doko = createDokoClient("http://127.0.0.1:8000");
export const played = doko.POST("/tables/{table_id}/seats/{seat}/play", {
  params: { path: { table_id: "t", seat: 0 } },
  body: { card: "QX" },
});
"""


def strict(*files: str, resolution: str = "NodeNext") -> str:
    """A consumer's tsconfig: strict, the libraries' declarations checked too."""
    module = "NodeNext" if resolution == "NodeNext" else "ESNext"
    return json.dumps(
        {
            "compilerOptions": {
                "target": "ES2022",
                "module": module,
                "moduleResolution": resolution,
                "lib": ["ES2022", "DOM", "DOM.Iterable"],
                "types": [],
                "strict": True,
                "skipLibCheck": False,
                "noEmit": True,
            },
            "files": list(files),
        }
    )


@pytest.fixture(scope="module")
async def tarball(npm: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client as `npm pack` makes it (its ``prepare`` builds ``dist`` first), holding
    the compiled module and the declarations of every source file, the schema's included."""
    where = tmp_path_factory.mktemp("pack")
    code, output = await run(npm, "pack", "--json", "--pack-destination", str(where), merged=False)
    assert code == 0, output
    (packed,) = json.loads(output)
    files = {entry["path"] for entry in packed["files"]}
    for source in sorted((CLIENT / "src").glob("*.ts")):
        for built in (f"dist/{source.stem}.js", f"dist/{source.stem}.d.ts"):
            assert built in files, f"{built} is not in the package: {sorted(files)}"
    assert not {name for name in files if name.startswith(("dist/src/", "dist/test/", "test/"))}
    filename: str = packed["filename"]
    assert filename == "doko-client-0.1.0.tgz"
    return where / filename


async def consumer(npm: str, folder: Path, source: str, *options: str) -> Path:
    """A fresh ESM project in ``folder`` with the client installed from ``source`` (a tarball
    or the client's folder) and the two programs above."""
    folder.mkdir()
    (folder / "package.json").write_text('{"name": "consumer", "private": true, "type": "module"}')
    install = ("install", "--no-audit", "--no-fund", "--prefer-offline", *options, source)
    code, output = await run(npm, *install, cwd=folder)
    assert code == 0, output
    (folder / "bot.ts").write_text(PROGRAM)
    (folder / "no-such-card.ts").write_text(NO_SUCH_CARD)
    (folder / "tsconfig.json").write_text(strict("bot.ts"))
    (folder / "tsconfig.bundler.json").write_text(strict("bot.ts", resolution="Bundler"))
    (folder / "tsconfig.refused.json").write_text(strict("no-such-card.ts"))
    return folder


async def tsc(folder: Path, config: str) -> tuple[int, str]:
    """The client's own TypeScript compiler on ``folder``'s ``config`` (the consumer needs
    none installed: its types come from its node_modules)."""
    compiler = CLIENT / "node_modules" / "typescript" / "bin" / "tsc"
    return await run(shutil.which("node") or "node", str(compiler), "-p", config, cwd=folder)


async def check_consumer(folder: Path, *configs: str) -> None:
    """The bot compiles strictly under each of ``configs`` (Node's resolution, a bundler's),
    the card that does not exist is refused (TS2322, not a missing module or declaration),
    and the module runs."""
    for config in configs:
        code, output = await tsc(folder, config)
        assert code == 0, f"{config}: {output}"
    code, output = await tsc(folder, "tsconfig.refused.json")
    assert code != 0, "a card that does not exist compiled: the types are not the client's"
    assert "error TS2322" in output and "QX" in output, output
    assert "TS2307" not in output and "TS7016" not in output, output
    script = "import('@doko/client').then((m) => console.log(m.cardValues.length, typeof m.feed))"
    code, output = await run(shutil.which("node") or "node", "-e", script, cwd=folder)
    assert (code, output.strip()) == (0, "24 function"), output


async def test_the_packed_client_installs_and_types_a_strict_project(
    npm: str, tarball: Path, tmp_path: Path
) -> None:
    """``npm install ./doko-client-0.1.0.tgz`` in a fresh project: its dependencies come with
    it, ``tsc --strict`` without ``skipLibCheck`` accepts a bot against it and refuses the
    card ``"QX"``."""
    folder = await consumer(npm, tmp_path / "app", str(tarball))
    await check_consumer(folder, "tsconfig.json", "tsconfig.bundler.json")


async def test_the_client_installs_from_its_path(npm: str, tarball: Path, tmp_path: Path) -> None:
    """``npm install /path/to/clients/typescript`` (after ``npm ci`` there, which the fixture
    ran): a link to the folder, whose dependencies and ``dist`` are there (npm runs its
    ``prepare`` again, which the packing just did: skipped here); the same strict project
    compiles."""
    folder = await consumer(npm, tmp_path / "app", str(CLIENT), "--ignore-scripts")
    assert (folder / "node_modules" / "@doko" / "client").resolve() == CLIENT
    await check_consumer(folder, "tsconfig.json")
