"""The two parties of a deal: Re and Kontra (R4.4, R5.1)."""

from __future__ import annotations

from enum import StrEnum


class Party(StrEnum):
    """Re (the QC holders, the soloist, the marriage pair) against Kontra."""

    RE = "re"
    KONTRA = "kontra"

    @property
    def opponent(self) -> Party:
        return Party.KONTRA if self is Party.RE else Party.RE
