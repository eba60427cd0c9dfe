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


class SessionOver(DomainError):
    """All 12 deals of the session have been played (R1.1)."""

    code = "session_over"
