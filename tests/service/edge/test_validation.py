"""Validation errors in doko's words (RFC 9457 ``errors``: a JSON Pointer or a parameter,
and what is wrong), and 415 for a body that is not JSON."""

from __future__ import annotations

import httpx
import msgspec
import pytest

from service.edge.validation import described, reworded

# litestar's report -> doko's, by hand
WORDING = [
    (
        {"message": "Expected `str` of length <= 100", "key": "name", "source": "body"},
        {"pointer": "#/name", "detail": "must be at most 100 characters long"},
    ),
    (
        {"message": "Expected `array` of length >= 12", "key": "presets", "source": "body"},
        {"pointer": "#/presets", "detail": "must be at least 12 items"},
    ),
    (
        {"message": "Expected `str`, got `int`", "key": "name", "source": "body"},
        {"pointer": "#/name", "detail": "must be a string, not an integer"},
    ),
    (
        {"message": "Expected `int | null`, got `str`", "key": "turn_seconds", "source": "body"},
        {"pointer": "#/turn_seconds", "detail": "must be an integer or null, not a string"},
    ),
    (
        {"message": "Expected `int` <= 3", "key": "seat", "source": "path"},
        {"parameter": "seat", "in": "path", "detail": "must be at most 3"},
    ),
    (
        {"message": "Expected `int` >= 0", "key": "after", "source": "query"},
        {"parameter": "after", "in": "query", "detail": "must be at least 0"},
    ),
    (
        {"message": "Invalid enum value 'XX'", "key": "presets[0][1][2]", "source": "body"},
        {"pointer": "#/presets/0/1/2", "detail": "is not one of the allowed values"},
    ),
    (
        {"message": "Object missing required field `name`", "key": "data", "source": "body"},
        {"pointer": "#/name", "detail": "is required"},
    ),
    (
        {"message": "Object contains unknown field `nme`", "key": "data", "source": "body"},
        {"pointer": "#/nme", "detail": "is not a member of this request"},
    ),
    (
        {"message": "Expected `object`, got `array`", "key": "data", "source": "body"},
        {"pointer": "#", "detail": "must be an object, not an array"},
    ),
    (
        {"message": "Expected `str` matching regex '^[^\\x00]*$'", "key": "name", "source": "body"},
        {"pointer": "#/name", "detail": "must not contain control characters"},
    ),
    (
        {"message": "Expected `int`, got `str` - at `$.seeds[3]`", "key": "data", "source": "body"},
        {"pointer": "#/seeds/3", "detail": "must be an integer, not a string"},
    ),
    (
        {"message": "something new", "key": "a/b~c", "source": "body"},
        {"pointer": "#/a~1b~0c", "detail": "is not valid"},
    ),
]


@pytest.mark.parametrize(("litestar", "doko"), WORDING)
def test_validation_errors_are_reworded(litestar: dict[str, str], doko: dict[str, str]) -> None:
    assert msgspec.to_builtins(reworded(litestar)) == doko


def test_the_detail_names_every_error() -> None:
    errors = [reworded(litestar) for litestar, _ in WORDING[3:5]]
    assert described(errors) == (
        "the request is not valid: #/turn_seconds must be an integer or null, not a string; "
        "seat must be at most 3"
    )


async def test_a_request_gets_dokos_words_not_the_librarys(http: httpx.AsyncClient) -> None:
    response = await http.post("/tables/x/seats/9/play", json={"card": "XX"})
    assert response.status_code == 400
    problem = response.json()
    assert problem["code"] == "malformed_request"
    assert problem["errors"] == [
        {"parameter": "seat", "in": "path", "detail": "must be at most 3"},
        {"pointer": "#/card", "detail": "is not one of the allowed values"},
    ]
    assert "Validation failed" not in problem["detail"] and "`" not in problem["detail"]


@pytest.mark.parametrize(
    ("content_type", "status", "code"),
    [
        ("text/plain", 415, "unsupported_media_type"),
        ("application/x-www-form-urlencoded", 415, "unsupported_media_type"),
        ("application/json; charset=utf-8", 201, None),
        ("application/merge-patch+json", 201, None),
    ],
)
async def test_a_body_that_is_not_json_is_415(
    http: httpx.AsyncClient, content_type: str, status: int, code: str | None
) -> None:
    response = await http.post(
        "/tables", content=b'{"name": "media"}', headers={"content-type": content_type}
    )
    assert response.status_code == status, response.text
    if code:
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == code


async def test_a_body_that_is_not_valid_json_is_400(http: httpx.AsyncClient) -> None:
    response = await http.post(
        "/tables", content=b"hello", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "the body is not valid JSON"


DECK_HAND = ["QC"] * 12


def _presets(hand: list[str], hands: int = 4) -> list[list[list[str]]]:
    return [[list(hand) for _ in range(hands)] for _ in range(12)]


@pytest.mark.parametrize(
    ("body", "code", "rule", "pointer"),
    [
        ({"turn_seconds": 3}, "invalid_table_option", "T3.1", "#/turn_seconds"),
        ({"turn_seconds": 601}, "invalid_table_option", "T3.1", "#/turn_seconds"),
        ({"visibility": "secret"}, "invalid_table_option", "T1.1", "#/visibility"),
        ({"presets": _presets(["QX", *DECK_HAND[1:]])}, "invalid_card", "R2.1", "#/presets/0/0/0"),
        ({"presets": _presets(DECK_HAND[3:])}, "invalid_deal", "R2.2", "#/presets/0/0"),
        ({"presets": _presets(DECK_HAND, hands=3)}, "invalid_deal", "R2.2", "#/presets/0"),
        ({"turn_seconds": "30s"}, "malformed_request", None, "#/turn_seconds"),
        ({"first_dealer": 4}, "malformed_request", None, "#/first_dealer"),
        ({"nmae": "typo"}, "malformed_request", None, "#/nmae"),
    ],
)
async def test_a_table_option_out_of_its_rule_carries_the_rules_code(
    http: httpx.AsyncClient, body: dict[str, object], code: str, rule: str | None, pointer: str
) -> None:
    """A value of the right type that a rule does not allow is refused as the domain refuses
    it, with its code and rule id (README, Problem codes); a value of the wrong type, or an
    unknown member, is a malformed request. Both name the place in ``errors``."""
    response = await http.post("/tables", json=body)
    assert response.status_code == 400, response.text
    problem = response.json()
    assert (problem["code"], problem.get("rule")) == (code, rule)
    assert [e["pointer"] for e in problem["errors"]] == [pointer]


@pytest.mark.parametrize(
    ("body", "code", "rule", "pointer"),
    [
        ({"name": "t", "rounds": 13}, "invalid_tournament_option", "E1.1", "#/rounds"),
        ({"name": "t", "turn_seconds": 3}, "invalid_tournament_option", "E1.1", "#/turn_seconds"),
        ({"name": "t", "visibility": "x"}, "invalid_tournament_option", "E1.1", "#/visibility"),
        (
            {"name": "t", "rounds": 1, "presets": [_presets(DECK_HAND)[:3]]},
            "invalid_tournament_option",
            "E1.2",
            "#/presets/0",
        ),
        (
            {"name": "t", "rounds": 1, "presets": [_presets(DECK_HAND, hands=5)]},
            "invalid_deal",
            "R2.2",
            "#/presets/0/0",
        ),
        (
            {"name": "t", "rounds": 1, "presets": [_presets(["9X", *DECK_HAND[1:]])]},
            "invalid_card",
            "R2.1",
            "#/presets/0/0/0/0",
        ),
    ],
)
async def test_a_tournament_option_out_of_its_rule_carries_the_rules_code(
    http: httpx.AsyncClient, body: dict[str, object], code: str, rule: str, pointer: str
) -> None:
    response = await http.post("/tournaments", json=body)
    assert response.status_code == 400, response.text
    problem = response.json()
    assert (problem["code"], problem.get("rule")) == (code, rule)
    assert [e["pointer"] for e in problem["errors"]] == [pointer]


async def test_a_card_that_is_none_is_invalid_card(http: httpx.AsyncClient) -> None:
    """``QX`` is no card (R2.1): 400 ``invalid_card`` with the rule, whatever the table (the
    body is judged before the table is looked up); a card of the wrong type is malformed."""
    response = await http.post("/tables/x/seats/0/play", json={"card": "QX"})
    assert response.status_code == 400
    problem = response.json()
    assert (problem["code"], problem["rule"]) == ("invalid_card", "R2.1")
    assert problem["errors"] == [
        {"pointer": "#/card", "detail": "is not one of the allowed values"}
    ]
    wrong_type = await http.post("/tables/x/seats/0/play", json={"card": 12})
    assert (wrong_type.status_code, wrong_type.json()["code"]) == (400, "malformed_request")


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        (b'{"name": "first", "name": "second"}', "#/name"),
        (
            b'{"name": "t", "presets": null, "visibility": "private", "visibility": "public"}',
            "#/visibility",
        ),
        (b'{"name": "a/b", "seeds": null, "x~y": 1, "x~y": 2}', "#/x~0y"),
    ],
)
async def test_a_body_that_names_a_member_twice_is_refused(
    http: httpx.AsyncClient, body: bytes, pointer: str
) -> None:
    """A body has one reading: an object that names a member twice (msgspec would keep the
    last, another reader the first) is 400 ``duplicate_member`` with the member's pointer,
    before anything is written (the exports are read as strictly: infra/audit/strict.py)."""
    before = (await http.get("/tables", params={"status": "open"})).json()["tables"]
    response = await http.post(
        "/tables", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400, response.text
    problem = response.json()
    assert problem["code"] == "duplicate_member"
    assert problem["errors"] == [{"pointer": pointer, "detail": "appears twice in one object"}]
    assert (await http.get("/tables", params={"status": "open"})).json()["tables"] == before


async def test_a_nested_member_named_twice_is_refused_with_its_place(
    http: httpx.AsyncClient,
) -> None:
    body = b'{"name": "t", "rounds": 1, "presets": [[[{"a": 1, "a": 2}]]]}'
    response = await http.post(
        "/tournaments", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "duplicate_member"
    assert response.json()["errors"][0]["pointer"] == "#/presets/0/0/0/a"
