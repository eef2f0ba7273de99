"""Markdown report (jinja2): every value is escaped by the environment's finalize hook."""

from __future__ import annotations

from mcpaql_conformance.report.badge import badge_status
from mcpaql_conformance.report.common import DEFAULT_OPTIONS, METRIC_HEADINGS, RenderOptions, metric_cells, verdict_line
from mcpaql_conformance.report.escape import Trusted
from mcpaql_conformance.report.requirements import requirements_context
from mcpaql_conformance.report.templates import environment
from mcpaql_conformance.verdict.model import Report


def badge_markdown(report: Report) -> Trusted:
    status = badge_status(report)
    return Trusted(f"![{status.label}: {status.message}]({status.shields_url()})")


def render_markdown(report: Report, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    template = environment("markdown").get_template("report.md.j2")
    return template.render(
        report=report,
        summary=report.summary,
        badge=badge_markdown(report),
        verdict=verdict_line(report),
        headings=METRIC_HEADINGS,
        cells=metric_cells,
        **requirements_context(report),
    )
