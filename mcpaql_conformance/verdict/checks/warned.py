"""What a server's warnings look like over every answer it gave (features/warnings §3.2, §6.2, §6.4,
§6.5), all SHOULDs: at most ten warnings in one answer; no warning twice in one answer with the
same code and details; each warning with details; one condition (a code and its details) at one
severity on every answer; a batch whose items each raise the same warning summarised, not repeated
item by item. Read from every recorded answer, batch items included; a server that raises no
warning is judged on none of it (a report says so: the rules need an answer carrying warnings)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.files.values import json_key
from mcpaql_conformance.files.vocabulary import BATCH_WARNED, WARNED, WARNED_CONDITIONS, WARNED_TWICE
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import MAX_LISTED, cite, uncited

AT_MOST_TEN = "features/warnings:6.4:at-most-ten"
DUPLICATES = "features/warnings:server-side-deduplication:exact-duplicates"
WITH_DETAILS = "features/warnings:6.2:should-list"
STABLE = "features/warnings:3.2:stable-severity"
SPARINGLY = "features/warnings:3.2:high-sparingly"
MANY_CONDITIONS = 3  # distinct conditions (code and details) before "sparingly" can be judged
SUMMARISED = "features/warnings:deduplication-recommendations:batch-summary"
MAX_WARNINGS = 10  # features/warnings §6.4
Where = Callable[[str, int], str]  # a response group's template and index -> where the answer is


Groups = Iterable[tuple[str, list[JsonObject]]]  # a bundle's response_groups


def warning_findings(groups: Groups, where: Where) -> list[str]:
    """Every finding about the warnings of the answers ``groups`` hold."""
    findings: dict[str, list[str]] = {}
    severities: dict[Any, dict[str, str]] = {}  # (code, details) -> severity -> the first answer giving it
    for template, index, response in _warned(groups):
        for answer, label in _answers(response):
            listed = warnings_of(answer)
            if not listed:
                continue
            place = where(template, index) + label
            for rule, text in _answer_findings(listed):
                findings.setdefault(rule, []).append(f"{place}: {text}")
            for warning in listed:
                severity = warning.get("severity", "medium")  # §3.2: clients assume medium when it is left out
                severities.setdefault(_key(warning), {}).setdefault(plain(severity, max_len=20), place)
        if (summary := _unsummarised(response)) is not None:
            findings.setdefault(SUMMARISED, []).append(f"{where(template, index)}: {summary}")
    findings[STABLE] = [_unstable(key, seen) for key, seen in severities.items() if len(seen) > 1]
    high = [key for key, seen in severities.items() if "high" in seen]  # json: severity words
    if len(severities) >= MANY_CONDITIONS and len(high) * 2 > len(severities):
        findings[SPARINGLY] = [f"{len(high)} of the {len(severities)} warning conditions the run raised are high: "
                               "high is for rare, urgent conditions"]  # fmt: skip
    return [line for rule, texts in findings.items() for line in _capped(rule, texts)]


def warning_evidence(groups: Groups) -> list[str]:
    """What the run held to judge warnings by (a report's ``evidence``): WARNED for an answer with
    warnings, WARNED_TWICE for one warning on two answers, BATCH_WARNED for a batch two of whose
    items carry warnings."""
    seen: dict[Any, int] = {}
    conditions: set[Any] = set()
    answers = batches = 0
    for _, _, response in _warned(groups):
        carrying = [listed for answer, _ in _answers(response) if (listed := warnings_of(answer))]
        answers += len(carrying)
        batches += len([listed for _, listed in _items(response) if listed]) > 1
        for listed in carrying:
            for key in {_key(warning) for warning in listed}:
                seen[key] = seen.get(key, 0) + 1
            conditions |= {_key(warning) for warning in listed}
    held = ((WARNED, answers > 0), (WARNED_TWICE, any(count > 1 for count in seen.values())), (BATCH_WARNED, batches),
            (WARNED_CONDITIONS, len(conditions) >= MANY_CONDITIONS))  # fmt: skip
    return [label for label, present in held if present]


def _warned(groups: Groups) -> Iterator[tuple[str, int, JsonObject]]:
    """Each answer that carries warnings or batch items: its group's template, its index, itself."""
    for template, group in groups:
        for index, response in enumerate(group):
            if isinstance(response, dict) and ("warnings" in response or "results" in response):
                yield template, index, response


def warnings_of(answer: Any) -> list[JsonObject]:
    """The warning objects of a successful answer (what a failure carries is another rule's)."""
    listed = answer.get("warnings") if isinstance(answer, dict) and answer.get("success") is True else None
    if not isinstance(listed, list):
        return []
    return [warning for warning in listed if isinstance(warning, dict)]


def _answers(response: Any) -> list[tuple[Any, str]]:
    """An answer, and each result of a batch answer's items (labelled with its index)."""
    results = response.get("results") if isinstance(response, dict) else None
    items = [item for item in results if isinstance(item, dict)] if isinstance(results, list) else []
    return [(response, ""), *((item.get("result"), f", batch item {_index(item)}") for item in items)]


def _answer_findings(listed: list[JsonObject]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if len(listed) > MAX_WARNINGS:
        found.append((AT_MOST_TEN, f"{len(listed)} warnings in one answer (at most {MAX_WARNINGS})"))
    counts: dict[Any, int] = {}
    for warning in listed:
        counts[_key(warning)] = counts.get(_key(warning), 0) + 1
    repeated = [(key, count) for key, count in counts.items() if count > 1]
    if repeated:
        key, count = repeated[0]
        found.append((DUPLICATES, f"warning {_code(key)} appears {count} times with the same details"))
    bare = [warning for warning in listed if not isinstance(warning.get("details"), dict) or not warning["details"]]
    if bare:
        found.append((WITH_DETAILS, f"warning {_code(_key(bare[0]))} carries no details"))
    return found


def _items(response: Any) -> list[tuple[str, list[JsonObject]]]:
    """The warnings of each item of a batch answer, labelled."""
    return [(label, warnings_of(answer)) for answer, label in _answers(response)[1:]]


def _unsummarised(response: Any) -> str | None:
    """A batch answer two or more of whose items each carry the same warning (code and details)."""
    items = _items(response)
    carriers: dict[Any, int] = {}
    for _, listed in items:
        for key in {_key(warning) for warning in listed}:
            carriers[key] = carriers.get(key, 0) + 1
    repeated = [(key, count) for key, count in carriers.items() if count > 1]
    if not repeated:
        return None
    key, count = repeated[0]
    return f"{count} batch items each carry warning {_code(key)} with the same details, not one summary of them"


def _unstable(key: Any, seen: dict[str, str]) -> str:
    shown = "; ".join(f"{plain(severity, max_len=20)} in {place}" for severity, place in list(seen.items())[:3])
    return f"warning {_code(key)} with the same details came at several severities: {shown}"


def _capped(rule: str, texts: list[str]) -> list[str]:
    shown: list[str] = [cite(rule, text) for text in texts[:MAX_LISTED]]
    return shown + ([uncited(f"{len(texts) - MAX_LISTED} more like it ({rule})")] if len(texts) > MAX_LISTED else [])


def _key(warning: JsonObject) -> tuple[Any, Any]:
    return json_key(warning.get("code")), json_key(warning.get("details"))


def _code(key: tuple[Any, Any]) -> str:
    code = key[0]
    return plain(code, max_len=80) if isinstance(code, str) else "(no code)"


def _index(item: JsonObject) -> str:
    index = item.get("index")
    return str(index) if isinstance(index, int) and not isinstance(index, bool) else "?"
