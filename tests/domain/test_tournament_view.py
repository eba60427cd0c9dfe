"""The public face of a tournament: no seed before its time, no credential (E1.2, E5.3)."""

from __future__ import annotations

import msgspec

from domain.seats import Seat
from domain.table import Visibility
from domain.tournament import (
    EndTable,
    FinishTournament,
    RegisterPlayer,
    SeatRound,
    StartRound,
    TournamentStatus,
)
from domain.tournament_view import (
    PlayerSeat,
    TournamentRound,
    TournamentTable,
    player_seat,
    tournament_view,
)
from tests.domain.test_tournament import SEED, create, round_seeds, run


def test_the_view_shows_the_rounds_and_no_secret_until_the_end() -> None:
    names = [RegisterPlayer(f"p{n}", f"credential-{n}") for n in range(5)]
    private = create(2, visibility=Visibility.PRIVATE, invitation_hash="invitation-hash")
    hand = ((4, 3, 2, None), (1, 0, None, None))
    state = run(private, *names, SeatRound(1, hand), StartRound(1), EndTable(1, 2, 12))
    view = tournament_view(state)
    assert view.status is TournamentStatus.PLAYING and view.players == (
        "p0",
        "p1",
        "p2",
        "p3",
        "p4",
    )
    assert view.played == (
        TournamentRound(
            1,
            (
                TournamentTable(1, ("p4", "p3", "p2", None)),
                TournamentTable(2, ("p1", "p0", None, None), True, 12),
            ),
            False,
        ),
    )
    shown = msgspec.json.encode(view)
    secrets = [SEED.hex(), "credential-", "invitation-hash", "director"]
    secrets += [s.hex() for seeds in round_seeds(2) for s in seeds]
    assert not [s for s in secrets if s.encode() in shown]
    assert view.seating_seed is None and len(view.commitments) == 2
    finished = run(EndTable(1, 1, 4, abandoned=True), FinishTournament(), state=state)
    assert tournament_view(finished).seating_seed == SEED.hex()
    assert tournament_view(finished).played[0].tables[0] == TournamentTable(
        1, ("p4", "p3", "p2", None), True, 4, True
    )


def test_where_a_player_sits_now() -> None:
    state = run(create(2), *(RegisterPlayer(f"p{n}", f"t{n}") for n in range(5)))
    assert player_seat(state, 0) is None
    hand = ((4, 3, 2, None), (1, 0, None, None))
    state = run(SeatRound(1, hand), StartRound(1), state=state)
    assert player_seat(state, 0) == PlayerSeat(1, 2, Seat.EAST)
    assert player_seat(state, 2) == PlayerSeat(1, 1, Seat.SOUTH)
