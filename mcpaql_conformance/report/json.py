"""JSON report: the spec section 6.1 shape plus our additive keys."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.files import jsonio
from mcpaql_conformance.report.common import DEFAULT_OPTIONS, RenderOptions
from mcpaql_conformance.report.requirements import requirement_dict, requirement_results
from mcpaql_conformance.verdict.model import Report, TestResult


def test_dict(test: TestResult) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": test.name, "result": test.result, "detail": test.detail}  # a str enum
    if test.id:
        entry["id"] = test.id
    if test.spec_ref:
        entry["specRef"] = test.spec_ref
    if test.tier:
        entry["tier"] = test.tier
    if test.findings:
        entry["findings"] = list(test.findings)
        if any(test.cited):
            entry["findingRules"] = list(test.cited)  # per finding, the rule it is about (`rules` lists them)
        if test.lead:
            entry["lead"] = test.lead
    if test.baselined is not None:
        entry["baselined"] = test.baselined
    return entry


def report_dict(report: Report) -> dict[str, Any]:
    data: dict[str, Any] = {
        "implementation": report.implementation,
        "version": report.version,
        "specVersion": report.spec_version,
        **(
            {"evidenceSpecVersion": report.evidence_spec_version}
            if report.evidence_spec_version not in (None, report.spec_version)
            else {}
        ),
        "requestedLevel": report.requested_level,
        "conformanceLevel": report.conformance_level,
        "summary": report.summary.as_dict(),
        "categories": [
            {
                "name": category.name,
                "required": category.required,
                "result": category.result.value,
                "tests": [test_dict(test) for test in category.tests],
            }
            for category in report.categories
        ],
        "exitCode": report.exit_code,
        "requirements": [requirement_dict(item) for item in requirement_results(report)],
    }
    if report.tier is not None:
        data["tier"] = report.tier
    if report.category_filter is not None:
        data["categoryFilter"] = report.category_filter
    if report.readings:
        data["captureReadings"] = list(report.readings)
    if report.notes:
        data["captureNotes"] = list(report.notes)
    if report.changes:
        data["changes"] = list(report.changes)
    if report.baseline is not None:
        data["baseline"] = {"file": report.baseline, "stale": list(report.stale), "unneeded": list(report.unneeded)}
    if report.provenance is not None:
        data["provenance"] = report.provenance
    if report.captured_at is not None:
        data["capturedAt"] = report.captured_at
    if report.server is not None:
        data["server"] = report.server
    if report.agent_summary is not None or report.agent_metrics:
        metrics = [row.as_dict() for row in report.agent_metrics]
        data["agentRuns"] = {"summary": report.agent_summary, "metrics": metrics, "models": list(report.agent_models)}
        if report.agent_incomplete is not None:
            data["agentRuns"]["incomplete"] = report.agent_incomplete
    if report.evidence is not None:
        data["evidence"] = list(report.evidence)
    if report.tool is not None:
        data["tool"] = report.tool
        data["toolVersion"] = report.tool_version
    return data


# The one JSON writer (invisible controls written as \u escapes): reports, suite reports and
# validate's diagnostics print with it, as every other JSON output does.
dumps = jsonio.dumps


def render_json(report: Report, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return dumps(report_dict(report))
