"""V1 Without nines (ohne Neunen): 40 cards, 10 per hand.

- V1.1 Option without_nines true: the deck is the 48 cards of R2.1 less the eight nines:
  40 cards, 20 codes each twice. A nine counts 0, so the deck still holds 240 card points
  and every threshold of R7-R9 stands (121, 90, 60, 30; 40 for a Doppelkopf). Each player
  holds 10 cards and 10 tricks are played: where RULES.md says 12 tricks (R3.5, R3.6, R7)
  it means 10. Trumps and plain suits are those of R3 and R5 without the nines: 24 trumps
  in a normal game, clubs and spades plain A 10 K, hearts A K.
- V1.2 Dealing (R2.2): algorithm `doko-deal-v1-40`, as `doko-deal-v1` (the algorithm of
  R2.2) on the 40-card deck (the canonical order with the nines left out): Fisher-Yates
  from position 39, the cut `c = 3 +` a number below 35, then three rounds from the
  dealer's left of 3, 4 and 3 cards each. Commitments, seeds and the players'
  entropy as R2.2. Preset hands are 4 hands of 10, every code but the nines exactly twice.
- V1.3 Announcement deadlines: every deadline of R6 that counts the cards in the
  announcer's hand is two cards lower, so that it falls at the same moment of play (the
  same number of cards played): re/kontra with at least 9 cards, no90 8, no60 7, no30 6,
  schwarz 5; re/kontra as a reply (R6.6) with 8 against re, 7 against no90, 6 against
  no60, 5 against no30, 4 against schwarz. A word refused for one of these deadlines (its
  own, a reply's or an included level's) names V1.3; the order of R6.10 and the late
  reply's consequence (R6.6) stand. (The DDV texts state the deadlines for 12 cards
  only; FreeDoko states them in cards held and does not move them without nines; we
  keep the moment of play.)
- V1.4 Marriage: the clarifying trick is still one of the first 3 tricks (R4.6; it counts
  tricks, not cards), and its shift of R6.7 (one card in trick 2, two in trick 3) comes
  on top of V1.3: clarified in trick 3, re/kontra needs at least 7 cards.
- V1.5 The last trick is trick 10: Karlchen (R9.4) wins trick 10, schwarz (R7.2, R8.1)
  is all 10 tricks, and with V2.2 the first 10H ranks higher again in trick 10. The
  silent solo (R4.5), the solos, reservations and scoring (R7-R10) are otherwise as
  RULES.md, and V2, V3 and V5 combine with V1 unchanged.
"""

from __future__ import annotations

from domain.cards import DECK as FULL_DECK
from domain.cards import Rank

RULE = "V1.1"
"""The option's id, as `domain.rule_set.RuleSet.variants` lists it."""

DEADLINES = "V1.3"
"""The id a refusal for a shifted announcement deadline names."""

DECK = tuple(c for c in FULL_DECK if c.rank is not Rank.NINE)
"""V1.1: the 40-card deck in its canonical order (R2.1's without the nines)."""

ALGORITHM = "doko-deal-v1-40"
"""V1.2: the dealing algorithm of the 40-card deck."""

PACKETS = (3, 4, 3)
"""V1.2: the cards each player takes in each round of the deal, from the dealer's left."""

TRICKS = len(DECK) // 4
"""V1.1: 10 tricks, 10 cards a hand."""

DEADLINE_SHIFT = 2
"""V1.3: every deadline counted in cards held is two cards lower."""
