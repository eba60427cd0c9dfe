"""The web client's files as the service serves them (no browser needed): the pages, the
package's copies of RULES.md and of the table rules (T1-T4) and the rule texts taken from
them, and an API left as it was."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

import domain.names
import domain.seating
import domain.standings
import domain.table
import domain.tournament
import domain.variants.armut
import domain.variants.bock
import domain.variants.duty_solo
import domain.variants.schweinchen
import domain.variants.second_heart_ten
import domain.variants.without_nines
from service.routes.pages import WEB, rule_texts

ROOT = Path(__file__).resolve().parents[2]
PAGES = {
    "/": "lobby",
    "/t/4f1c": "table",
    "/t/4f1c/deals/3": "deal",
    "/tournament": "tournaments",
    "/tournament/9b2e": "tournament",
    "/tournament/9b2e/rounds/1/deals/3": "compare",
    "/rules": "rules",
    "/schema": "reference",
}
"""Each page's path and module; the API reference is a page like the others."""
MODULES = (
    "api.js",
    "ui.js",
    "lobby.js",
    "table.js",
    "deal.js",
    "review.js",
    "tournaments.js",
    "tournament.js",
    "compare.js",
    "tournament_parts.js",
    "rules.js",
    "reference.js",
    "style.css",
    "RULES.md",
    "TABLE_RULES.md",
    "TOURNAMENT_RULES.md",
    "HOUSE_RULES.md",
    "NAME_RULES.md",
    "vendor/swagger-ui-bundle.js",
    "vendor/swagger-ui.css",
    "vendor/swagger-ui-LICENSE",
    *(f"table/{part.name}" for part in sorted((WEB / "table").glob("*.js"))),
)


def shared_rules() -> Path | None:
    """RULES.md in the project's shared folder beside the repository (or beside the folder
    of worktrees), if there is one."""
    return next(
        (p / "shared" / "RULES.md" for p in ROOT.parents if (p / "shared" / "RULES.md").exists()),
        None,
    )


def test_the_package_copy_of_the_rules_is_the_shared_one() -> None:
    """service/web/RULES.md is a copy of the rules (the pages quote it): kept in sync."""
    shared = shared_rules()
    if shared is None:
        pytest.skip("no shared/RULES.md beside the repository to compare the copy with")
    assert (WEB / "RULES.md").read_text(encoding="utf-8") == shared.read_text(encoding="utf-8")


def table_rules_of_the_domain() -> dict[str, str]:
    """T1-T4 as the docstring of domain/table.py states them, read without the service's
    parser: each ``- Tn Title. Tn.1 text. Tn.2 text`` bullet (over several lines) split at
    the ids that begin a sentence."""
    doc = domain.table.__doc__ or ""
    rules: dict[str, str] = {}
    for section, text in re.findall(r"^- (T\d) (.*?)(?=^- |\Z)", doc, re.M | re.S):
        title, *parts = re.split(r"(?:(?<=\. )|^)(T\d\.\d) ", " ".join(text.split()))
        rules[section] = title.strip()
        rules.update(zip(parts[::2], (p.strip() for p in parts[1::2]), strict=True))
    return rules


def test_the_package_copy_of_the_table_rules_is_the_domains() -> None:
    """service/web/TABLE_RULES.md (the pages quote it) says T1-T4 word for word as
    domain/table.py does, every rule and every section title."""
    stated = table_rules_of_the_domain()
    assert {"T1", "T1.1", "T2.3", "T3.3", "T4.2"} <= set(stated)
    assert rule_texts((WEB / "TABLE_RULES.md").read_text(encoding="utf-8")) == stated


def bullets_of(module: Any, rule: str, numbered: str = r"\.\d") -> dict[str, str]:
    """The ``- E3.1 text`` bullets of a module's docstring (over several lines) whose ids
    are ``rule`` and then ``numbered`` (``E3`` and ``.1``; ``N`` and ``1``), read without the
    service's parser."""
    doc = module.__doc__ or ""
    found = re.findall(rf"^- ({rule}{numbered}) (.*?)(?=^- |^\S|\Z)", doc, re.M | re.S)
    return {rule_id: " ".join(text.split()) for rule_id, text in found}


def tournament_rules_of_the_domain() -> dict[str, str]:
    """E1-E6 as the domain states them: E1, E2, E4 and E5 in domain/tournament.py's docstring
    (``- E1 Creating. E1.1 text. E1.2 text``, split at the ids that begin a sentence), E3's
    rules in domain/seating.py's and E6's in domain/standings.py's (a bullet each)."""
    rules: dict[str, str] = {}
    doc = domain.tournament.__doc__ or ""
    for text in re.findall(r"^- E[1245] (.*?)(?=^- |\Z)", doc, re.M | re.S):
        _, *parts = re.split(r"(?:(?<=\. )|^)(E\d\.\d) ", " ".join(text.split()))
        rules.update(zip(parts[::2], (p.strip() for p in parts[1::2]), strict=True))
    return rules | bullets_of(domain.seating, "E3") | bullets_of(domain.standings, "E6")


def test_the_package_copy_of_the_tournament_rules_is_the_domains() -> None:
    """service/web/TOURNAMENT_RULES.md (the tournament pages quote it) says every rule
    E1.1-E6.5 word for word as the domain does, under its section's title."""
    stated = tournament_rules_of_the_domain()
    assert {"E1.1", "E2.2", "E3.2", "E4.1", "E5.3", "E6.4"} <= set(stated)
    copied = rule_texts((WEB / "TOURNAMENT_RULES.md").read_text(encoding="utf-8"))
    assert {k: v for k, v in copied.items() if "." in k} == stated
    assert copied["E5"] == "Shared deals." and copied["E6"] == "Standings."


def test_the_package_copy_of_the_house_rules_is_the_domains() -> None:
    """service/web/HOUSE_RULES.md (the rules page quotes it) says every house rule word for
    word as its module of domain/variants does, under its section's title."""
    stated = (
        bullets_of(domain.variants.without_nines, "V1")
        | bullets_of(domain.variants.second_heart_ten, "V2")
        | bullets_of(domain.variants.schweinchen, "V3")
        | bullets_of(domain.variants.armut, "V4")
        | bullets_of(domain.variants.bock, "V5")
        | bullets_of(domain.variants.duty_solo, "V6")
    )
    ends = {"V1.1", "V1.5", "V2.1", "V2.2", "V3.1", "V3.2", "V3.3", "V4.1", "V4.7", "V5.1", "V5.7"}
    assert ends <= set(stated)
    copied = rule_texts((WEB / "HOUSE_RULES.md").read_text(encoding="utf-8"))
    assert {k: v for k, v in copied.items() if "." in k} == stated
    assert copied["V1"] == "Without nines."
    assert copied["V2"] == "The second heart ten beats the first."
    assert copied["V3"] == "Schweinchen."
    assert copied["V4"] == "Armut."
    assert copied["V5"] == "Bock rounds."


def test_the_package_copy_of_the_name_rules_is_the_domains() -> None:
    """service/web/NAME_RULES.md (the rules page quotes it: a refusal of a name links to N2 or
    N3) says N1-N4 word for word as domain/names.py does."""
    stated = bullets_of(domain.names, "N", r"\d")
    assert set(stated) == {"N1", "N2", "N3", "N4"}
    assert rule_texts((WEB / "NAME_RULES.md").read_text(encoding="utf-8")) == stated


def test_every_rule_text_is_read_from_its_bullet_and_continuation_lines() -> None:
    """Hand-made: a rule over several lines, a section with its introduction, a section with
    none, and the worked examples (not rules) left out."""
    markdown = (
        "# Title\nIntro.\n\n## R1 Session\n- R1.1 Four players,\n  no partners.\n"
        "- R1.2 Lot.\n\n## R6 Announcements\nAnnouncements are `re` and\nthe refusals.\n"
        "- R6.10 Order of\n  errors.\n\n## Worked examples\n- E1 (R3.4) A leads\n  10H.\n"
    )
    assert rule_texts(markdown) == {
        "R1": "Session.",
        "R1.1": "Four players, no partners.",
        "R1.2": "Lot.",
        "R6": "Announcements. Announcements are `re` and the refusals.",
        "R6.10": "Order of errors.",
    }


@pytest.fixture
async def served(api: Any) -> dict[str, Any]:
    meta = await api.http.get("/web/meta.json")
    assert meta.status_code == 200
    return dict(meta.json())


async def test_every_rule_id_of_rules_md_and_of_the_code_has_its_text(
    served: dict[str, Any],
) -> None:
    """Each ``- Rn.m`` bullet of RULES.md is served with its text (its first line, as the
    file has it), so is each table rule (T1-T4), and every rule id the domain or the service
    cites in a refusal or a score line has one."""
    markdown = (WEB / "RULES.md").read_text(encoding="utf-8")
    bullets = dict(re.findall(r"^- (R\d+\.\d+) (.*)$", markdown, re.M))
    rules = served["rules"]
    assert set(bullets) <= set(rules) and len(bullets) == markdown.count("\n- R")
    for rule, first_line in bullets.items():
        assert rules[rule].startswith(first_line.strip())
    assert table_rules_of_the_domain().items() <= rules.items()
    cited = {
        rule
        for path in [*(ROOT / "domain").rglob("*.py"), *(ROOT / "service").rglob("*.py")]
        for rule in re.findall(r'"([RTEV]\d+\.\d+|N\d)"', path.read_text(encoding="utf-8"))
    }
    assert {"R3.3", "T2.3", "T4.2", "E5.3", "V6.1", "N2", "N3"} <= cited
    assert cited <= set(rules)


async def test_the_stream_event_names_are_those_of_the_published_contract(
    served: dict[str, Any],
) -> None:
    """The pages listen for the event types that the OpenAPI document's event schemas tag,
    and apart from them (no event id: `api.js` ``onTalk``) for table talk's ``talk``."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text(encoding="utf-8"))
    tagged = {
        schema["properties"]["type"]["const"]
        for schema in document["components"]["schemas"].values()
        if "const" in schema.get("properties", {}).get("type", {})
    }
    assert "talk" not in served["events"]
    assert {*served["events"], "talk"} == tagged


def test_the_table_page_is_one_small_module_per_part() -> None:
    """The table page (table.js) puts together the parts in web/table/, one module each over
    one store, each with a one-line comment on top and none long; the order of play round the
    table is computed in one place (ui.js `seatOfCard`), not in each page."""
    parts = sorted((WEB / "table").glob("*.js"))
    names = {part.name for part in parts}
    assert {"store.js", "board.js", "trick.js", "hand.js", "seats.js", "host.js"} <= names
    assert {"result.js", "sheet.js", "log.js", "device.js"} <= names
    for part in parts:
        lines = part.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("// ") and not lines[1].startswith("//"), part.name
        assert len(lines) <= 300, part.name
    modules = [*sorted(WEB.glob("*.js")), *parts]
    assert [p.name for p in modules if "% 4" in p.read_text(encoding="utf-8")] == ["ui.js"]


async def test_the_pages_are_served_with_their_module_and_a_strict_policy(api: Any) -> None:
    """Every page, the API reference included, is the shell with its module under the one
    policy: scripts, styles and connections to the service only, and no framing."""
    for path, module in PAGES.items():
        page = await api.http.get(path)
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert f'src="/web/{module}.js"' in page.text
        policy = page.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
        assert "unsafe" not in policy, path
    for name in MODULES:
        asset = await api.http.get(f"/web/{name}")
        assert asset.status_code == 200
        assert asset.content == (WEB / name).read_bytes()
    missing = await api.http.get("/web/nothing.js")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


async def test_the_vendored_files_are_the_pinned_release(api: Any) -> None:
    """The renderer the reference loads is the release vendor/README.md records (its files'
    SHA-256 as packed), its licence beside it; and litestar's own reference pages, which
    load scripts from CDNs, and its YAML copy of the document are not served."""
    readme = (WEB / "vendor" / "README.md").read_text(encoding="utf-8")
    recorded = dict(
        (name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", readme, re.M)
    )
    assert set(recorded) == {"swagger-ui-bundle.js", "swagger-ui.css"}
    for name, digest in recorded.items():
        assert hashlib.sha256((WEB / "vendor" / name).read_bytes()).hexdigest() == digest
    assert "Apache License" in (WEB / "vendor" / "swagger-ui-LICENSE").read_text(encoding="utf-8")
    for path in ("redoc", "swagger", "elements", "rapidoc", "openapi.yaml", "openapi.yml"):
        assert (await api.http.get(f"/schema/{path}")).status_code == 404, path


DOPPELKOPF_CARDS = [f"{rank}{suit}" for rank in ("9", "10", "J", "Q", "K", "A") for suit in "CSHD"]
"""The 24 different cards of a Doppelkopf deck (R2.1: A, 10, K, Q, J, 9 of each suit, each twice),
as the API names them."""


async def test_the_card_pictures_are_the_pinned_deck_with_its_licence(api: Any) -> None:
    """Every card of the deck has its picture, unchanged as packed (the SHA-256 recorded
    beside them), its licence beside it (LGPL-3.0 with the GPL it extends), and the service
    serves each one as an SVG image of its own."""
    cards = WEB / "vendor" / "cards"
    recorded = dict(
        (name, digest)
        for digest, name in re.findall(
            r"^([0-9a-f]{64})  (\S+)$", (cards / "SHA256SUMS").read_text(encoding="utf-8"), re.M
        )
    )
    assert sorted(recorded) == sorted(f"{card}.svg" for card in DOPPELKOPF_CARDS)
    assert sorted(p.name for p in cards.glob("*.svg")) == sorted(recorded)
    for name, digest in recorded.items():
        assert hashlib.sha256((cards / name).read_bytes()).hexdigest() == digest, name
    assert "GNU LESSER GENERAL PUBLIC LICENSE" in (cards / "COPYING.LESSER.txt").read_text()
    assert "GNU GENERAL PUBLIC LICENSE" in (cards / "COPYING.txt").read_text()
    for card in DOPPELKOPF_CARDS:
        picture = await api.http.get(f"/web/vendor/cards/{card}.svg")
        assert picture.status_code == 200, card
        assert picture.headers["content-type"].startswith("image/svg+xml"), card
        assert picture.content == (cards / f"{card}.svg").read_bytes()


async def test_the_pages_are_not_part_of_the_api(api: Any) -> None:
    """The served OpenAPI document (and so the committed one, which a test keeps equal)
    has no page, and the API's own paths still answer as the API."""
    document = (await api.http.get("/schema/openapi.json")).json()
    api_paths = ("/tables", "/tournaments", "/feed", "/health", "/.well-known/")
    assert all(p.startswith(api_paths) for p in document["paths"])
    created = await api.http.post("/tables", json={"name": "pages", "visibility": "public"})
    assert created.status_code == 201
    table = created.json()["table_id"]
    assert (await api.http.get(f"/tables/{table}")).json()["name"] == "pages"
    assert (await api.http.get(f"/t/{table}")).headers["content-type"].startswith("text/html")
