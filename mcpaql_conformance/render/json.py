"""JSON report: the spec section 6.1 shape plus our additive keys."""

from __future__ import annotations

import re
from typing import Any

import orjson

from mcpaql_conformance.model import Report, TestResult
from mcpaql_conformance.render.common import DEFAULT_OPTIONS, RenderOptions


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
    }
    if report.tier is not None:
        data["tier"] = report.tier
    if report.category_filter is not None:
        data["categoryFilter"] = report.category_filter
    if report.readings:
        data["captureReadings"] = list(report.readings)
    if report.notes:
        data["captureNotes"] = list(report.notes)
    if report.baseline is not None:
        data["baseline"] = {"file": report.baseline, "stale": list(report.stale)}
    if report.provenance is not None:
        data["provenance"] = report.provenance
    if report.agent_summary is not None or report.agent_metrics:
        metrics = [row.as_dict() for row in report.agent_metrics]
        data["agentRuns"] = {"summary": report.agent_summary, "metrics": metrics}
    if report.tool is not None:
        data["tool"] = report.tool
        data["toolVersion"] = report.tool_version
    return data


# Characters that JSON may carry raw but that reorder or control what a terminal or
# editor shows (bidi overrides, C1 controls such as the one-byte CSI, line separators).
_INVISIBLE = re.compile("[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


# The same characters in UTF-8, one pattern per lead byte: a literal first byte lets the
# regex engine skip ahead, about three times faster than the class above over a report
# whose other non-ASCII text is "§" or "…".
_INVISIBLE_UTF8 = (
    re.compile(rb"\xc2[\x80-\x9f]"),
    re.compile(rb"\xd8\x9c"),
    re.compile(rb"\xe2(?:\x80[\x8e\x8f\xa8-\xae]|\x81[\xa6-\xa9])"),
)


def dumps(data: Any) -> str:
    """Indented JSON with exact strings, invisible controls written as \\u escapes (same value)."""
    raw = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    text = raw.decode()
    if raw.isascii() or not any(pattern.search(raw) for pattern in _INVISIBLE_UTF8):
        return text + "\n"
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def render_json(report: Report, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return dumps(report_dict(report))
