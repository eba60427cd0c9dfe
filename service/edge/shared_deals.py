"""E5.3: the shared deals of a tournament's round stay hidden until every table of the round
has scored them.

Every table of a round holds the same cards (E5.1), so what one table shows of deal *n*
(its record, its replay, its verification, its review, its seed, an export holding it) tells the
players of another table their own deal *n*. A table that belongs to a tournament (listed in
``tournament_tables``, `infra.tournaments`) therefore answers these only once the deal is *public*
for the round (`infra.tournaments.Tournaments.public_deals`: every table of the round has scored it
or is over), whoever asks: its own players and the director too. Until then: 409
``deal_not_public`` (rule E5.3). A table of no tournament is not concerned.

While a round runs its tables are private (E5.2): the feed, the lobby and the spectator
pages leave them out for everyone holding no credential of the table (T1.1), the tournament's
own players at the other tables included.
"""

from __future__ import annotations

from infra.tournaments import Tournaments
from service.edge.problems import ServiceError


def not_public(deal_no: int) -> ServiceError:
    return ServiceError(
        409,
        "deal_not_public",
        f"deal {deal_no} is shared by the round's tables: it stays hidden until every "
        "table of the round has scored it",
        rule="E5.3",
    )


async def require_public(tournaments: Tournaments, table_id: str, deal_no: int) -> None:
    """E5.3: deal ``deal_no`` of a tournament's table is public for its round (else 409)."""
    found = await tournaments.table_of(table_id)
    if found is None:
        return
    loaded = await tournaments.load(found.tournament_id)
    if deal_no > await tournaments.public_deals(found.tournament_id, loaded.state, found.round_no):
        raise not_public(deal_no)
