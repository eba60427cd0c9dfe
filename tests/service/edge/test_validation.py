"""Validation errors in doko's words (RFC 9457 ``errors``: a JSON Pointer or a parameter,
and what is wrong), and 415 for a body that is not JSON."""

from __future__ import annotations

import httpx
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
    assert reworded(litestar) == doko


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
