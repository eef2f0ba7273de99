"""Suites: a named group of bundles judged together (FlowMCP Selections, taken further).

A suite file is ``{"name", "description", "bundles": [paths or globs], "level", "tier"}``;
paths are relative to the suite file. Every member must resolve (else exit 3, naming it);
each is judged, in parallel; the suite's exit code is its worst member's.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.model import EXIT_CONFIG_ERROR, Report
from mcpaql_conformance.sanitize import plain

EVIDENCE_KEYS = ("introspection", "parameter_tests", "error_tests", "accepted_parameters")
# Worst first: an invalid member, then a MUST failure, then SHOULD warnings.
SEVERITY = {EXIT_CONFIG_ERROR: 3, 1: 2, 2: 1, 0: 0}


@dataclass(frozen=True)
class Suite:
    name: str
    description: str
    members: tuple[Path, ...]
    level: int
    tier: str
    source: str


@dataclass(frozen=True)
class Member:
    path: Path
    exit_code: int
    report: Report | None = None
    error: str | None = None

    @property
    def conformant(self) -> bool:
        return (
            self.report is not None
            and self.exit_code in (0, 2)
            and self.report.conformance_level == self.report.requested_level
        )


@dataclass(frozen=True)
class SuiteReport:
    suite: Suite
    members: tuple[Member, ...]

    @property
    def conformant(self) -> int:
        return sum(1 for member in self.members if member.conformant)

    @property
    def exit_code(self) -> int:
        return max((m.exit_code for m in self.members), key=lambda code: SEVERITY.get(code, 3), default=0)

    def aggregate(self) -> str:
        return f"{self.conformant}/{len(self.members)} bundles conformant"


def is_suite(data: Any) -> bool:
    """A suite lists bundles and records no evidence itself."""
    return isinstance(data, dict) and "bundles" in data and not any(key in data for key in EVIDENCE_KEYS)


def load_suite(data: dict[str, Any], path: Path) -> Suite:
    """Check the suite's shape and resolve every member, or raise a ConfigError naming it."""
    source = plain(str(path))
    name, bundles = data.get("name"), data.get("bundles")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{source}: $.name: a suite needs a name")
    if not isinstance(bundles, list) or not bundles or not all(isinstance(b, str) for b in bundles):
        raise ConfigError(f"{source}: $.bundles: expected a non-empty array of paths or globs")
    level, tier = data.get("level", 1), data.get("tier", "both")
    if type(level) is not int or level not in (1, 2):
        raise ConfigError(f"{source}: $.level: must be 1 or 2")
    if tier not in ("1", "2", "both"):
        raise ConfigError(f'{source}: $.tier: must be "1", "2" or "both"')
    description = data.get("description", "")
    return Suite(name, str(description), _resolve(bundles, path, source), level, tier, source)


def _resolve(entries: list[str], suite_file: Path, source: str) -> tuple[Path, ...]:
    base = suite_file.parent
    members: list[Path] = []
    for index, entry in enumerate(entries):
        pattern = entry if Path(entry).is_absolute() else str(base / entry)
        if glob.has_magic(entry):
            found = sorted(Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
            if not found:
                raise ConfigError(f"{source}: $.bundles[{index}]: {plain(entry)!r} matches no file")
            members += found
        elif Path(pattern).is_file():
            members.append(Path(pattern))
        elif Path(pattern).is_dir():
            raise ConfigError(f"{source}: $.bundles[{index}]: member {plain(entry)!r} is a folder; use a glob")
        else:
            raise ConfigError(f"{source}: $.bundles[{index}]: member {plain(entry)!r} not found")
    # One member per file, however it was written; never the suite file itself.
    seen = {suite_file.resolve()}
    unique: list[Path] = []
    for member in members:
        if member.resolve() not in seen:
            seen.add(member.resolve())
            unique.append(member)
    return tuple(unique)


def judge_member(path: Path, level: int, tier: str) -> Member:
    """One member's verdict; an invalid member is exit 3 with its error, not a crash of the suite."""
    from mcpaql_conformance.jsonio import load_json_file
    from mcpaql_conformance.runner import judge_safely

    try:
        data = load_json_file(path, "bundle")
    except ConfigError as exc:
        return Member(path, EXIT_CONFIG_ERROR, error=str(exc))
    if is_suite(data):
        return Member(path, EXIT_CONFIG_ERROR, error=f"{plain(str(path))}: is a suite; suites cannot contain suites")
    report, error = judge_safely(data, plain(str(path)), level, tier)
    if report is None:
        return Member(path, EXIT_CONFIG_ERROR, error=error)
    return Member(path, report.exit_code, report=report)


def run_suite(suite: Suite, jobs: int) -> SuiteReport:
    from mcpaql_conformance.parallel import run_all

    members = run_all(judge_member, list(suite.members), suite.level, suite.tier, jobs=jobs, label=suite.name)
    return SuiteReport(suite, tuple(members))
