"""What a tournament export discloses of the tournament's stream, and how the audit replays it.

A tournament's stream holds secrets no auditor needs (E1.2, E2.1): the director's
``host_token_hash``, the ``invitation_hash``, every player's ``token_hash``; and chance
that stays secret for a while: the seating seed until the tournament finishes (E4.3, its
`TournamentFinished` then reveals it), a round's deal seed until the deal is public (E5.3).
Its events are linked by chain version 2 (`infra.hash_chain`), which commits to the seal
of each, so `disclosed` exports every credential hash sealed (no audit check needs one:
a table's seats are compared with the tournament's players through their seals), the seating
seed sealed unless the tournament is finished, and deal ``n`` of round ``r``'s seed sealed
unless a table of round ``r`` scored deal ``n``, as that table's own export reveals it
(`infra.audit.disclosure`). A stream linked by version 1 is exported as stored, as a table's is.

`replay` re-decides such a stream: the tournament's creation with stand-ins (`STAND_IN`) for
the sealed seeds, whose commitments cannot be recomputed and are taken as published;
with the seating seed sealed (an unfinished tournament's export), a round seated by lot is
re-decided but for its seating, which is checked to seat every player once (E3.3) and
cannot be checked against the lot (E3.1, E3.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

import msgspec

from domain import seating, tournament
from domain.errors import DomainError
from domain.replay import Aggregate, Replay
from domain.replay import replay as replay_rules
from domain.tournament import (
    TOURNAMENT,
    RoundStarted,
    TournamentCreated,
    TournamentEvent,
    TournamentFinished,
    TournamentState,
)
from infra.audit.disclosure import stand_in
from infra.event_store import StoredEvent
from infra.hash_chain import V2, is_sealed, seal, sealed

Revealed = Mapping[int, Set[int]]
"""Round number -> the numbers of the deals some table of that round scored."""


def disclosed(
    stored: Sequence[StoredEvent], events: Sequence[TournamentEvent], revealed: Revealed
) -> list[StoredEvent]:
    """The tournament's stored events as an export shows them (see the module docstring);
    ``events`` decoded."""
    finished = any(isinstance(e, TournamentFinished) for e in events)
    return [_disclosed(record, finished, revealed) for record in stored]


def _disclosed(record: StoredEvent, finished: bool, revealed: Revealed) -> StoredEvent:
    if record.chain < V2:
        return record
    value = msgspec.json.decode(record.payload)
    shown = sealed(record.type, value)
    if shown is value:
        return record
    if record.type == "event_created":
        if finished:
            shown["seating_seed"] = value["seating_seed"]
        shown["round_seeds"] = [
            [seed if n in revealed.get(r, ()) else seal(seed) for n, seed in enumerate(seeds, 1)]
            for r, seeds in enumerate(value["round_seeds"], 1)
        ]
    return msgspec.structs.replace(record, payload=msgspec.json.encode(shown))


class TournamentReplay(msgspec.Struct, frozen=True):
    """The replay of a tournament's stream: the state it reached (with stand-ins for sealed
    seeds), the index of the first event the rules do not produce (None: all do), why, and
    the rounds whose seating by lot could not be re-drawn (the seating seed is sealed)."""

    state: TournamentState
    bad: int | None = None
    why: str = ""
    undrawn: tuple[int, ...] = ()


def replay(events: Sequence[TournamentEvent]) -> TournamentReplay:
    """Re-decide a tournament's stream, whose seeds may be sealed (see the module docstring)."""
    start, aggregate, refused = _start(events)
    if refused is not None:
        return TournamentReplay(TournamentState(), 0, refused)
    created = events[0] if start else None
    unseen = isinstance(created, TournamentCreated) and is_sealed(created.seating_seed)
    undrawn: list[int] = []
    while True:
        result: Replay[TournamentState] = replay_rules(events[start:], aggregate)
        if result.error is None:
            return TournamentReplay(result.state, undrawn=tuple(undrawn))
        index = start + result.valid
        if not (unseen and _drawn(result.state, events[index])):
            return TournamentReplay(result.state, index, result.error.message, tuple(undrawn))
        drawn = events[index]
        assert isinstance(drawn, RoundStarted)
        undrawn.append(drawn.round_no)
        aggregate = aggregate._replace(initial=tournament.evolve(result.state, drawn))
        start = index + 1


def _start(events: Sequence[TournamentEvent]) -> tuple[int, Aggregate[TournamentState], str | None]:
    """Where the replay starts and from which state: ``(0, TOURNAMENT, None)``, or, for a
    creation whose seeds are sealed, ``(1, the tournament as created with stand-ins for them,
    None)`` once the rules create it so (commitments of sealed seeds aside), else
    ``(0, TOURNAMENT, why)``."""
    created = events[0] if events else None
    if not isinstance(created, TournamentCreated):
        return 0, TOURNAMENT, None
    seeds = (created.seating_seed, *(s for r in created.round_seeds for s in r))
    if not any(map(is_sealed, seeds)):
        return 0, TOURNAMENT, None
    standing_in = msgspec.structs.replace(
        created,
        seating_seed=stand_in(created.seating_seed),
        round_seeds=tuple(tuple(map(stand_in, r)) for r in created.round_seeds),
    )
    command = tournament.command_of(standing_in)
    assert command is not None  # an event_created is answered by its CreateTournament
    try:
        (decided,) = tournament.decide(TournamentState(), command)
    except DomainError as error:
        return 0, TOURNAMENT, f"the rules do not create this tournament: {error}"
    assert isinstance(decided, TournamentCreated)
    published = msgspec.structs.replace(
        decided,
        seating_seed=created.seating_seed,
        seating_commitment=created.seating_commitment
        if is_sealed(created.seating_seed)
        else decided.seating_commitment,
        round_seeds=created.round_seeds,
        commitments=tuple(
            tuple(
                mine if is_sealed(seed) else theirs
                for seed, mine, theirs in zip(seeds, given, made, strict=False)
            )
            for seeds, given, made in zip(
                created.round_seeds, created.commitments, decided.commitments, strict=False
            )
        ),
    )
    if published != created:
        return 0, TOURNAMENT, f"event 1 is {created!r}; the rules do not create it so"
    return 1, TOURNAMENT._replace(initial=tournament.evolve(TournamentState(), standing_in)), None


def _drawn(state: TournamentState, stored: TournamentEvent) -> bool:
    """Whether ``stored`` starts a round seated by lot (from a sealed seating seed) as the
    rules start it but for the seating, which seats every player once (E3.3)."""
    if not isinstance(stored, RoundStarted) or stored.by_hand or state.by_hand is not None:
        return False
    try:
        (decided,) = tournament.decide(state, tournament.StartRound(stored.round_no))
        seating.validate(stored.seating, len(state.players))
    except DomainError:
        return False
    return msgspec.structs.replace(decided, seating=stored.seating) == stored
