"""Presentation helpers shared by the renderers (no heavy imports here)."""

from __future__ import annotations

from mcpaql_conformance.model import Report
from mcpaql_conformance.render.escape import terminal


def verdict_line(report: Report) -> str:
    """One line that says what the run decided, consistent with its exit code."""
    suffix = ""
    if report.stale:
        suffix = f"; {len(report.stale)} stale baseline entr{'y' if len(report.stale) == 1 else 'ies'}"
    elif report.summary.baselined:
        suffix = f"; {report.summary.baselined} expected failure(s) baselined"
    suffix += f" (exit {report.exit_code})"
    if report.conformance_level is None:
        return f"Partial run ({terminal(report.category_filter or '')}): no conformance claim{suffix}"
    if report.conformance_level == 0:
        return f"NOT CONFORMANT at Level {report.requested_level}{suffix}"
    note = " with warnings" if report.exit_code == 2 else ""
    return f"CONFORMANT at Level {report.conformance_level}{note}{suffix}"
