"""Rejections: every rule violation is a `DomainError` with a stable code and a rule id.

The HTTP edge maps these to problem+json; the domain knows nothing of HTTP.
"""

from __future__ import annotations

from typing import ClassVar


class DomainError(Exception):
    """A command that breaks a rule. ``code`` is stable and machine-readable; ``malformed``
    says that the command's input itself is not what the rule allows (a card code that is
    none, an option out of its bounds), whatever the state: a malformed request, not a move
    the state forbids."""

    code: ClassVar[str] = "rule_violation"
    malformed: ClassVar[bool] = False

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, DomainError)
            and (other.message, other.rule) == (self.message, self.rule)
        )

    def __hash__(self) -> int:
        return hash((type(self), self.message, self.rule))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, rule={self.rule!r})"


class InvalidCard(DomainError):
    """The text is not one of the 24 card codes (R2.1)."""

    code = "invalid_card"
    malformed = True


class InvalidDeal(DomainError):
    """Preset hands that are not 4 x 12 cards with every code twice (R2.1, R2.2)."""

    code = "invalid_deal"
    malformed = True


class PhaseClosed(DomainError):
    """The command belongs to another phase of the deal or session."""

    code = "phase_closed"


class NotYourTurn(DomainError):
    """Another seat is to act (R3.6, R4.1)."""

    code = "not_your_turn"


class CardNotInHand(DomainError):
    """The card is not in the player's hand (R3.6)."""

    code = "card_not_in_hand"


class MustFollow(DomainError):
    """The player holds a card of the led category and must play one (R3.3)."""

    code = "must_follow"


class ContractNotAllowed(DomainError):
    """The named contract may not be played by this player (R4.2)."""

    code = "contract_not_allowed"


class MarriageNotClarified(DomainError):
    """No announcement before the marriage's clarifying trick is complete (R6.7)."""

    code = "marriage_not_clarified"


class WrongParty(DomainError):
    """A player announces only for their own party (R6.9)."""

    code = "wrong_party"


class AlreadyAnnounced(DomainError):
    """The party has announced this already, directly or included (R6.5)."""

    code = "already_announced"


class AnnouncementTooLate(DomainError):
    """The word's own deadline has passed (R6.2, or R6.6 for a reply)."""

    code = "announcement_too_late"


class LateReplyBlocksRefusals(DomainError):
    """A party whose re/kontra was a late reply may not refuse (R6.6)."""

    code = "late_reply_blocks_refusals"


class IncludedLevelTooLate(DomainError):
    """A skipped level that the announcement includes is no longer timely (R6.3)."""

    code = "included_level_too_late"


class SchweinchenNotAllowed(DomainError):
    """Schweinchen are shown only where the table plays them, AD is a trump and the player
    holds both AD, once a deal (V3.1, V3.3)."""

    code = "schweinchen_not_allowed"


class PovertyReturnInvalid(DomainError):
    """The Armut's partner gives back exactly as many cards as it took, from its own hand
    (V4.4)."""

    code = "poverty_return_invalid"


class DutySoloForced(DomainError):
    """The player vorgeführt must say `reservation` and name a solo (V6.7)."""

    code = "duty_solo_forced"


class SessionOver(DomainError):
    """All 12 deals of the session have been played (R1.1)."""

    code = "session_over"


# -- the table's (T1-T4, domain.table) --------------------------------------------------------


class SeatUnavailable(DomainError):
    """The seat is taken, or the table is full (R1.1: four players)."""

    code = "seat_unavailable"


class EntropyNotUsed(DomainError):
    """Entropy sent to a table whose deals are fixed in advance: it would not be mixed in (R2.2)."""

    code = "entropy_not_used"


class InvalidTableOption(DomainError):
    """A table option out of its bounds: a turn clock of 5-600 seconds (T3.1), an
    invitation for a private table (T1.1)."""

    code = "invalid_table_option"
    malformed = True


class SeatVacant(DomainError):
    """Nobody sits on the seat: it is free, or vacant during the session (T2.1, T2.2)."""

    code = "seat_vacant"


class SeatOccupied(DomainError):
    """The host vacates only a bot's or an away seat, never a present player's (T2.4)."""

    code = "seat_occupied"


class LeaveOnTurn(DomainError):
    """A seat does not leave while it is the one to act: it acts first (T2.3)."""

    code = "leave_on_turn"


class NotPrivate(DomainError):
    """A public table has no invitation code to replace (T1.2)."""

    code = "table_public"


class NoTurnClock(DomainError):
    """The table has no turn clock: no turn times out (T3.1)."""

    code = "no_turn_clock"


class ClockRunning(DomainError):
    """The seat's time has not run out yet (T3.2)."""

    code = "clock_running"


class TurnExpired(DomainError):
    """The seat's time ran out: its turn belongs to the stand-in (T3.2)."""

    code = "turn_expired"


class NotAway(DomainError):
    """The clock has not acted for the seat since its player last acted (T3.3)."""

    code = "not_away"


# -- the tournament's (E1-E6, domain.tournament) ---------------------------------------------


class InvalidTournamentOption(DomainError):
    """A tournament option out of its bounds (E1.1), or chance of the wrong shape (E1.2)."""

    code = "invalid_tournament_option"
    malformed = True


class UnknownStandingsMethod(DomainError):
    """No standings method has this name (E1.1, E6)."""

    code = "unknown_standings_method"
    malformed = True


class InvalidPlayerName(DomainError):
    """A player's name is empty (E2.1)."""

    code = "invalid_player_name"
    malformed = True


class NameTaken(DomainError):
    """Another player of the tournament has this name (E2.1)."""

    code = "name_taken"


class RegistrationClosed(DomainError):
    """Round 1 has started: nobody registers any more (E2.2)."""

    code = "registration_closed"


class TournamentFull(DomainError):
    """The tournament has its most players (E2.3)."""

    code = "tournament_full"


class PlayersFixed(DomainError):
    """Round 1 has started: no player is removed any more (E2.4)."""

    code = "players_fixed"


class RoundRunning(DomainError):
    """A round is running: the next starts when its tables have ended (E4.1)."""

    code = "round_running"


class NoPlayers(DomainError):
    """Nobody has registered yet (E4.1)."""

    code = "no_players"


class RoundNotNext(DomainError):
    """Rounds start in order: this one is not the next (E4.1, E3.3)."""

    code = "round_not_next"


class TournamentOver(DomainError):
    """The tournament is finished (E4.3)."""

    code = "tournament_over"


class NoRoundRunning(DomainError):
    """No round is running (E4.2)."""

    code = "no_round_running"


class UnknownTable(DomainError):
    """The running round has no such table (E4.2)."""

    code = "unknown_table"


class TableNotOver(DomainError):
    """A table finishes after its 12 deals, or is abandoned before (E4.2)."""

    code = "table_not_over"


class DealNotNext(DomainError):
    """A round's public deals are recorded in order, one entry per table (E6.6)."""

    code = "deal_not_next"


class TableEndedAlready(DomainError):
    """The table's end is recorded already (E4.2)."""

    code = "table_ended"


# -- names (N1-N4, domain.names) -------------------------------------------------------------


class UnseenCharacters(DomainError):
    """A name holds a bidirectional control or an invisible character (N2)."""

    code = "name_unseen_characters"
    malformed = True


class MixedScripts(DomainError):
    """A name's letters are of several scripts, as look-alikes are (N3)."""

    code = "name_mixed_scripts"
    malformed = True


class TalkText(DomainError):
    """A message (or a spectator's name) of the wrong length, or with control or
    bidirectional formatting characters (T5.1)."""

    code = "talk_text"
    malformed = True


class TalkNamesCard(DomainError):
    """During a deal a seated player's message names a card, a suit, trump or a party
    (T5.2)."""

    code = "talk_names_card"


class TalkMuted(DomainError):
    """The host muted the speaker (T5.3), or the speaker is a bot (T5.4)."""

    code = "talk_muted"
