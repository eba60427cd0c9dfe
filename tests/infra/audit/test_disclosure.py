"""What an export holds: what verification needs, nothing derived from a credential,
no seed of a deal not scored; and it still verifies."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import asyncpg
import msgspec
import pytest

from domain import table
from domain.commands import AnswerPoverty, Declaration, Declare, NameContract
from domain.dealing import deal_from_seed
from domain.game_types import GameType
from domain.rule_set import RuleSet
from domain.seats import Seat
from domain.table import Visibility
from domain.variants.armut import ArmutRefused, asked, poor
from infra.audit.disclosure import disclosed
from infra.audit.export import export_session, verify_file
from infra.event_store import EventStore, StoredEvent
from infra.projections import project
from infra.signing import PublicKey, Signer
from infra.tables import Tables
from tests.infra.audit.forgery import rechain, resign, seal
from tests.infra.test_projections import execute_all, play_table
from tests.service.knowledge import Log
from tests.service.sessions import poor_seed

SIGNER = Signer.generate()
KEYS = {SIGNER.kid: PublicKey(SIGNER.kid, SIGNER.public)}


@pytest.fixture(scope="module")
async def abandoned(pool: asyncpg.Pool) -> tuple[bytes, Log]:
    """A private table with a host, its invitation replaced (T1.2), abandoned in its third
    deal: its export and its log."""
    tables = Tables(EventStore(pool), project)
    commands, _ = play_table(random.Random(17), "abandoned", stop=160)
    create = msgspec.structs.replace(
        commands[0],
        host_token_hash="host-token-hash",
        visibility=Visibility.PRIVATE,
        invitation_hash="invitation-hash",
    )
    await execute_all(
        tables,
        "abandoned",
        [create, *commands[1:], table.RotateInvitation("rotated-hash"), table.AbandonSession()],
    )
    pairs = await tables.events("abandoned")
    stored, events = [s for s, _ in pairs], [e for _, e in pairs]
    log = Log([msgspec.json.decode(s.payload) | {"type": s.type} for s in stored])
    return export_session(stored, events, signer=SIGNER), log


def test_an_export_holds_no_credential_hash_and_no_seed_of_a_deal_not_scored(
    abandoned: tuple[bytes, Log],
) -> None:
    data, log = abandoned
    last = len(log.events) - 1
    scored = len(log.facts[last].sheet)
    assert scored == 2  # the session was abandoned in deal 3
    secrets = log.secrets(last)
    credentials = {"host-token-hash", "invitation-hash", "rotated-hash"}
    assert credentials < secrets and len(secrets) == 4 + 3 + 10  # seats, host, invitations

    shown = [secret for secret in secrets if secret.encode() in data]
    assert shown == []
    seeds = log.facts[last].created["server_seeds"]
    assert all(seed.encode() in data for seed in seeds[:scored])  # revealed: scored


def test_the_export_verifies(abandoned: tuple[bytes, Log]) -> None:
    data, _ = abandoned
    report = verify_file(data, KEYS)

    assert report.ok, report.failures
    assert [d.deal_no for d in report.deals] == [1, 2, 3]


async def test_an_export_of_a_session_abandoned_after_a_redeal_verifies(
    pool: asyncpg.Pool,
) -> None:
    """V4.8: deal 1 is refused by all and dealt again, then the session is abandoned: both
    dealings of deal 1 keep their seed withheld (R2.2) and the export still verifies."""
    tables = Tables(EventStore(pool), project)
    seed = bytes.fromhex(poor_seed(Seat.NORTH))
    hands = deal_from_seed(seed, Seat.NORTH)
    first = Seat.NORTH.left()
    poor_seat = next(s for s in first.round() if poor(hands[s]))
    rules = RuleSet(armut=True, armut_refused=ArmutRefused.REDEAL, session_deals=4)
    seeds = (seed, *(bytes([n]) * 32 for n in range(2, 5)))
    commands: list[table.TableCommand] = [
        table.CreateTable(
            "redealt",
            Seat.NORTH,
            server_seeds=seeds,
            first_dealer_fixed=True,
            shared_seeds=True,  # the host's seeds, unmixed: deal 1 is dealt from ``seed``
            rules=rules,
        ),
        *(table.TakeSeat(f"p{s}", f"token-{s}", s) for s in Seat),
        *(
            Declare(s, Declaration.RESERVATION if s is poor_seat else Declaration.HEALTHY)
            for s in first.round()
        ),
        NameContract(poor_seat, GameType.POVERTY),
        *(AnswerPoverty(s, False) for s in asked(poor_seat)),
        table.AbandonSession(),
    ]
    await execute_all(tables, "redealt", commands)
    pairs = await tables.events("redealt")
    stored, events = [s for s, _ in pairs], [e for _, e in pairs]
    data = export_session(stored, events, signer=SIGNER)
    assert seed.hex().encode() not in data
    report = verify_file(data, KEYS)
    assert report.ok, report.failures
    assert [d.deal_no for d in report.deals] == [1, 1]


def test_a_scored_deal_whose_seed_is_withheld_fails(abandoned: tuple[bytes, Log]) -> None:
    data, _ = abandoned
    document = msgspec.json.decode(data)
    dealt = next(e for e in document["events"] if e["type"] == "deal_dealt")
    dealt["payload"]["dealing"]["seed"] = seal(dealt["payload"]["dealing"]["seed"])
    # the link covers the seal only: the chain still verifies, the deal does not
    report = verify_file(msgspec.json.encode(resign(document, SIGNER)), KEYS)

    assert [c.name for c in report.failures] == ["commitment"]
    assert report.first_bad_version == dealt["version"]
    withheld = verify_file(data, KEYS).deals[-1]
    assert [c.detail for c in withheld.checks if c.name == "hands"] == [
        "not checked: the deal was not scored, its seed is withheld"
    ]


@pytest.mark.parametrize(
    ("member", "value", "why"),
    [
        ("turn_seconds", 3, "the rules do not create this table: a turn clock runs 5-600"),
        ("commitments", ["00"], "the rules do not create it so"),
    ],
)
def test_a_creation_with_sealed_seeds_is_still_re_decided(
    abandoned: tuple[bytes, Log], member: str, value: object, why: str
) -> None:
    document = msgspec.json.decode(abandoned[0])
    document["events"][0]["payload"][member] = value
    report = verify_file(msgspec.json.encode(resign(rechain(document), SIGNER)), KEYS)

    replayed = next(c for c in report.checks if c.name == "replay")
    assert not replayed.ok and replayed.version == 1
    assert why in replayed.detail


def test_a_version_1_event_is_exported_as_stored() -> None:
    payload = b'{"seat": 0, "name": "ann", "token_hash": "ab"}'
    at = datetime(2026, 12, 1, tzinfo=UTC)
    taken = StoredEvent(1, "t", 2, "seat_taken", 1, payload, None, None, None, at, bytes(32))
    linked = msgspec.structs.replace(taken, chain=2)

    assert disclosed([taken], []) == [taken]  # its link covers the hash as it is
    (shown,) = disclosed([linked], [])
    assert msgspec.json.decode(shown.payload)["token_hash"] == seal("ab")
