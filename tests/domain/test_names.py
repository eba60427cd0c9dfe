"""Names (N1-N4, `domain.names`): what is kept, what is refused, what is the same name.

The expectations are written out by hand from the Unicode tables (the characters' names and
categories in the comments), not computed by the functions under test."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import DomainError
from domain.names import name_key, normal_name

KEPT = [
    ("Anna", "Anna"),
    ("  Anna  ", "Anna"),
    ("Anna\u200b", "Anna"),  # ZERO WIDTH SPACE, Cf
    ("\ufeffAnna", "Anna"),  # ZERO WIDTH NO-BREAK SPACE (byte order mark), Cf
    ("An\u00adna", "Anna"),  # SOFT HYPHEN, Cf
    ("\uff21nna", "Anna"),  # FULLWIDTH LATIN CAPITAL LETTER A -> A (NFKC)
    ("\ufb01sh", "fish"),  # LATIN SMALL LIGATURE FI -> fi (NFKC)
    ("Jose\u0301", "Jos\u00e9"),  # e + COMBINING ACUTE -> e-acute (NFKC composes)
    ("\u0410\u043d\u043d\u0430", "\u0410\u043d\u043d\u0430"),  # "Anna" wholly in Cyrillic
    ("\u5c71\u7530\u3055\u304f\u3089", "\u5c71\u7530\u3055\u304f\u3089"),  # Han + Hiragana
    ("Anna 2", "Anna 2"),
    ("Friday club \u00b7 round 1", "Friday club \u00b7 round 1"),
]


@pytest.mark.parametrize(("given_name", "kept"), KEPT)
def test_a_name_is_kept_in_nfkc_without_format_characters(given_name: str, kept: str) -> None:
    """N1."""
    assert normal_name(given_name) == kept


REFUSED = [
    ("\u202eevil", "name_unseen_characters", "N2"),  # RIGHT-TO-LEFT OVERRIDE
    ("An\u2066na", "name_unseen_characters", "N2"),  # LEFT-TO-RIGHT ISOLATE
    ("Anna\u200f", "name_unseen_characters", "N2"),  # RIGHT-TO-LEFT MARK
    ("An\u061cna", "name_unseen_characters", "N2"),  # ARABIC LETTER MARK
    ("\u3164", "name_unseen_characters", "N2"),  # HANGUL FILLER (a letter, Lo)
    ("Anna\u2800", "name_unseen_characters", "N2"),  # BRAILLE PATTERN BLANK
    ("An\tna", "name_unseen_characters", "N2"),  # a control character, Cc
    ("An\u2028na", "name_unseen_characters", "N2"),  # LINE SEPARATOR, Zl
    ("\u0410nna", "name_mixed_scripts", "N3"),  # CYRILLIC CAPITAL LETTER A + Latin
    ("P\u0430ypal", "name_mixed_scripts", "N3"),  # CYRILLIC SMALL LETTER A inside Latin
    ("\u0391nna", "name_mixed_scripts", "N3"),  # GREEK CAPITAL LETTER ALPHA + Latin
]


@pytest.mark.parametrize(("given_name", "code", "rule"), REFUSED)
def test_look_alike_and_invisible_names_are_refused_as_malformed(
    given_name: str, code: str, rule: str
) -> None:
    """N2, N3: refused with a stable code, a 400 (``malformed``)."""
    with pytest.raises(DomainError) as caught:
        normal_name(given_name)
    assert (caught.value.code, caught.value.rule, caught.value.malformed) == (code, rule, True)


@pytest.mark.parametrize(
    "other", ["anna", "ANNA", " Anna", "Anna\u200b", "\ufeffAnna", "\uff21nna", "\uff41NNA"]
)
def test_look_alikes_are_one_name(other: str) -> None:
    """N4: compared after N1 and case folding."""
    assert name_key(normal_name(other)) == name_key("Anna")


def test_names_of_other_letters_stay_other_names() -> None:
    """N4: case folding joins cases, not scripts: the Cyrillic "Anna" is another name."""
    assert name_key(normal_name("\u0410\u043d\u043d\u0430")) != name_key("Anna")
    assert name_key("Stra\u00dfe") == name_key("STRASSE")  # full case folding


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20))
def test_a_kept_name_is_kept_as_it_is(text: str) -> None:
    """N1-N3: a kept name is its own normal form (normalising twice changes nothing)."""
    try:
        kept = normal_name(text)
    except DomainError:
        return
    assert normal_name(kept) == kept
