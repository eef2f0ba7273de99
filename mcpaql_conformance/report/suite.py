"""Suite reports: a tree per member and the aggregate M/N bundles conformant."""

from __future__ import annotations

import sys
from typing import Any

from mcpaql_conformance import SPEC_VERSION, __version__
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.report.common import DEFAULT_OPTIONS, RenderOptions, verdict_line
from mcpaql_conformance.report.escape import terminal
from mcpaql_conformance.report.json import dumps, report_dict
from mcpaql_conformance.report.templates import environment
from mcpaql_conformance.report.text import EXIT_STYLES, STYLES, Sanitised, Span, render_lines, test_lines, wrap
from mcpaql_conformance.verdict.model import CategoryResult, Report, Result, TestResult
from mcpaql_conformance.verdict.suite import Member, SuiteReport

SUITE_FORMATS = ("text", "json", "markdown", "junit", "html")
# The suite's colour, by its exit code, as a badge would show it.
SUITE_COLOURS = {0: "brightgreen", 2: "yellow"}


def require_suite_format(fmt: str) -> None:
    """Refuse a report format suites do not have (before any member is run)."""
    if fmt not in SUITE_FORMATS:
        raise ConfigError(f"format {fmt!r} is not available for suites; use one of: {', '.join(SUITE_FORMATS)}")


def render_suite(result: SuiteReport, fmt: str, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    require_suite_format(fmt)
    if fmt == "text":
        return render_lines(suite_lines(result, options), color)
    if fmt == "json":
        return dumps(suite_dict(result))
    template = {"markdown": "suite.md.j2", "junit": "suite.junit.xml.j2", "html": "suite.html.j2"}[fmt]
    kind = "markdown" if fmt == "markdown" else "markup"
    return (
        environment(kind)
        .get_template(template)
        .render(
            result=result,
            verdict=verdict_line,
            status=member_status,
            failing=failing_tests,
            limit=options.max_findings or sys.maxsize,
            colour=SUITE_COLOURS.get(result.exit_code, "red"),
            tool_version=__version__,
            spec_version=SPEC_VERSION,
        )
    )


def failing_tests(report: Report) -> list[tuple[CategoryResult, TestResult]]:
    """The tests of a member that failed or warned, with their category."""
    return [
        (category, test)
        for category in report.categories
        for test in category.tests
        if test.result in (Result.FAIL, Result.WARN)
    ]


def suite_dict(result: SuiteReport) -> dict[str, Any]:
    suite = result.suite
    return {
        "suite": suite.name,
        "description": suite.description,
        "level": suite.level,
        "tier": suite.tier,
        "summary": {"bundles": len(result.members), "conformant": result.conformant},
        "aggregate": result.aggregate(),
        "exitCode": result.exit_code,
        "members": [
            {
                "bundle": str(member.path),
                "exitCode": member.exit_code,
                "conformant": member.conformant,
                "report": report_dict(member.report) if member.report is not None else None,
                "error": member.error,
            }
            for member in result.members
        ],
    }


def member_status(member: Member) -> str:
    """CONFORMANT, NOT CONFORMANT, or INVALID (a member that could not be judged)."""
    if member.report is None:
        return "INVALID"
    return "CONFORMANT" if member.conformant else "NOT CONFORMANT"


_STATUS_STYLES = {"CONFORMANT": "bold green", "NOT CONFORMANT": "bold red", "INVALID": "bold red"}


def suite_lines(result: SuiteReport, options: RenderOptions) -> list[list[Span]]:
    """A tree per member: its status, verdict, category results and the tests that failed
    or warned, each with its findings; then the aggregate."""
    suite, width, safe = result.suite, options.width, Sanitised()
    title = f"Suite: {terminal(suite.name)}" + (f": {terminal(suite.description)}" if suite.description else "")
    lines: list[list[Span]] = [[(title, "bold")]]
    lines.append([(f"Level {suite.level}, tier {suite.tier}, {len(result.members)} bundle(s)", None)])
    for position, member in enumerate(result.members):
        stem = "    " if position == len(result.members) - 1 else "|   "
        branch, inner = ("`-- " if stem == "    " else "|-- "), stem + "    "
        status = member_status(member)
        style = "bold yellow" if status == "CONFORMANT" and member.exit_code == 2 else _STATUS_STYLES[status]
        lines.append(
            [(branch, None), (status, style), (f" {terminal(str(member.path))} (exit {member.exit_code})", None)]
        )
        if member.report is None:
            lines += wrap([(f"{inner}{terminal(member.error or '')}", None)], width, inner)
            continue
        verdict = (verdict_line(member.report), EXIT_STYLES.get(member.report.exit_code, "bold red"))
        lines += wrap([(inner, None), verdict], width, inner)
        for category in member.report.categories:
            requirement = "MUST" if category.required else "SHOULD"
            row: list[Span] = [(inner, None), (f"{category.result.value:<4}", STYLES[category.result])]
            lines.append([*row, (f" {terminal(category.name)} [{requirement}]", None)])
            for test in category.tests:
                if test.result in (Result.FAIL, Result.WARN):
                    lines += test_lines(test, safe, options, prefix=inner + "  ")
    aggregate = f"{result.aggregate()} (exit {result.exit_code})"
    lines.append([(aggregate, EXIT_STYLES.get(result.exit_code, "bold red"))])
    return lines
