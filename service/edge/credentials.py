"""The credentials doko issues, as the OpenAPI document names them, and which of them
admitted a request.

Four kinds (`Credential`), each a security scheme of the document (`SCHEMES`): the seat
token, the host token and a private table's invitation code, sent as the Bearer token
(`service.edge.auth`), and the stream ticket, sent as ``?ticket=`` on a table's or a
tournament's stream (`service.edge.tickets`). Each route declares next to its decorator the
kinds it accepts (`accepts`, and the named sets below), where the handler's own
``authorize_*`` call is: the declaration stays next to the truth it states.

Whoever admits a request with a credential says so (`admit`); where a record is kept
(`admissions`, as the test of the declarations keeps one per request), it holds the kinds
that admitted it. A credential that admits nothing (a seat token at a host's route, which
answers 401) is not recorded: it was looked at, not accepted.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
from collections.abc import Iterator

from litestar.openapi.spec import SecurityScheme


class Credential(enum.StrEnum):
    """A kind of credential, by its security scheme's name in the document."""

    SEAT_TOKEN = "seatToken"
    HOST_TOKEN = "hostToken"
    INVITATION_CODE = "invitationCode"
    STREAM_TICKET = "streamTicket"


SCHEMES: dict[Credential, SecurityScheme] = {
    Credential.SEAT_TOKEN: SecurityScheme(
        type="http",
        scheme="bearer",
        description="A seat token, answered once by `takeSeat` (`token`; only its hash is "
        "kept). It acts for its seat (the seat's view, its commands, leaving it) for as long "
        "as its player holds the seat (T2.2), and opens a private table's public views and "
        "stream (T1.1). A player's tournament credential, answered once by `registerPlayer`, is "
        "the seat token of their table in every round of the tournament (E5.2) and opens the "
        "tournament (`getPlayerTable`, a private tournament's views). Sent as "
        "`Authorization: Bearer <token>`.",
    ),
    Credential.HOST_TOKEN: SecurityScheme(
        type="http",
        scheme="bearer",
        description="The host token, answered once by `createTable` (`host_token`). It "
        "gives the host's orders (seat a bot, vacate a bot's or an away seat, replace the "
        "invitation code, close the table, abandon the session: T1.2, T2.4, T4) and opens a "
        "private table's public views and stream (T1.1). A tournament's director's host token, "
        "answered once by `createTournament`, starts its rounds, registers players and is the host "
        "token of every table of the tournament (E5.2). Sent as `Authorization: Bearer <token>`.",
    ),
    Credential.INVITATION_CODE: SecurityScheme(
        type="http",
        scheme="bearer",
        description="A private table's invitation code, answered by `createTable` "
        "(`invitation`) and `replaceInvitation`. It seats whoever holds it (`takeSeat`, which "
        "also takes it in the body) and opens the table's public views and stream (T1.1), "
        "until the host replaces it (T1.2). A private tournament's invitation code, answered by "
        "`createTournament`, registers whoever holds it and opens the tournament's views. Sent as "
        "`Authorization: Bearer <code>`.",
    ),
    Credential.STREAM_TICKET: SecurityScheme(
        type="apiKey",
        security_scheme_in="query",
        name="ticket",
        description="A stream ticket, answered by `getStreamTicket` for the credential "
        "sent with it (none at a public table). It opens that table's stream "
        "(`streamTable`) once, within 60 s, as its credential would: for a client that "
        "cannot send headers on a stream (a browser's EventSource). Single use and "
        "short-lived, it is the only thing of the kind that goes in a URL. A tournament's, "
        "answered by `getTournamentStreamTicket`, opens the tournament's stream "
        "(`streamTournament`) so.",
    ),
}
"""The document's security schemes: what each credential is, where it comes from, what it
grants."""

Requirements = list[dict[str, list[str]]]


def accepts(*kinds: Credential, public: bool = False) -> Requirements:
    """The security of an operation that accepts any one of ``kinds`` (OpenAPI: a list of
    requirements, any one will do) and, where ``public``, none (the empty requirement: a
    public table asks for no credential, T1.1)."""
    some: Requirements = [{kind.value: []} for kind in kinds]
    return [*some, {}] if public else some


AS_SEAT = accepts(Credential.SEAT_TOKEN)
"""A seat's own routes: its view and its commands."""
AS_HOST = accepts(Credential.HOST_TOKEN)
"""The host's orders."""
AS_SEAT_OR_HOST = accepts(Credential.SEAT_TOKEN, Credential.HOST_TOKEN)
"""Leaving a seat: its player, or the host vacating a bot's or an away seat (T2.4)."""
AS_SPECTATOR = accepts(
    Credential.SEAT_TOKEN, Credential.HOST_TOKEN, Credential.INVITATION_CODE, public=True
)
"""What a spectator may see: at a private table with any credential of it, at a public
one with none (T1.1)."""
AS_NEWCOMER = accepts(Credential.INVITATION_CODE, public=True)
"""Sitting down: at a private table with its invitation code (as the Bearer token, or in
the body), at a public one with none (T1.1)."""
AS_STREAM_READER = accepts(Credential.STREAM_TICKET) + AS_SPECTATOR
"""A table's stream: a stream ticket, or what a spectator may see with (a seat token: that
seat's events)."""

AS_TOURNAMENT_VIEWER = accepts(
    Credential.SEAT_TOKEN, Credential.HOST_TOKEN, Credential.INVITATION_CODE, public=True
)
"""What anyone may see of a tournament: at a private one with any credential of it (a player's
tournament credential, the director's host token, the invitation code), at a public one with
none."""
AS_TOURNAMENT_STREAM_READER = accepts(Credential.STREAM_TICKET) + AS_TOURNAMENT_VIEWER
"""A tournament's stream: a stream ticket of the tournament, or what anyone may see of it with."""
AS_REGISTRANT = accepts(Credential.INVITATION_CODE, Credential.HOST_TOKEN, public=True)
"""Registering at a tournament: at a private one with its invitation code, or by the director;
at a public one with none (E2.1)."""
AS_TOURNAMENT_PLAYER = accepts(Credential.SEAT_TOKEN)
"""A registered player's own routes: their tournament credential."""

_admitted: contextvars.ContextVar[set[Credential] | None] = contextvars.ContextVar(
    "admitted", default=None
)


def admit(kind: Credential | None) -> None:
    """Note that a credential of this kind (None: none) admitted the request being handled,
    where a record is kept (`admissions`)."""
    record = _admitted.get()
    if record is not None and kind is not None:
        record.add(kind)


@contextlib.contextmanager
def admissions() -> Iterator[set[Credential]]:
    """The kinds of credential that admitted what is handled while the block runs (in its
    context: the request it wraps), filled in as they do."""
    record: set[Credential] = set()
    reset = _admitted.set(record)
    try:
        yield record
    finally:
        _admitted.reset(reset)
