"""The closed list of problem codes: every ``code`` a doko problem+json answer can carry.

Each code has one HTTP status and a one-line meaning (`MEANINGS`). The OpenAPI document
types `service.edge.problems.Problem`'s ``code`` as this enum, so a client can switch over the
codes exhaustively; the README's table of codes is `markdown_table` (kept equal by a test,
as is the list to the codes the source can answer and the domain's errors).
"""

from __future__ import annotations

from enum import StrEnum


class ProblemCode(StrEnum):
    # the request
    MALFORMED_REQUEST = "malformed_request"
    DUPLICATE_MEMBER = "duplicate_member"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    BODY_TOO_LARGE = "body_too_large"
    HEADERS_TOO_LARGE = "headers_too_large"
    REQUEST_TIMEOUT = "request_timeout"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_FOUND = "not_found"
    UNPROCESSABLE = "unprocessable"
    HTTP_ERROR = "http_error"
    # credentials
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    INVITATION_REQUIRED = "invitation_required"
    INVITATION_INVALID = "invitation_invalid"
    TOKEN_IN_URL = "token_in_url"
    TICKET_INVALID = "ticket_invalid"
    TICKET_EXPIRED = "ticket_expired"
    # tables and versions
    TABLE_NOT_FOUND = "table_not_found"
    VERSION_MISMATCH = "version_mismatch"
    VERSION_CONFLICT = "version_conflict"
    VERSION_NOT_REACHED = "version_not_reached"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    IDEMPOTENCY_KEY_IN_FLIGHT = "idempotency_key_in_flight"
    DEAL_NOT_SCORED = "deal_not_scored"
    SESSION_NOT_FINISHED = "session_not_finished"
    # the rules of play (domain.errors)
    INVALID_CARD = "invalid_card"
    INVALID_DEAL = "invalid_deal"
    PHASE_CLOSED = "phase_closed"
    NOT_YOUR_TURN = "not_your_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    MUST_FOLLOW = "must_follow"
    CONTRACT_NOT_ALLOWED = "contract_not_allowed"
    MARRIAGE_NOT_CLARIFIED = "marriage_not_clarified"
    WRONG_PARTY = "wrong_party"
    ALREADY_ANNOUNCED = "already_announced"
    ANNOUNCEMENT_TOO_LATE = "announcement_too_late"
    LATE_REPLY_BLOCKS_REFUSALS = "late_reply_blocks_refusals"
    INCLUDED_LEVEL_TOO_LATE = "included_level_too_late"
    SCHWEINCHEN_NOT_ALLOWED = "schweinchen_not_allowed"
    POVERTY_RETURN_INVALID = "poverty_return_invalid"
    DUTY_SOLO_FORCED = "duty_solo_forced"
    SESSION_OVER = "session_over"
    REPLAY_MISMATCH = "replay_mismatch"
    # the table's rules (domain.table)
    SEAT_UNAVAILABLE = "seat_unavailable"
    TABLE_PUBLIC = "table_public"
    ENTROPY_NOT_USED = "entropy_not_used"
    INVALID_TABLE_OPTION = "invalid_table_option"
    SEAT_VACANT = "seat_vacant"
    SEAT_OCCUPIED = "seat_occupied"
    LEAVE_ON_TURN = "leave_on_turn"
    NO_TURN_CLOCK = "no_turn_clock"
    CLOCK_RUNNING = "clock_running"
    TURN_EXPIRED = "turn_expired"
    NOT_AWAY = "not_away"
    # names (domain.names)
    NAME_UNSEEN_CHARACTERS = "name_unseen_characters"
    NAME_MIXED_SCRIPTS = "name_mixed_scripts"
    TALK_TEXT = "talk_text"
    TALK_NAMES_CARD = "talk_names_card"
    TALK_MUTED = "talk_muted"
    # the tournament's rules (domain.tournament, domain.seating)
    INVALID_TOURNAMENT_OPTION = "invalid_tournament_option"
    UNKNOWN_STANDINGS_METHOD = "unknown_standings_method"
    INVALID_PLAYER_NAME = "invalid_player_name"
    NAME_TAKEN = "name_taken"
    REGISTRATION_CLOSED = "registration_closed"
    TOURNAMENT_FULL = "tournament_full"
    PLAYERS_FIXED = "players_fixed"
    NO_PLAYERS = "no_players"
    ROUND_NOT_NEXT = "round_not_next"
    ROUND_RUNNING = "round_running"
    NO_ROUND_RUNNING = "no_round_running"
    TOURNAMENT_OVER = "tournament_over"
    UNKNOWN_TABLE = "unknown_table"
    TABLE_NOT_OVER = "table_not_over"
    TABLE_ENDED = "table_ended"
    DEAL_NOT_NEXT = "deal_not_next"
    INVALID_SEATING = "invalid_seating"
    UNKNOWN_PLAYER = "unknown_player"
    SEATED_TWICE = "seated_twice"
    LEFT_OUT = "left_out"
    # tournaments at the service (service.routes.tournaments, service.edge.shared_deals)
    TOURNAMENT_NOT_FOUND = "tournament_not_found"
    DEAL_NOT_PUBLIC = "deal_not_public"
    TOURNAMENT_NOT_FINISHED = "tournament_not_finished"
    # limits and the service's state
    RATE_LIMITED = "rate_limited"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    TOO_MANY_CONNECTIONS_FROM_ADDRESS = "too_many_connections_from_address"
    TOO_MANY_STREAMS = "too_many_streams"
    STREAMS_BUSY = "streams_busy"
    DATABASE_UNAVAILABLE = "database_unavailable"
    SIGNING_KEY_UNAVAILABLE = "signing_key_unavailable"
    NOT_READY = "not_ready"
    UNAVAILABLE = "unavailable"
    INTERNAL_ERROR = "internal_error"


C = ProblemCode
MEANINGS: dict[ProblemCode, tuple[int, str]] = {
    C.MALFORMED_REQUEST: (400, "a parameter, header or body is not what the operation takes"),
    C.DUPLICATE_MEMBER: (400, "an object of the JSON body names a member twice"),
    C.UNSUPPORTED_MEDIA_TYPE: (415, "the body is not application/json"),
    C.BODY_TOO_LARGE: (413, "the body is larger than 256 KiB"),
    C.HEADERS_TOO_LARGE: (431, "the request line and headers are too large or too many"),
    C.REQUEST_TIMEOUT: (408, "the request did not arrive in time"),
    C.METHOD_NOT_ALLOWED: (405, "the path does not take this method"),
    C.NOT_FOUND: (404, "no such resource"),
    C.UNPROCESSABLE: (422, "the request cannot be processed"),
    C.HTTP_ERROR: (400, "another HTTP error (its status says which)"),
    C.UNAUTHORIZED: (401, "no credential, or not one of this table"),
    C.FORBIDDEN: (403, "the credential is another seat's"),
    C.INVITATION_REQUIRED: (401, "a private table: sitting down needs its invitation code"),
    C.INVITATION_INVALID: (403, "this is not the table's invitation code"),
    C.TOKEN_IN_URL: (400, "a credential in the URL: get a stream ticket instead"),
    C.TICKET_INVALID: (401, "no such stream ticket for this stream, or used already"),
    C.TICKET_EXPIRED: (401, "the stream ticket expired: get a new one"),
    C.TABLE_NOT_FOUND: (404, "no such table"),
    C.VERSION_MISMATCH: (409, "If-Match named another version than the table's"),
    C.VERSION_CONFLICT: (409, "the table kept changing: retry"),
    C.VERSION_NOT_REACHED: (409, "the table has not reached the min_version asked for"),
    C.IDEMPOTENCY_KEY_REUSED: (422, "the Idempotency-Key was used for another request"),
    C.IDEMPOTENCY_KEY_IN_FLIGHT: (409, "the key's first request is still running: retry"),
    C.DEAL_NOT_SCORED: (409, "the deal stays hidden until it is scored"),
    C.SESSION_NOT_FINISHED: (409, "a session is exported once it is over"),
    C.INVALID_CARD: (400, "no such card"),
    C.INVALID_DEAL: (400, "preset hands that are not a deck dealt 12 each (10 without nines)"),
    C.PHASE_CLOSED: (409, "the deal is not in the phase this action belongs to"),
    C.NOT_YOUR_TURN: (409, "another seat is to act"),
    C.CARD_NOT_IN_HAND: (409, "the card is not in the seat's hand"),
    C.MUST_FOLLOW: (409, "the led suit (or trump) must be followed"),
    C.CONTRACT_NOT_ALLOWED: (409, "this contract may not be named now"),
    C.MARRIAGE_NOT_CLARIFIED: (409, "the marriage is not clarified yet"),
    C.WRONG_PARTY: (409, "the word belongs to the other party"),
    C.ALREADY_ANNOUNCED: (409, "the word was already said"),
    C.ANNOUNCEMENT_TOO_LATE: (409, "the word's deadline has passed"),
    C.LATE_REPLY_BLOCKS_REFUSALS: (409, "a late reply blocks the party's refusals"),
    C.INCLUDED_LEVEL_TOO_LATE: (409, "a level the word includes is past its deadline"),
    C.SCHWEINCHEN_NOT_ALLOWED: (409, "Schweinchen may not be shown now"),
    C.POVERTY_RETURN_INVALID: (409, "give back as many cards as were taken, from your hand"),
    C.DUTY_SOLO_FORCED: (409, "the player vorgeführt must play a solo now"),
    C.SESSION_OVER: (409, "the session's 12 deals are played"),
    C.REPLAY_MISMATCH: (409, "a recorded event is not what the rules make of its command"),
    C.SEAT_UNAVAILABLE: (409, "the seat is taken"),
    C.TABLE_PUBLIC: (409, "a public table has no invitation to replace"),
    C.ENTROPY_NOT_USED: (409, "entropy is not used for preset deals"),
    C.INVALID_TABLE_OPTION: (400, "a table option out of its bounds"),
    C.SEAT_VACANT: (409, "nobody plays the seat"),
    C.SEAT_OCCUPIED: (409, "somebody plays the seat"),
    C.LEAVE_ON_TURN: (409, "a seat does not leave on its own turn"),
    C.NO_TURN_CLOCK: (409, "the table has no turn clock"),
    C.CLOCK_RUNNING: (409, "the turn has not run out yet"),
    C.TURN_EXPIRED: (409, "the turn ran out: the stand-in acted"),
    C.NOT_AWAY: (409, "the seat is not away"),
    C.NAME_UNSEEN_CHARACTERS: (400, "a name with a bidirectional control or invisible character"),
    C.NAME_MIXED_SCRIPTS: (400, "a name whose letters are of several scripts, as look-alikes are"),
    C.TALK_TEXT: (400, "a message (or name) of the wrong length, or with control characters"),
    C.TALK_NAMES_CARD: (409, "during a deal a player's message names a card, suit or party"),
    C.TALK_MUTED: (409, "the host muted the speaker"),
    C.INVALID_TOURNAMENT_OPTION: (
        400,
        "a tournament option out of its bounds, or chance of the wrong shape",
    ),
    C.UNKNOWN_STANDINGS_METHOD: (400, "no such standings method"),
    C.INVALID_PLAYER_NAME: (400, "a player needs a name"),
    C.NAME_TAKEN: (409, "another player of the tournament has this name"),
    C.REGISTRATION_CLOSED: (409, "round 1 has started, or the director closed registration"),
    C.TOURNAMENT_FULL: (409, "the tournament has its most players"),
    C.PLAYERS_FIXED: (409, "round 1 has started: no player is removed any more"),
    C.NO_PLAYERS: (409, "nobody has registered yet"),
    C.ROUND_NOT_NEXT: (409, "rounds start in order: this one is not the next"),
    C.ROUND_RUNNING: (409, "a round is running"),
    C.NO_ROUND_RUNNING: (409, "no round is running"),
    C.TOURNAMENT_OVER: (409, "the tournament is finished"),
    C.UNKNOWN_TABLE: (409, "the running round has no such table"),
    C.TABLE_NOT_OVER: (409, "a table ends after its 12 deals, or abandoned before"),
    C.TABLE_ENDED: (409, "the table's end is recorded already"),
    C.DEAL_NOT_NEXT: (409, "a round's public deals are recorded in order, one entry per table"),
    C.INVALID_SEATING: (409, "a seating of the wrong tables, or a table without a player"),
    C.UNKNOWN_PLAYER: (409, "no player has this number"),
    C.SEATED_TWICE: (409, "the seating seats a player twice"),
    C.LEFT_OUT: (409, "the seating leaves a player out"),
    C.TOURNAMENT_NOT_FOUND: (404, "no such tournament"),
    C.DEAL_NOT_PUBLIC: (409, "a shared deal stays hidden until every table of the round scored it"),
    C.TOURNAMENT_NOT_FINISHED: (409, "a tournament is exported once it is finished"),
    C.RATE_LIMITED: (429, "too many requests: wait Retry-After seconds"),
    C.TOO_MANY_CONNECTIONS: (503, "too many open connections: wait Retry-After seconds"),
    C.TOO_MANY_CONNECTIONS_FROM_ADDRESS: (429, "the client address holds too many connections"),
    C.TOO_MANY_STREAMS: (429, "the client address holds too many open streams"),
    C.STREAMS_BUSY: (429, "streams are being opened faster than the service serves them"),
    C.DATABASE_UNAVAILABLE: (503, "the database is unavailable: retry after Retry-After"),
    C.SIGNING_KEY_UNAVAILABLE: (503, "the signing key cannot be loaded"),
    C.NOT_READY: (503, "a readiness check failed (see errors)"),
    C.UNAVAILABLE: (503, "the service is unavailable"),
    C.INTERNAL_ERROR: (500, "a bug: it is logged"),
}
"""Each code's status and meaning."""


def enum_schema() -> dict[str, object]:
    """The code's schema in the OpenAPI document: the enum, each value's meaning beside it."""
    return {
        "type": "string",
        "enum": [c.value for c in ProblemCode],
        "title": "ProblemCode",
        "description": "The problem's stable code; `x-enum-descriptions` gives each one's meaning.",
        "x-enum-descriptions": {c.value: MEANINGS[c][1] for c in ProblemCode},
    }


def markdown_table() -> str:
    """The README's table of codes."""
    rows = [f"| `{c.value}` | {MEANINGS[c][0]} | {MEANINGS[c][1]} |" for c in ProblemCode]
    return "\n".join(["| code | status | meaning |", "| --- | --- | --- |", *rows]) + "\n"
