"""The decks a deal is dealt from, by the name of its dealing algorithm (`domain.dealing`):
the 48 cards of R2.1 dealt in four rounds of 3 (R2.2), or without nines the 40 cards of
V1.1 in rounds of 3, 4 and 3 (V1.2)."""

from __future__ import annotations

from domain.cards import DECK, Card
from domain.variants import without_nines

ALGORITHM = "doko-deal-v1"
"""R2.2: the dealing algorithm of the 48-card deck."""

DECKS: dict[str, tuple[tuple[Card, ...], tuple[int, ...]]] = {
    ALGORITHM: (DECK, (3, 3, 3, 3)),
    without_nines.ALGORITHM: (without_nines.DECK, without_nines.PACKETS),
}
"""Each algorithm's deck in its canonical order and the cards each player takes in each
round of the deal, from the dealer's left."""
