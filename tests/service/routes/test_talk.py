"""Table talk through the live service (T5): said by a seat or a spectator, heard on every
viewer's stream beside the events (no event id of its own), refused as the rules say, paced
per sender, muted by the host only, and never in the log, the export or a deal record.

Every refused message is checked to keep nothing (the table's talk and events stay as they
were)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx
import pytest

from service.app import create_app
from service.tools.client import DokoClient, ProblemError, SeatClient, TableClient
from service.tools.play import play_session, random_players
from service.tools.talk_client import TalkClient
from tests.service.conftest import Clock, serve, settings

pytestmark = pytest.mark.xdist_group("talk")

WAIT = 120.0
"""The bound of every wait for a stream message (never reached unless something is broken)."""
MESSAGES, SECONDS = 3, 10
"""The talk pace of the module's service: 3 messages in any 10 s per sender."""


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
async def talk_url(db_url: str, clock: Clock) -> AsyncIterator[str]:
    app = create_app(
        settings(db_url, talk_messages=MESSAGES, talk_seconds=SECONDS), rate_clock=clock
    )
    async with serve(app) as url:
        yield url


@pytest.fixture
async def api(talk_url: str, clock: Clock) -> AsyncIterator[DokoClient]:
    clock.now += 10 * SECONDS  # every test starts with the pace's windows empty
    async with httpx.AsyncClient(base_url=talk_url, timeout=30.0) as http:
        yield DokoClient(http)


async def seated(
    api: DokoClient, visibility: str = "public"
) -> tuple[TableClient, list[SeatClient]]:
    table = await api.create_table("talk", visibility=visibility, first_dealer=0)
    seats = [await table.take_seat(name) for name in ("Anna", "Ben", "Cem", "Dora")]
    return table, seats


async def kept(pool: asyncpg.Pool, table_id: str) -> tuple[int, int]:
    """The table's talk rows and event rows."""
    talk = await pool.fetchval("SELECT count(*) FROM table_talk WHERE stream_id = $1", table_id)
    events = await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1", table_id)
    return talk, events


@asynccontextmanager
async def nothing_kept(pool: asyncpg.Pool, table_id: str) -> AsyncIterator[None]:
    before = await kept(pool, table_id)
    yield
    assert await kept(pool, table_id) == before


def problem(error: pytest.ExceptionInfo[ProblemError]) -> tuple[int, str | None, str | None]:
    return error.value.status, error.value.code, error.value.rule


async def next_talk(messages: AsyncIterator[Any]) -> dict[str, Any]:
    """The next ``talk`` message's data on a stream (events before it are passed over)."""
    async with asyncio.timeout(WAIT):
        async for message in messages:
            if message.event == "talk":
                data: dict[str, Any] = message.json()
                return data
    raise AssertionError("the stream ended")


async def test_a_seat_is_heard_on_every_viewers_stream_without_an_event_id(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    table, seats = await seated(api)
    talk = TalkClient(table)
    version = (await table.view()).version
    async with seats[1].events() as at_ben, table.events() as watching:
        said = await talk.say("  Gut gespielt!  ", token=seats[0].token)
        heard = [await next_talk(at_ben), await next_talk(watching)]
    assert said.message.text == "Gut gespielt!" and said.message.name == "Anna"
    for data in heard:
        assert data["type"] == "talk" and data["kind"] == "said"
        assert (data["seat"], data["name"], data["text"]) == (0, "Anna", "Gut gespielt!")
        assert data["talk_id"] == said.message.talk_id and data["server_time"]
    assert (await table.view(version)).version == version  # no event, no version
    assert (await talk.read()).messages[-1].talk_id == said.message.talk_id


async def test_a_resumed_stream_leaves_out_old_talk_which_after_reads(api: DokoClient) -> None:
    table, seats = await seated(api)
    talk = TalkClient(table)
    first = await talk.say("Hallo zusammen", token=seats[0].token)
    second = await talk.say("Hello everyone", token=seats[1].token)
    assert [m.text for m in (await talk.read(after=first.message.talk_id)).messages] == [
        "Hello everyone"
    ]
    version = (await table.view()).version
    async with table.events(last_event_id=str(version)) as resumed:
        third = await talk.say("Danke", token=seats[2].token)
        data = await next_talk(resumed)
    assert data["talk_id"] == third.message.talk_id > second.message.talk_id


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("   ", "blank once trimmed"),
        ("x" * 201, "201 characters"),
        ("ding\x07dong", "a control character"),
        ("line\nbreak", "a line break"),
        ("abc\u202edef", "a right-to-left override"),
        ("\u2067hidden\u2069", "a bidi isolate"),
    ],
)
async def test_text_against_t5_1_is_refused_and_nothing_kept(
    api: DokoClient, pool: asyncpg.Pool, text: str, why: str
) -> None:
    table, seats = await seated(api)
    async with nothing_kept(pool, table.table_id):
        with pytest.raises(ProblemError) as refused:
            await TalkClient(table).say(text, token=seats[0].token)
    assert problem(refused) == (400, "talk_text", "T5.1"), why


async def test_exactly_200_characters_and_a_name_of_40_are_kept_trimmed(api: DokoClient) -> None:
    table, seats = await seated(api)
    talk = TalkClient(table)
    assert len((await talk.say("ä" * 200, token=seats[0].token)).message.text) == 200
    assert (await talk.say("Hallo", name="K" * 40)).message.name == "K" * 40
    assert (await talk.say("Hallo", name=" Kiebitz ")).message.name == "Kiebitz"
    with pytest.raises(ProblemError) as refused:
        await talk.say("Hallo", name="K" * 41)
    assert problem(refused) == (400, "talk_text", "T5.1")


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("\uff2biebitz", "Kiebitz"),  # N1: a fullwidth K is a K
        ("Kie\u200bbitz", "Kiebitz"),  # N1: a zero-width space is removed
        ("Kiebitz\u202e", (400, "name_unseen_characters", "N2")),
        ("\u041aiebitz", (400, "name_mixed_scripts", "N3")),  # a Cyrillic K
    ],
)
async def test_a_spectators_name_is_a_name_as_the_seats_are(
    api: DokoClient, name: str, answer: str | tuple[int, str, str]
) -> None:
    """T5.1 with N1-N3: a spectator is named in the talk as a seated player is at the table."""
    table, _ = await seated(api)
    if isinstance(answer, str):
        assert (await TalkClient(table).say("Hallo", name=name)).message.name == answer
        return
    with pytest.raises(ProblemError) as refused:
        await TalkClient(table).say("Hallo", name=name)
    assert problem(refused) == answer


@pytest.mark.parametrize(
    "text",
    ["Ich habe die Kreuz-Dame", "QC", "spiel mal 10H", "Wir sind Re", "no trumps left", "Fuchs!"],
)
async def test_a_seated_player_names_no_card_during_a_deal(
    api: DokoClient, pool: asyncpg.Pool, text: str
) -> None:
    """T5.2: during a deal a seat's message naming a card, suit, trump or party is refused;
    a spectator's (who sees no hand) is not."""
    table, seats = await seated(api)
    async with nothing_kept(pool, table.table_id):
        with pytest.raises(ProblemError) as refused:
            await TalkClient(table).say(text, token=seats[3].token)
    assert problem(refused) == (409, "talk_names_card", "T5.2")
    assert (await TalkClient(table).say(text, name="Kiebitz")).message.seat is None


async def test_before_the_session_a_seat_may_name_cards(api: DokoClient) -> None:
    table = await api.create_table("talk", visibility="public")
    anna = await table.take_seat("Anna")
    said = await TalkClient(table).say("Heute nur Kreuz-Damen!", token=anna.token)
    assert said.message.text == "Heute nur Kreuz-Damen!"


def talk_item(field: str) -> str:
    """The ``"talk"`` item of a RateLimit or RateLimit-Policy field (a list: the service's
    other limits add their items)."""
    (item,) = [i for i in field.split(", ") if i.startswith('"talk"')]
    return item


async def test_each_sender_is_paced_with_ratelimit_fields(api: DokoClient, clock: Clock) -> None:
    table, seats = await seated(api)
    talk = TalkClient(table)
    answers = [await talk.say(f"Nachricht {n}", token=seats[0].token) for n in range(MESSAGES)]
    assert [talk_item(a.rate_limit) for a in answers] == [
        f'"talk";r={MESSAGES - n};t={SECONDS}' for n in range(1, MESSAGES + 1)
    ]
    assert talk_item(answers[0].rate_limit_policy) == f'"talk";q={MESSAGES};w={SECONDS}'
    with pytest.raises(ProblemError) as refused:
        await talk.say("noch eine", token=seats[0].token)
    assert (refused.value.status, refused.value.code) == (429, "rate_limited")
    assert refused.value.headers["retry-after"] == str(SECONDS)
    assert f'"talk";r=0;t={SECONDS}' in refused.value.headers.get_list("ratelimit")
    await talk.say("Ich darf", token=seats[1].token)  # another sender has its own window
    clock.now += SECONDS
    await talk.say("wieder da", token=seats[0].token)


async def test_only_the_host_mutes_a_seat_or_the_spectators(
    api: DokoClient, pool: asyncpg.Pool
) -> None:
    table, seats = await seated(api)
    talk = TalkClient(table)
    as_seat = TalkClient(api.table(table.table_id))
    async with nothing_kept(pool, table.table_id):
        as_seat.table.host_token = seats[0].token  # a seat token is no host token
        with pytest.raises(ProblemError) as refused:
            await as_seat.mute(2)
    assert problem(refused)[:2] == (401, "unauthorized")
    async with table.events() as watching:
        state = await talk.mute(2)
        heard = await next_talk(watching)
    assert (state.muted_seats, state.spectators_muted) == ([2], False)
    assert (heard["kind"], heard["seat"], heard["text"]) == ("muted", 2, "")
    async with nothing_kept(pool, table.table_id):
        with pytest.raises(ProblemError) as refused:
            await talk.say("Hallo", token=seats[2].token)
    assert problem(refused) == (409, "talk_muted", "T5.3")
    await talk.say("Hallo", token=seats[1].token)  # the others still talk
    state = await talk.mute(None)
    assert (state.muted_seats, state.spectators_muted) == ([2], True)
    with pytest.raises(ProblemError) as refused:
        await talk.say("Hallo", name="Kiebitz")
    assert problem(refused) == (409, "talk_muted", "T5.3")
    await talk.mute(2, muted=False)
    await talk.mute(None, muted=False)
    assert (await talk.say("Danke", token=seats[2].token)).message.seat == 2
    assert (await talk.say("Danke", name="Kiebitz")).message.seat is None
    read = await talk.read()
    assert (read.muted_seats, read.spectators_muted) == ([], False)


async def test_a_private_tables_talk_takes_a_credential_of_it(api: DokoClient) -> None:
    table, _ = await seated(api, visibility="private")
    stranger = TalkClient(api.table(table.table_id))
    for attempt in (stranger.say("Hallo"), stranger.read()):
        with pytest.raises(ProblemError) as refused:
            await attempt
        assert problem(refused)[:2] == (404, "table_not_found")
    invited = TalkClient(api.table(table.table_id, invitation=table.invitation))
    assert (await invited.say("Hallo", name="Gast")).message.name == "Gast"
    assert [m.text for m in (await invited.read()).messages] == ["Hallo"]


async def test_talk_is_in_no_event_export_or_deal_record(
    api: DokoClient, pool: asyncpg.Pool, clock: Clock
) -> None:
    """T5.1: talk said during a deal, between deals and after the session is nowhere in the
    log, the signed export or the deal's record."""
    table, seats = await seated(api)
    talk = TalkClient(table)
    secret = "Tschüss-geheimnis-7q"
    await talk.say(f"{secret} am Anfang", token=seats[0].token)
    await play_session(seats, random_players(seed=5), deals=1)
    await talk.say(f"{secret} nach dem Spiel", token=seats[1].token)
    await talk.say(f"{secret} vom Rand", name="Kiebitz")
    await table.abandon()
    await talk.say(f"{secret} am Ende", token=seats[2].token)
    events = await pool.fetch(
        "SELECT payload::text FROM events WHERE stream_id = $1", table.table_id
    )
    assert events and not any(secret in row["payload"] for row in events)
    credential = {"authorization": f"Bearer {table.host_token}"}
    export = await api.http.get(f"{table.path}/export", headers=credential)
    record = await api.http.get(f"{table.path}/deals/1", headers=credential)
    assert (export.status_code, record.status_code) == (200, 200)
    for body in (export.text, record.text):
        assert secret not in body
    assert len((await talk.read()).messages) == 4
