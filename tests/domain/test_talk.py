"""What may be said at a table (`domain.talk`, T5). The expectations are written by hand from
T5.1-T5.4 as domain/table.py's docstring states them, and from the card words of RULES.md
(R2.1 codes; the German and English names of the cards, suits and parties)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.errors import (
    DomainError,
    MixedScripts,
    TalkMuted,
    TalkNamesCard,
    TalkText,
    UnseenCharacters,
)
from domain.seats import Seat
from domain.table import TableState, TakeSeat
from domain.talk import (
    MAX_NAME,
    MAX_TEXT,
    Mutes,
    in_deal,
    names_a_card,
    said,
    spectator_name,
    words,
)
from tests.domain.test_table import SERVER, abandoned, created, finished, run, seated

CATALOGUES = Path(__file__).parents[2] / "service" / "web" / "i18n"


def one_seat() -> TableState:
    """NORTH sits at an open table: the session has not started."""
    state, _ = run(created(SERVER), TakeSeat("Anna", "h0", Seat.NORTH))
    return state


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Gut gespielt!", "Gut gespielt!"),
        ("  Danke \t", "Danke"),
        ("e\u0301", "\u00e9"),  # NFC: one character
        ("ä" * MAX_TEXT, "ä" * MAX_TEXT),
        ("Schönen Abend 🙂", "Schönen Abend 🙂"),
    ],
)
def test_words_are_trimmed_and_composed(text: str, kept: str) -> None:
    assert words(text) == kept


@pytest.mark.parametrize(
    "text",
    ["", " \t ", "x" * (MAX_TEXT + 1), "a\x00b", "a\nb", "a\x1bb", "a\x85b", "a\u202eb", "\u2066x"],
)
def test_empty_long_control_and_direction_characters_are_refused(text: str) -> None:
    with pytest.raises(TalkText) as refused:
        words(text)
    assert (refused.value.code, refused.value.rule, TalkText.malformed) == (
        "talk_text",
        "T5.1",
        True,
    )


@pytest.mark.parametrize(
    ("name", "kept"),
    [
        ("Kiebitz", "Kiebitz"),
        ("  Oma Erna ", "Oma Erna"),  # N1: no surrounding spaces
        ("\uff21nna", "Anna"),  # N1: NFKC, a fullwidth A is an A
        ("Jo\u200bhanna", "Johanna"),  # N1: a zero-width space (Cf) is removed
        ("ä" * MAX_NAME, "ä" * MAX_NAME),
        ("山田さん", "山田さん"),  # N3: Han with Hiragana, as Japanese writes them
    ],
)
def test_a_spectators_name_is_kept_as_a_seated_players_is(name: str, kept: str) -> None:
    assert spectator_name(name) == kept


@pytest.mark.parametrize(
    ("name", "refusal", "code", "rule"),
    [
        ("Anna\u202e", UnseenCharacters, "name_unseen_characters", "N2"),  # a bidi control
        ("An\u3164na", UnseenCharacters, "name_unseen_characters", "N2"),  # a Hangul filler
        ("A\u2028nna", UnseenCharacters, "name_unseen_characters", "N2"),  # a line separator
        ("a\nb", UnseenCharacters, "name_unseen_characters", "N2"),  # a control character
        ("\u0410nna", MixedScripts, "name_mixed_scripts", "N3"),  # a Cyrillic A
        ("", TalkText, "talk_text", "T5.1"),
        ("   ", TalkText, "talk_text", "T5.1"),
        ("x" * (MAX_NAME + 1), TalkText, "talk_text", "T5.1"),
    ],
)
def test_a_spectators_name_breaking_n1_n3_or_t5_1_is_refused(
    name: str, refusal: type[DomainError], code: str, rule: str
) -> None:
    with pytest.raises(refusal) as refused:
        spectator_name(name)
    assert (refused.value.code, refused.value.rule) == (code, rule)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Ich habe die Kreuz-Dame", True),
        ("QC", True),
        ("spiel 10H!", True),
        ("kein Trumpf mehr", True),
        ("Wir sind Re", True),
        ("contra!", True),
        ("the queen of clubs", True),
        ("Dulle", True),
        ("der Fuchs ist weg", True),
        ("Karo", True),
        ("Gut gespielt!", False),
        ("Danke", False),
        ("Well played!", False),
        ("as good as it gets", False),  # "AS" is the code only as written: upper case
        ("Herzlichen Glückwunsch", False),  # a word of its own, not a part
        ("Kreuzberg", False),
        ("die alte Frau mit dem Kleeblatt", False),  # the honest limit: spelt another way
        ("Bis nächsten Freitag", False),
    ],
)
def test_card_suit_trump_and_party_words(text: str, names: bool) -> None:
    assert names_a_card(text) is names


def test_during_a_deal_a_seated_player_names_no_card() -> None:
    state = seated()
    assert in_deal(state)
    with pytest.raises(TalkNamesCard) as refused:
        said(state, Seat.NORTH, "Ich habe die Kreuz-Dame", Mutes())
    assert (refused.value.code, refused.value.rule, TalkNamesCard.malformed) == (
        "talk_names_card",
        "T5.2",
        False,
    )
    assert said(state, None, "Ich habe die Kreuz-Dame", Mutes()) == "Ich habe die Kreuz-Dame"


@pytest.mark.parametrize("made", [one_seat, finished, abandoned])
def test_before_and_after_the_session_cards_may_be_named(made: Callable[[], TableState]) -> None:
    state = made()
    assert not in_deal(state)
    assert said(state, Seat.NORTH, "die Kreuz-Dame!", Mutes()) == "die Kreuz-Dame!"


def test_a_muted_speaker_is_refused_and_the_others_are_not() -> None:
    state = seated()
    mutes = Mutes().with_mute(Seat.EAST, True).with_mute(None, True)
    assert mutes == Mutes((Seat.EAST,), True)
    for seat in (Seat.EAST, None):
        with pytest.raises(TalkMuted) as refused:
            said(state, seat, "Hallo", mutes)
        assert refused.value.rule == "T5.3"
    assert said(state, Seat.NORTH, "Hallo", mutes) == "Hallo"
    unmuted = mutes.with_mute(Seat.EAST, False).with_mute(None, False)
    assert unmuted == Mutes() and said(state, Seat.EAST, "Hallo", unmuted) == "Hallo"


def test_bots_never_talk() -> None:
    """T5.4: seat 2 of `seated` is a bot; an empty seat has nobody to talk."""
    with pytest.raises(TalkMuted) as refused:
        said(seated(), Seat.SOUTH, "Hallo", Mutes())
    assert refused.value.rule == "T5.4"
    with pytest.raises(TalkMuted):
        said(one_seat(), Seat.EAST, "Hallo", Mutes())


@pytest.mark.parametrize("language", ["de", "en"])
def test_every_quick_phrase_of_the_page_may_be_said_during_a_deal(language: str) -> None:
    catalogue = json.loads((CATALOGUES / f"{language}.json").read_text(encoding="utf-8"))
    phrases = [v for k, v in catalogue.items() if k.startswith("talk.phrase.")]
    assert len(phrases) >= 4
    for phrase in phrases:
        assert said(seated(), Seat.NORTH, phrase, Mutes()) == phrase


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_said_keeps_only_what_t5_1_allows(text: str) -> None:
    """Whatever comes in, what is kept is trimmed, 1-200 characters, without control or
    direction characters; or it is refused with a rule."""
    try:
        kept = said(one_seat(), Seat.NORTH, text, Mutes())
    except DomainError as error:
        assert error.rule == "T5.1"
        return
    assert kept == kept.strip() and 1 <= len(kept) <= MAX_TEXT
    assert not any(ord(c) < 32 or 127 <= ord(c) < 160 or c in "\u202a\u202e\u2066" for c in kept)
