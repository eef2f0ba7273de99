"""Conformance badge status, derived only from the report's numbers (never from bundle text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from mcpaql_conformance import SPEC_VERSION
from mcpaql_conformance.verdict.model import Report, exit_code_for

if TYPE_CHECKING:
    from mcpaql_conformance.verdict.suite import SuiteReport


@dataclass(frozen=True)
class BadgeStatus:
    label: str
    message: str
    color: str

    def shields_url(self) -> str:
        def part(text: str) -> str:
            return quote(text.replace("-", "--").replace("_", "__"), safe="")

        return f"https://img.shields.io/badge/{part(self.label)}-{part(self.message)}-{self.color}"


def badge_status(report: Report) -> BadgeStatus:
    """green: requested level achieved without warnings; yellow: with warnings; red: not conformant
    (or not at the requested level)."""
    # The spec version judged against, when it is ours (a saved report's own string never shows).
    label = SUITE_LABEL if report.spec_version == SPEC_VERSION else "MCP-AQL"
    level = report.conformance_level
    if level is None:
        return BadgeStatus(label, "partial run (category filter)", "lightgrey")
    # The implementation's verdict, not the run's: a stale baseline fails the run, not the adapter.
    exit_code = exit_code_for(report.categories)
    if exit_code == 1 or level == 0:
        return BadgeStatus(label, "not conformant", "red")
    requested = report.requested_level or level
    if level < requested:
        return BadgeStatus(label, f"Level {level} conformant, Level {requested} not met", "red")
    warned = exit_code == 2 or report.has_warnings
    return BadgeStatus(label, f"Level {level} conformant", "yellow" if warned else "brightgreen")


def suite_badge_status(result: SuiteReport) -> BadgeStatus:
    """A suite's badge: how many of its bundles are conformant at the suite's level; green when
    all are without warnings, yellow with warnings, red when one is not conformant (or invalid)."""
    members = len(result.members)
    message = f"Level {result.suite.level}: {result.conformant}/{members} bundles conformant"
    if result.conformant < members or result.exit_code not in (0, 2):
        return BadgeStatus(SUITE_LABEL, message, "red")
    warned = result.exit_code == 2 or any(m.report is not None and m.report.has_warnings for m in result.members)
    return BadgeStatus(SUITE_LABEL, message, "yellow" if warned else "brightgreen")


SUITE_LABEL = f"MCP-AQL {SPEC_VERSION}"  # every member is judged against the spec version we implement


COLORS = {"brightgreen": "#4c1", "yellow": "#dfb317", "red": "#e05d44", "lightgrey": "#9f9f9f"}


def _text_width(text: str) -> int:
    # Verdana 11px averages about 6.5 px a character; generous enough for our short texts.
    return int(len(text) * 6.5) + 10


def badge_svg(status: BadgeStatus) -> str:
    """A flat badge drawn locally (no network), shields.io style."""
    from mcpaql_conformance.report.templates import environment

    left, right = _text_width(status.label), _text_width(status.message)
    return (
        environment("markup")
        .get_template("badge.svg.j2")
        .render(status=status, color=COLORS.get(status.color, COLORS["lightgrey"]), left=left, right=right)
    )


def endpoint_json(status: BadgeStatus) -> dict[str, object]:
    """The shields.io endpoint badge document."""
    return {"schemaVersion": 1, "label": status.label, "message": status.message, "color": status.color}
