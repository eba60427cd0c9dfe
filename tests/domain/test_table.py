"""The table aggregate: seats, dealing method and entropy (R1.1, R2.2), and the table's life:
invitations, leaving and replacing, the turn clock, closing and abandoning (T1-T4)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from msgspec.structs import replace

from domain import table, turn_clock
from domain.announcements import Word
from domain.cards import Card
from domain.commands import Announce, Declaration, Declare, NameContract, PlayCard
from domain.dealing import commitment
from domain.errors import (
    ClockRunning,
    DomainError,
    EntropyNotUsed,
    InvalidTableOption,
    LeaveOnTurn,
    NotAway,
    NotPrivate,
    NoTurnClock,
    NotYourTurn,
    PhaseClosed,
    SeatOccupied,
    SeatVacant,
    SessionOver,
    TurnExpired,
)
from domain.game_types import GameType
from domain.observations import observe
from domain.players import stand_in_action
from domain.replay import TABLE, replay
from domain.seats import Seat
from domain.table import (
    AWAY_AFTER,
    AbandonSession,
    CloseTable,
    ComeBack,
    CreateTable,
    DealingMethod,
    InvitationRotated,
    LeaveSeat,
    RotateInvitation,
    SeatAway,
    SeatBack,
    SeatLeft,
    SeatTaken,
    SessionAbandoned,
    TableClosed,
    TableCreated,
    TableEvent,
    TableState,
    TableStatus,
    TakeSeat,
    TimeOut,
    TurnTimedOut,
    Visibility,
)
from domain.table_view import SeatStatus, redact, table_view
from domain.turn_clock import require_in_time
from tests.domain.test_dealing import VALID

SEEDS = tuple(bytes([n]) * 32 for n in range(12))


def created(command: CreateTable) -> TableState:
    return table.fold(table.decide(TableState(), command))


SERVER = CreateTable("t", Seat.NORTH, server_seeds=SEEDS)
HOST = CreateTable("t", Seat.NORTH, server_seeds=SEEDS, shared_seeds=True)
PRESET = CreateTable("t", Seat.NORTH, presets=(VALID,) * 12)


@pytest.mark.parametrize(
    ("command", "method"),
    [
        pytest.param(SERVER, DealingMethod.SEEDED, id="server-seeds"),
        pytest.param(HOST, DealingMethod.HOST_SEEDED, id="host-seeds"),
        pytest.param(PRESET, DealingMethod.PRESET, id="preset-hands"),
    ],
)
def test_r2_2_every_view_names_the_dealing_method_before_anyone_sits(
    command: CreateTable, method: str
) -> None:
    """R2.2: spectators and seats see how the deals come about from the table's creation."""
    state = created(command)
    assert table_view(state, None).dealing_method == method
    assert table_view(state, Seat.EAST).dealing_method == method
    assert table_view(state, None).preset is (method == "preset")


@pytest.mark.parametrize(
    ("command", "method"),
    [
        pytest.param(HOST, "host_seeded", id="host-seeds"),
        pytest.param(PRESET, "preset", id="preset"),
    ],
)
def test_r2_2_entropy_for_deals_fixed_in_advance_is_refused(
    command: CreateTable, method: str
) -> None:
    """R2.2: entropy sent to a host-seeded or preset table would be dropped: it is refused,
    naming the method; sitting down without entropy works."""
    state = created(command)
    with pytest.raises(EntropyNotUsed) as refused:
        table.decide(state, TakeSeat("Anna", "h", Seat.EAST, b"\x01\x02"))
    assert refused.value.rule == "R2.2"
    assert f"({method})" in refused.value.message
    (taken,) = table.decide(state, TakeSeat("Anna", "h", Seat.EAST))
    assert taken == SeatTaken(Seat.EAST, "Anna", "h")


def test_r2_2_server_seeds_mix_in_the_players_entropy() -> None:
    """R2.2: at a server-seeded table every player's entropy is recorded and mixed into
    deal 1, whose record names the committed seed."""
    state = created(SERVER)
    events: list[table.TableEvent] = []
    for seat in Seat:
        events = list(table.decide(state, TakeSeat(f"p{seat}", "h", seat, bytes([seat + 1]))))
        state = table.fold(events, state)
    dealt = state.session.deal
    assert dealt is not None
    assert dealt.dealing.entropy == ("01", "02", "03", "04")
    assert dealt.dealing.commitment == commitment(SEEDS[0])


# --- the table's life: T1-T4 ---------------------------------------------------------------

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CLOCKED = CreateTable("t", Seat.NORTH, server_seeds=SEEDS, turn_seconds=30)
PRIVATE = CreateTable(
    "t", Seat.NORTH, server_seeds=SEEDS, visibility=Visibility.PRIVATE, invitation_hash="inv"
)


def run(state: TableState, *commands: table.TableCommand) -> tuple[TableState, list[TableEvent]]:
    """Decide and apply each command in turn; the new state and all events."""
    events: list[TableEvent] = []
    for command in commands:
        decided = table.decide(state, command)
        events.extend(decided)
        state = table.fold(decided, state)
    return state, events


def seated(command: CreateTable = CLOCKED) -> TableState:
    """Four players seated (seat 2 a bot): the session runs, deal 1 is in its reservations
    and EAST (the first dealer NORTH's left, R4.1) is to declare."""
    state, _ = run(
        created(command),
        *(TakeSeat(f"p{s}", f"h{s}", s, bot="greedy" if s == 2 else "") for s in Seat),
    )
    return state


def time_out(state: TableState, at: datetime = T0) -> TimeOut:
    """The timeout of whoever is to act, its deadline reached exactly."""
    seat = state.turn
    assert seat is not None
    return TimeOut(seat, at, at)


def finished() -> TableState:
    """A whole session played by the stand-in alone (every turn timed out, T3.2)."""
    state = seated()
    while state.turn is not None:
        state, _ = run(state, time_out(state))
    assert state.session.finished
    return state


def abandoned() -> TableState:
    state, _ = run(seated(), AbandonSession())
    return state


def closed() -> TableState:
    state, _ = run(created(SERVER), CloseTable())
    return state


def vacated() -> TableState:
    """Seat 0 (not to act) left during the session."""
    state, _ = run(seated(), LeaveSeat(Seat.NORTH))
    return state


def expect_rejected(
    state: TableState, command: table.TableCommand, error: type[DomainError], rule: str
) -> None:
    """``decide`` rejects the command with exactly this error and rule; the state is as it was."""
    before = msgspec.json.encode(state)
    with pytest.raises(DomainError) as caught:
        table.decide(state, command)
    assert type(caught.value) is error, repr(caught.value)
    assert caught.value.rule == rule, repr(caught.value)
    assert caught.value.message
    assert msgspec.json.encode(state) == before


REJECTED = [
    (
        "T3.1-clock-too-short",
        TableState,
        replace(CLOCKED, turn_seconds=4),
        InvalidTableOption,
        "T3.1",
    ),
    (
        "T3.1-clock-too-long",
        TableState,
        replace(CLOCKED, turn_seconds=601),
        InvalidTableOption,
        "T3.1",
    ),
    (
        "T1.1-private-without-invitation",
        TableState,
        replace(PRIVATE, invitation_hash=""),
        InvalidTableOption,
        "T1.1",
    ),
    ("T1.2-no-invitation-at-a-public-table", seated, RotateInvitation("new"), NotPrivate, "T1.2"),
    ("T4.1-sit-at-a-closed-table", closed, TakeSeat("x", "h"), PhaseClosed, "T4.1"),
    ("T4.1-close-twice", closed, CloseTable(), PhaseClosed, "T4.1"),
    ("T4.1-close-a-running-session", seated, CloseTable(), PhaseClosed, "T4.1"),
    (
        "T4.2-abandon-before-the-start",
        lambda: created(SERVER),
        AbandonSession(),
        PhaseClosed,
        "T4.2",
    ),
    ("T4.2-abandon-twice", abandoned, AbandonSession(), SessionOver, "T4.2"),
    (
        "T4.2-play-after-abandoning",
        abandoned,
        Declare(Seat.EAST, Declaration.HEALTHY),
        SessionOver,
        "T4.2",
    ),
    ("T4.2-abandon-a-finished-session", finished, AbandonSession(), SessionOver, "T4.2"),
    ("R1.1-sit-after-the-end", finished, TakeSeat("x", "h"), SessionOver, "R1.1"),
    ("T2.1-leave-a-free-seat", lambda: created(SERVER), LeaveSeat(Seat.EAST), SeatVacant, "T2.1"),
    ("T2.1-leave-a-vacant-seat", vacated, LeaveSeat(Seat.NORTH), SeatVacant, "T2.1"),
    ("T2.2-leave-after-the-end", finished, LeaveSeat(Seat.NORTH), SessionOver, "T2.2"),
    ("T2.3-leave-on-ones-turn", seated, LeaveSeat(Seat.EAST), LeaveOnTurn, "T2.3"),
    (
        "T2.4-host-vacates-a-present-player",
        seated,
        LeaveSeat(Seat.NORTH, by_host=True),
        SeatOccupied,
        "T2.4",
    ),
    ("T2.2-a-vacant-seat-acts", vacated, Announce(Seat.NORTH, Word.RE), SeatVacant, "T2.2"),
    (
        "T3.1-time-out-without-a-clock",
        lambda: seated(SERVER),
        TimeOut(Seat.EAST, T0, T0),
        NoTurnClock,
        "T3.1",
    ),
    (
        "T3.2-time-out-before-the-start",
        lambda: created(CLOCKED),
        TimeOut(Seat.EAST, T0, T0),
        PhaseClosed,
        "T3.2",
    ),
    ("T3.2-time-out-another-seat", seated, TimeOut(Seat.SOUTH, T0, T0), NotYourTurn, "T3.2"),
    (
        "T3.2-time-out-before-the-deadline",
        seated,
        TimeOut(Seat.EAST, T0, T0 - timedelta(microseconds=1)),
        ClockRunning,
        "T3.2",
    ),
    ("T3.2-time-out-after-the-end", finished, TimeOut(Seat.EAST, T0, T0), PhaseClosed, "T3.2"),
    ("T3.3-back-without-a-timeout", seated, ComeBack(Seat.EAST), NotAway, "T3.3"),
    ("T3.3-back-on-a-vacant-seat", vacated, ComeBack(Seat.NORTH), SeatVacant, "T2.2"),
    (
        "T3.3-back-before-the-start",
        lambda: created(CLOCKED),
        ComeBack(Seat.EAST),
        PhaseClosed,
        "T3.3",
    ),
]


@pytest.mark.parametrize(
    ("given", "command", "error", "rule"),
    [pytest.param(*case[1:], id=case[0]) for case in REJECTED],
)
def test_table_commands_are_rejected_with_their_rule(
    given: Callable[[], TableState],
    command: table.TableCommand,
    error: type[DomainError],
    rule: str,
) -> None:
    expect_rejected(given(), command, error, rule)


def test_t2_1_before_the_session_a_leaver_frees_the_seat_for_anyone() -> None:
    """T2.1: the seat is free again; the next player sits there, with their own entropy."""
    state, events = run(created(SERVER), TakeSeat("ann", "h-ann", Seat.EAST, b"\x01"))
    state, events = run(state, LeaveSeat(Seat.EAST))
    assert events == [SeatLeft(Seat.EAST, "ann")]
    assert state.players[Seat.EAST] is None
    assert [i.status for i in table_view(state, None).seats] == [SeatStatus.FREE] * 4
    state, events = run(state, TakeSeat("bob", "h-bob", None, b"\x02"))
    assert events == [SeatTaken(Seat.NORTH, "bob", "h-bob", "02")]


def test_t2_2_a_vacant_seat_is_taken_by_a_newcomer_who_plays_on() -> None:
    """T2.2: during the session a leaver's seat is vacant, the old token hash no longer
    sits there, the newcomer's sitting starts nothing, and the deal's lineup names both."""
    state = vacated()
    view = table_view(state, None)
    assert view.seats[Seat.NORTH].status is SeatStatus.VACANT
    assert view.seats[Seat.NORTH].name is None
    state, events = run(state, TakeSeat("newcomer", "h-new", None))
    assert events == [SeatTaken(Seat.NORTH, "newcomer", "h-new")]
    player = state.players[Seat.NORTH]
    assert player is not None and player.token_hash == "h-new"
    assert state.lineup == (("p0", "newcomer"), ("p1",), ("p2",), ("p3",))
    while state.session.deal is not None and state.session.deal.score is None:
        state, _ = run(state, time_out(state))
    assert state.lineups[0] == (("p0", "newcomer"), ("p1",), ("p2",), ("p3",))
    assert state.lineup == (("newcomer",), ("p1",), ("p2",), ("p3",)), "deal 2 from its start"


def test_t2_4_the_host_vacates_a_bot_and_an_away_seat() -> None:
    """T2.4: a bot's seat and an away seat may be vacated by the host, even on its turn."""
    state = seated()
    state, events = run(state, LeaveSeat(Seat.SOUTH, by_host=True))
    assert events == [SeatLeft(Seat.SOUTH, "p2", by_host=True)]
    for _ in range(AWAY_AFTER):  # EAST times out, then the others play on by the clock too
        while state.turn is not Seat.EAST:
            state, _ = run(state, time_out(state))
        state, _ = run(state, time_out(state))
    assert state.away[Seat.EAST]
    state, events = run(state, LeaveSeat(Seat.EAST, by_host=True))
    assert events == [SeatLeft(Seat.EAST, "p1", by_host=True)]
    assert not state.away[Seat.EAST] and state.timeouts[Seat.EAST] == 0


def test_t3_2_the_stand_in_acts_for_a_seat_whose_time_ran_out() -> None:
    """T3.2: the timeout records seat, deal, the stand-in's action, the deadline and the
    clock reading; the action's own events follow, as if the seat had acted."""
    state = seated()
    deal = state.session.deal
    assert deal is not None
    action = stand_in_action(observe(deal, Seat.EAST))
    assert action == Declare(Seat.EAST, Declaration.HEALTHY)
    later = T0 + timedelta(seconds=2)
    events = table.decide(state, TimeOut(Seat.EAST, T0, later))
    assert events == (
        TurnTimedOut(Seat.EAST, 1, action, T0, later),
        *table.decide(state, action),
    )


def test_t3_3_three_timeouts_in_a_row_mark_a_seat_away_until_its_player_acts() -> None:
    """T3.3: the third consecutive timeout marks the seat away (no grace from then on); the
    player's own action brings it back and starts the count again."""
    state = seated()
    counts = []
    for n in range(1, AWAY_AFTER + 1):
        while state.turn is not Seat.EAST:
            state, _ = run(state, time_out(state))
        turn = turn_clock.turn_of(state, T0)
        assert turn == turn_clock.Turn(Seat.EAST, 30, T0 + timedelta(seconds=30))
        state, events = run(state, time_out(state))
        counts.append(state.timeouts[Seat.EAST])
        assert (SeatAway(Seat.EAST) in events) is (n == AWAY_AFTER)
    assert counts == [1, 2, 3]
    assert table_view(state, None).seats[Seat.EAST].status is SeatStatus.AWAY
    while state.turn is not Seat.EAST:
        state, _ = run(state, time_out(state))
    assert turn_clock.turn_of(state, T0) == turn_clock.Turn(Seat.EAST, 0, T0), "away: no grace"
    deal = state.session.deal
    assert deal is not None
    own = stand_in_action(observe(deal, Seat.EAST))
    assert own is not None
    back = table.decide(state, own)
    assert back[0] == SeatBack(Seat.EAST)
    assert back[1:] == table.decide(
        msgspec.structs.replace(state, timeouts=(0,) * 4, away=(False,) * 4), own
    )
    state = table.fold(back, state)
    assert not state.away[Seat.EAST] and state.timeouts[Seat.EAST] == 0


def test_t3_3_coming_back_without_acting() -> None:
    """T3.3: a seat the clock acted for may say it is back; its next turn has full grace."""
    state = seated()
    state, _ = run(state, time_out(state))
    assert state.timeouts[Seat.EAST] == 1
    state, events = run(state, ComeBack(Seat.EAST))
    assert events == [SeatBack(Seat.EAST)] and state.timeouts[Seat.EAST] == 0


@pytest.mark.parametrize(
    ("case", "command", "now", "refused"),
    [
        ("T3.2-own-card-after-the-deadline", Declare(Seat.EAST, Declaration.HEALTHY), 30, True),
        ("T3.2-own-card-before-the-deadline", Declare(Seat.EAST, Declaration.HEALTHY), 29, False),
        ("T3.2-another-seat-is-not-on-turn", Declare(Seat.SOUTH, Declaration.HEALTHY), 30, False),
        ("T3.2-announcements-are-no-turn", Announce(Seat.EAST, Word.RE), 30, False),
    ],
)
def test_t3_2_a_turn_action_after_the_deadline_comes_too_late(
    case: str, command: table.TableCommand, now: int, refused: bool
) -> None:
    state = seated()
    at = T0 + timedelta(seconds=now)
    if refused:
        with pytest.raises(TurnExpired) as caught:
            require_in_time(state, command, T0, at)
        assert caught.value.rule == "T3.2"
    else:
        require_in_time(state, command, T0, at)


def test_t3_3_an_away_seat_acts_at_any_moment() -> None:
    """T3.3: an away seat's own action is not late: it brings the player back."""
    state = msgspec.structs.replace(seated(), away=(False, True, False, False))
    require_in_time(state, Declare(Seat.EAST, Declaration.HEALTHY), T0, T0 + timedelta(hours=1))


def test_t3_2_a_named_contract_stays_hidden_in_the_timeout() -> None:
    """R4.3, T3.2: the stand-in naming a contract is as secret as `ContractNamed`."""
    timed = TurnTimedOut(Seat.EAST, 1, NameContract(Seat.EAST, GameType.JACK_SOLO), T0, T0)
    assert redact(timed, Seat.EAST) == timed
    for viewer in (None, Seat.NORTH, Seat.SOUTH):
        assert redact(timed, viewer) == msgspec.structs.replace(timed, action=None)
    played = TurnTimedOut(Seat.EAST, 1, PlayCard(Seat.EAST, Card.QC), T0, T0)
    assert redact(played, None) == played


def test_t1_1_no_invitation_or_token_hash_is_shown() -> None:
    (event,) = table.decide(TableState(), PRIVATE)
    assert isinstance(event, TableCreated) and event.invitation_hash == "inv"
    shown = redact(event, None)
    assert isinstance(shown, TableCreated)
    assert (shown.invitation_hash, shown.host_token_hash, shown.server_seeds) == ("", "", ())
    view = table_view(table.fold([event]), None)
    assert view.visibility is Visibility.PRIVATE
    assert b"inv" not in msgspec.json.encode(view)


def test_t1_2_the_host_replaces_the_invitation_and_the_seated_stay() -> None:
    """T1.2: the new invitation hash is the one in force (the last of several); the seated
    players keep their seats; nobody is shown the new hash; the log replays."""
    state, events = run(seated(PRIVATE), RotateInvitation("new"))
    assert events[-1] == InvitationRotated("new")
    assert state.invitation_hash == "new" and all(state.players)
    assert redact(events[-1], Seat.EAST) == InvitationRotated("")
    twice, _ = run(created(PRIVATE), RotateInvitation("second"), RotateInvitation("third"))
    assert twice.invitation_hash == "third"
    log = [*table.decide(TableState(), PRIVATE), *run(created(PRIVATE), RotateInvitation("x"))[1]]
    assert replay(log, TABLE).ok


def test_t4_1_a_closed_table_is_closed() -> None:
    state, events = run(created(SERVER), TakeSeat("ann", "h"), CloseTable())
    assert events[-1] == TableClosed()
    assert state.status is TableStatus.CLOSED and state.over


def test_t4_2_an_abandoned_session_keeps_its_scored_deals_and_has_no_winners() -> None:
    """T4.2: abandoned after a scored deal: the sheet and totals stay, no winners (R1.3)."""
    state = seated()
    while len(state.session.sheet) < 1:
        state, _ = run(state, time_out(state))
    sheet, totals = state.session.sheet, state.session.totals
    state, events = run(state, AbandonSession())
    assert events == [SessionAbandoned(1, totals)]
    assert state.status is TableStatus.ABANDONED and state.session.winners is None
    view = table_view(state, None)
    assert (view.scoresheet, view.totals, view.winners) == (sheet, totals, None)
    assert view.clock is None


def test_the_stand_in_plays_a_whole_session_and_every_new_event_replays() -> None:
    """T2-T4 and R1: a session with leaving, a newcomer, a bot vacated, timeouts, away and
    back is re-decided event by event by the audit replay (`domain.replay.command_of`)."""
    log = list(table.decide(TableState(), CLOCKED))
    state = table.fold(log)
    for s in Seat:
        decided = table.decide(state, TakeSeat(f"p{s}", f"h{s}", s, bytes([s + 1])))
        log.extend(decided)
        state = table.fold(decided, state)
    steps: list[table.TableCommand] = [
        LeaveSeat(Seat.NORTH),
        TakeSeat("newcomer", "h-new", Seat.NORTH, b"\x09"),
    ]
    rounds = 0
    while state.turn is not None:
        command = steps.pop(0) if steps else time_out(state, T0 + timedelta(minutes=rounds))
        decided = table.decide(state, command)
        log.extend(decided)
        state = table.fold(decided, state)
        rounds += 1
        if rounds == 20:
            turn = state.turn
            assert turn is not None
            steps.append(ComeBack(turn) if state.timeouts[turn] else LeaveSeat(turn.left()))
    assert state.session.finished and len(state.session.sheet) == 12
    assert any(isinstance(e, SeatAway) for e in log)
    result = replay(log, TABLE)
    assert result.ok, result.error
    assert result.valid == len(log)
    assert result.state == state
    tampered = [
        msgspec.structs.replace(e, at=T0 - timedelta(days=1)) if isinstance(e, TurnTimedOut) else e
        for e in log
    ]
    assert not replay(tampered, TABLE).ok, "a timeout before its deadline does not replay"


def test_an_old_table_created_event_decodes_as_a_public_table_without_a_clock() -> None:
    """Logs written before T1 and T3 existed: their tables are public, with no clock."""
    old = b'{"type":"table_created","name":"old","first_dealer":0}'
    event = msgspec.json.decode(old, type=TableEvent)
    assert isinstance(event, TableCreated)
    assert (event.visibility, event.invitation_hash, event.turn_seconds) == (
        Visibility.PUBLIC,
        "",
        None,
    )
