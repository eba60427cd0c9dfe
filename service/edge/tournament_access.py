"""Who may do what with a tournament: its credentials, kept only as SHA-256 hashes (E1.1, E2.1).

- The director's host token (shown once, when the tournament is created) starts the rounds and
  may register players, also at a private tournament without its invitation code.
- A player's tournament credential (shown once, when they register) seats them at their table
  in every round: it is the seat's token there (E5.2).
- A private tournament's invitation code registers whoever holds it.

As a private table is to a stranger (T1.1), a private tournament is answered to a caller holding
none of its credentials as a tournament that does not exist (404 ``tournament_not_found``).
"""

from __future__ import annotations

import hmac
from typing import Any

from litestar import Request

from domain.table import Visibility
from domain.tournament import TournamentState
from service.edge.auth import bearer, token_hash
from service.edge.credentials import Credential, admit
from service.edge.problems import ServiceError


def tournament_not_found(tournament_id: str) -> ServiceError:
    return ServiceError(404, "tournament_not_found", f"no tournament {tournament_id!r}")


def _same(digest: str, other: str | None) -> bool:
    return bool(digest) and other is not None and hmac.compare_digest(digest, other)


def digest_of(request: Request[Any, Any, Any]) -> str | None:
    """The hash of the request's Bearer token (None: none sent)."""
    token = bearer(request, required=False)
    return token_hash(token) if token is not None else None


def is_director(state: TournamentState, digest: str | None) -> bool:
    created = state.created
    return created is not None and _same(created.host_token_hash, digest)


def player_with(state: TournamentState, digest: str | None) -> int | None:
    """The number of the player holding this credential (by its hash), if any."""
    if digest is None:
        return None
    for number, player in enumerate(state.players):
        if _same(player.token_hash, digest):
            return number
    return None


def by_invitation(state: TournamentState, digest: str | None) -> bool:
    created = state.created
    return created is not None and _same(created.invitation_hash, digest)


def opens(state: TournamentState, digest: str | None) -> bool:
    """Whether the credential is one of the tournament's: the director's, a player's, or the
    invitation code."""
    return (
        is_director(state, digest)
        or player_with(state, digest) is not None
        or by_invitation(state, digest)
    )


def private(state: TournamentState) -> bool:
    created = state.created
    return created is not None and created.visibility is Visibility.PRIVATE


def kind_of(state: TournamentState, digest: str | None) -> Credential | None:
    """The kind of credential this is of the tournament, as the document names them: a player's
    tournament credential is their seat token (E5.2), the director's the host token."""
    if is_director(state, digest):
        return Credential.HOST_TOKEN
    if player_with(state, digest) is not None:
        return Credential.SEAT_TOKEN
    return Credential.INVITATION_CODE if by_invitation(state, digest) else None


def authorize_viewer(
    state: TournamentState, tournament_id: str, digest: str | None, *, ticket: bool = False
) -> None:
    """What anyone may see of a public tournament takes, at a private one, a credential of it;
    without one the tournament does not exist. What admitted the request is noted: the stream
    ticket that stands for the credential (``ticket``), else the credential."""
    if private(state) and not opens(state, digest):
        raise tournament_not_found(tournament_id)
    if ticket:
        admit(Credential.STREAM_TICKET)
    elif private(state):
        admit(kind_of(state, digest))


def authorize_director(state: TournamentState, tournament_id: str, digest: str | None) -> None:
    """The director's host token: another credential of the tournament, or any at a public one,
    is 401 (at a private tournament, none of its credentials: as an unknown tournament)."""
    if not is_director(state, digest):
        if private(state) and not opens(state, digest):
            raise tournament_not_found(tournament_id)
        raise ServiceError(401, "unauthorized", "this is not the tournament's host token")
    admit(Credential.HOST_TOKEN)


def authorize_player(state: TournamentState, tournament_id: str, digest: str | None) -> int:
    """The player whose tournament credential this is (401 for any other credential)."""
    player = player_with(state, digest)
    if player is None:
        if private(state) and not opens(state, digest):
            raise tournament_not_found(tournament_id)
        raise ServiceError(401, "unauthorized", "send a player's tournament credential")
    admit(Credential.SEAT_TOKEN)
    return player


def authorize_registration(
    state: TournamentState, tournament_id: str, digest: str | None, code: str | None
) -> bool:
    """E2.1: whether the director registers (the host token); else at a private tournament the
    invitation code (``code``, or else the Bearer token) is needed: a stranger is told the
    tournament does not exist, a player of it without a code is 401 ``invitation_required``,
    with another code 403 ``invitation_invalid``."""
    if is_director(state, digest):
        admit(Credential.HOST_TOKEN)
        return True
    if not private(state):
        return False
    if by_invitation(state, token_hash(code) if code else digest):
        admit(None if code else Credential.INVITATION_CODE)
        return False
    if not opens(state, digest):
        raise tournament_not_found(tournament_id)
    if not code:
        raise ServiceError(
            401, "invitation_required", "a private tournament: send its invitation code to register"
        )
    raise ServiceError(403, "invitation_invalid", "this is not the tournament's invitation code")
