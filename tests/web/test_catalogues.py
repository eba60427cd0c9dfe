"""The pages' words: one catalogue per language (service/web/i18n/de.json and en.json) with
the same keys and the same places to fill; every key is used by the pages and every key the
pages ask for is there; every API word the pages show, and every problem code, has its words
in both; every rule the pages show has its German text beside RULES.md's English one."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from service.edge.codes import ProblemCode
from service.routes.pages import RULE_FILES, WEB, rule_texts

I18N = WEB / "i18n"
LANGUAGES = ("de", "en")
PLURAL = {"one", "other"}
"""The Intl.PluralRules categories of German and English."""
SCHEMA = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
SHOWN_ENUMS = {
    "GameType": "game",
    "Declaration": "declaration",
    "Party": "party",
    "Word": "word",
    "Phase": "phase",
    "SeatStatus": "seat_status",
    "TableStatus": "table_status",
    "Visibility": "visibility",
    "StandingsMethod": "method",
    "TournamentStatus": "tournament_status",
    "DecisionKind": "decision_kind",
}
"""The API's enums whose values the pages show, and the catalogue family that words them
(bot kinds are named by their API name when the catalogue does not know a new one)."""


def catalogue(lang: str) -> dict[str, Any]:
    return dict(json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8")))


def code() -> str:
    """The pages' code (the table page's parts in web/table/ too) and shell, where the keys
    are used."""
    modules = sorted([*WEB.glob("*.js"), *WEB.glob("table/*.js")])
    return "\n".join(p.read_text(encoding="utf-8") for p in modules) + (
        WEB / "shell.html"
    ).read_text(encoding="utf-8")


def places(text: str | dict[str, str]) -> set[str]:
    texts = text.values() if isinstance(text, dict) else [text]
    return {name for t in texts for name in re.findall(r"\{(\w+)\}", t)}


def test_every_catalogue_has_every_key_with_the_same_places() -> None:
    de, en = catalogue("de"), catalogue("en")
    assert sorted(de) == sorted(en)
    for key in en:
        assert places(de[key]) == places(en[key]), key
        for text in (de[key], en[key]):
            assert text, key
            if isinstance(text, dict):
                assert set(text) == PLURAL, key


def test_every_key_is_used_and_every_key_used_is_there() -> None:
    source = code()
    families = set(re.findall(r"term\('(\w+)'", source))
    families |= set(re.findall(r"t\(`(\w+)\.\$\{", source))
    quoted = set(re.findall(r"""['"]([a-z_]+\.[\w.]+)['"]""", source))
    keys = set(catalogue("en"))
    unused = [k for k in keys if k not in quoted and k.split(".")[0] not in families]
    assert unused == []
    asked = set(re.findall(r"\bt\('([^']+)'", source))
    assert asked - keys == set()


def test_every_api_word_the_pages_show_has_its_words() -> None:
    schemas = json.loads(SCHEMA.read_text(encoding="utf-8"))["components"]["schemas"]
    for lang in LANGUAGES:
        words = catalogue(lang)
        missing = [
            f"{family}.{value}"
            for enum, family in SHOWN_ENUMS.items()
            for value in schemas[enum]["enum"]
            if f"{family}.{value}" not in words
        ]
        assert missing == [], lang


LOCAL_CODE = re.compile(r"\bcode: '(\w+)'")
"""How api.js names the problems it makes itself (no answer, an error of the page)."""
BRACKETED_RULE = re.compile(r"\([^)]*\b[NRTEV]\d+(\.\d+)?\b[^)]*\)")
"""A rule id in brackets in a sentence (``(T5.2)``, ``(V1-V6)``)."""
RAW = re.compile(rf"\b[a-z]+_[a-z_]+\b|\b[45]\d\d\b|{BRACKETED_RULE.pattern}")
"""A raw problem code (``session_over``), an HTTP status (``(409)``, ``404``), or a rule id
in brackets: a refusal's words carry none; its rule is shown as a link."""


def refusal_codes() -> set[str]:
    """Every code a page can meet: the service's closed list (`ProblemCode`, which a test of
    the service keeps equal to the codes its source answers and to the domain's errors, and
    the OpenAPI document's ``ProblemCode``), and the problems api.js makes itself."""
    schemas = json.loads(SCHEMA.read_text(encoding="utf-8"))["components"]["schemas"]
    local = set(LOCAL_CODE.findall((WEB / "api.js").read_text(encoding="utf-8")))
    return {c.value for c in ProblemCode} | set(schemas["ProblemCode"]["enum"]) | local


def test_every_refusal_says_what_happened_and_what_to_do() -> None:
    """A refusal is shown from its ``code`` in the page's language, never in the server's
    English ``detail``: for every code, in both catalogues, what happened (``problem.<code>``,
    one clause, as it follows "Not done:") and what to do (``remedy.<code>``, a sentence of
    its own), without the code, an HTTP status or a rule id in brackets."""
    codes = refusal_codes()
    assert len(codes) > 90 and {"no_answer", "client_error", "session_over"} <= codes
    for lang in LANGUAGES:
        words = catalogue(lang)
        wrong = {}
        for code in sorted(codes | {"unknown"}):
            what, todo = words.get(f"problem.{code}", ""), words.get(f"remedy.{code}", "")
            if not what or what.endswith(".") or ":" in what or RAW.search(what):
                wrong[f"problem.{code}"] = what
            if not todo[:1].isupper() or not todo.endswith(".") or RAW.search(todo) or todo == what:
                wrong[f"remedy.{code}"] = todo
        assert wrong == {}, lang
        remedies = {k.split(".", 1)[1] for k in words if k.startswith("remedy.")}
        assert remedies == codes | {"unknown"}, lang


def test_no_text_names_a_rule_in_brackets() -> None:
    """A page names a rule by its link (``{rule}`` in a text, or the rule beside it), never
    by an id in brackets at the end of a sentence."""
    for lang in LANGUAGES:
        texts = {
            key: text
            for key, value in catalogue(lang).items()
            for text in (value.values() if isinstance(value, dict) else [value])
        }
        assert {k: t for k, t in texts.items() if BRACKETED_RULE.search(t)} == {}, lang


def test_every_rule_shown_has_its_english_and_its_german_text() -> None:
    english: dict[str, str] = {}
    for name in RULE_FILES:
        english.update(rule_texts((WEB / name).read_text(encoding="utf-8")))
    german = json.loads((I18N / "rules.de.json").read_text(encoding="utf-8"))
    assert sorted(german) == sorted(english)
    assert all(text.strip() for text in german.values())
