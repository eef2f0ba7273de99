"""Presentation helpers shared by the renderers (no heavy imports here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.report.badge import badge_status
from mcpaql_conformance.report.escape import terminal
from mcpaql_conformance.verdict.model import Report, Result


@dataclass(frozen=True)
class RenderOptions:
    """How a text report is laid out: wrapped at ``width`` columns (None: not wrapped), at
    most ``max_findings`` findings shown per test (0: all)."""

    width: int | None = None
    max_findings: int = 10


DEFAULT_OPTIONS = RenderOptions()


METRIC_HEADINGS = (
    "Task",
    "Runs",
    "Passed (Tier 1)",
    "Judged pass (Tier 2)",
    "First call succeeded",
    "Turns",
    "Tokens per answered run",
    "Recovered",
    "Seconds per run",
    "Tokens in",
    "Tokens out",
    "Judge tokens",
)


def metric_cells(row: Any) -> list[str]:
    """An agent metrics row as table cells (``-`` where a metric does not apply); pass rates
    as ``2/3 (67%, 95% CI 21-94%)``."""
    from mcpaql_conformance.verdict.metrics import rate_text

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:g}"

    def rate(passed: int | None, total: int) -> str:
        return "-" if passed is None or not total else f"{passed}/{total} ({rate_text(passed, total)})"

    return [
        str(row.task),
        str(row.runs),
        rate(row.passed, row.runs),
        rate(row.judged_passed, row.judged),
        share(row.first_call_success),
        number(row.turns),
        number(row.tokens),
        share(row.recovery),
        number(row.seconds),
        number(row.input_tokens),
        number(row.output_tokens),
        number(row.judge_tokens),
    ]


BADGE_COLOURS = {"brightgreen": "green", "yellow": "yellow", "red": "red", "lightgrey": "grey"}


def warning_count(report: Report) -> int:
    """Tests that make a category warn: WARN results, and failures in SHOULD categories (but for
    expected failures a baseline lists, which count as passing, as for the badge)."""
    return sum(
        1
        for category in report.categories
        for test in category.tests
        if test.result is Result.WARN or (test.failed and not category.required)
    )


def verdict_line(report: Report) -> str:
    """What the run decided, in the badge's words, with the badge's colour and the exit code:
    ``Level 1 conformant, 6 warnings (badge: yellow, exit 0)``."""
    status = badge_status(report)
    if report.conformance_level is None:
        headline = f"Partial run ({terminal(report.category_filter or '')}): no conformance claim"
    elif status.message == "not conformant":
        failed = sum(1 for c in report.categories if c.required for t in c.tests if t.failed)
        excused = sum(1 for c in report.categories if c.required for t in c.tests if t.baselined is not None)
        headline = f"Not conformant at Level {report.requested_level}"
        if failed:
            headline += f": {failed} MUST test(s) failed"
        elif excused:
            headline += ": every MUST test that failed is an expected failure"
        else:
            headline += ": a MUST category is missing"
    else:
        headline = status.message
    warnings = warning_count(report)
    if warnings and report.conformance_level:
        headline += f", {warnings} warning(s)"
    if report.summary.baselined:
        headline += f", {report.summary.baselined} expected failure(s) baselined"
    if report.unneeded:
        headline += f", {len(report.unneeded)} baseline entr{'y' if len(report.unneeded) == 1 else 'ies'} not needed"
    if report.stale:
        count = len(report.stale)
        headline += f"; {count} stale baseline entr{'y fails' if count == 1 else 'ies fail'} the run"
    return f"{headline} (badge: {BADGE_COLOURS.get(status.color, status.color)}, exit {report.exit_code})"
