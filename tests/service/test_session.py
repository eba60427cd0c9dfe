"""Whole sessions over HTTP: four clients, each with only its own token, play 12 deals.

Everything the service sends them (responses, their seat streams, the public
stream, the feed) is recorded and then checked against the event store: the
session is scored and auditable, and nothing secret was ever disclosed.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from domain.dealing import verify_deal
from domain.events import DealDealt, DealScored, SessionFinished
from domain.replay import TABLE, replay
from domain.seats import SEATS
from domain.table import TableEvent
from infra.event_store import EventStore
from infra.tables import CODEC
from service.tools.client import (
    DokoClient,
    Received,
)
from service.tools.messages import feed_item, table_message
from service.tools.play import (
    play_session,
    random_players,
)
from tests.service.knowledge import Deal
from tests.service.sessions import (
    Recorded,
    presets_with_both_qc,
    quiet_soloist,
    record_session,
    replays_exactly,
    verified_by_the_service,
)
from tests.service.stream_schemas import StreamSchemas
from tests.service.truth import Auditor, Truth

pytestmark = pytest.mark.xdist_group("session")
"""Its tests share fixtures that play whole sessions: one worker runs them all
(`--dist loadgroup`, README), so that they are played once."""


@pytest.fixture(scope="module")
async def random_session(base_url: str) -> Recorded:
    """Server seeds, a first dealer by lot, four random players."""
    return await record_session(base_url, random_players(7))


@pytest.fixture(scope="module")
async def silent_solo_session(base_url: str) -> Recorded:
    """Preset deals where one seat holds both QC and never says reservation."""
    players = [quiet_soloist(p) for p in random_players(11)]
    return await record_session(
        base_url, players, first_dealer=0, presets=presets_with_both_qc("silent")
    )


async def truth_of(pool: asyncpg.Pool, table_id: str) -> Truth:
    return Truth(table_id, await EventStore(pool).read_stream(table_id))


async def test_a_full_session_is_scored_and_verifiable(
    random_session: Recorded, pool: asyncpg.Pool, http: httpx.AsyncClient
) -> None:
    final = random_session.final
    assert final.viewer is None
    assert len(final.scoresheet) == 12
    assert all(sum(row) == 0 for row in final.scoresheet), final.scoresheet
    totals = tuple(sum(row[s] for row in final.scoresheet) for s in SEATS)
    assert final.totals == totals
    assert final.winners is not None
    assert final.winners
    assert set(final.winners) == {s for s in SEATS if totals[s] == max(totals)}

    truth = await truth_of(pool, random_session.table_id)
    events = [CODEC.from_stored(s) for s in truth.stored]
    replays_exactly(events)
    dealt = [e for e in events if isinstance(e, DealDealt)]
    scored = [e for e in events if isinstance(e, DealScored)]
    assert [d.deal_no for d in dealt] == list(range(1, 13))
    assert [tuple(s.score.entries) for s in scored] == list(final.scoresheet)
    finished = [e for e in events if isinstance(e, SessionFinished)]
    assert len(finished) == 1
    assert tuple(finished[0].winners) == tuple(final.winners)
    for deal in dealt:
        assert verify_deal(deal.dealing, deal.dealer, deal.hands, deal.deal_no), deal.deal_no
        # the commitment published when the table was created is that of the seed
        assert deal.dealing.commitment == random_session.commitments[deal.deal_no - 1]

    await verified_by_the_service(http, random_session.table_id)  # each scored deal


async def test_the_preset_session_is_scored_and_replays(
    silent_solo_session: Recorded, pool: asyncpg.Pool
) -> None:
    final = silent_solo_session.final
    assert len(final.scoresheet) == 12
    assert all(sum(row) == 0 for row in final.scoresheet)
    assert final.winners
    truth = await truth_of(pool, silent_solo_session.table_id)
    result = replay([CODEC.from_stored(s) for s in truth.stored], TABLE)
    assert result.ok, result.error


def audit(recorded: Recorded, truth: Truth, deals: int = 12) -> Auditor:
    """Every view and message of the session of ``deals`` deals checked against the truth."""
    auditor = Auditor(truth)
    auditor.audit(recorded.transcript)
    assert not auditor.failures, "\n".join(auditor.failures)
    seen = auditor.coverage
    # many views, every viewer's whole stream and the feed were checked
    assert seen.views > 500
    assert seen.stream_messages > 5 * deals * 48
    assert seen.feed_messages > deals * 48
    assert seen.hidden_hands_checked > 500
    assert seen.actions > 500, "views with the asker's life actions"
    assert seen.parties_shown_to_others > 0
    assert seen.parties_hidden_from_others > 0
    # the deal_scored and a session_finished on four seat streams, the public one, the feed
    assert seen.chain_heads == (deals + 1) * 6
    # every message said whose turn it was; the seats' views found what their streams said
    assert seen.prompts == seen.stream_messages
    assert seen.views_told > 500 and seen.turns_told > 100
    return auditor


async def test_nothing_secret_reaches_anyone(random_session: Recorded, pool: asyncpg.Pool) -> None:
    audit(random_session, await truth_of(pool, random_session.table_id))


async def test_a_silent_solo_stays_hidden_until_both_queens_are_played(
    silent_solo_session: Recorded, pool: asyncpg.Pool
) -> None:
    truth = await truth_of(pool, silent_solo_session.table_id)
    seen = audit(silent_solo_session, truth).coverage
    assert seen.silent_solo_deals > 0
    assert seen.silent_solo_hidden_views > 0
    assert seen.silent_solo_revealed_views > 0
    assert seen.silent_solo_hidden_events > 0

    # and the audit would notice a silent solo shown early
    def hidden(item: Received) -> bool:
        if item.source != "view":
            return False
        deal = truth.deal(item.version)
        return deal is not None and deal.silent_solo_hidden(item.viewer)

    early = next(i for i in silent_solo_session.transcript if hidden(i))
    deal = truth.deal(early.version)
    assert deal is not None and deal.declarer is not None
    soloist = deal.declarer

    def reveal(raw: Any) -> None:
        raw["deal"].update(game_type="silent_solo", declarer=soloist)

    failures = _failures(truth, [_doctored(early, reveal)])
    assert "$.deal.game_type: got 'silent_solo', expected 'normal'" in failures
    assert f"$.deal.declarer: got {soloist}, expected None" in failures


def _doctored(item: Received, change: Callable[[Any], None]) -> Received:
    raw = json.loads(item.body)
    change(raw)
    return msgspec.structs.replace(item, body=json.dumps(raw).encode())


def _failures(truth: Truth, items: list[Received], *, whole: bool = True) -> str:
    """The audit's failures of ``items`` (not ``whole``: but that the streams are partial)."""
    auditor = Auditor(truth)
    auditor.audit(items)
    return "\n".join(f for f in auditor.failures if whole or "delivered versions" not in f)


async def test_the_audit_catches_leaks(random_session: Recorded, pool: asyncpg.Pool) -> None:
    """The secrecy audit is not vacuous: doctored deliveries fail it."""
    truth = await truth_of(pool, random_session.table_id)
    items = random_session.transcript

    def in_play(item: Received) -> Deal | None:
        deal = truth.deal(item.version)
        normal = deal is not None and deal.game_type == "normal" and not deal.scored
        return deal if normal else None

    seat_view = next(i for i in items if i.source == "view" and i.viewer == 0 and in_play(i))
    deal = in_play(seat_view)
    assert deal is not None
    hand_of_1 = deal.hand(1)
    leak = _doctored(seat_view, lambda raw: raw["deal"].__setitem__("hand", hand_of_1))
    assert "but seat 0 holds" in _failures(truth, [leak])
    leak = _doctored(seat_view, lambda raw: raw["deal"].__setitem__("dealt", [hand_of_1] * 4))
    assert "$.deal.dealt: got" in _failures(truth, [leak])

    def hidden_party(item: Received) -> bool:
        deal = in_play(item)
        return deal is not None and not all(deal.party_known(s, None) for s in range(4))

    public = next(i for i in items if i.source == "view" and i.viewer is None and hidden_party(i))
    deal = truth.deal(public.version)
    assert deal is not None
    hidden = next(s for s in range(4) if not deal.party_known(s, None))
    party = deal.party(hidden)
    leak = _doctored(public, lambda raw: raw["deal"]["parties"].__setitem__(hidden, party))
    assert f"$.deal.parties[{hidden}]: got '{party}', expected None" in _failures(truth, [leak])

    dealt = next(
        i for i in items if i.source == "sse" and i.viewer is None and i.event == "deal_dealt"
    )
    hands = truth.log.events[dealt.version]["hands"]
    leak = _doctored(dealt, lambda raw: raw["hands"].__setitem__(2, hands[2]))
    assert "deal_dealt $.hands[2]: got" in _failures(truth, [leak])

    taken = next(i for i in items if i.source == "sse" and i.event == "seat_taken")
    token_hash = truth.log.events[taken.version]["token_hash"]
    leak = _doctored(taken, lambda raw: raw.__setitem__("token_hash", token_hash))
    failures = _failures(truth, [leak])
    assert "seat_taken $.token_hash: got" in failures
    assert "secret strings" in failures

    scored = next(
        i
        for i in items
        if i.source == "feed"
        and i.event == "deal_scored"
        and json.loads(i.body)["table_id"] == truth.table_id  # the feed has all public tables
    )
    forged = _doctored(scored, lambda raw: raw.__setitem__("chain_head", "00" * 32))
    head = truth.chain_head(json.loads(scored.body)["version"])
    assert f"deal_scored $.chain_head: got '{'00' * 32}', expected '{head}'" in _failures(
        truth, [forged]
    )
    finished = next(i for i in items if i.source == "sse" and i.event == "session_finished")
    forged = _doctored(finished, lambda raw: raw.pop("chain_head"))
    assert "session_finished $.chain_head: missing" in _failures(truth, [forged])
    card = next(i for i in items if i.source == "sse" and i.event == "card_played")
    forged = _doctored(card, lambda raw: raw.__setitem__("chain_head", "00" * 32))
    assert f"card_played $.chain_head: unexpected field '{'00' * 32}'" in _failures(truth, [forged])

    stream = [i for i in items if i.source == "sse" and i.viewer == 3]
    assert not _failures(truth, stream)
    assert "delivered versions" in _failures(truth, stream[:5] + stream[6:])
    assert "delivered versions" in _failures(truth, [*stream, stream[-1]])


async def test_the_audit_catches_a_contract_shown_to_another(
    silent_solo_session: Recorded, pool: asyncpg.Pool
) -> None:
    """The preset session (fixed deals, fixed players) names contracts: every other viewer
    was told that the seat named one, without it (R4.3); the contract shown to another
    than its namer fails the audit, and so does its message left out."""
    truth = await truth_of(pool, silent_solo_session.table_id)
    events = truth.log.events
    named = [v for v in range(1, truth.version + 1) if events[v]["type"] == "contract_named"]
    assert named, "no contract named in this session: choose other players' seeds"
    assert audit(silent_solo_session, truth).coverage.contracts_hidden >= 4 * len(named)
    namer, contract = events[named[0]]["seat"], events[named[0]]["contract"]
    items = silent_solo_session.transcript
    other = next(
        i
        for i in items
        if i.source == "sse" and i.viewer not in (namer, None) and i.version == named[0]
    )
    wrong = _doctored(other, lambda raw: raw.__setitem__("contract", contract))
    assert f"contract_named $.contract: got '{contract}', expected None" in _failures(
        truth, [wrong]
    )
    stream = [i for i in items if i.source == "sse" and i.viewer == other.viewer]
    assert "delivered versions" in _failures(truth, [i for i in stream if i is not other])


async def test_the_audit_catches_a_stream_that_does_not_tell_a_turn(
    random_session: Recorded, pool: asyncpg.Pool
) -> None:
    """The message of a version where a seat's view had it to act, told to another seat or
    without the seat's options, fails the audit."""
    truth = await truth_of(pool, random_session.table_id)
    items = random_session.transcript
    viewed = {
        (i.viewer, i.version)
        for i in items
        if i.source == "view" and i.viewer is not None and truth.states[i.version].turn == i.viewer
    }
    told = next(i for i in items if i.source == "sse" and (i.viewer, i.version) in viewed)
    view = next(
        i
        for i in items
        if i.source == "view" and (i.viewer, i.version) == (told.viewer, told.version)
    )
    assert not _failures(truth, [told, view], whole=False)
    other = (int(told.viewer or 0) + 1) % 4
    failures = _failures(
        truth, [_doctored(told, lambda raw: raw.__setitem__("turn", other)), view], whole=False
    )
    assert f"turn {other}, the rules have {told.viewer}" in failures
    assert "the stream's message of this version: $.turn" in failures
    silent = _doctored(
        told,
        lambda raw: raw.__setitem__(
            "options", {**raw["options"], "cards": [], "declarations": [], "contracts": []}
        ),
    )
    failures = _failures(truth, [silent, view], whole=False)
    assert "the stream's message of this version: $.options" in failures


async def test_http_players_and_server_bots_share_a_table(api: DokoClient) -> None:
    """The client's driver copes with bots acting between its reads (If-Match races)."""
    table = await api.create_table("mixed")
    seats = [await table.take_seat("ann", seat=0), await table.take_seat("bob", seat=2)]
    assert await table.seat_bot("greedy") == 1
    assert await table.seat_bot("random", seat=3) == 3
    view = await play_session(seats, random_players(3)[:2], deals=2)
    assert len(view.scoresheet) >= 2
    assert all(sum(row) == 0 for row in view.scoresheet)


DEAL_EVENTS = {
    "session_started",
    "deal_dealt",
    "declared",
    "game_type_fixed",
    "card_played",
    "trick_won",
    "announced",
    "deal_scored",
    "session_finished",
    "seat_taken",
    "table_created",
}
"""The event types every whole session sends (RULES.md R1-R8; the table's T1.1, T1.2)."""


def test_every_stream_message_of_a_session_is_typed_by_the_document(
    random_session: Recorded, silent_solo_session: Recorded
) -> None:
    """Each table stream and feed message of two whole sessions validates against its
    stream's schema in openapi/openapi.json (closed objects: no member it does not name),
    and the sessions sent every event type a session has."""
    schemas = StreamSchemas()
    transcript = [*random_session.transcript, *silent_solo_session.transcript]
    assert not schemas.failures(transcript)
    assert schemas.types >= DEAL_EVENTS, DEAL_EVENTS - schemas.types
    typed = [table_message(i.version, i.body) for i in transcript if i.source == "sse"]
    fed = [feed_item(i.body) for i in transcript if i.source == "feed"]
    assert {type(m.event).__struct_config__.tag for m in typed} >= DEAL_EVENTS
    assert all(
        (m.chain_head is not None) == isinstance(m.event, DealScored | SessionFinished)
        for m in typed
    )
    assert fed and all(isinstance(f.event, typing.get_args(TableEvent)) for f in fed)
    scored = next(i for i in transcript if i.source == "sse" and i.event == "deal_scored")
    unwitnessed = {k: v for k, v in json.loads(scored.body).items() if k != "chain_head"}
    planted = msgspec.structs.replace(scored, body=json.dumps(unwitnessed).encode())
    extra = msgspec.structs.replace(scored, body=scored.body[:-1] + b',"seed":"00"}')
    renamed = msgspec.structs.replace(scored, event="trick_won")
    assert len(schemas.failures([planted])) >= 1, "a deal_scored without its chain head"
    assert len(schemas.failures([extra])) >= 1, "a member the document does not name"
    assert any("is not 'deal_scored'" in f for f in schemas.failures([renamed]))
