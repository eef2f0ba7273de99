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
    "Model",
    "Task",
    "Runs",
    "Passed (Tier 1)",
    "Judged pass (Tier 2)",
    "First call succeeded",
    "Introspections first",
    "Turns",
    "Turns to success",
    "Calls to success",
    "Invalid calls",
    "Recovered from invalid",
    "Tokens per answered run",
    "Recovered",
    "Seconds per run",
    "Wall seconds",
    "Tokens in",
    "Tokens out",
    "Judge tokens",
    "Cost",
)
NUMERIC_METRICS = frozenset(METRIC_HEADINGS[2:])  # sorted as numbers (a page's table)


def metric_cells(row: Any) -> list[str]:
    """A row of the discoverability table as cells (``-`` where a metric does not apply); pass
    rates as ``2/3 (67%, 95% CI 21-94%)``, invalid calls with their kinds."""
    from mcpaql_conformance.verdict.metrics import rate_text

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:g}"

    def rate(passed: int | None, total: int) -> str:
        return "-" if passed is None or not total else f"{passed}/{total} ({rate_text(passed, total)})"

    kinds = ", ".join(f"{kind} {count}" for kind, count in row.invalid_kinds)
    invalid = "-" if row.invalid_calls is None else f"{row.invalid_calls}" + (f" ({kinds})" if kinds else "")
    cost = "-" if row.cost is None else f"{row.cost:.4f} {row.currency or ''}".rstrip()
    return [
        str(row.model) + (" (not a target)" if row.target is False else ""),
        str(row.task),
        str(row.runs),
        rate(row.passed, row.runs),
        rate(row.judged_passed, row.judged),
        share(row.first_call_success),
        number(row.introspections),
        number(row.turns),
        number(row.turns_to_success),
        number(row.calls_to_success),
        invalid,
        share(row.invalid_recovered),
        number(row.tokens),
        share(row.recovery),
        number(row.seconds),
        number(row.wall_seconds),
        number(row.input_tokens),
        number(row.output_tokens),
        number(row.judge_tokens),
        cost,
    ]


def metric_keys(row: Any) -> list[str]:
    """What each cell of a row sorts by on a page: the number behind it (a pass rate by its rate,
    invalid calls by their count; ``-`` sorts first), else its text."""
    rates = [row.passed / row.runs if row.passed is not None and row.runs else None]
    rates.append(row.judged_passed / row.judged if row.judged else None)
    values = [
        row.runs, *rates, row.first_call_success, row.introspections, row.turns, row.turns_to_success,
        row.calls_to_success, row.invalid_calls, row.invalid_recovered, row.tokens, row.recovery, row.seconds,
        row.wall_seconds, row.input_tokens, row.output_tokens, row.judge_tokens, row.cost,
    ]  # fmt: skip
    return [str(row.model), str(row.task), *("-1" if value is None else repr(float(value)) for value in values)]


# The columns of the table `agent` prints: which models can use the server, at a glance.
GLANCE = ("Model", "Task", "Passed (Tier 1)", "First call succeeded", "Introspections first", "Calls to success",
          "Invalid calls", "Tokens in", "Tokens out", "Cost", "Wall seconds")  # fmt: skip


def glance_table(rows: tuple[Any, ...]) -> list[str]:
    """The discoverability table in aligned plain text, a few columns wide (every column is in
    the report's table): one line per model and task, under a heading line."""
    from mcpaql_conformance.report.escape import terminal

    where = [METRIC_HEADINGS.index(heading) for heading in GLANCE]
    table = [list(GLANCE)] + [[terminal(cells[index]) for index in where] for cells in map(metric_cells, rows)]
    widths = [max(len(line[column]) for line in table) for column in range(len(GLANCE))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in table]


def metric_label(row: Any) -> str:
    """A row's name where a format names it in one word run (text lines, JUnit properties)."""
    return f"{row.model}: {row.task}" if row.model else str(row.task)


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
