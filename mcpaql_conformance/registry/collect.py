"""The registry's data: saved JSON reports (ours and the reference runner's, suite reports'
members too) grouped by implementation, each with its runs in time order and what changed
between consecutive runs (conformance-testing §6.3 foresees a registry; §2.3 asks every claim
to name the spec version it was tested against).

Reports are untrusted: each is read and checked as `report` reads it (a file that is no report
is skipped with a note, or refused when named on the command line), every string shown is cut
at MAX_TEXT with a marker and keeps its invisible or look-alike characters as escapes
(``sanitize.visible``). Work is linear in the reports and memory is bounded by the largest one:
the first pass keeps a small summary of each run; the second reads the runs of one
implementation in time order again, keeping only the previous run's verdicts to compare.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcpaql_conformance import TOOL_NAME, __version__
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.report.badge import badge_status
from mcpaql_conformance.report.saved import load_any_report
from mcpaql_conformance.sanitize import plain, visible
from mcpaql_conformance.secrecy import masked_command
from mcpaql_conformance.verdict.model import Report
from mcpaql_conformance.verdict.suite import SuiteReport

MAX_TEXT = 300  # characters of any one string a page shows
MAX_REPORT_BYTES = 64 * 1024 * 1024  # a bigger file is no report we read (ours are a few hundred KB)
MAX_DETAIL = 2000  # characters of a changed verdict's finding
KIND = "mcpaql-conformance registry"  # what registry.json says it is (a folder we may rebuild)
UNNAMED = "(unnamed implementation)"


def shown(value: Any, limit: int = MAX_TEXT) -> str:
    """A string from a report as every registry output shows it: one line, invisible and
    look-alike characters as escapes, cut at ``limit`` with a marker."""
    text = visible(value, max_len=limit * 2)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


@dataclass(frozen=True)
class Source:
    """One report: a file, or a member of a suite report in it."""

    path: Path
    member: int | None = None

    @property
    def label(self) -> str:
        where = plain(str(self.path), max_len=400)
        return where if self.member is None else f"{where} (member {self.member + 1})"


@dataclass
class Run:
    """One report of one implementation, as the registry shows it."""

    source: Source
    order: int  # the input order: ties and undated runs keep it
    name: str
    server: str | None
    version: str
    spec_version: str
    captured_at: str | None  # as the report gave it, when it is an ISO 8601 time
    instant: float | None  # the same, in seconds since the epoch (UTC): what runs are ordered by
    level: int | None
    requested_level: int | None
    badge: str
    colour: str
    badge_label: str
    counts: dict[str, int]
    tool: str
    reference: bool  # a report of another tool (the reference runner's)
    notes: list[str] = field(default_factory=list)
    number: int = 0  # 1 for the oldest run of its implementation: its anchor on the page
    level_dropped: str | None = None  # "2 -> 1" when the level fell since the run before
    changed: list[dict[str, str]] = field(default_factory=list)  # verdicts that changed since the run before

    @property
    def when(self) -> str:
        return self.captured_at or "undated"

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source.label,
            "capturedAt": self.captured_at,
            "version": self.version,
            "specVersion": self.spec_version,
            "requestedLevel": self.requested_level,
            "conformanceLevel": self.level,
            "badge": {"message": self.badge, "color": self.colour},
            "summary": self.counts,
            "tool": self.tool,
            "referenceRunner": self.reference,
            "levelDropped": self.level_dropped,
            "changed": self.changed,
            "notes": self.notes,
        }


@dataclass
class Implementation:
    key: tuple[str, str | None]
    slug: str
    runs: list[Run] = field(default_factory=list)  # newest first once built

    @property
    def name(self) -> str:
        return self.key[0]

    @property
    def server(self) -> str | None:
        return self.key[1]

    @property
    def latest(self) -> Run:
        return self.runs[0]

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.slug, "name": self.name, "server": self.server, "runs": [r.as_dict() for r in self.runs]}


@dataclass
class Registry:
    implementations: list[Implementation]
    notes: list[str]  # files skipped and why

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "tool": TOOL_NAME,
            "toolVersion": __version__,
            "implementations": [implementation.as_dict() for implementation in self.implementations],
            "notes": self.notes,
        }


def report_files(inputs: list[Path]) -> Iterator[tuple[Path, bool]]:
    """Every report file of the inputs, once each: a file as given (True: named, so a bad one is
    an error), a folder's ``*.json`` at any depth in name order (False: a bad one is skipped and
    listed; so is one that is no regular file, such as a FIFO or a dangling link)."""
    seen: set[Path] = set()
    for path in inputs:
        found = sorted(path.rglob("*.json")) if path.is_dir() else [path]
        for candidate in found:
            real = candidate.resolve()
            if real not in seen and not candidate.is_dir():
                seen.add(real)
                yield candidate, not path.is_dir()


def build(inputs: list[Path]) -> Registry:
    """The registry of every report in ``inputs`` (a ConfigError for a named file that is no report)."""
    notes: list[str] = []
    by_key: dict[tuple[str, str | None], Implementation] = {}
    order = 0
    for path, named in report_files(inputs):
        for source, report in _reports(path, named, notes):
            run = _run(source, report, order)
            order += 1
            key = (run.name, run.server)
            implementation = by_key.get(key)
            if implementation is None:
                implementation = by_key[key] = Implementation(key, _slug(key, len(by_key)))
            implementation.runs.append(run)
    for implementation in by_key.values():
        _history(implementation)
    implementations = sorted(by_key.values(), key=lambda i: (i.name.casefold(), i.server or ""))
    return Registry(implementations, notes)


def _reports(path: Path, named: bool, notes: list[str]) -> Iterator[tuple[Source, Report]]:
    """The reports of one file: itself, or a suite report's members."""
    try:
        if not named and not path.is_file():
            raise ConfigError(f"{plain(str(path))}: not a regular file")
        size = path.stat().st_size if path.is_file() else 0
        if size > MAX_REPORT_BYTES:
            raise ConfigError(f"{plain(str(path))}: {size} bytes, more than a report may hold ({MAX_REPORT_BYTES})")
        loaded = load_any_report(path)
        if isinstance(loaded, SuiteReport):
            for index, member in enumerate(loaded.members):
                if member.report is None:
                    notes.append(f"skipped {plain(str(path))} (member {index + 1}): {plain(member.error or '')}")
                else:
                    yield Source(path, index), member.report
            return
        yield Source(path), loaded
    except ConfigError as error:
        if named:
            raise
        notes.append(f"skipped {plain(str(error), max_len=600)}")


def _run(source: Source, report: Report, order: int) -> Run:
    status = badge_status(report)
    notes = []
    if not report.implementation:
        notes.append("the report names no implementation")
    instant = _instant(report.captured_at)
    if report.captured_at is None:
        notes.append("the report says no capture time: ordered by input order, before every dated run")
    elif instant is None:
        said = shown(report.captured_at, 60)
        notes.append(f"the report's capture time {said} is no ISO 8601 time: ordered as an undated run")
    summary = report.summary
    counts = {"total": summary.total, "passed": summary.passed, "warned": summary.warned,
              "failed": summary.failed, "skipped": summary.skipped}  # fmt: skip
    reference = report.tool != TOOL_NAME
    return Run(
        source=source,
        order=order,
        name=shown(report.implementation) if report.implementation else UNNAMED,
        server=shown(masked_command(report.server), 500) if report.server else None,
        version=shown(report.version or "(unknown)", 80),
        spec_version=shown(report.spec_version or "(unknown)", 80),
        captured_at=shown(report.captured_at, 60) if instant is not None else None,
        instant=instant,
        level=report.conformance_level,
        requested_level=report.requested_level,
        badge=status.message,
        colour=status.color,
        badge_label=status.label,
        counts=counts,
        tool=shown(f"{report.tool} {report.tool_version or ''}".strip() if report.tool else "reference runner", 80),
        reference=reference,
        notes=notes,
    )


def _instant(value: str | None) -> float | None:
    """An ISO 8601 capture time in seconds since the epoch (a time without a zone is read as
    UTC); None for anything else: ``yesterday``, ``2024-99-99``."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).timestamp()


def _slug(key: tuple[str, str | None], index: int) -> str:
    """A file name for an implementation's page: the safe part of its name and a digest of the
    whole key (two names that differ only by unsafe characters never share a page)."""
    safe = re.sub(r"[^a-z0-9]+", "-", key[0].casefold()).strip("-")[:40] or "implementation"
    digest = hashlib.sha256(repr(key).encode("utf-8", "backslashreplace")).hexdigest()[:10]
    return f"{safe}-{digest}"


def _history(implementation: Implementation) -> None:
    """Runs newest first, each with the level drop and the verdicts that changed since the run
    before; the reports are read again one at a time (only the previous verdicts are kept)."""
    oldest_first = sorted(implementation.runs, key=_in_time)
    previous: dict[str, tuple[str, str]] | None = None
    previous_level: int | None = None
    for run in oldest_first:
        verdicts = _verdicts(run.source)
        if previous is not None:
            run.changed = _changes(previous, verdicts)
            if previous_level is not None and run.level is not None and run.level < previous_level:
                run.level_dropped = f"{previous_level} -> {run.level}"
        previous, previous_level = verdicts, run.level
    for number, run in enumerate(oldest_first, 1):
        run.number = number  # a run keeps its anchor as newer ones come
    implementation.runs = oldest_first[::-1]


def _in_time(run: Run) -> tuple[bool, float, int]:
    """Undated runs first (the oldest we can say nothing of), then by capture time (as instants:
    ``10:00+05:00`` is before ``06:00Z``), then input order."""
    return run.instant is not None, run.instant or 0.0, run.order


def _verdicts(source: Source) -> dict[str, tuple[str, str]]:
    """Each test's (result, finding) in one report: keyed by its id, or category and name where
    it has none (the reference runner's tests)."""
    loaded = load_any_report(source.path)
    report = loaded.members[source.member or 0].report if isinstance(loaded, SuiteReport) else loaded
    assert report is not None  # (a member without one gave no run)
    found: dict[str, tuple[str, str]] = {}
    for category in report.categories:
        for test in category.tests:
            key = base = shown(test.id or f"{category.name} / {test.name}", 160)
            repeat = 2
            while key in found:  # a report that names two tests alike: each compared with its like
                key, repeat = f"{base} #{repeat}", repeat + 1
            found[key] = (test.result.value, shown(test.detail, MAX_DETAIL))
    return found


def _changes(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]) -> list[dict[str, str]]:
    changed = []
    for test in [*after, *(key for key in before if key not in after)]:
        was, now = before.get(test), after.get(test)
        if was is not None and now is not None and was[0] == now[0]:
            continue
        changed.append({
            "test": test,
            "from": was[0] if was else "(not run)",
            "to": now[0] if now else "(not run)",
            "finding": now[1] if now else (was[1] if was else ""),
        })  # fmt: skip
    return changed
