"""The tournament aggregate (E1-E5): its life from creation to the last round, every rejected
command with its code and rule, and the same hands at every table of a round."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

import pytest
from msgspec.structs import replace

from domain import table, tournament
from domain.cards import Card
from domain.dealing import deal_from_seed, permutation
from domain.errors import DomainError
from domain.events import DealDealt
from domain.replay import replay
from domain.seats import Seat
from domain.simulation import next_command
from domain.table import TableState, Visibility
from domain.tournament import (
    TOURNAMENT,
    CloseRegistration,
    CreateTournament,
    EndTable,
    FinishTournament,
    PlayerRegistered,
    RegisterPlayer,
    RemovePlayer,
    RoundEnded,
    RoundStarted,
    SeatRound,
    StandingsMethod,
    StartRound,
    TableEnded,
    TournamentCommand,
    TournamentCreated,
    TournamentFinished,
    TournamentState,
    TournamentStatus,
    standings_method,
)
from domain.tournament_tables import deal_public, table_commands

SEED = bytes(range(32))


def round_seeds(rounds: int) -> tuple[tuple[bytes, ...], ...]:
    """12 distinct 32-byte seeds per round."""
    return tuple(
        tuple(hashlib.sha256(f"{r}/{d}".encode()).digest() for d in range(12))
        for r in range(rounds)
    )


def create(rounds: int = 2, **options: object) -> CreateTournament:
    fields: dict[str, object] = {
        "name": "Club night",
        "rounds": rounds,
        "host_token_hash": "director",
        "seating_seed": SEED,
        "round_seeds": round_seeds(rounds),
    }
    fields.update(options)
    return CreateTournament(**fields)  # type: ignore[arg-type]


def run(*commands: TournamentCommand, state: TournamentState | None = None) -> TournamentState:
    """The tournament after the commands, each decided and folded in turn."""
    state = state or TournamentState()
    for command in commands:
        state = tournament.fold(tournament.decide(state, command), state)
    return state


def registered(players: int, rounds: int = 2) -> TournamentState:
    names = (RegisterPlayer(f"player {n}", f"token {n}") for n in range(players))
    return run(create(rounds), *names)


def test_creation_commits_to_the_seating_seed_and_every_deal_seed() -> None:
    (created,) = tournament.decide(TournamentState(), create(2, name="  Club night  "))
    assert isinstance(created, TournamentCreated)
    assert created.name == "Club night"
    assert created.seating_commitment == hashlib.sha256(SEED).hexdigest()
    assert created.commitments == tuple(
        tuple(hashlib.sha256(s).hexdigest() for s in seeds) for seeds in round_seeds(2)
    )
    assert len(created.commitments) == 2 and all(len(c) == 12 for c in created.commitments)


def test_a_tournament_of_eight_over_two_rounds() -> None:
    """E2-E4: registration, round 1 by lot, a finished and an abandoned table end it,
    round 2 by rule, the tournament finishes with its last table and reveals the seating seed."""
    state = registered(8)
    assert state.status is TournamentStatus.REGISTERING
    assert (state.player_of("token 3"), state.player_of("nobody's")) == (3, None)
    assert tournament.decide(state, RegisterPlayer("Ann", "t", by_director=True)) == (
        PlayerRegistered(8, "Ann", "t", True),
    )
    (started,) = tournament.decide(state, StartRound(1))
    assert isinstance(started, RoundStarted) and not started.by_hand
    assert sorted(p for seats in started.seating for p in seats if p is not None) == list(range(8))
    state = tournament.fold((started,), state)
    assert state.status is TournamentStatus.PLAYING
    state = run(EndTable(1, 2, 12), state=state)
    assert tournament.decide(state, EndTable(1, 1, 5, abandoned=True)) == (
        TableEnded(1, 1, 5, True),
        RoundEnded(1),
    )
    state = run(EndTable(1, 1, 5, abandoned=True), state=state)
    assert state.status is TournamentStatus.BETWEEN
    state = run(StartRound(2), state=state)
    first, second = state.seatings
    for seats in second:  # E3.2: two of each table of round 1, the fewest repeats possible
        assert sorted(sum(p in set(t) for p in seats) for t in first) == [2, 2]
    state = run(EndTable(2, 1, 12), state=state)
    assert tournament.decide(state, EndTable(2, 2, 12)) == (
        TableEnded(2, 2, 12),
        RoundEnded(2),
        TournamentFinished(2, SEED.hex()),
    )
    assert run(EndTable(2, 2, 12), state=state).status is TournamentStatus.FINISHED


def test_round_one_is_drawn_by_lot_from_the_seating_seed() -> None:
    """E3.1: the same seed seats the same way; another seed otherwise."""
    seated = run(StartRound(1), state=registered(8)).seatings[0]
    assert run(StartRound(1), state=registered(8)).seatings[0] == seated
    other = run(
        create(2, seating_seed=bytes(32)),
        *(RegisterPlayer(f"player {n}", f"token {n}") for n in range(8)),
        StartRound(1),
    )
    assert other.seatings[0] != seated


def test_the_lot_is_the_documented_fisher_yates() -> None:
    """`domain.dealing.permutation` against the algorithm as the docstring states it."""

    def words(seed: bytes) -> list[int]:
        out: list[int] = []
        for block in range(4):
            digest = hashlib.sha256(seed + block.to_bytes(8, "big")).digest()
            out += [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]
        return out

    stream = iter(words(SEED))
    order = list(range(10))
    for i in range(9, 0, -1):
        limit = 2**32 - 2**32 % (i + 1)
        u = next(stream)
        while u >= limit:
            u = next(stream)
        j = u % (i + 1)
        order[i], order[j] = order[j], order[i]
    assert permutation(SEED, 10) == tuple(order)


def test_the_directors_seating_is_used_and_checked_again_at_the_start() -> None:
    """E3.3: a hand-made seating counts (the last one given); a player registered after it
    would be left out, so the round does not start with it."""
    state = registered(5)
    hand = ((4, 3, 2, None), (1, 0, None, None))
    state = run(
        SeatRound(1, ((0, 1, 2, None), (3, 4, None, None))), SeatRound(1, hand), state=state
    )
    assert tournament.decide(state, StartRound(1)) == (RoundStarted(1, hand, True),)
    later = run(RegisterPlayer("late", "late"), state=state)
    with pytest.raises(DomainError) as caught:
        tournament.decide(later, StartRound(1))
    assert (caught.value.code, caught.value.rule) == ("left_out", "E3.3")


def test_the_director_seats_the_next_round_while_one_runs() -> None:
    """E3.3: round 2's seating is given while round 1 runs, and used when round 2 starts."""
    hand = ((0, 1, 2, 3), (4, 5, 6, 7))
    state = run(StartRound(1), SeatRound(2, hand), state=registered(8))
    state = run(EndTable(1, 1, 12), EndTable(1, 2, 12), StartRound(2), state=state)
    assert state.seatings[1] == hand


def test_the_director_finishes_between_rounds() -> None:
    """E4.3: after round 1 of 3, the tournament finishes; the seating seed is revealed."""
    state = run(StartRound(1), EndTable(1, 1, 12), state=registered(4, rounds=3))
    assert tournament.decide(state, FinishTournament()) == (TournamentFinished(1, SEED.hex()),)


def test_a_standings_method_by_name() -> None:
    assert standings_method("duplicate") is StandingsMethod.DUPLICATE


def preset_round() -> tuple[table.Hands, ...]:
    return tuple(deal_from_seed(hashlib.sha256(bytes([d])).digest(), Seat(0)) for d in range(12))


REJECTED: list[
    tuple[str, Callable[[], TournamentState], TournamentCommand | Callable[[], object], str, str]
]
REJECTED = [
    ("no name", TournamentState, create(name=" "), "invalid_tournament_option", "E1.1"),
    ("no rounds", TournamentState, create(0), "invalid_tournament_option", "E1.1"),
    ("13 rounds", TournamentState, create(13), "invalid_tournament_option", "E1.1"),
    ("a 4 s clock", TournamentState, create(turn_seconds=4), "invalid_tournament_option", "E1.1"),
    (
        "private, no invitation",
        TournamentState,
        create(visibility=Visibility.PRIVATE),
        "invalid_tournament_option",
        "E1.1",
    ),
    (
        "short seating seed",
        TournamentState,
        create(seating_seed=b"x"),
        "invalid_tournament_option",
        "E1.2",
    ),
    (
        "seeds for 1 of 2 rounds",
        TournamentState,
        create(2, round_seeds=round_seeds(1)),
        "invalid_tournament_option",
        "E1.2",
    ),
    (
        "seeds and presets",
        TournamentState,
        create(1, round_seeds=round_seeds(1), presets=(preset_round(),)),
        "invalid_tournament_option",
        "E1.2",
    ),
    (
        "11 seeds",
        TournamentState,
        create(1, round_seeds=(round_seeds(1)[0][:11],)),
        "invalid_tournament_option",
        "E1.2",
    ),
    (
        "a short deal seed",
        TournamentState,
        create(1, round_seeds=((b"short",) * 12,)),
        "invalid_tournament_option",
        "E1.2",
    ),
    (
        "a preset that is no deck",
        TournamentState,
        create(1, round_seeds=(), presets=((((Card.AC,) * 12,) * 4,) * 12,)),
        "invalid_deal",
        "R2.1",
    ),
    ("created twice", lambda: registered(0), create(), "phase_closed", "E1"),
    ("no tournament", TournamentState, RegisterPlayer("a", "a"), "phase_closed", "E1"),
    ("empty name", lambda: registered(1), RegisterPlayer("  ", "x"), "invalid_player_name", "E2.1"),
    ("name taken", lambda: registered(1), RegisterPlayer(" PLAYER 0", "x"), "name_taken", "E2.1"),
    (
        "registration after round 1 started",
        lambda: run(StartRound(1), state=registered(4)),
        RegisterPlayer("late", "late"),
        "registration_closed",
        "E2.2",
    ),
    (
        "a round before anyone registered",
        lambda: registered(0),
        StartRound(1),
        "no_players",
        "E4.1",
    ),
    ("round 2 first", lambda: registered(4), StartRound(2), "round_not_next", "E4.1"),
    (
        "round 3 of 2",
        lambda: registered(4),
        SeatRound(3, ((0, 1, 2, 3),)),
        "round_not_next",
        "E4.1",
    ),
    (
        "a round while one runs",
        lambda: run(StartRound(1), state=registered(4)),
        StartRound(2),
        "round_running",
        "E4.1",
    ),
    (
        "seated twice",
        lambda: registered(5),
        SeatRound(1, ((0, 1, 2, None), (2, 4, None, None))),
        "seated_twice",
        "E3.3",
    ),
    (
        "left out",
        lambda: registered(5),
        SeatRound(1, ((0, 1, 2, None), (4, None, None, None))),
        "left_out",
        "E3.3",
    ),
    (
        "an unknown player",
        lambda: registered(4),
        SeatRound(1, ((0, 1, 2, 7),)),
        "unknown_player",
        "E3.3",
    ),
    (
        "two tables for four",
        lambda: registered(4),
        SeatRound(1, ((0, 1, None, None), (2, 3, None, None))),
        "invalid_seating",
        "E3.4",
    ),
    (
        "a table of three seats",
        lambda: registered(3),
        SeatRound(1, ((0, 1, 2),)),
        "invalid_seating",
        "E3.4",
    ),
    (
        "a table of bots only",
        lambda: registered(5),
        SeatRound(1, ((0, 1, 2, 3), (None, None, None, None))),
        "invalid_seating",
        "E3.3",
    ),
    (
        "a table's end, no round",
        lambda: registered(4),
        EndTable(1, 1, 12),
        "no_round_running",
        "E4.2",
    ),
    (
        "an unknown table",
        lambda: run(StartRound(1), state=registered(4)),
        EndTable(1, 2, 12),
        "unknown_table",
        "E4.2",
    ),
    (
        "a table of another round",
        lambda: run(StartRound(1), state=registered(8)),
        EndTable(2, 1, 12),
        "unknown_table",
        "E4.2",
    ),
    (
        "a table's end twice",
        lambda: run(StartRound(1), EndTable(1, 1, 12), state=registered(8)),
        EndTable(1, 1, 12),
        "table_ended",
        "E4.2",
    ),
    (
        "finished after 11 deals",
        lambda: run(StartRound(1), state=registered(4)),
        EndTable(1, 1, 11),
        "table_not_over",
        "E4.2",
    ),
    (
        "abandoned after 12 deals",
        lambda: run(StartRound(1), state=registered(4)),
        EndTable(1, 1, 12, abandoned=True),
        "table_not_over",
        "E4.2",
    ),
    (
        "finished while a round runs",
        lambda: run(StartRound(1), state=registered(4)),
        FinishTournament(),
        "round_running",
        "E4.3",
    ),
    (
        "anything once finished",
        lambda: run(FinishTournament(), state=registered(4)),
        RegisterPlayer("x", "x"),
        "tournament_over",
        "E4.3",
    ),
    (
        "a look-alike name (a zero-width space)",
        lambda: registered(4),
        RegisterPlayer("player 1\u200b", "x"),
        "name_taken",
        "E2.1",
    ),
    (
        "a look-alike name (fullwidth letters)",
        lambda: registered(4),
        RegisterPlayer("\uff30LAYER 1", "x"),
        "name_taken",
        "E2.1",
    ),
    (
        "a name in two scripts",
        lambda: registered(4),
        RegisterPlayer("\u0440layer 9", "x"),
        "name_mixed_scripts",
        "N3",
    ),
    (
        "a bidi override",
        lambda: registered(4),
        RegisterPlayer("\u202eevil", "x"),
        "name_unseen_characters",
        "N2",
    ),
    (
        "a tournament's name with a bidi override",
        TournamentState,
        create(name="Club \u202enight"),
        "name_unseen_characters",
        "N2",
    ),
    (
        "no most players",
        TournamentState,
        create(max_players=0),
        "invalid_tournament_option",
        "E1.1",
    ),
    (
        "too many most players",
        TournamentState,
        create(max_players=4001),
        "invalid_tournament_option",
        "E1.1",
    ),
    (
        "one player too many",
        lambda: run(create(max_players=2), RegisterPlayer("a", "a"), RegisterPlayer("b", "b")),
        RegisterPlayer("c", "c"),
        "tournament_full",
        "E2.3",
    ),
    (
        "registering once closed",
        lambda: run(CloseRegistration(), state=registered(4)),
        RegisterPlayer("late", "late", by_director=True),
        "registration_closed",
        "E2.2",
    ),
    (
        "closing twice",
        lambda: run(CloseRegistration(), state=registered(4)),
        CloseRegistration(),
        "registration_closed",
        "E2.2",
    ),
    (
        "closing after round 1 started",
        lambda: run(StartRound(1), state=registered(4)),
        CloseRegistration(),
        "registration_closed",
        "E2.2",
    ),
    (
        "removing after round 1 started",
        lambda: run(StartRound(1), state=registered(4)),
        RemovePlayer(0),
        "players_fixed",
        "E2.4",
    ),
    ("removing nobody", lambda: registered(4), RemovePlayer(4), "unknown_player", "E2.4"),
    (
        "an unknown method",
        TournamentState,
        lambda: standings_method("best"),
        "unknown_standings_method",
        "E1.1",
    ),
]


@pytest.mark.parametrize(
    ("given", "command", "code", "rule"),
    [case[1:] for case in REJECTED],
    ids=[case[0] for case in REJECTED],
)
def test_rejected_commands_name_their_code_and_rule(
    given: Callable[[], TournamentState],
    command: TournamentCommand | Callable[[], object],
    code: str,
    rule: str,
) -> None:
    """Every rejection is a `DomainError` with a stable code and its rule id, and returns no
    events (the state is a frozen value: nothing else could change)."""
    state = given()
    with pytest.raises(DomainError) as caught:
        if callable(command) and not isinstance(command, type):
            command()
        else:
            tournament.decide(state, command)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.rule) == (code, rule)


def test_a_removed_player_leaves_a_gap_that_closes() -> None:
    """E2.4: the players after the removed one move up one number, the removed one's
    credential and name are free again, a seating of round 1 by hand is dropped; E2.2 a
    closed registration still starts round 1, with the players registered."""
    state = run(SeatRound(1, ((0, 1, 2, 3),)), state=registered(4))
    assert state.by_hand is not None
    state = run(RemovePlayer(1), state=state)
    assert [p.name for p in state.players] == ["player 0", "player 2", "player 3"]
    assert state.player_of("token 1") is None
    assert state.player_of("token 2") == 1
    assert state.by_hand is None
    state = run(RegisterPlayer("Player 1", "token 9"), CloseRegistration(), state=state)
    assert [p.name for p in state.players] == ["player 0", "player 2", "player 3", "Player 1"]
    started = run(StartRound(1), state=state)
    assert sorted(p for t in started.seatings[0] for p in t if p is not None) == [0, 1, 2, 3]


def test_the_most_players_is_a_thousand_unless_said() -> None:
    """E1.1: 1000 unless the director says; recorded with the tournament."""
    assert run(create()).created.max_players == 1000  # type: ignore[union-attr]
    assert run(create(max_players=64)).created.max_players == 64  # type: ignore[union-attr]


def test_names_are_kept_normalised() -> None:
    """E2.1, N1: the name registered is the normal form."""
    state = run(create(name="\uff26riday"), RegisterPlayer(" \ufeffAnna\u200b ", "t"))
    assert state.created.name == "Friday"  # type: ignore[union-attr]
    assert state.players[0].name == "Anna"


def seated(state: TournamentState, round_no: int, table_no: int) -> TableState:
    """Table ``table_no`` of round ``round_no``, opened and seated as the tournament says."""
    create_table, seats = table_commands(state, round_no, table_no, "greedy")
    at = TableState()
    for command in (create_table, *seats):
        at = table.fold(table.decide(at, command), at)
    return at


def played_hands(at: TableState, rng: random.Random) -> list[table.Hands]:
    """The hands of every deal of the table's session, played to its end at random."""
    deal = at.session.deal
    assert deal is not None
    hands = [deal.dealt]
    while not at.session.finished:
        deal = at.session.deal
        assert deal is not None
        command = next_command(deal, rng)
        assert command is not None
        events = table.decide(at, command)
        hands += [e.hands for e in events if isinstance(e, DealDealt)]
        at = table.fold(events, at)
    return hands


def test_every_table_of_a_round_gets_the_same_hands() -> None:
    """E5.1: seat s of deal n holds the same cards at both tables of round 2, those the
    round's seed n deals (domain.dealing) with seat 0 dealing first."""
    state = run(
        StartRound(1),
        EndTable(1, 1, 12),
        EndTable(1, 2, 12),
        StartRound(2),
        state=registered(7, rounds=3),
    )
    first, second = seated(state, 2, 1), seated(state, 2, 2)
    created = first.created
    assert created is not None
    assert created.shared_seeds and created.first_dealer_fixed
    assert created.first_dealer is Seat.NORTH and created.visibility is Visibility.PRIVATE
    assert created.host_token_hash == "director"
    players = [p.token_hash if p else None for p in (*first.players, *second.players)]
    expected = [f"token {p}" for seats in state.seatings[1] for p in seats if p is not None]
    assert sorted(t for t in players if not t.startswith("bot:")) == sorted(expected)
    assert sum(p.bot == "greedy" for p in (*first.players, *second.players) if p) == 1
    seeds = round_seeds(3)[1]
    wanted = [deal_from_seed(seeds[n], Seat.NORTH.after(n)) for n in range(12)]
    assert played_hands(first, random.Random(1)) == wanted
    assert played_hands(second, random.Random(2)) == wanted


def test_preset_deals_are_the_same_at_every_table() -> None:
    """E5.1 with a director's preset deals: deal 1 of both tables is the round's first."""
    presets = (preset_round(),)
    names = (RegisterPlayer(f"p{n}", f"t{n}") for n in range(8))
    state = run(create(1, round_seeds=(), presets=presets), *names, StartRound(1))
    for table_no in (1, 2):
        deal = seated(state, 1, table_no).session.deal
        assert deal is not None and deal.dealt == presets[0][0]


@pytest.mark.parametrize(
    ("progress", "deal_no", "public"),
    [
        ([(3, False), (1, False)], 1, True),
        ([(3, False), (1, False)], 2, False),
        ([(3, False), (1, True)], 2, True),  # an abandoned table scores no more
        ([(12, True), (12, True)], 12, True),
    ],
)
def test_a_deal_is_public_once_every_table_scored_it_or_is_over(
    progress: list[tuple[int, bool]], deal_no: int, public: bool
) -> None:
    """E5.3."""
    assert deal_public(progress, deal_no) is public


def recorded(*commands: TournamentCommand) -> list[tournament.TournamentEvent]:
    """The events the commands cause, in order, from an empty tournament."""
    state, log = TournamentState(), []
    for command in commands:
        done = tournament.decide(state, command)
        log += done
        state = tournament.fold(done, state)
    return log


def test_the_replay_re_decides_a_tournament_and_names_a_changed_draw() -> None:
    """domain.replay over `TOURNAMENT`: the whole log is produced again; a seating not the one
    the seed draws, or a commitment not the seed's, is the first event that differs."""
    log = recorded(
        create(2),
        *(RegisterPlayer(f"p{n}", f"t{n}") for n in range(8)),
        StartRound(1),
        EndTable(1, 1, 12),
        EndTable(1, 2, 3, abandoned=True),
        SeatRound(2, ((0, 1, 2, 3), (4, 5, 6, 7))),
        StartRound(2),
        EndTable(2, 1, 12),
        EndTable(2, 2, 12),
    )
    assert isinstance(log[-1], TournamentFinished)
    assert replay(log, TOURNAMENT).ok and replay(log, TOURNAMENT).valid == len(log)
    drawn = log[9]
    assert isinstance(drawn, RoundStarted)
    (a, b, *rest), other = drawn.seating
    swapped = RoundStarted(1, ((b, a, *rest), other))
    changed = replay([*log[:9], swapped, *log[10:]], TOURNAMENT)
    assert changed.valid == 9 and changed.error is not None
    first = log[0]
    assert isinstance(first, TournamentCreated)
    forged = replace(first, seating_commitment="00" * 32)
    assert replay([forged, *log[1:]], TOURNAMENT).valid == 0
    assert replay([*log[:-3], log[-1]], TOURNAMENT).valid == len(log) - 3  # a round's end dropped
    assert replay([*log[:-3], *log[-2:]], TOURNAMENT).valid == len(log) - 3  # a table's end dropped
