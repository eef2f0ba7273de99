"""Presentation helpers shared by the renderers (no heavy imports here)."""

from __future__ import annotations

from mcpaql_conformance.model import Report
from mcpaql_conformance.render.escape import terminal


def verdict_line(report: Report) -> str:
    if report.conformance_level is None:
        return f"Partial run ({terminal(report.category_filter or '')}): no conformance claim (exit {report.exit_code})"
    if report.conformance_level == 0:
        return f"NOT CONFORMANT at Level {report.requested_level} (exit {report.exit_code})"
    note = " with warnings" if report.exit_code == 2 else ""
    return f"CONFORMANT at Level {report.conformance_level}{note} (exit {report.exit_code})"
