"""Text report via rich: coloured on a terminal, plain when piped or with NO_COLOR."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from mcpaql_conformance.model import Report, Result
from mcpaql_conformance.render.common import verdict_line
from mcpaql_conformance.render.escape import terminal

STYLES = {Result.PASS: "bold green", Result.WARN: "bold yellow", Result.FAIL: "bold red", Result.SKIP: "dim"}


def _field(value: object) -> str:
    return "(unknown)" if value is None else terminal(value)


def render_text(report: Report, color: bool = False) -> str:
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=True,
        width=120,
    )
    s = report.summary
    title = f"MCP-AQL conformance report: {_field(report.implementation)} {_field(report.version)}"
    console.print(Text(title, style="bold"))
    console.print(Text(f"Spec version: {_field(report.spec_version)}"))
    tier = f", tier {terminal(report.tier)}" if report.tier else ""
    console.print(Text(f"Requested level: {_field(report.requested_level)}{tier}"))
    level = "none claimed (category filter)" if report.category_filter else _field(report.conformance_level)
    console.print(Text(f"Conformance level: {level}"))
    counts = f"{s.passed} passed, {s.warned} warned, {s.failed} failed, {s.skipped} skipped"
    console.print(Text(f"Summary: {counts} ({s.total} tests)"))
    for category in report.categories:
        console.print()
        line = Text(f"{terminal(category.name)} [{'MUST' if category.required else 'SHOULD'}] ")
        line.append(category.result.value, style=STYLES[category.result])
        console.print(line)
        for test in category.tests:
            row = Text("  ")
            row.append(f"{test.result.value:<4}", style=STYLES[test.result])
            row.append(f" {terminal(test.name)}")
            if test.id:
                row.append(f"  [{terminal(test.id)}]", style="dim")
            console.print(row)
            if test.detail:
                console.print(Text(f"        {terminal(test.detail)}"))
    console.print()
    final = verdict_line(report)
    style = "bold green" if report.exit_code == 0 else "bold yellow" if report.exit_code == 2 else "bold red"
    console.print(Text(final, style=style))
    return buffer.getvalue()
