"""V5 Bock rounds (Bockrunden): after certain deals the next round counts double.

- V5.1 Option bock_rounds true: a deal that meets one of the triggers V5.2-V5.5 brings a
  Bock round: the next four deals (a round: each player deals once) are Bock deals
  (V5.6). A deal that meets several triggers brings one round; its score names every
  trigger it met. (FreeDoko: "bock", with "bock 120", "bock solo lost", "bock re lost".)
- V5.2 Trigger "zero": the deal's game value is 0, so every scoresheet entry is 0 (the
  deal is scored 0 to 0).
- V5.3 Trigger "120 to 120": the card points tie, Re 120 and Kontra 120.
- V5.4 Trigger "lost solo": a solo (a declared or silent solo, or a marriage played
  alone) that the soloist did not win.
- V5.5 Trigger "Kontra against re": the Re party announced (`re` or more) and Kontra
  won the deal.
- V5.6 A Bock deal counts double: its score lines (R7-R9) as always, then one line V5.6
  giving the same party the same points again, so the game value is doubled; the
  entries (R10) are of the doubled value (a soloist's three times it). A deal of value
  0 stays 0.
- V5.7 Bock rounds are queued, not multiplied: a round brought while Bock deals are
  pending follows after them, so that no deal counts more than double; a Bock deal may
  itself bring the next round. Bock deals still pending when the session's last deal is
  scored lapse. The scoresheet marks each Bock deal. (FreeDoko: "bock append".)
"""

from __future__ import annotations

import msgspec

from domain.events import Score, ScoreLine
from domain.parties import Party
from domain.scoring import entries

ROUND = 4
"""V5.1: the deals of a Bock round, one per player."""


def bock_triggers(score: Score) -> tuple[str, ...]:
    """V5.2-V5.5: the ids of the triggers a scored deal meets, in order (none: no Bock
    round follows it)."""
    met = (
        ("V5.2", score.value == 0),
        ("V5.3", score.card_points[Party.RE] == score.card_points[Party.KONTRA]),
        ("V5.4", score.solo and score.winner is not Party.RE),
        ("V5.5", score.levels[Party.RE] >= 1 and score.winner is Party.KONTRA),
    )
    return tuple(rule for rule, holds in met if holds)


def doubled(score: Score, parties: tuple[Party, ...]) -> Score:
    """V5.6: the score of a Bock deal: one more line V5.6 repeating the game value for the
    party it goes to, the value doubled and the entries (R10) of the doubled value."""
    value = score.value
    if value == 0:
        return msgspec.structs.replace(score, bock=True)
    party = Party.RE if value > 0 else Party.KONTRA
    line = ScoreLine("V5.6", party, abs(value), "Bock: the deal counts double")
    return msgspec.structs.replace(
        score,
        lines=(*score.lines, line),
        value=2 * value,
        entries=entries(parties, 2 * value, solo=score.solo),
        bock=True,
    )


def pending_after(pending: int, bock_deal: bool, score: Score) -> int:
    """V5.1, V5.7: the Bock deals still to come after a scored deal: one fewer if it was
    one, a round more (queued behind them) if it met a trigger."""
    brought = isinstance(score.bock_triggers, tuple) and bool(score.bock_triggers)
    return pending - (1 if bock_deal else 0) + (ROUND if brought else 0)


def marked(score: Score) -> bool:
    """V5.6: whether the scoresheet marks the deal as a Bock deal."""
    return score.bock is True
