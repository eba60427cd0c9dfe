"""A table audit's report: what each check found, per deal and per table, and its text.

`Check` is one check's verdict (the first bad version it names), `DealReport` the checks of
one deal, `TableReport` those of a table (`infra.audit.table.verify_events`; a file's too,
`infra.audit.export.verify_file`); `summary` is the report as the lines an auditor reads.
"""

from __future__ import annotations

import msgspec


class Check(msgspec.Struct, frozen=True):
    """One check: its name, whether it passed, what was found, the first bad version."""

    name: str
    ok: bool
    detail: str = ""
    version: int | None = None


class DealReport(msgspec.Struct, frozen=True):
    """The checks of one deal, whose events are versions ``first_version..last_version``."""

    deal_no: int
    method: str
    first_version: int
    last_version: int
    checks: tuple[Check, ...]

    @property
    def preset(self) -> bool:
        return self.method == "preset"

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)


class TableReport(msgspec.Struct, frozen=True):
    """The audit of one table: table-wide checks and one report per deal, and warnings to
    show loudly (a file accepted without proof of its origin); ``flagged`` when it is
    signed by a key revoked after the signature's date (`infra.signing`, Validity)."""

    stream_id: str
    name: str | None
    events: int
    checks: tuple[Check, ...]
    deals: tuple[DealReport, ...]
    warnings: tuple[str, ...] = ()
    flagged: bool = False

    @property
    def failures(self) -> tuple[Check, ...]:
        """Every failed check, table-wide first."""
        return (
            *(c for c in self.checks if not c.ok),
            *(c for d in self.deals for c in d.failures),
        )

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def first_bad_version(self) -> int | None:
        """The lowest version any failed check names."""
        versions = [c.version for c in self.failures if c.version is not None]
        return min(versions) if versions else None


def _failure(check: Check) -> str:
    at = f" (event version {check.version})" if check.version is not None else ""
    return f"{check.name}: {check.detail}{at}"


SHOWN_CHECKS = ("signature", "strict", "table", "chain", "copies", "witness")
"""The checks shown when they pass too: those of an export file, and the chain (which
chain version each stretch of the log was linked by)."""


def summary(report: TableReport) -> list[str]:
    """The warnings, one line per deal, the checks of a file, then one line for the table."""
    label = report.stream_id
    lines = [f"WARNING: {warning}" for warning in report.warnings]
    for deal in report.deals:
        kind = "preset" if deal.preset else deal.method
        if deal.ok:
            passed = ", ".join(c.name for c in deal.checks)
            lines.append(
                f"{label} deal {deal.deal_no:2} ({kind}, v{deal.first_version}-"
                f"v{deal.last_version}): ok [{passed}]"
            )
        else:
            failed = "; ".join(
                f"{c.name}: {c.detail}"
                + (f" (event version {c.version})" if c.version is not None else "")
                for c in deal.failures
            )
            lines.append(f"{label} deal {deal.deal_no:2} ({kind}): FAILED {failed}")
    lines.extend(
        f"{label} {c.name}: {c.detail}" for c in report.checks if c.ok and c.name in SHOWN_CHECKS
    )
    table_failures = [c for c in report.checks if not c.ok]
    if report.ok:
        verdict = "FLAGGED (verified, signed by a key revoked later)" if report.flagged else "ok"
        deals = len({d.deal_no for d in report.deals})
        again = len(report.deals) - deals  # V4.8: dealings of a deal dealt again
        dealt_again = f" ({again} dealt again, V4.8)" if again else ""
        lines.append(
            f"{label}: {verdict}, {deals} deals{dealt_again}, {report.events} events "
            f"({report.name or '?'})"
        )
    else:
        detail = "; ".join(_failure(c) for c in table_failures) or "deal checks failed"
        first = report.first_bad_version
        at = f" at event version {first}" if first is not None else ""
        lines.append(f"{label}: FAILED{at}: {detail}")
    return lines
