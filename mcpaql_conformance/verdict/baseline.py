"""Expected-failures baseline: listed failures no longer fail the run; new ones still do;
entries whose tests now pass (or skip) are stale and fail the run, so the baseline cannot rot.
A baseline hides failures and nothing else: an entry for a test that only warns is neither
stale nor hiding anything ("not needed: the test warns") and leaves the exit code alone."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.configio import load_config_file, refuse_unknown_keys
from mcpaql_conformance.files.kinds import BASELINE, refuse_other_kinds
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks import CATEGORIES
from mcpaql_conformance.verdict.model import EXIT_MUST_FAILED, CategoryResult, Report, Result, exit_code_for


@dataclass(frozen=True)
class Entry:
    """One expected failure: a test id or a whole category, with the reason it is accepted."""

    target: str
    is_category: bool
    reason: str

    def matches(self, category: CategoryResult, test_id: str) -> bool:
        if self.is_category:
            return category.name.casefold() == self.target.casefold()
        return test_id == self.target


def load_baseline(path: Path) -> list[Entry]:
    """Read ``{"entries": [{"id" | "category": ..., "reason": ...}]}`` (or the bare list)."""
    source = plain(str(path))
    data = load_config_file(path, "baseline")
    refuse_other_kinds(data, source, BASELINE)
    refuse_unknown_keys(data, "baseline", source)
    items = data.get("entries") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ConfigError(f'{source}: $: expected {{"entries": [...]}} or a list of entries')
    entries = [
        _entry(item, f"$.entries[{index}]" if isinstance(data, dict) else f"$[{index}]", source)
        for index, item in enumerate(items)
    ]
    known_ids = {check.id for category in CATEGORIES for check in category.checks}
    known_categories = {category.name.casefold() for category in CATEGORIES}
    for index, entry in enumerate(entries):
        known = (
            entry.target.casefold() in known_categories
            if entry.is_category
            else (entry.target in known_ids or entry.target.startswith("L2.semantic."))
        )
        if not known:
            kind = "category" if entry.is_category else "test id"
            raise ConfigError(f"{source}: entry {index}: unknown {kind} {plain(entry.target)!r}")
    return entries


def _entry(item: Any, where: str, source: str) -> Entry:
    if not isinstance(item, dict):
        raise ConfigError(f"{source}: {where}: expected an object with 'id' or 'category' and 'reason'")
    reason = item.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigError(f"{source}: {where}.reason: every entry needs a reason")
    if isinstance(item.get("id"), str) == isinstance(item.get("category"), str):
        raise ConfigError(f"{source}: {where}: give exactly one of 'id' or 'category'")
    if isinstance(item.get("id"), str):
        return Entry(item["id"], False, reason)
    return Entry(item["category"], True, reason)


def _first_entries(entries: list[Entry]) -> Any:
    """``first(category, test_id)``: the first entry (in file order) that matches, found by
    index, not by scanning every entry for every test."""
    by_test: dict[str, tuple[int, Entry]] = {}
    by_category: dict[str, tuple[int, Entry]] = {}
    for position, entry in enumerate(entries):
        index = by_category if entry.is_category else by_test
        index.setdefault(entry.target.casefold() if entry.is_category else entry.target, (position, entry))

    def first(category: CategoryResult, test_id: str) -> Entry | None:
        found = [m for m in (by_test.get(test_id), by_category.get(category.name.casefold())) if m is not None]
        return min(found, key=lambda match: match[0])[1] if found else None

    return first


def apply_baseline(report: Report, entries: list[Entry], source: str) -> Report:
    """Mark listed failures as baselined; a listed entry whose tests all pass or skip is stale
    (exit 1); one whose tests warn without failing is not needed (said, exit unchanged)."""
    used: set[Entry] = set()
    warned: set[Entry] = set()
    matched: set[Entry] = set()
    categories = []
    first = _first_entries(entries)
    for category in report.categories:
        tests = []
        for test in category.tests:
            entry = first(category, test.id)
            if entry is not None:
                matched.add(entry)
                if test.result is Result.FAIL:
                    used.add(entry)
                    test = dataclasses.replace(test, baselined=entry.reason)
                elif test.result is Result.WARN:
                    warned.add(entry)
            tests.append(test)
        categories.append(CategoryResult(category.name, category.required, tuple(tests)))
    result = tuple(categories)
    semantic_run = any(c.name == "Semantic Evaluation" for c in result)
    for entry in entries:
        if semantic_run and not entry.is_category and entry.target.startswith("L2.semantic.") and entry not in matched:
            raise ConfigError(f"{source}: unknown test id {plain(entry.target)!r}: no such semantic test in this run")
    unused = [e for e in entries if e in matched and e not in used]
    stale = tuple(f"{_named(e)}: no longer fails ({e.reason})" for e in unused if e not in warned)
    unneeded = tuple(f"{_named(e)}: not needed: the test warns, and warnings never fail the run ({e.reason})"
                     for e in unused if e in warned)  # fmt: skip
    exit_code = EXIT_MUST_FAILED if stale else exit_code_for(result)
    return dataclasses.replace(
        report, categories=result, exit_code=exit_code, baseline=source, stale=stale, unneeded=unneeded
    )


def _named(entry: Entry) -> str:
    return f"{'category' if entry.is_category else 'test'} {entry.target}"


def baseline_of(report: Report) -> dict[str, Any]:
    """A baseline of every test that fails in ``report`` (listed already or not), each with its
    first finding (else its detail) as the reason: what ``--write-baseline`` writes."""
    from mcpaql_conformance.sanitize import plain

    stamp = report.captured_at or "this run"
    entries = [
        {"id": test.id, "reason": plain(f"failing in {stamp}: {(test.findings or (test.detail,))[0]}", max_len=300)}
        for category in report.categories
        for test in category.tests
        if test.result is Result.FAIL
    ]
    return {
        "description": f"Failures of {plain(report.implementation or 'the server')} accepted as known",
        "entries": entries,
    }
