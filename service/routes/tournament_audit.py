"""A tournament's audit over HTTP: its stream and every table of every round re-run
(`infra.audit.tournament`, E1-E6), and the signed export of it all
(`infra.audit.tournament_export`)."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.openapi.datastructures import ResponseSpec

from infra.audit.report import Check
from infra.audit.tournament import TournamentReport, tournament_summary, verify_tournament
from infra.audit.tournament_export import TournamentExport, export_tournament, read_tournament
from service.edge.credentials import AS_TOURNAMENT_VIEWER
from service.edge.keys import KEYS_PATH, signing
from service.edge.problems import ServiceError
from service.edge.tournament_access import authorize_viewer, digest_of
from service.openapi import tournament_examples
from service.routes.shared import SIGNED_PROBLEMS, problem_responses, services
from service.routes.tournaments import TournamentId, load_tournament


class TournamentVerification(msgspec.Struct, frozen=True):
    """The audit of a tournament: whether every check passed, the first that failed (the
    first thing that differs), one line per check (`infra.audit.tournament.tournament_summary`) and
    the whole report, every table's included."""

    tournament_id: str
    ok: bool
    first_failure: Check | None
    summary: tuple[str, ...]
    report: TournamentReport


@get(
    "/tournaments/{tournament_id:str}/verification",
    operation_id="verifyTournament",
    summary="Verify the whole tournament",
    description="Re-runs the tournament's stream (the commitments to its seeds, every seating "
    "drawn by the rule or seated by hand, the rounds and the tables' ends) and every table "
    "of every round (opened as the tournament says with the round's shared deals, its chain, "
    "its replay, every deal's seed, hands and score), and, once the tournament is finished, "
    "holds the stored standings against those recomputed from the tables' logs; names the "
    "first thing that differs. Not while a round runs (409 `round_running`, E5.3: its "
    "tables' deals are not all public). Rate-limited like the other routes that replay a "
    "log.",
    security=AS_TOURNAMENT_VIEWER,
    responses=problem_responses(401, 404, 409, shown=[tournament_examples.PROBLEMS["not_between"]]),
)
async def verify(
    request: Request[Any, Any, Any], tournament_id: TournamentId
) -> TournamentVerification:
    loaded = await load_tournament(request, tournament_id)
    authorize_viewer(loaded.state, tournament_id, digest_of(request))
    if loaded.state.running:
        raise ServiceError(
            409,
            "round_running",
            f"round {loaded.state.round_no} is running: the tournament is verified between rounds",
            rule="E5.3",
        )
    report = await verify_tournament(services(request).tournaments, tournament_id)
    return TournamentVerification(
        tournament_id, report.ok, report.first_failure, tuple(tournament_summary(report)), report
    )


@get(
    "/tournaments/{tournament_id:str}/export",
    operation_id="exportTournament",
    summary="The whole tournament as one portable, signed JSON record",
    description="The tournament's stream, every table of every round as its own signed table "
    "export (as `exportSession` makes it) and the standings, signed by the service's "
    f"current key (see `{KEYS_PATH}`), for `doko verify --file` offline (no database). "
    "Credential hashes are sealed, and so is the seed of every deal no table of its round "
    "scored (`infra.audit.tournament_export`). Only once the tournament is finished (409 "
    "`tournament_not_finished`, E4.3). Rate-limited like the other routes that replay a log.",
    security=AS_TOURNAMENT_VIEWER,
    responses={
        200: ResponseSpec(
            TournamentExport,
            description="the tournament and its tables",
            generate_examples=False,
            examples=tournament_examples.EXPORT,
        ),
        **problem_responses(
            401, 404, 409, shown=[tournament_examples.PROBLEMS["not_finished"], *SIGNED_PROBLEMS]
        ),
    },
)
async def export(request: Request[Any, Any, Any], tournament_id: TournamentId) -> Response[bytes]:
    loaded = await load_tournament(request, tournament_id)
    authorize_viewer(loaded.state, tournament_id, digest_of(request))
    if not loaded.state.finished:
        raise ServiceError(
            409,
            "tournament_not_finished",
            "a tournament is exported once it is finished",
            rule="E4.3",
        )
    svc = services(request)
    logs = await read_tournament(svc.tournaments, tournament_id)
    signer, now = await signing(svc.keys)
    body = await asyncio.to_thread(
        export_tournament, logs.stored, logs.logs, logs.standings, signer=signer, signed_at=now
    )
    return Response(body, media_type="application/json")


TOURNAMENT_AUDIT_ROUTES = [verify, export]
