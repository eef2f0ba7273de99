"""Text report: coloured with rich on a terminal, plain (and rich-free, for speed) otherwise."""

from __future__ import annotations

from mcpaql_conformance.regex import lazy
from mcpaql_conformance.report.cited import shown_findings
from mcpaql_conformance.report.common import (
    DEFAULT_OPTIONS,
    METRIC_HEADINGS,
    RenderOptions,
    metric_cells,
    metric_label,
    verdict_line,
)
from mcpaql_conformance.report.escape import terminal
from mcpaql_conformance.verdict.model import Report, Result, TestResult

STYLES = {Result.PASS: "bold green", Result.WARN: "bold yellow", Result.FAIL: "bold red", Result.SKIP: "dim"}
EXIT_STYLES = {0: "bold green", 2: "bold yellow"}
_LABELS = {result: f"{result.value:<4}" for result in Result}  # one lookup per test row

Span = tuple[str, str | None]  # text, rich style


class Sanitised(dict[str, str]):
    """``safe[text]``: ``terminal(text)``, computed once per distinct text."""

    def __missing__(self, text: str) -> str:
        self[text] = cleaned = terminal(text)
        return cleaned


def _field(value: object) -> str:
    return "(unknown)" if value is None else terminal(value)


BODY = " " * 7  # under the test's name: "  PASS " is seven characters
BULLET = BODY + "- "


def report_lines(report: Report, options: RenderOptions = DEFAULT_OPTIONS) -> list[list[Span]]:
    """The layout of the text report (bundle strings made terminal-safe), wrapped at
    ``options.width`` with hanging indents; each finding on its own line."""
    s = report.summary
    safe = Sanitised()  # names and details repeat: each distinct one is cleaned once
    width = options.width
    level = "none claimed (category filter)" if report.category_filter else _field(report.conformance_level)
    tier = f", tier {terminal(report.tier)}" if report.tier else ""
    counts = s.counts_text
    header: list[list[Span]] = [
        [(f"MCP-AQL conformance report: {_field(report.implementation)} {_field(report.version)}", "bold")],
        [(f"Spec version: {terminal(report.spec_line)}", None)],
        [(f"Requested level: {_field(report.requested_level)}{tier}", None)],
        [(f"Conformance level: {level}", None)],
        [(f"Summary: {counts} ({s.total} tests)", None)],
    ]
    if report.provenance:
        header.insert(4, [(f"Evidence: {terminal(report.provenance)}", None)])
    lines = [line for spans in header for line in wrap(spans, width, "  ")]
    if report.agent_incomplete:
        lines += [[], *wrap([(terminal(report.agent_incomplete), "bold yellow")], width, "  ")]
    for title, items in (
        ("Read leniently during capture", report.readings),
        ("Not probed during capture", report.notes),
        ("Changed during the run", report.changes),
    ):
        if items:
            lines += [[], [(f"{title} ({len(items)}):", "bold yellow")]]
            for item in items:
                lines += wrap([(f"  - {terminal(item)}", None)], width, "    ")
    lines += _agent_lines(report, width)
    for category in report.categories:
        requirement = "MUST" if category.required else "SHOULD"
        lines.append([])
        lines.append(
            [(f"{terminal(category.name)} [{requirement}] ", None), (category.result.value, STYLES[category.result])]
        )
        for test in category.tests:
            lines += test_lines(test, safe, options)
    if report.stale:
        lines.append([])
        lines.append([(f"Stale baseline entries ({len(report.stale)}), which fail the run:", "bold red")])
        lines += [[(f"  - {terminal(entry)}", None)] for entry in report.stale]
    if report.unneeded:
        lines.append([])
        lines.append([(f"Baseline entries not needed ({len(report.unneeded)}), which change nothing:", "bold")])
        lines += [[(f"  - {terminal(entry)}", None)] for entry in report.unneeded]
    lines.append([])
    lines += wrap([(verdict_line(report), EXIT_STYLES.get(report.exit_code, "bold red"))], width, "  ")
    return lines


def _agent_lines(report: Report, width: int | None) -> list[list[Span]]:
    """The agent runs' summary and a metrics line per task."""
    if report.agent_summary is None and not report.agent_metrics:
        return []
    lines: list[list[Span]] = [[], [("Agent runs:", "bold")]]
    if report.agent_summary:
        lines += wrap([(f"  {terminal(report.agent_summary)}", None)], width, "    ")
    for row in report.agent_metrics:
        cells = metric_cells(row)
        pairs = ", ".join(f"{name.lower()} {cell}" for name, cell in zip(METRIC_HEADINGS[2:], cells[2:], strict=True))
        lines += wrap([(f"  - {terminal(metric_label(row))}: {pairs}", None)], width, "    ")
    for line in report.agent_models:
        lines += wrap([(f"  {terminal(line)}", None)], width, "    ")
    return lines


def test_lines(test: TestResult, safe: Sanitised, options: RenderOptions, prefix: str = "") -> list[list[Span]]:
    """A test's row (result, name, id), then what it says under its name: its detail, or a
    lead and every finding (at most ``options.max_findings``; 0 shows all), each on its own
    line. ``prefix`` starts every line (a suite's tree)."""
    width, body = options.width, prefix + BODY
    row: list[Span] = [
        (prefix + "  ", None),
        (_LABELS[test.result], STYLES[test.result]),
        (f" {safe[test.name]}", None),
    ]
    if test.id:
        row.append((f"  [{safe[test.id]}]", "dim"))
    if test.baselined is not None:
        row.append((f"  (baselined: {safe[test.baselined]})", "yellow"))
    lines = wrap(row, width, body)
    if not test.findings:
        return lines + (wrap([(f"{body}{safe[test.detail]}", None)], width, body) if test.detail else [])
    lead = test.lead or f"{len(test.findings)} finding(s)"
    lines += wrap([(f"{body}{safe[lead]}:", None)], width, body)
    cap = options.max_findings or len(test.findings)
    for finding in shown_findings(test)[:cap]:
        lines += wrap([(f"{prefix}{BULLET}{safe[finding]}", None)], width, prefix + " " * len(BULLET))
    if len(test.findings) > cap:
        left = len(test.findings) - cap
        lines.append([(f"{body}... and {left} more (--max-findings 0 shows all)", "dim")])
    return lines


_TOKENS = lazy(r"\S+|\s+")
MIN_WIDTH = 40


def wrap(spans: list[Span], width: int | None, indent: str) -> list[list[Span]]:
    """One logical line as display lines of at most ``width`` columns, continued under
    ``indent``; words are never broken (a longer word overflows), styles are kept."""
    if width is None or sum(len(text) for text, _ in spans) <= width:
        return [spans]
    width = max(width, MIN_WIDTH)
    lines: list[list[Span]] = [[]]
    used, space, started = 0, "", False
    for text, style in spans:
        for token in _TOKENS.findall(text):
            if token.isspace():
                if started:
                    space += token
                else:  # the line's own leading indent
                    lines[-1].append((token, None))
                    used += len(token)
                continue
            if started and used + len(space) + len(token) > width and used > len(indent):
                lines.append([(indent, None)])
                used, space = len(indent), ""
            line = lines[-1]
            if line and line[-1][1] == style and started:  # one span per run of one style
                line[-1] = (line[-1][0] + space + token, style)
            else:
                if space:
                    line.append((space, None))
                line.append((token, style))
            used += len(space) + len(token)
            space, started = "", True
    return lines


def render_text(report: Report, color: bool = False, options: RenderOptions = DEFAULT_OPTIONS) -> str:
    return render_lines(report_lines(report, options), color)


def render_lines(lines: list[list[Span]], color: bool) -> str:
    """Laid-out lines as text: plain, or coloured by rich (whose own wrapping is off)."""
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
