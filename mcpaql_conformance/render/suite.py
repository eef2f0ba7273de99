"""Suite reports: a tree per member and the aggregate M/N bundles conformant."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.render.common import verdict_line
from mcpaql_conformance.render.escape import terminal
from mcpaql_conformance.render.json import dumps, report_dict
from mcpaql_conformance.render.templates import environment
from mcpaql_conformance.suite import SuiteReport

SUITE_FORMATS = ("text", "json", "markdown", "junit")


def require_suite_format(fmt: str) -> None:
    """Refuse a report format suites do not have (before any member is run)."""
    if fmt not in SUITE_FORMATS:
        raise ConfigError(f"format {fmt!r} is not available for suites; use one of: {', '.join(SUITE_FORMATS)}")


def render_suite(result: SuiteReport, fmt: str) -> str:
    require_suite_format(fmt)
    if fmt == "text":
        return _text(result)
    if fmt == "json":
        return dumps(suite_dict(result))
    template = "suite.md.j2" if fmt == "markdown" else "suite.junit.xml.j2"
    kind = "markdown" if fmt == "markdown" else "markup"
    return environment(kind).get_template(template).render(result=result, verdict=verdict_line)


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


def _text(result: SuiteReport) -> str:
    suite = result.suite
    lines = [f"Suite: {terminal(suite.name)}" + (f": {terminal(suite.description)}" if suite.description else "")]
    lines.append(f"Level {suite.level}, tier {suite.tier}, {len(result.members)} bundle(s)")
    for position, member in enumerate(result.members):
        last = position == len(result.members) - 1
        branch, stem = ("`-- ", "    ") if last else ("|-- ", "|   ")
        status = "CONFORMANT" if member.conformant else "NOT CONFORMANT"
        lines.append(f"{branch}{status} {terminal(str(member.path))} (exit {member.exit_code})")
        if member.report is None:
            lines.append(f"{stem}    {terminal(member.error or '')}")
            continue
        lines.append(f"{stem}    {verdict_line(member.report)}")
        for category in member.report.categories:
            requirement = "MUST" if category.required else "SHOULD"
            lines.append(f"{stem}    {category.result.value:<4} {terminal(category.name)} [{requirement}]")
    lines.append(f"{result.aggregate()} (exit {result.exit_code})")
    return "\n".join(lines) + "\n"
