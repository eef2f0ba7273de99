"""Text report: coloured with rich on a terminal, plain (and rich-free, for speed) otherwise."""

from __future__ import annotations

from mcpaql_conformance.model import Report, Result
from mcpaql_conformance.render.common import verdict_line
from mcpaql_conformance.render.escape import terminal

STYLES = {Result.PASS: "bold green", Result.WARN: "bold yellow", Result.FAIL: "bold red", Result.SKIP: "dim"}
EXIT_STYLES = {0: "bold green", 2: "bold yellow"}
_LABELS = {result: f"{result.value:<4}" for result in Result}  # one lookup per test row

Span = tuple[str, str | None]  # text, rich style


class _Sanitised(dict[str, str]):
    """``safe[text]``: ``terminal(text)``, computed once per distinct text."""

    def __missing__(self, text: str) -> str:
        self[text] = cleaned = terminal(text)
        return cleaned


def _field(value: object) -> str:
    return "(unknown)" if value is None else terminal(value)


def report_lines(report: Report) -> list[list[Span]]:
    """The layout of the text report; bundle strings are already terminal-safe."""
    s = report.summary
    safe = _Sanitised()  # names and details repeat: each distinct one is cleaned once
    level = "none claimed (category filter)" if report.category_filter else _field(report.conformance_level)
    tier = f", tier {terminal(report.tier)}" if report.tier else ""
    counts = f"{s.passed} passed, {s.warned} warned, {s.failed} failed, {s.skipped} skipped"
    lines: list[list[Span]] = [
        [(f"MCP-AQL conformance report: {_field(report.implementation)} {_field(report.version)}", "bold")],
        [(f"Spec version: {_field(report.spec_version)}", None)],
        [(f"Requested level: {_field(report.requested_level)}{tier}", None)],
        [(f"Conformance level: {level}", None)],
        [(f"Summary: {counts} ({s.total} tests)", None)],
    ]
    if report.readings:
        lines.append([(f"Read leniently during capture ({len(report.readings)}):", "bold yellow")])
        lines += [[(f"  - {terminal(reading)}", None)] for reading in report.readings]
    if report.notes:
        lines.append([(f"Not probed during capture ({len(report.notes)}):", "bold yellow")])
        lines += [[(f"  - {terminal(note)}", None)] for note in report.notes]
    for category in report.categories:
        requirement = "MUST" if category.required else "SHOULD"
        lines.append([])
        lines.append(
            [(f"{terminal(category.name)} [{requirement}] ", None), (category.result.value, STYLES[category.result])]
        )
        for test in category.tests:
            row: list[Span] = [
                ("  ", None),
                (_LABELS[test.result], STYLES[test.result]),
                (f" {safe[test.name]}", None),
            ]
            if test.id:
                row.append((f"  [{safe[test.id]}]", "dim"))
            if test.baselined is not None:
                row.append((f"  (baselined: {safe[test.baselined]})", "yellow"))
            lines.append(row)
            if test.detail:
                lines.append([(f"        {safe[test.detail]}", None)])
    if report.stale:
        lines.append([])
        lines.append([(f"Stale baseline entries ({len(report.stale)}), which fail the run:", "bold red")])
        lines += [[(f"  - {terminal(entry)}", None)] for entry in report.stale]
    lines.append([])
    lines.append([(verdict_line(report), EXIT_STYLES.get(report.exit_code, "bold red"))])
    return lines


def render_text(report: Report, color: bool = False) -> str:
    lines = report_lines(report)
    if not color:
        return "".join(["".join([text for text, _ in line]) + "\n" for line in lines])
    return _render_rich(lines)


def _render_rich(lines: list[list[Span]]) -> str:
    import io

    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=True,
        color_system="standard",
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=True,
        width=120,
    )
    for line in lines:
        text = Text()
        for content, style in line:
            text.append(content, style=style or "")
        console.print(text)
    return buffer.getvalue()
