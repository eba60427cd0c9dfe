"""Who may do what with an event: its credentials, kept only as SHA-256 hashes (E1.1, E2.1).

- The director's host token (shown once, when the event is created) starts the rounds and
  may register players, also at a private event without its invitation code.
- A player's event credential (shown once, when they register) seats them at their table
  in every round: it is the seat's token there (E5.2).
- A private event's invitation code registers whoever holds it.

As a private table is to a stranger (T1.1), a private event is answered to a caller holding
none of its credentials as an event that does not exist (404 ``event_not_found``).
"""

from __future__ import annotations

import hmac
from typing import Any

from litestar import Request

from domain.event import EventState
from domain.table import Visibility
from service.edge.auth import bearer, token_hash
from service.edge.credentials import Credential, admit
from service.edge.problems import ServiceError


def event_not_found(event_id: str) -> ServiceError:
    return ServiceError(404, "event_not_found", f"no event {event_id!r}")


def _same(digest: str, other: str | None) -> bool:
    return bool(digest) and other is not None and hmac.compare_digest(digest, other)


def digest_of(request: Request[Any, Any, Any]) -> str | None:
    """The hash of the request's Bearer token (None: none sent)."""
    token = bearer(request, required=False)
    return token_hash(token) if token is not None else None


def is_director(state: EventState, digest: str | None) -> bool:
    created = state.created
    return created is not None and _same(created.host_token_hash, digest)


def player_with(state: EventState, digest: str | None) -> int | None:
    """The number of the player holding this credential (by its hash), if any."""
    if digest is None:
        return None
    for number, player in enumerate(state.players):
        if _same(player.token_hash, digest):
            return number
    return None


def by_invitation(state: EventState, digest: str | None) -> bool:
    created = state.created
    return created is not None and _same(created.invitation_hash, digest)


def opens(state: EventState, digest: str | None) -> bool:
    """Whether the credential is one of the event's: the director's, a player's, or the
    invitation code."""
    return (
        is_director(state, digest)
        or player_with(state, digest) is not None
        or by_invitation(state, digest)
    )


def private(state: EventState) -> bool:
    created = state.created
    return created is not None and created.visibility is Visibility.PRIVATE


def kind_of(state: EventState, digest: str | None) -> Credential | None:
    """The kind of credential this is of the event, as the document names them: a player's
    event credential is their seat token (E5.2), the director's the host token."""
    if is_director(state, digest):
        return Credential.HOST_TOKEN
    if player_with(state, digest) is not None:
        return Credential.SEAT_TOKEN
    return Credential.INVITATION_CODE if by_invitation(state, digest) else None


def authorize_viewer(
    state: EventState, event_id: str, digest: str | None, *, ticket: bool = False
) -> None:
    """What anyone may see of a public event takes, at a private one, a credential of it;
    without one the event does not exist. What admitted the request is noted: the stream
    ticket that stands for the credential (``ticket``), else the credential."""
    if private(state) and not opens(state, digest):
        raise event_not_found(event_id)
    if ticket:
        admit(Credential.STREAM_TICKET)
    elif private(state):
        admit(kind_of(state, digest))


def authorize_director(state: EventState, event_id: str, digest: str | None) -> None:
    """The director's host token: another credential of the event, or any at a public one,
    is 401 (at a private event, none of its credentials: as an unknown event)."""
    if not is_director(state, digest):
        if private(state) and not opens(state, digest):
            raise event_not_found(event_id)
        raise ServiceError(401, "unauthorized", "this is not the event's host token")
    admit(Credential.HOST_TOKEN)


def authorize_player(state: EventState, event_id: str, digest: str | None) -> int:
    """The player whose event credential this is (401 for any other credential)."""
    player = player_with(state, digest)
    if player is None:
        if private(state) and not opens(state, digest):
            raise event_not_found(event_id)
        raise ServiceError(401, "unauthorized", "send a player's event credential")
    admit(Credential.SEAT_TOKEN)
    return player


def authorize_registration(
    state: EventState, event_id: str, digest: str | None, code: str | None
) -> bool:
    """E2.1: whether the director registers (the host token); else at a private event the
    invitation code (``code``, or else the Bearer token) is needed: a stranger is told the
    event does not exist, a player of it without a code is 401 ``invitation_required``,
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
        raise event_not_found(event_id)
    if not code:
        raise ServiceError(
            401, "invitation_required", "a private event: send its invitation code to register"
        )
    raise ServiceError(403, "invitation_invalid", "this is not the event's invitation code")
