"""What an export discloses: what verification needs, nothing derived from a credential.

A table's log holds secrets the service needs and no auditor does: every seat's
``token_hash``, the ``host_token_hash`` and the ``invitation_hash`` (`service.edge.auth`), and
in ``table_created`` the server seeds of all 12 deals, of which only those of deals
scored at the table are public (R2.2; seeds may be shared by several tables).

An event linked by chain version 2 (`infra.hash_chain`) commits to the seal of each such
secret, not to the secret itself, so `disclosed` exports its payload with every credential
hash sealed and each seed sealed unless its deal was scored: the chain verifies alike. A
version-1 link covers the secrets as they are; such events (written before chain version
2) are exported as stored, or their chain would not verify.

The audit replays a log whose seeds are sealed with `replay_start`: the seeds of the
deals scored are read back from their ``deal_dealt`` (each must have the seal of
``table_created``), and the table's creation is re-decided with stand-ins for the seeds
never revealed, which the rules never use (no deal was dealt with them), but for the
deal a session was abandoned in (dealt, not scored): `resume_after_withheld` checks its
``deal_dealt`` but for the seed and the hands, which cannot be checked without the seed,
and goes on from there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain import table
from domain.errors import DomainError
from domain.events import DealDealt, DealScored
from domain.replay import TABLE, Aggregate, Replay, command_of
from domain.table import TableCreated, TableEvent, TableState
from infra.event_store import StoredEvent
from infra.hash_chain import V2, is_sealed, seal, sealed

STAND_IN = bytes(32)
"""The seed a sealed one is replaced by to re-decide the table's creation."""


def stand_in(seed: str) -> str:
    """A seed as the rules re-decide a creation with it: `STAND_IN` for a sealed one."""
    return STAND_IN.hex() if is_sealed(seed) else seed


def disclosed(stored: Sequence[StoredEvent], events: Sequence[TableEvent]) -> list[StoredEvent]:
    """The stored events as an export shows them: in version-2 links every credential hash
    sealed, and every seed but those of the deals scored (``events`` decoded)."""
    scored = {e.deal_no for e in events if isinstance(e, DealScored)}
    return [_disclosed(record, scored) for record in stored]


def _disclosed(record: StoredEvent, scored: set[int]) -> StoredEvent:
    if record.chain < V2:
        return record
    value = msgspec.json.decode(record.payload)
    shown: dict[str, Any] = sealed(record.type, value)
    if shown is value:
        return record
    if record.type == "table_created":
        seeds = value["server_seeds"]
        shown["server_seeds"] = [
            seed if n in scored else seal(seed) for n, seed in enumerate(seeds, start=1)
        ]
    elif record.type == "deal_dealt" and value["deal_no"] in scored:
        shown = value
    return msgspec.structs.replace(record, payload=msgspec.json.encode(shown))


def replay_start(
    events: Sequence[TableEvent],
) -> tuple[int, Aggregate[TableState], str | None]:
    """Where the replay of ``events`` starts and from which state: ``(0, TABLE, None)``
    unless the table's creation holds sealed seeds; then ``(1, the table as created, with
    the seeds of the deals dealt, None)``, or ``(0, TABLE, why)`` when the creation is not
    what the rules make of it (seeds aside)."""
    created = events[0] if events else None
    if not isinstance(created, TableCreated) or not any(map(is_sealed, created.server_seeds)):
        return 0, TABLE, None
    revealed = {
        e.deal_no: e.dealing.seed
        for e in events
        if isinstance(e, DealDealt) and e.dealing.seed is not None
    }
    seeds = tuple(
        _restored(seed, revealed.get(n)) for n, seed in enumerate(created.server_seeds, start=1)
    )
    stand_ins = tuple(map(stand_in, seeds))
    restored = msgspec.structs.replace(created, server_seeds=stand_ins)
    command = command_of(restored)
    assert command is not None  # a table_created is answered by its CreateTable
    try:
        (decided,) = table.decide(TableState(), command)
    except DomainError as error:
        return 0, TABLE, f"the rules do not create this table: {error}"
    assert isinstance(decided, TableCreated)
    kept = {"commitments": created.commitments, "server_seeds": created.server_seeds}
    if len(decided.commitments) != len(created.commitments) or (
        msgspec.structs.replace(decided, **kept) != created
    ):
        return 0, TABLE, f"event 1 is {created!r}; the rules do not create it so"
    state = table.evolve(TableState(), restored)
    return 1, TABLE._replace(initial=state), None


def resume_after_withheld(
    events: Sequence[TableEvent], result: Replay[TableState], aggregate: Aggregate[TableState]
) -> tuple[int, Aggregate[TableState]] | None:
    """Where the replay of ``events`` goes on after the deal whose seed is withheld (dealt,
    not scored, R2.2), and from which state; None unless ``result`` stopped there.

    The command that dealt it is re-decided: every event it produced must be the stored
    one, and its ``deal_dealt`` as well except for the seed and the hands the rules made
    of a stand-in seed (`STAND_IN`); the stored events are then applied as they are.
    """
    index = result.valid
    wanted = redecided(events, result, aggregate)
    if wanted is None:
        return None
    end = index + len(wanted)
    got = events[index:end]
    if len(got) != len(wanted) or not wanted or not _same_but_seed(wanted[-1], got[-1]):
        return None
    if tuple(wanted[:-1]) != tuple(got[:-1]):
        return None
    state = result.state
    for event in got:
        state = aggregate.evolve(state, event)
    return end, aggregate._replace(initial=state)


def redecided(
    events: Sequence[TableEvent], result: Replay[TableState], aggregate: Aggregate[TableState]
) -> tuple[TableEvent, ...] | None:
    """What the rules produce for the command of the event where ``result`` stopped; None
    if there is no such event, it answers no command, or the rules refuse the command."""
    index = result.valid
    command = command_of(events[index]) if index < len(events) else None
    if command is None:
        return None
    try:
        return tuple(aggregate.decide(result.state, command))
    except DomainError:
        return None


def withheld(event: DealDealt) -> bool:
    """Whether a deal's seed is withheld (sealed) in this event."""
    return is_sealed(event.dealing.seed or "")


def _same_but_seed(wanted: TableEvent, got: TableEvent) -> bool:
    """``got`` is a ``deal_dealt`` with a withheld seed, as the rules deal ``wanted`` but for
    the seed, its commitment and the hands."""
    if not isinstance(wanted, DealDealt) or not isinstance(got, DealDealt) or not withheld(got):
        return False
    dealing = msgspec.structs.replace(
        wanted.dealing, seed=got.dealing.seed, commitment=got.dealing.commitment
    )
    return msgspec.structs.replace(wanted, dealing=dealing, hands=got.hands) == got


def _restored(seed: str, revealed: str | None) -> str:
    """The seed ``deal_dealt`` revealed, if ``seed`` is its seal."""
    return revealed if revealed is not None and seal(revealed) == seed else seed
