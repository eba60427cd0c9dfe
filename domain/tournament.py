"""The tournament aggregate: a club night or tournament of several tables over several rounds,
the same deals at every table of a round, one standings table (E1-E6).

A tournament's stream begins with `TournamentCreated` (its options and the commitments to its
chance: the seating seed and every round's 12 deal seeds, or preset deals), then
`PlayerRegistered` for each player. The director starts round after round
(`RoundStarted`, with the round's seating); the service creates the round's tables from it
(`table_commands`) and tells the tournament when each ends (`TableEnded`); the last table's end
ends the round (`RoundEnded`) and the last round's the tournament (`TournamentFinished`, which
reveals the seating seed). The tables' own logs hold the play; the standings are computed from
them (`domain.standings`). Secret in the stream, and never to be shown: the seeds of
`TournamentCreated` (the seating seed until `TournamentFinished`, a deal's seed until the deal is
public, E5.3), every token and invitation hash.

The tournament rules (the platform's house rules around tables, as T1-T4 are around one table):

- E1 Creating. E1.1 A tournament has a name, 1-12 rounds (`ROUNDS`), is public or private (a
  private tournament has an invitation code; only its hash is recorded), has a turn clock for
  its tables of 5-600 seconds or none (T3.1), a standings method (`StandingsMethod`,
  E6) and a most players (`PLAYERS`: 1-4000, `DEFAULT_PLAYERS` unless said). Its name
  is a name as `domain.names` keeps them (N1-N3).
  E1.2 Its chance is fixed and committed when it is created: one 32-byte seating seed
  (E3.1) and, for every round, a 32-byte deal seed or a preset deal (R2.2) for each deal
  of its tables' sessions: 12, or as the rule set says (V6.1; with duty solos N + 4,
  V6.6). The SHA-256 commitments are public at once; the seating seed is revealed when
  the tournament finishes (E4.3), a deal's seed with the deal (E5.3).
- E2 Registration. E2.1 A player registers under a name no other player has (names are
  kept and compared as `domain.names` says, N1-N4: normalised, no invisible characters,
  one script, regardless of case); at a private tournament with
  its invitation code (the service checks it), or the director registers them. Players
  are numbered 0, 1, ... in the order they registered; each has a tournament credential (only
  its hash is recorded) that seats them at their table in every round. E2.2 Registration
  closes when round 1 starts, or earlier when the director closes it. E2.3 At most the
  tournament's most players register (E1.1). E2.4 Until round 1 starts the director
  removes a player: the players after them move up one number, and a seating of round 1
  by hand is dropped (it numbered them, E3.3).
- E3 Seating (`domain.seating`): E3.1 round 1 by lot from the seating seed, E3.2 later
  rounds avoiding repeat opponents, E3.3 or as the director seats the round by hand before
  it starts (also while the round before it runs), E3.4 bots fill the tables' empty seats
  and never enter the standings.
- E4 Rounds. E4.1 The director starts the rounds in order (1, 2, ...): not while one runs,
  not before anyone registered, not once the tournament is finished. E4.2 Each table of the
  running round ends once: finished (all its deals scored, E1.2) or abandoned by the director
  (T4.2: its scored deals count, the rest do not). E4.3 A round ends when its last table
  ends; the tournament finishes when its last round ends, or when the director finishes it
  between rounds (the rounds not started are not played).
- E5 Shared deals. E5.1 Every table of a round is created with the round's seeds (or
  preset deals), used unmixed (R2.2, ``host_seeded``), and seat 0 deals first, so seat
  *s* of deal *n* holds the same cards at every table of the round. E5.2 A tournament table
  is private; its host is the director (the tournament's host token, which is also its
  invitation); its players sit with their tournament credentials, bots on the bot seats
  (`table_commands`). E5.3 A deal of a round is *public* once every table of the round has
  scored it or is over (`deal_public`); until then nothing of it (its seed, hands, cards,
  records, replays, verifications, scores) may reach anyone outside the table playing it.
- E6 Standings (`domain.standings`): E6.1 total points, E6.2 placement points, E6.3 the
  duplicate score, E6.4 the tie-breaks, E6.5 only what is final counts. E6.6 Once a deal of
  a round is public (E5.3), the service records in the tournament every table's entries
  of it (`DealPublished`; None for a table over without it), the round's deals in order and
  before the tables' ends that follow; the standings are computed from these records.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

import msgspec
from msgspec import UNSET, UnsetType

from domain import seating
from domain.dealing import SEED_BYTES, commitment, validate_preset
from domain.errors import (
    DealNotNext,
    InvalidPlayerName,
    InvalidTournamentOption,
    NameTaken,
    NoPlayers,
    NoRoundRunning,
    PhaseClosed,
    PlayersFixed,
    RegistrationClosed,
    RoundNotNext,
    RoundRunning,
    TableEndedAlready,
    TableNotOver,
    TournamentFull,
    TournamentOver,
    UnknownStandingsMethod,
    UnknownTable,
)
from domain.names import name_key, normal_name
from domain.replay import Aggregate
from domain.rule_set import DEFAULT, RuleSet, in_force, recorded
from domain.seating import Seating, UnknownPlayer
from domain.seats import SEATS, Seat
from domain.table import TURN_SECONDS, Hands, Visibility
from domain.variants.duty_solo import check_session_deals

ROUNDS = (1, 12)
PLAYERS = (1, 4000)
"""E1.1: the bounds of a tournament's most players."""
DEFAULT_PLAYERS = 1000
"""E1.1: a tournament's most players when its director does not say."""
"""E1.1: the fewest and the most rounds of a tournament."""
FIRST_DEALER = Seat.NORTH
"""E5.1: the seat that deals first at every table of a tournament."""


class StandingsMethod(StrEnum):
    """E6: what ranks the standings: ``total_points`` (E6.1), ``placement_points`` (E6.2)
    or ``duplicate`` (E6.3)."""

    TOTAL_POINTS = "total_points"
    PLACEMENT_POINTS = "placement_points"
    DUPLICATE = "duplicate"


class TournamentStatus(StrEnum):
    """Where a tournament is: ``registering`` (before round 1), ``playing`` (a round runs),
    ``between`` rounds, or ``finished`` (E4.3)."""

    REGISTERING = "registering"
    PLAYING = "playing"
    BETWEEN = "between"
    FINISHED = "finished"


class CreateTournament(msgspec.Struct, frozen=True, tag_field="command", tag="create_tournament"):
    """E1: open a tournament. ``seating_seed`` and ``round_seeds`` (12 per round), or
    ``presets`` (12 deals per round), are the tournament's chance, drawn outside the domain.
    Every table plays by ``rules`` (`domain.rule_set`)."""

    name: str
    rounds: int
    host_token_hash: str
    seating_seed: bytes
    round_seeds: tuple[tuple[bytes, ...], ...] = ()
    presets: tuple[tuple[Hands, ...], ...] = ()
    visibility: Visibility = Visibility.PUBLIC
    invitation_hash: str = ""
    turn_seconds: int | None = None
    method: StandingsMethod = StandingsMethod.TOTAL_POINTS
    max_players: int = DEFAULT_PLAYERS
    rules: RuleSet = DEFAULT


class RegisterPlayer(msgspec.Struct, frozen=True, tag_field="command", tag="register_player"):
    """E2.1: register ``name`` with the hash of its tournament credential; ``by_director`` when
    the director registers the player."""

    name: str
    token_hash: str
    by_director: bool = False


class RemovePlayer(msgspec.Struct, frozen=True, tag_field="command", tag="remove_player"):
    """E2.4: the director removes player number ``player`` before round 1."""

    player: int


class CloseRegistration(msgspec.Struct, frozen=True, tag_field="command", tag="close_registration"):
    """E2.2: the director closes registration."""


class SeatRound(msgspec.Struct, frozen=True, tag_field="command", tag="seat_round"):
    """E3.3: the director's seating of round ``round_no`` (the next one), by hand."""

    round_no: int
    seating: Seating


class StartRound(msgspec.Struct, frozen=True, tag_field="command", tag="start_round"):
    """E4.1: start round ``round_no`` (the next one), seated by hand or by rule (E3)."""

    round_no: int


class EndTable(msgspec.Struct, frozen=True, tag_field="command", tag="end_table"):
    """E4.2: table ``table_no`` (1-based) of round ``round_no`` is over after ``deals``
    scored deals: finished, or ``abandoned`` (T4.2)."""

    round_no: int
    table_no: int
    deals: int
    abandoned: bool = False


class PublishDeal(msgspec.Struct, frozen=True, tag_field="command", tag="publish_deal"):
    """E6.6: deal ``deal_no`` of round ``round_no`` is public; ``entries`` are its scoresheet
    entries at every table of the round, by table (None: the table is over without it)."""

    round_no: int
    deal_no: int
    entries: tuple[tuple[int, ...] | None, ...]


class FinishTournament(msgspec.Struct, frozen=True, tag_field="command", tag="finish_tournament"):
    """E4.3: the director finishes the tournament between rounds."""


TournamentCommand = (
    CreateTournament
    | RegisterPlayer
    | RemovePlayer
    | CloseRegistration
    | SeatRound
    | StartRound
    | EndTable
    | PublishDeal
    | FinishTournament
)


class TournamentCreated(msgspec.Struct, frozen=True, tag_field="type", tag="event_created"):
    """E1: the tournament was opened. ``seating_seed`` and ``round_seeds`` (hex) are secret
    (E1.2, E5.3); ``seating_commitment`` and ``commitments`` (by round, by deal) are their
    SHA-256, public at once. ``rules``: the rule set of every table (`domain.rule_set`; left
    out: RULES.md exactly)."""

    name: str
    rounds: int
    host_token_hash: str
    seating_commitment: str
    seating_seed: str
    commitments: tuple[tuple[str, ...], ...] = ()
    round_seeds: tuple[tuple[str, ...], ...] = ()
    presets: tuple[tuple[Hands, ...], ...] = ()
    visibility: Visibility = Visibility.PUBLIC
    invitation_hash: str = ""
    turn_seconds: int | None = None
    method: StandingsMethod = StandingsMethod.TOTAL_POINTS
    max_players: int = PLAYERS[1]
    rules: RuleSet | UnsetType = UNSET


class PlayerRegistered(msgspec.Struct, frozen=True, tag_field="type", tag="player_registered"):
    """E2.1: player number ``player`` registered as ``name``; only its credential's hash is
    kept."""

    player: int
    name: str
    token_hash: str
    by_director: bool = False


class PlayerRemoved(msgspec.Struct, frozen=True, tag_field="type", tag="player_removed"):
    """E2.4: the director removed player number ``player``; those after it move up one."""

    player: int


class RegistrationEnded(msgspec.Struct, frozen=True, tag_field="type", tag="registration_ended"):
    """E2.2: the director closed registration."""


class RoundSeated(msgspec.Struct, frozen=True, tag_field="type", tag="round_seated"):
    """E3.3: the director seated round ``round_no`` by hand (the last such seating counts)."""

    round_no: int
    seating: Seating


class RoundStarted(msgspec.Struct, frozen=True, tag_field="type", tag="round_started"):
    """E4.1: round ``round_no`` started with ``seating``, by hand or drawn by rule (E3)."""

    round_no: int
    seating: Seating
    by_hand: bool = False


class TableEnded(msgspec.Struct, frozen=True, tag_field="type", tag="table_ended"):
    """E4.2: table ``table_no`` of round ``round_no`` is over after ``deals`` scored deals,
    finished or ``abandoned`` (T4.2)."""

    round_no: int
    table_no: int
    deals: int
    abandoned: bool = False


class DealPublished(msgspec.Struct, frozen=True, tag_field="type", tag="deal_published"):
    """E6.6: deal ``deal_no`` of round ``round_no`` is public (E5.3), with its scoresheet
    entries at every table of the round, by table (None: the table is over without it)."""

    round_no: int
    deal_no: int
    entries: tuple[tuple[int, ...] | None, ...]


class RoundEnded(msgspec.Struct, frozen=True, tag_field="type", tag="round_ended"):
    """E4.3: every table of round ``round_no`` has ended."""

    round_no: int


class TournamentFinished(msgspec.Struct, frozen=True, tag_field="type", tag="event_finished"):
    """E4.3: the tournament is over after ``rounds`` rounds; ``seating_seed`` (hex) is revealed."""

    rounds: int
    seating_seed: str


TournamentEvent = (
    TournamentCreated
    | PlayerRegistered
    | PlayerRemoved
    | RegistrationEnded
    | RoundSeated
    | RoundStarted
    | TableEnded
    | DealPublished
    | RoundEnded
    | TournamentFinished
)


class Registrant(msgspec.Struct, frozen=True):
    """A registered player (E2.1)."""

    name: str
    token_hash: str
    by_director: bool = False


class TournamentState(msgspec.Struct, frozen=True):
    """A tournament: its options, its players, the seatings of the rounds started, the ends of
    the running round's tables (``ends``, by table: None while it runs), the director's
    seating of the next round (``by_hand``), whether registration is ``closed`` early (E2.2)
    and it is ``finished``; ``names`` holds the players' names as they are compared (N4);
    ``published``, by round started, the entries of its public deals, by deal, by table
    (E6.6)."""

    created: TournamentCreated | None = None
    players: tuple[Registrant, ...] = ()
    names: frozenset[str] = frozenset()
    closed: bool = False
    seatings: tuple[Seating, ...] = ()
    by_hand: Seating | None = None
    ends: tuple[TableEnded | None, ...] = ()
    ended: tuple[tuple[TableEnded, ...], ...] = ()
    published: tuple[tuple[tuple[tuple[int, ...] | None, ...], ...], ...] = ()
    finished: bool = False

    @property
    def round_no(self) -> int:
        """The number of rounds started (the current or the last one)."""
        return len(self.seatings)

    @property
    def running(self) -> bool:
        """A round is running: started and not every table has ended (E4.3)."""
        return len(self.ended) < len(self.seatings)

    @property
    def status(self) -> TournamentStatus:
        """The tournament's place in its life (`TournamentStatus`)."""
        if self.finished:
            return TournamentStatus.FINISHED
        if self.running:
            return TournamentStatus.PLAYING
        return TournamentStatus.BETWEEN if self.seatings else TournamentStatus.REGISTERING

    def player_of(self, token_hash: str) -> int | None:
        """The number of the player holding this credential's hash, if any (E2.1)."""
        for number, player in enumerate(self.players):
            if player.token_hash == token_hash:
                return number
        return None


def standings_method(name: str) -> StandingsMethod:
    """E1.1: the standings method called ``name``; raises `UnknownStandingsMethod`."""
    try:
        return StandingsMethod(name)
    except ValueError:
        known = ", ".join(m.value for m in StandingsMethod)
        raise UnknownStandingsMethod(
            f"no standings method {name!r}; one of {known}", rule="E1.1"
        ) from None


def decide(state: TournamentState, command: TournamentCommand) -> tuple[TournamentEvent, ...]:
    """Validate a command against the tournament; return the events it causes."""
    if isinstance(command, CreateTournament):
        if state.created is not None:
            raise PhaseClosed("the tournament exists already", rule="E1")
        return (_create(command),)
    created = state.created
    if created is None:
        raise PhaseClosed("the tournament does not exist", rule="E1")
    if isinstance(command, PublishDeal):  # E6.6: also once finished (a record of the past)
        return (_publish(state, created, command),)
    if state.finished:
        raise TournamentOver("the tournament is finished", rule="E4.3")
    if isinstance(command, RegisterPlayer):
        return (_register(state, created, command),)
    if isinstance(command, RemovePlayer):
        return (_remove(state, command),)
    if isinstance(command, CloseRegistration):
        _registering(state)
        return (RegistrationEnded(),)
    if isinstance(command, SeatRound):
        return (_seat_round(state, created, command),)
    if isinstance(command, StartRound):
        return (_start(state, created, command),)
    if isinstance(command, EndTable):
        return _end_table(state, created, command)
    if state.running:
        raise RoundRunning("a round is running: the tournament finishes after it", rule="E4.3")
    return (TournamentFinished(state.round_no, created.seating_seed),)


def _create(command: CreateTournament) -> TournamentCreated:
    """E1.1 the options, E1.2 the chance."""
    low, high = ROUNDS
    name = normal_name(command.name)
    if not name:
        raise InvalidTournamentOption("a tournament has a name", rule="E1.1")
    if not low <= command.rounds <= high:
        raise InvalidTournamentOption(
            f"a tournament has {low}-{high} rounds, not {command.rounds}", rule="E1.1"
        )
    low, high = TURN_SECONDS
    if command.turn_seconds is not None and not low <= command.turn_seconds <= high:
        raise InvalidTournamentOption(
            f"a turn clock runs {low}-{high} seconds, not {command.turn_seconds}", rule="E1.1"
        )
    if command.visibility is Visibility.PRIVATE and not command.invitation_hash:
        raise InvalidTournamentOption("a private tournament needs an invitation code", rule="E1.1")
    low, high = PLAYERS
    if not low <= command.max_players <= high:
        raise InvalidTournamentOption(
            f"a tournament takes at most {low}-{high} players, not {command.max_players}",
            rule="E1.1",
        )
    if len(command.seating_seed) != SEED_BYTES:
        raise InvalidTournamentOption(f"the seating seed has {SEED_BYTES} bytes", rule="E1.2")
    check_session_deals(command.rules.session_deals)
    count = command.rules.all_deals
    chance = command.presets or command.round_seeds
    if bool(command.presets) == bool(command.round_seeds) or len(chance) != command.rounds:
        raise InvalidTournamentOption(
            f"give {count} seeds or {count} preset deals for each of the {command.rounds} rounds",
            rule="E1.2",
        )
    if any(len(deals) != count for deals in chance):
        raise InvalidTournamentOption(f"every round has {count} deals", rule="E1.2")
    if any(len(seed) != SEED_BYTES for seeds in command.round_seeds for seed in seeds):
        raise InvalidTournamentOption(f"a deal seed has {SEED_BYTES} bytes", rule="E1.2")
    for deals in command.presets:
        for hands in deals:
            validate_preset(hands, command.rules.algorithm)
    return TournamentCreated(
        name=name,
        rounds=command.rounds,
        host_token_hash=command.host_token_hash,
        seating_commitment=commitment(command.seating_seed),
        seating_seed=command.seating_seed.hex(),
        commitments=tuple(tuple(commitment(s) for s in seeds) for seeds in command.round_seeds),
        round_seeds=tuple(tuple(s.hex() for s in seeds) for seeds in command.round_seeds),
        presets=command.presets,
        visibility=command.visibility,
        invitation_hash=command.invitation_hash,
        turn_seconds=command.turn_seconds,
        method=command.method,
        max_players=command.max_players,
        rules=recorded(command.rules),
    )


def _registering(state: TournamentState) -> None:
    """E2.2: registration is open: round 1 has not started, the director has not closed it."""
    if state.seatings:
        raise RegistrationClosed("round 1 has started: registration is closed", rule="E2.2")
    if state.closed:
        raise RegistrationClosed("the director has closed registration", rule="E2.2")


def _register(
    state: TournamentState, created: TournamentCreated, command: RegisterPlayer
) -> PlayerRegistered:
    """E2.1 a name nobody has (N1-N4), E2.2 while registration is open, E2.3 not beyond the
    most players."""
    _registering(state)
    name = normal_name(command.name)
    if not name:
        raise InvalidPlayerName("a player has a name", rule="E2.1")
    if name_key(name) in state.names:
        raise NameTaken(f"a player called {name!r} is registered already", rule="E2.1")
    if len(state.players) >= created.max_players:
        raise TournamentFull(
            f"the tournament takes at most {created.max_players} players", rule="E2.3"
        )
    return PlayerRegistered(len(state.players), name, command.token_hash, command.by_director)


def _remove(state: TournamentState, command: RemovePlayer) -> PlayerRemoved:
    """E2.4: the director removes a registered player until round 1 starts."""
    if state.seatings:
        raise PlayersFixed("round 1 has started: the players are fixed", rule="E2.4")
    if not 0 <= command.player < len(state.players):
        raise UnknownPlayer(f"there is no player {command.player}", rule="E2.4")
    return PlayerRemoved(command.player)


def _next_round(state: TournamentState, created: TournamentCreated, round_no: int) -> None:
    """E4.1: round ``round_no`` is the next one, and there is one."""
    if not round_no == state.round_no + 1 <= created.rounds:
        raise RoundNotNext(
            f"the next round is {state.round_no + 1} of {created.rounds}, not {round_no}",
            rule="E4.1",
        )
    if not state.players:
        raise NoPlayers("nobody has registered yet", rule="E4.1")


def _seat_round(
    state: TournamentState, created: TournamentCreated, command: SeatRound
) -> RoundSeated:
    """E3.3: the director seats the next round by hand (also while the round before it
    runs), every player exactly once."""
    _next_round(state, created, command.round_no)
    return RoundSeated(command.round_no, seating.validate(command.seating, len(state.players)))


def _start(state: TournamentState, created: TournamentCreated, command: StartRound) -> RoundStarted:
    """E4.1: the next round starts, seated by hand (checked again: players may have
    registered since, E3.3) or by rule (E3.1, E3.2)."""
    if state.running:
        raise RoundRunning(f"round {state.round_no} is running", rule="E4.1")
    _next_round(state, created, command.round_no)
    if state.by_hand is not None:
        return RoundStarted(
            command.round_no, seating.validate(state.by_hand, len(state.players)), True
        )
    drawn = seating.draw(
        bytes.fromhex(created.seating_seed), command.round_no, len(state.players), state.seatings
    )
    return RoundStarted(command.round_no, drawn)


def _end_table(
    state: TournamentState, created: TournamentCreated, command: EndTable
) -> tuple[TournamentEvent, ...]:
    """E4.2: a table of the running round ends once, finished after its deals (E1.2) or
    abandoned;
    E4.3: the last table's end ends the round, and the last round's the tournament."""
    if not state.running:
        raise NoRoundRunning("no round is running", rule="E4.2")
    if command.round_no != state.round_no or not 1 <= command.table_no <= len(state.ends):
        raise UnknownTable(
            f"round {state.round_no} has tables 1-{len(state.ends)}; "
            f"not table {command.table_no} of round {command.round_no}",
            rule="E4.2",
        )
    if state.ends[command.table_no - 1] is not None:
        raise TableEndedAlready(f"table {command.table_no} has ended already", rule="E4.2")
    deals = in_force(created.rules).all_deals
    most = deals - 1 if command.abandoned else deals
    if not (0 <= command.deals <= most and (command.abandoned or command.deals == deals)):
        raise TableNotOver(
            f"a table finishes after {deals} scored deals, or is abandoned before", rule="E4.2"
        )
    ended = TableEnded(command.round_no, command.table_no, command.deals, command.abandoned)
    if sum(e is None for e in state.ends) > 1:
        return (ended,)
    if state.round_no < created.rounds:
        return (ended, RoundEnded(state.round_no))
    finished = TournamentFinished(state.round_no, created.seating_seed)
    return (ended, RoundEnded(state.round_no), finished)


def _publish(
    state: TournamentState, created: TournamentCreated, command: PublishDeal
) -> DealPublished:
    """E6.6: the next deal of a started round, with an entry (or None) for every table of
    it, four to a table."""
    round_no, deal_no = command.round_no, command.deal_no
    if not 1 <= round_no <= state.round_no:
        raise DealNotNext(f"round {round_no} has not started", rule="E6.6")
    deals = in_force(created.rules).all_deals
    if deal_no != len(state.published[round_no - 1]) + 1 or deal_no > deals:
        done = len(state.published[round_no - 1])
        raise DealNotNext(
            f"round {round_no} has {done} deals published: not deal {deal_no}", rule="E6.6"
        )
    tables = len(state.seatings[round_no - 1])
    if len(command.entries) != tables or any(
        e is not None and len(e) != len(SEATS) for e in command.entries
    ):
        raise DealNotNext(
            f"a deal of round {round_no} has an entry for each of its {tables} tables",
            rule="E6.6",
        )
    return DealPublished(round_no, deal_no, command.entries)


def evolve(state: TournamentState, event: TournamentEvent) -> TournamentState:
    """Apply one event to the tournament. Never validates."""
    replace = msgspec.structs.replace
    if isinstance(event, TournamentCreated):
        return replace(state, created=event)
    if isinstance(event, PlayerRegistered):
        player = Registrant(event.name, event.token_hash, event.by_director)
        names = state.names | {name_key(event.name)}
        return replace(state, players=(*state.players, player), names=names)
    if isinstance(event, PlayerRemoved):
        gone = state.players[event.player]
        players = (*state.players[: event.player], *state.players[event.player + 1 :])
        names = state.names - {name_key(gone.name)}
        return replace(state, players=players, names=names, by_hand=None)
    if isinstance(event, RegistrationEnded):
        return replace(state, closed=True)
    if isinstance(event, RoundSeated):
        return replace(state, by_hand=event.seating)
    if isinstance(event, RoundStarted):
        return replace(
            state,
            seatings=(*state.seatings, event.seating),
            by_hand=None,
            ends=(None,) * len(event.seating),
            published=(*state.published, ()),
        )
    if isinstance(event, DealPublished):
        index = event.round_no - 1
        deals = (*state.published[index], event.entries)
        return replace(
            state, published=(*state.published[:index], deals, *state.published[index + 1 :])
        )
    if isinstance(event, TableEnded):
        index = event.table_no - 1
        return replace(state, ends=(*state.ends[:index], event, *state.ends[index + 1 :]))
    if isinstance(event, RoundEnded):
        done = tuple(e for e in state.ends if e is not None)
        return replace(state, ended=(*state.ended, done))
    return replace(state, finished=True)


def fold(
    events: Sequence[TournamentEvent], state: TournamentState | None = None
) -> TournamentState:
    """The tournament after the events: a fold of `evolve`."""
    state = state or TournamentState()
    for event in events:
        state = evolve(state, event)
    return state


def command_of(event: TournamentEvent) -> TournamentCommand | None:
    """The command a recorded event answers, for the audit's replay (`domain.replay`); None
    for `RoundEnded`, which follows a table's end. A lone `TournamentFinished` is the
    director's; one that follows a table's end is that command's."""
    if isinstance(event, TournamentCreated):
        return CreateTournament(
            name=event.name,
            rounds=event.rounds,
            host_token_hash=event.host_token_hash,
            seating_seed=bytes.fromhex(event.seating_seed),
            round_seeds=tuple(tuple(bytes.fromhex(s) for s in r) for r in event.round_seeds),
            presets=event.presets,
            visibility=event.visibility,
            invitation_hash=event.invitation_hash,
            turn_seconds=event.turn_seconds,
            method=event.method,
            max_players=event.max_players,
            rules=in_force(event.rules),
        )
    if isinstance(event, PlayerRegistered):
        return RegisterPlayer(event.name, event.token_hash, event.by_director)
    if isinstance(event, PlayerRemoved):
        return RemovePlayer(event.player)
    if isinstance(event, RegistrationEnded):
        return CloseRegistration()
    if isinstance(event, RoundSeated):
        return SeatRound(event.round_no, event.seating)
    if isinstance(event, RoundStarted):
        return StartRound(event.round_no)
    if isinstance(event, TableEnded):
        return EndTable(event.round_no, event.table_no, event.deals, event.abandoned)
    if isinstance(event, DealPublished):
        return PublishDeal(event.round_no, event.deal_no, event.entries)
    if isinstance(event, TournamentFinished):
        return FinishTournament()
    return None


TOURNAMENT = Aggregate(TournamentState(), decide, evolve, command_of)
"""The tournament aggregate, for the audit's replay (`domain.replay.replay`)."""
