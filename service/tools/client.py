"""A small typed client of the doko REST API, over ``httpx.AsyncClient``.

Used by the service tests, and meant for bots, demos and benchmarks::

    async with httpx.AsyncClient(base_url="http://127.0.0.1:8000") as http:
        api = DokoClient(http)
        table = await api.create_table(name="friday")  # private: table.invitation
        seats = [await table.take_seat(name) for name in ("ann", "bob", "cy", "dee")]
        final = await play_session(seats, random_players(seed=1))  # service.tools.play

A private table's `TableClient` holds its invitation code (given to ``create_table`` or
``table``) and sends it to sit down and, with the host token, to watch; players elsewhere
get ``api.table(table_id, invitation=code)``. The lobby is `DokoClient.lobby`.

Tournaments (club nights, competitions) are `DokoClient.create_tournament` (the director's
`TournamentClient`, holding the host token) and `DokoClient.tournament`; a registered player's
`TournamentPlayer` holds the tournament credential, finds its table in the current round and acts
there through `TournamentPlayer.seat`.

Views are decoded into `domain.table_view.TableView`; a domain command (`Declare`,
`NameContract`, `PlayCard`, `Announce`) is sent to its endpoint with `SeatClient.send`,
which acts for ``command.seat`` with the seat client's own token. Every error answer
raises `ProblemError` carrying the RFC 9457 problem. Live events come from
`TableClient.events` and `DokoClient.feed` (Server-Sent Events, parsed by `read_sse`); a bot
or a front end follows its table with `SeatClient.follow` (`TableClient.follow` as a
spectator or the host): typed messages (`service.tools.messages.TableMessage`), a fresh
stream ticket per connection, resumed after the last id, backing off as the service asks
(`service.tools.stream`). `service.tools.retry.RetryingTransport` retries requests likewise.
Table talk is `service.tools.talk_client.TalkClient`.

A client may keep a ``transcript``: every response body it received (and, through
`record`, every stream message), with the table version it shows, for audits of what
the service disclosed to whom.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
import msgspec

from domain.commands import (
    Announce,
    AnswerPoverty,
    DealCommand,
    Declare,
    NameContract,
    PlayCard,
    ReturnPoverty,
    ShowSchweinchen,
)
from domain.seats import Seat
from domain.standings import Standings
from domain.table_view import TableView
from infra.sse import SseMessage
from service.bodies.tables import LobbyPage
from service.bodies.tournaments import (
    DealComparison,
    PlayerRegisteredResponse,
    PlayerTable,
    RoundStartedResponse,
    TournamentAnswer,
    TournamentCreatedResponse,
)
from service.routes.tournament_audit import TournamentVerification
from service.tools.messages import TableMessage, table_message
from service.tools.problem import PROBLEM_JSON as PROBLEM_JSON
from service.tools.problem import ProblemError as ProblemError
from service.tools.problem import raise_for_problem as raise_for_problem
from service.tools.stream import FollowedStream, read_sse


class Received(msgspec.Struct, frozen=True):
    """One thing the service delivered to a viewer.

    ``viewer`` is a seat, or None for a spectator; ``source`` says what it was
    (``view``, ``command``, ``seat_taken``, ``table_created``, ``sse`` or ``feed``; of a
    tournament: ``event_created`` (its stored type), ``tournament`` for an answer of its
    routes, ``tournament_sse``), ``version`` the table version it reflects (for ``feed`` and
    ``tournament_sse``: the global position; 0 for an answer of a tournament's routes);
    ``host``: asked with the host token (a view's life actions are the host's).
    """

    viewer: Seat | None
    source: str
    version: int
    body: bytes
    event: str | None = None
    host: bool = False


class CommandResult(msgspec.Struct, frozen=True):
    """What a command answers: the table's new version and the acting seat's view."""

    version: int
    view: TableView


class _TableCreated(msgspec.Struct):
    table_id: str
    host_token: str
    commitments: list[str]
    version: int
    view: TableView
    invitation: str | None = None


class _InvitationReplaced(msgspec.Struct):
    invitation: str
    version: int


class _SeatTaken(msgspec.Struct):
    table_id: str
    seat: int
    token: str
    version: int
    view: TableView


_COMMAND_PATHS: dict[type, tuple[str, str | None]] = {
    Declare: ("reservation", "declaration"),
    NameContract: ("contract", "contract"),
    PlayCard: ("play", "card"),
    Announce: ("announce", "word"),
    ShowSchweinchen: ("schweinchen", None),
    AnswerPoverty: ("poverty/answer", "accept"),
    ReturnPoverty: ("poverty/return", "cards"),
}


def command_request(command: DealCommand) -> tuple[str, dict[str, Any] | None]:
    """The endpoint suffix and JSON body (None: none) of a domain command."""
    suffix, field = _COMMAND_PATHS[type(command)]
    if field is None:
        return suffix, None
    return suffix, {field: msgspec.to_builtins(getattr(command, field))}


def version_of(response: httpx.Response) -> int:
    """The table version in a response's ETag (``"12"``)."""
    return int(response.headers["etag"].strip('"'))


class DokoClient:
    """The API's entry points: create tables, address existing ones, read the feed."""

    def __init__(self, http: httpx.AsyncClient, transcript: list[Received] | None = None) -> None:
        self.http = http
        self.transcript = transcript

    def record(self, item: Received) -> None:
        if self.transcript is not None:
            self.transcript.append(item)

    async def create_table(
        self,
        name: str = "",
        *,
        first_dealer: int | None = None,
        seeds: Sequence[str] | None = None,
        presets: Sequence[Sequence[Sequence[str]]] | None = None,
        visibility: str | None = None,
        turn_seconds: int | None = None,
        rules: Mapping[str, str | bool] | None = None,
    ) -> TableClient:
        """Open a table (private unless ``visibility="public"``; with a turn clock of
        ``turn_seconds``; playing the house ``rules``, e.g. ``{"second_heart_ten":
        "always"}``); the returned client holds the host token, the invitation code of a
        private table and the commitments."""
        body: dict[str, Any] = {"name": name}
        if first_dealer is not None:
            body["first_dealer"] = first_dealer
        if seeds is not None:
            body["seeds"] = list(seeds)
        if presets is not None:
            body["presets"] = [[list(hand) for hand in deal] for deal in presets]
        if visibility is not None:
            body["visibility"] = visibility
        if turn_seconds is not None:
            body["turn_seconds"] = turn_seconds
        if rules is not None:
            body["rules"] = dict(rules)
        response = await self.http.post("/tables", json=body)
        raise_for_problem(response)
        created = msgspec.json.decode(response.content, type=_TableCreated)
        self.record(Received(None, "table_created", created.version, response.content, host=True))
        table = TableClient(self, created.table_id, invitation=created.invitation)
        table.host_token = created.host_token
        table.commitments = tuple(created.commitments)
        return table

    def table(self, table_id: str, *, invitation: str | None = None) -> TableClient:
        """A client of the table ``table_id`` (``invitation``: a private table's code)."""
        return TableClient(self, table_id, invitation=invitation)

    async def lobby(
        self,
        status: Sequence[str] = (),
        *,
        before: int | None = None,
        limit: int | None = None,
    ) -> LobbyPage:
        """A page of the lobby (public tables, newest first); ``before``: a page's ``next``."""
        params: dict[str, Any] = {"status": list(status)} if status else {}
        if before is not None:
            params["before"] = before
        if limit is not None:
            params["limit"] = limit
        response = await self.http.get("/tables", params=params)
        raise_for_problem(response)
        return msgspec.json.decode(response.content, type=LobbyPage)

    def feed(self, *, last_event_id: str | None = None) -> EventStream:
        """The integration feed of public events of all tables (ids: global positions)."""
        return EventStream(self, "/feed", None, {}, last_event_id)

    async def create_tournament(
        self,
        name: str,
        *,
        rounds: int = 2,
        visibility: str | None = None,
        turn_seconds: int | None = None,
        method: str | None = None,
        presets: Sequence[Sequence[Sequence[Sequence[str]]]] | None = None,
        max_players: int | None = None,
        idempotency_key: str | None = None,
        rules: Mapping[str, str | bool] | None = None,
    ) -> TournamentClient:
        """Open a tournament (E1); the returned client is the director's (the host token, and
        a private tournament's invitation code). ``presets``: every round's 12 deals;
        ``rules``: the house rules of every table."""
        body: dict[str, Any] = {"name": name, "rounds": rounds}
        for key, value in (
            ("visibility", visibility),
            ("turn_seconds", turn_seconds),
            ("method", method),
            ("presets", presets),
            ("max_players", max_players),
            ("rules", dict(rules) if rules is not None else None),
        ):
            if value is not None:
                body[key] = value
        headers = {"idempotency-key": idempotency_key} if idempotency_key else {}
        response = await self.http.post("/tournaments", json=body, headers=headers)
        raise_for_problem(response)
        created = msgspec.json.decode(response.content, type=TournamentCreatedResponse)
        self.record(Received(None, "event_created", created.tournament.version, response.content))
        tournament = TournamentClient(self, created.tournament_id, invitation=created.invitation)
        tournament.host_token = created.host_token
        return tournament

    def tournament(self, tournament_id: str, *, invitation: str | None = None) -> TournamentClient:
        """A client of the tournament ``tournament_id`` (``invitation``: a private
        tournament's code)."""
        return TournamentClient(self, tournament_id, invitation=invitation)


class TournamentClient:
    """One tournament: read it, its standings, a deal across its tables and its stream (with
    ``token``: as that credential's holder, else as the director or with the invitation);
    register players; as its director (with ``host_token``) start rounds."""

    def __init__(
        self, api: DokoClient, tournament_id: str, *, invitation: str | None = None
    ) -> None:
        self.api = api
        self.tournament_id = tournament_id
        self.invitation = invitation
        self.host_token: str | None = None

    @property
    def path(self) -> str:
        return f"/tournaments/{self.tournament_id}"

    def _auth(self, token: str | None) -> dict[str, str]:
        secret = token or self.host_token or self.invitation
        return {"authorization": f"Bearer {secret}"} if secret else {}

    async def _get(
        self, path: str, token: str | None, params: dict[str, Any] | None = None
    ) -> bytes:
        response = await self.api.http.get(path, headers=self._auth(token), params=params)
        raise_for_problem(response)
        self.api.record(Received(None, "tournament", 0, response.content))
        return response.content

    async def view(self, token: str | None = None) -> TournamentAnswer:
        return msgspec.json.decode(await self._get(self.path, token), type=TournamentAnswer)

    async def standings(self, token: str | None = None, method: str | None = None) -> Standings:
        params = {"method": method} if method is not None else None
        body = await self._get(f"{self.path}/standings", token, params)
        return msgspec.json.decode(body, type=Standings)

    async def compare(
        self, round_no: int, deal_no: int, token: str | None = None
    ) -> DealComparison:
        body = await self._get(f"{self.path}/rounds/{round_no}/deals/{deal_no}", token)
        return msgspec.json.decode(body, type=DealComparison)

    async def register(
        self, name: str, *, by_director: bool = False, idempotency_key: str | None = None
    ) -> TournamentPlayer:
        """Register ``name`` (E2): as the director with the host token, else with the
        tournament's invitation code if the client holds one; the player's client."""
        body: dict[str, Any] = {"name": name}
        headers = self._auth(None) if by_director else {}
        if not by_director and self.invitation is not None:
            body["invitation"] = self.invitation
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        response = await self.api.http.post(f"{self.path}/players", json=body, headers=headers)
        raise_for_problem(response)
        registered = msgspec.json.decode(response.content, type=PlayerRegisteredResponse)
        return TournamentPlayer(self, registered.player, registered.name, registered.token)

    async def start_round(
        self,
        round_no: int,
        seating: Sequence[Sequence[int | None]] | None = None,
        *,
        idempotency_key: str | None = None,
    ) -> RoundStartedResponse:
        """As the director, start round ``round_no`` (E4.1), by hand with ``seating``."""
        body: dict[str, Any] = {"round_no": round_no}
        if seating is not None:
            body["seating"] = [list(seats) for seats in seating]
        headers = self._auth(None)
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        response = await self.api.http.post(f"{self.path}/rounds", json=body, headers=headers)
        raise_for_problem(response)
        return msgspec.json.decode(response.content, type=RoundStartedResponse)

    async def verify(self, token: str | None = None) -> TournamentVerification:
        """The audit of the whole tournament (between rounds, once the tournament's tables are
        over)."""
        body = await self._get(f"{self.path}/verification", token)
        return msgspec.json.decode(body, type=TournamentVerification)

    async def export(self, token: str | None = None) -> bytes:
        """The signed export of the finished tournament, for
        `infra.audit.tournament_export.verify_tournament_file`."""
        return await self._get(f"{self.path}/export", token)

    async def stream_ticket(self, token: str | None = None) -> str:
        """A ticket that opens the tournament's stream once (``?ticket=``), as the holder of
        ``token``, else of the client's host token or invitation."""
        response = await self.api.http.post(
            f"{self.path}/stream-tickets", headers=self._auth(token)
        )
        raise_for_problem(response)
        ticket: str = response.json()["ticket"]
        return ticket

    def events(self, *, token: str | None = None, last_event_id: str | None = None) -> EventStream:
        """The tournament's live stream (ids: the stream's message numbers)."""
        path = f"{self.path}/events"
        return EventStream(self.api, path, None, self._auth(token), last_event_id, "tournament_sse")


class TournamentPlayer:
    """A registered player with their tournament credential: their table in the current round
    and their seat there, where the credential is the seat's token (E5.2)."""

    def __init__(self, tournament: TournamentClient, player: int, name: str, token: str) -> None:
        self.tournament = tournament
        self.player = player
        self.name = name
        self.token = token

    async def table(self) -> PlayerTable:
        body = await self.tournament._get(f"{self.tournament.path}/table", self.token)
        return msgspec.json.decode(body, type=PlayerTable)

    async def seat(self) -> SeatClient:
        """The player's seat in the current round (the round must have started)."""
        where = await self.table()
        assert where.table_id is not None and where.seat is not None, where
        return self.tournament.api.table(where.table_id).seat(where.seat, self.token)


class TableClient:
    """One table: its public view, its seats, its public event stream; as its host (with
    ``host_token``) it seats bots, vacates seats, closes the table or abandons the session."""

    def __init__(self, api: DokoClient, table_id: str, *, invitation: str | None = None) -> None:
        self.api = api
        self.table_id = table_id
        self.invitation = invitation
        self.host_token: str | None = None
        self.commitments: tuple[str, ...] = ()
        self.version = 0
        self._view: TableView | None = None

    @property
    def path(self) -> str:
        return f"/tables/{self.table_id}"

    @property
    def credential(self) -> dict[str, str]:
        """What opens a private table to this client: the host token, or the invitation."""
        secret = self.host_token or self.invitation
        return {"authorization": f"Bearer {secret}"} if secret else {}

    async def view(self, min_version: int = 0) -> TableView:
        """The public view; a conditional GET, so an unchanged table costs no rendering.
        ``min_version``: a table version the caller knows of (from any service process)."""
        view, self.version = await _get_view(
            self.api,
            self.path,
            self.credential,
            self._view,
            self.version,
            None,
            min_version,
            host=self.host_token is not None,
        )
        self._view = view
        return view

    async def take_seat(
        self, name: str, seat: int | None = None, entropy: bytes = b""
    ) -> SeatClient:
        """Sit down (on ``seat`` or the next free or vacant one; at a private table with
        the client's invitation code); the client keeps the seat token."""
        body: dict[str, Any] = {"name": name, "entropy": entropy.hex()}
        if seat is not None:
            body["seat"] = seat
        if self.invitation is not None:
            body["invitation"] = self.invitation
        response = await self.api.http.post(f"{self.path}/seats", json=body)
        raise_for_problem(response)
        taken = msgspec.json.decode(response.content, type=_SeatTaken)
        client = SeatClient(self, Seat(taken.seat), taken.token)
        client.version, client._view = taken.version, taken.view
        self.api.record(Received(client.seat, "seat_taken", taken.version, response.content))
        return client

    async def seat_bot(
        self, kind: str = "random", seat: int | None = None, name: str | None = None
    ) -> int:
        """Fill ``seat`` (or the next free one) with a server-side bot; needs the host token."""
        body: dict[str, Any] = {"kind": kind}
        if seat is not None:
            body["seat"] = seat
        if name is not None:
            body["name"] = name
        headers = {"authorization": f"Bearer {self.host_token}"} if self.host_token else {}
        response = await self.api.http.post(f"{self.path}/bots", json=body, headers=headers)
        raise_for_problem(response)
        taken: int = response.json()["seat"]
        return taken

    async def _as_host(self, method: str, path: str) -> CommandResult:
        """A host's command; the table's new version and public view."""
        headers = {"authorization": f"Bearer {self.host_token}"} if self.host_token else {}
        return await _command(self.api, method, path, headers, None, host=True)

    async def vacate(self, seat: int) -> CommandResult:
        """As the host, vacate a bot's or an away seat (T2.4)."""
        return await self._as_host("DELETE", f"{self.path}/seats/{seat}")

    async def close(self) -> CommandResult:
        """As the host, close the table before its session starts (T4.1)."""
        return await self._as_host("POST", f"{self.path}/close")

    async def abandon(self) -> CommandResult:
        """As the host, abandon the running session (T4.2)."""
        return await self._as_host("POST", f"{self.path}/abandon")

    async def replace_invitation(self) -> str:
        """As the host, replace the private table's invitation code (T1.2): the old one
        stops at once; the client holds the new one, which it returns."""
        headers = {"authorization": f"Bearer {self.host_token}"} if self.host_token else {}
        response = await self.api.http.post(f"{self.path}/invitation", headers=headers)
        raise_for_problem(response)
        replaced = msgspec.json.decode(response.content, type=_InvitationReplaced)
        self.api.record(
            Received(None, "invitation_rotated", replaced.version, response.content, host=True)
        )
        self.invitation = replaced.invitation
        return replaced.invitation

    async def stream_ticket(self, token: str | None = None) -> str:
        """A ticket that opens the table's stream once (``?ticket=``), as the holder of
        ``token`` (a seat token), else of the client's host token or invitation."""
        headers = {"authorization": f"Bearer {token}"} if token else self.credential
        response = await self.api.http.post(f"{self.path}/stream-tickets", headers=headers)
        raise_for_problem(response)
        ticket: str = response.json()["ticket"]
        return ticket

    def seat(self, seat: int, token: str) -> SeatClient:
        """A client acting for ``seat`` with its token."""
        return SeatClient(self, Seat(seat), token)

    def events(self, *, last_event_id: str | None = None, token: str | None = None) -> EventStream:
        """The table's live events as a spectator sees them (with ``token``: as that seat;
        a private table's spectator sends the client's host token or invitation)."""
        headers = {"authorization": f"Bearer {token}"} if token else self.credential
        return EventStream(self.api, f"{self.path}/events", None, headers, last_event_id)

    def follow(self, *, after: int | None = None, **options: Any) -> FollowedStream[TableMessage]:
        """The table's stream as a spectator (or, with the host token, the host) sees it,
        typed and resumed, each connection with a fresh ticket (`service.tools.stream`)."""
        secret = self.host_token or self.invitation
        path = f"{self.path}/events"
        return FollowedStream(
            self.api.http, path, _typed, credential=secret, after=after, **options
        )


class SeatClient:
    """One seat, knowing only its own token: its view, its commands, its event stream."""

    def __init__(self, table: TableClient, seat: Seat, token: str) -> None:
        self.table = table
        self.seat = seat
        self.token = token
        self.version = 0
        self._view: TableView | None = None

    @property
    def auth(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.token}"}

    @property
    def path(self) -> str:
        return f"{self.table.path}/seats/{int(self.seat)}"

    async def view(self, min_version: int = 0) -> TableView:
        """The seat's own view (hand, options); a conditional GET on the version held.
        ``min_version``: a table version the caller knows of (from any service process)."""
        view, self.version = await _get_view(
            self.table.api, self.path, self.auth, self._view, self.version, self.seat, min_version
        )
        self._view = view
        return view

    async def send(
        self,
        command: DealCommand,
        *,
        idempotency_key: str | None = None,
        if_match: int | None = None,
    ) -> CommandResult:
        """Send a domain command to its endpoint, acting for ``command.seat`` with this token."""
        suffix, body = command_request(command)
        headers = dict(self.auth)
        if idempotency_key is not None:
            headers["idempotency-key"] = idempotency_key
        if if_match is not None:
            headers["if-match"] = f'"{if_match}"'
        api = self.table.api
        path = f"{self.table.path}/seats/{int(command.seat)}/{suffix}"
        response = await api.http.post(path, json=body, headers=headers)
        raise_for_problem(response)
        result = msgspec.json.decode(response.content, type=CommandResult)
        api.record(Received(self.seat, "command", result.version, response.content))
        if command.seat is self.seat:
            self.version, self._view = result.version, result.view
        return result

    async def leave(self) -> CommandResult:
        """Leave the seat (T2): the table's new version and public view; the token is void."""
        return await _command(self.table.api, "DELETE", self.path, self.auth, None)

    async def back(self) -> CommandResult:
        """Be back after the clock acted for the seat (T3.3)."""
        path = f"{self.path}/back"
        result = await _command(self.table.api, "POST", path, self.auth, self.seat)
        self.version, self._view = result.version, result.view
        return result

    def events(self, *, last_event_id: str | None = None) -> EventStream:
        """The table's live events as this seat may see them."""
        return EventStream(
            self.table.api, f"{self.table.path}/events", self.seat, self.auth, last_event_id
        )

    def follow(self, *, after: int | None = None, **options: Any) -> FollowedStream[TableMessage]:
        """The table's stream as this seat sees it: typed messages that tell whose turn it
        is and what the seat may do, resumed, each connection with a fresh ticket."""
        path = f"{self.table.path}/events"
        return FollowedStream(
            self.table.api.http, path, _typed, credential=self.token, after=after, **options
        )


def _typed(message: SseMessage) -> TableMessage:
    return table_message(message.id or 0, message.data)


async def _command(
    api: DokoClient,
    method: str,
    path: str,
    headers: dict[str, str],
    viewer: Seat | None,
    *,
    host: bool = False,
) -> CommandResult:
    """A command without a body: the table's new version and ``viewer``'s view (``host``:
    given with the host token)."""
    response = await api.http.request(method, path, headers=headers)
    raise_for_problem(response)
    result = msgspec.json.decode(response.content, type=CommandResult)
    api.record(Received(viewer, "command", result.version, response.content, host=host))
    return result


async def _get_view(
    api: DokoClient,
    path: str,
    headers: dict[str, str],
    held: TableView | None,
    version: int,
    viewer: Seat | None,
    min_version: int,
    *,
    host: bool = False,
) -> tuple[TableView, int]:
    if held is not None:
        headers = {**headers, "if-none-match": f'"{version}"'}
    params = {"min_version": min_version} if min_version else None
    response = await api.http.get(path, headers=headers, params=params)
    if response.status_code == 304 and held is not None:
        return held, version
    raise_for_problem(response)
    version = version_of(response)
    api.record(Received(viewer, "view", version, response.content, host=host))
    return msgspec.json.decode(response.content, type=TableView), version


class EventStream:
    """A live event stream: ``async with stream as messages: async for message in messages``.

    Resumes after ``last_event_id`` when given; every message with an id is recorded in
    the client's transcript. Leaving the block disconnects.
    """

    def __init__(
        self,
        api: DokoClient,
        path: str,
        viewer: Seat | None,
        headers: dict[str, str],
        last_event_id: str | None,
        source: str | None = None,
    ) -> None:
        self._api = api
        self._path = path
        self._source = source or ("feed" if path == "/feed" else "sse")
        self._viewer = viewer
        self._headers = dict(headers)
        if last_event_id is not None:
            self._headers["last-event-id"] = last_event_id
        self._context: Any = None

    async def __aenter__(self) -> AsyncIterator[SseMessage]:
        self._context = self._open()
        messages: AsyncIterator[SseMessage] = await self._context.__aenter__()
        return messages

    async def __aexit__(self, *exc: object) -> None:
        await self._context.__aexit__(*exc)

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[AsyncIterator[SseMessage]]:
        # Streams stay quiet between events (heartbeats come every 15 s): no read timeout;
        # bound waits on the messages instead.
        timeout = httpx.Timeout(10.0, read=None)
        async with self._api.http.stream(
            "GET", self._path, headers=self._headers, timeout=timeout
        ) as response:
            if response.status_code >= 400:
                await response.aread()
                raise_for_problem(response)
            yield self._recorded(read_sse(response.aiter_lines()))

    async def _recorded(self, messages: AsyncIterator[SseMessage]) -> AsyncIterator[SseMessage]:
        async for message in messages:
            talk = message.event == "talk"  # beside the events, with no id of its own (T5)
            if message.id is not None and message.id.isdigit() and not talk:
                self._api.record(
                    Received(
                        self._viewer,
                        self._source,
                        int(message.id),
                        message.data.encode(),
                        message.event,
                    )
                )
            yield message
