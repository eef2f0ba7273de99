"""Suites: a named group of bundles judged together (FlowMCP Selections, taken further).

A suite file is ``{"name", "description", "bundles": [paths or globs], "level", "tier"}``;
paths and globs are relative to the suite's folder and confined to it. Every member must
resolve (else exit 3, naming it);
each is judged, in parallel; the suite's exit code is its worst member's.
"""

from __future__ import annotations

import fnmatch
import glob
import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.kinds import is_suite
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.model import EXIT_CONFIG_ERROR, Report

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


def suite_of_paths(paths: tuple[Path, ...], level: int, tier: str) -> Suite:
    """Bundles named on the command line (a folder stands for its *.json files), judged
    together like a suite's members; each must exist."""
    from mcpaql_conformance.evidence.bundle import bundle_files

    unique = bundle_files(paths)
    name = plain(str(paths[0])) if len(paths) == 1 else f"{len(unique)} bundles"
    return Suite(name, "", tuple(unique), level, tier, "the command line")


def _resolve(entries: list[str], suite_file: Path, source: str) -> tuple[Path, ...]:
    """Every member, relative to the suite's folder and confined to it: a path or glob that
    leaves it (absolute, ``..``, or a link that leads out) is refused; globs are matched
    against the folder's contents (the folder's own name is never read as a pattern) and
    never follow a link to a folder (so no link loop is walked)."""
    base = suite_file.parent
    inside = os.path.realpath(base)
    members: list[Path] = []
    for index, entry in enumerate(entries):
        where = f"{source}: $.bundles[{index}]"
        if glob.has_magic(entry):
            found = _glob(base, entry, where)
            if not found:
                raise ConfigError(f"{where}: {plain(entry)!r} matches no file")
        else:
            found = [Path(entry) if Path(entry).is_absolute() else base / entry]
            if found[0].is_dir():
                raise ConfigError(f"{where}: member {plain(entry)!r} is a folder; use a glob")
            if not found[0].is_file():
                raise ConfigError(f"{where}: member {plain(entry)!r} not found")
        for member in found:
            if os.path.commonpath([inside, os.path.realpath(member)]) != inside:
                raise ConfigError(
                    f"{where}: {plain(str(member))!r} is outside the suite's folder {plain(str(base))!r};"
                    " members must be inside it (a link may not lead out)"
                )
        members += found
    # One member per file, however it was written; never the suite file itself.
    seen = {suite_file.resolve()}
    unique: list[Path] = []
    for member in members:
        if member.resolve() not in seen:
            seen.add(member.resolve())
            unique.append(member)
    return tuple(unique)


def _glob(base: Path, pattern: str, where: str) -> list[Path]:
    """Files under ``base`` whose relative path matches ``pattern`` (``*``, ``?``, ``[...]``
    within a name, ``**`` for any number of folders; names starting with "." only when the
    pattern says so), in sorted order. Links to folders are not followed."""
    parts = pattern.split("/")
    if pattern.startswith("/") or any(part == ".." for part in parts):
        raise ConfigError(f"{where}: {plain(pattern)!r}: a glob must stay inside the suite's folder (no '/' or '..')")
    parts = [part for part in parts if part not in ("", ".")]
    fixed = list(itertools.takewhile(lambda part: not glob.has_magic(part), parts[:-1]))
    start, rest = base.joinpath(*fixed), [_segment(part) for part in parts[len(fixed) :]]
    deepest = None if None in rest else len(rest)  # no "**": never deeper than the pattern
    found: list[Path] = []
    for folder, subfolders, files in os.walk(start, followlinks=False):
        relative = Path(folder).relative_to(start).parts
        if deepest is not None and len(relative) >= deepest - 1:
            subfolders.clear()
        for name in files:
            if _matches(rest, (*relative, name)):
                found.append(Path(folder, name))
    return sorted(found)


def _segment(part: str) -> re.Pattern[str] | None:
    """One name of a glob as a regular expression; None for ``**``."""
    if part == "**":
        return None
    hidden = "" if part.startswith(".") else r"(?!\.)"
    return re.compile(hidden + fnmatch.translate(part))


def _matches(pattern: list[re.Pattern[str] | None], names: tuple[str, ...]) -> bool:
    """Whether folder and file ``names`` match the segments, in O(segments x names)."""
    reachable = {0}  # pattern positions reachable after the names read so far
    for name in names:
        following: set[int] = set()
        for position in _closure(pattern, reachable):
            if position == len(pattern):
                continue  # the pattern is used up, the path is not
            segment = pattern[position]
            if segment is None:
                if not name.startswith("."):
                    following.add(position)  # "**" takes this folder too
            elif segment.match(name):
                following.add(position + 1)
        reachable = following
        if not reachable:
            return False
    return len(pattern) in _closure(pattern, reachable)


def _closure(pattern: list[re.Pattern[str] | None], positions: set[int]) -> set[int]:
    """Positions reachable by letting each "**" match no folder at all."""
    result, stack = set(positions), list(positions)
    while stack:
        position = stack.pop()
        if (
            position < len(pattern) and pattern[position] is None and position + 1 not in result
        ):  # json: positions of ours
            result.add(position + 1)
            stack.append(position + 1)
    return result


def judge_member(path: Path, level: int, tier: str) -> Member:
    """One member's verdict; an invalid member is exit 3 with its error, not a crash of the suite."""
    from mcpaql_conformance.files.jsonio import load_json_file
    from mcpaql_conformance.verdict.runner import judge_safely

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
    from mcpaql_conformance.verdict.parallel import run_all

    members = run_all(judge_member, list(suite.members), suite.level, suite.tier, jobs=jobs, label=suite.name)
    return SuiteReport(suite, tuple(members))
