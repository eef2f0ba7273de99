"""JUnit XML: a testsuite per category, a testcase per test (classname = stable id)."""

from __future__ import annotations

from mcpaql_conformance.report.common import (
    DEFAULT_OPTIONS,
    METRIC_HEADINGS,
    RenderOptions,
    metric_cells,
    metric_label,
)
from mcpaql_conformance.report.templates import environment
from mcpaql_conformance.verdict.model import Report


def render_junit(report: Report, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    template = environment("markup").get_template("junit.xml.j2")
    return template.render(
        report=report,
        summary=report.summary,
        agent_properties=agent_properties(report),
        evidence_properties=evidence_properties(report),
    )


def evidence_properties(report: Report) -> list[tuple[str, str]]:
    """Where the evidence came from (the run's permission level, what it did not call) and what the
    run may have changed, as properties of every suite."""
    pairs = [("specVersion", report.spec_line)]
    pairs += [("evidence", report.provenance)] if report.provenance else []
    return pairs + [(f"changed.{index}", line) for index, line in enumerate(report.changes, 1)]


def agent_properties(report: Report) -> list[tuple[str, str]]:
    """The agent runs as properties of the Semantic Evaluation suite: the summary, then each
    task's metrics (``agent.<task>.<metric>``), as the other formats show them."""
    if report.agent_summary is None and not report.agent_metrics:
        return []
    pairs = [("agent.summary", report.agent_summary or "")]
    if report.agent_incomplete:
        pairs.insert(0, ("agent.incomplete", report.agent_incomplete))
    for row in report.agent_metrics:
        cells, label = metric_cells(row), metric_label(row).replace(": ", ".")
        named = zip(METRIC_HEADINGS[2:], cells[2:], strict=True)
        pairs += [(f"agent.{label}.{heading}", cell) for heading, cell in named]
    pairs += [(f"agent.model.{index}", line) for index, line in enumerate(report.agent_models, 1)]
    return pairs
