"""JUnit XML: a testsuite per category, a testcase per test (classname = stable id)."""

from __future__ import annotations

from mcpaql_conformance.model import Report
from mcpaql_conformance.render.common import DEFAULT_OPTIONS, RenderOptions
from mcpaql_conformance.render.templates import environment


def render_junit(report: Report, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return environment("markup").get_template("junit.xml.j2").render(report=report, summary=report.summary)
