"""A self-contained HTML report (inline CSS, inline badge, no external resources), autoescaped."""

from __future__ import annotations

import sys

from markupsafe import Markup

from mcpaql_conformance.report.badge import badge_status, badge_svg
from mcpaql_conformance.report.common import (
    DEFAULT_OPTIONS,
    METRIC_HEADINGS,
    NUMERIC_METRICS,
    RenderOptions,
    metric_cells,
    metric_keys,
    verdict_line,
)
from mcpaql_conformance.report.requirements import requirements_context
from mcpaql_conformance.report.templates import environment
from mcpaql_conformance.verdict.model import Report


def render_html(report: Report, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    status = badge_status(report)
    badge = Markup(badge_svg(status))  # our own SVG: its texts were escaped when it was drawn
    template = environment("markup").get_template("report.html.j2")
    return template.render(
        report=report,
        summary=report.summary,
        badge=badge,
        verdict=verdict_line(report),
        colour=status.color,
        limit=options.max_findings or sys.maxsize,  # findings shown at once; the rest behind "N more"
        headings=METRIC_HEADINGS,
        numeric=NUMERIC_METRICS,
        cells=metric_cells,
        keys=metric_keys,
        zip=zip,
        **requirements_context(report),
    )
