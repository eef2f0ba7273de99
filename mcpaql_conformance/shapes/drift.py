"""Drift between two captures of one server (``diff OLD NEW``): what a client would notice.

- Operations added and removed (removed: breaking).
- Parameters of an operation both sides describe, compared as a request schema, recursively
  (``shapes.schemadiff``: items, properties, enums, unions as sets, nullable, bounds): a change
  that narrows what a client may send breaks it (a parameter removed or newly required, a
  type or enum narrowed, an object closed).
- Response shapes, from the schemas inferred from each side's successful answers (``shapes``),
  compared as response schemas whatever the samples' equality: a change that widens what a
  client may receive breaks it (a field gone or no longer in every answer, a new type at a
  field, an integer field now carrying fractions).
- Test verdicts (bundles only): every test on either side; one that got worse, one added with
  a WARN or FAIL, one no longer run (unless it was skipped) is breaking.
- Agent pass rates (bundles only), per model and task: a rate whose 95% Wilson interval no
  longer overlaps the old one changed beyond chance; lower is breaking (the server change hurt
  that model), higher is not. A model or task on one side only is said, not breaking.

Every change is one ``Change``; the report is text, JSON or markdown, names shown with their
invisible characters and mixed-script letters as escapes. Linear in the size of both sides:
operations, parameters and fields are compared through dictionaries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.evidence.reading import name_of, parameters_of
from mcpaql_conformance.evidence.samples import Source
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.sanitize import visible
from mcpaql_conformance.shapes.infer import infer_schema
from mcpaql_conformance.shapes.schemadiff import compare_schemas

RANK = {"PASS": 0, "SKIP": 1, "WARN": 2, "FAIL": 3}  # how bad a verdict is


@dataclass(frozen=True)
class Change:
    kind: str  # operation | parameter | response | verdict | agent
    subject: str  # what changed: an operation, operation.parameter, operation:path, a test id, model: task (tier)
    what: str  # one sentence
    breaking: bool

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "what": self.what, "breaking": self.breaking}


# Pass rates of agent runs: (model, task, tier) -> (passed, runs).
Rates = dict[tuple[str, str, str], tuple[int, int]]


def compare(
    old: Source,
    new: Source,
    verdicts: tuple[dict[str, str], dict[str, str]] | None = None,
    rates: tuple[Rates, Rates] | None = None,
) -> list[Change]:
    """Every change from ``old`` to ``new``: operations, parameters, response shapes, verdicts,
    agent pass rates."""
    changes = list(_operations(old, new))
    after = set(new.operations)
    common = [operation for operation in old.operations if operation in after]  # json: names in a set of names
    for operation in common:  # details equal as JSON on both sides have no change to find
        before, after_detail = old.details.get(operation), new.details.get(operation)
        if not json_equal(before, after_detail):
            changes += _parameters(operation, before, after_detail)
        samples = old.samples.get(operation), new.samples.get(operation)
        if samples[0] and samples[1]:  # inferred whatever the samples: `true` and `1` differ as JSON
            changes += _shape(operation, infer_schema(samples[0]), infer_schema(samples[1]))
    if verdicts is not None:
        changes += _verdicts(*verdicts)
    if rates is not None:
        changes += _rates(*rates)
    return changes


def _rates(old: Rates, new: Rates) -> list[Change]:
    """Each model's pass rate of each task, where the intervals no longer overlap (lower:
    breaking), and the models and tasks run on one side only (said, not breaking)."""
    from mcpaql_conformance.verdict.metrics import rate_text, wilson

    changes: list[Change] = []
    for key in sorted(set(old) | set(new)):
        model, task, tier = key
        subject = f"{model or 'the model'}: {task} ({tier})"
        was, now = old.get(key), new.get(key)
        if was is None or now is None:
            side = "new" if was is None else "old"
            changes.append(Change("agent", subject, f"run on the {side} side only", False))
            continue
        (low_was, high_was), (low_now, high_now) = wilson(*was), wilson(*now)
        if high_now < low_was or low_now > high_was:
            said = f"pass rate {was[0]}/{was[1]} ({rate_text(*was)}) -> {now[0]}/{now[1]} ({rate_text(*now)})"
            changes.append(Change("agent", subject, said, high_now < low_was))
    return changes


def _operations(old: Source, new: Source) -> Iterator[Change]:
    before, after = set(old.operations), set(new.operations)
    for operation in sorted(before - after):
        yield Change("operation", operation, "removed", True)
    for operation in sorted(after - before):
        yield Change("operation", operation, "added", False)


def _parameter_map(detail: Any) -> dict[str, dict[str, Any]] | None:
    if not isinstance(detail, dict):
        return None
    listed = detail.get("parameters")
    if isinstance(listed, list) and all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in listed):
        return {p["name"]: p for p in listed}  # the spec's shape: no lenient reading needed
    parameters = parameters_of(detail)[0]
    if parameters is None:
        return None
    found: dict[str, dict[str, Any]] = {}
    for entry in parameters:
        name = name_of(entry, ("name",))[0] if isinstance(entry, dict) else None
        if name is not None:
            found[name] = entry
    return found


def _parameters(operation: str, old: Any, new: Any) -> list[Change]:
    """The parameters as the properties of one request object, compared recursively."""
    before, after = _parameter_map(old), _parameter_map(new)
    if before is None or after is None:
        return []  # one side did not describe the parameters: nothing certain to compare
    found = compare_schemas(operation, {"properties": before}, {"properties": after}, "request")
    return [Change("parameter", f.subject, f.what, f.breaking) for f in sorted(found, key=_order)]


def _shape(operation: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Changes between two inferred response schemas (each place compared once)."""
    found = compare_schemas(f"{operation}:data", old, new, "response")
    return [Change("response", f.subject, f.what, f.breaking) for f in sorted(found, key=_order)]


def _order(found: Any) -> str:
    return str(found.subject)


def _verdicts(old: dict[str, str], new: dict[str, str]) -> list[Change]:
    """Every test on either side: changed (worse: breaking), added with a WARN or FAIL
    (breaking: the new side shows a problem the old did not), no longer run (breaking unless
    it was skipped: a guarantee the old side showed is gone)."""
    changes: list[Change] = []
    for test in sorted(set(old) | set(new)):
        was, now = old.get(test), new.get(test)
        if was is None and now is not None:
            changes.append(Change("verdict", test, f"added: {now}", RANK.get(now, 0) >= RANK["WARN"]))
        elif now is None and was is not None:
            changes.append(Change("verdict", test, f"no longer run (was {was})", was != "SKIP"))
        elif was != now and was is not None and now is not None:
            changes.append(Change("verdict", test, f"{was} -> {now}", RANK.get(now, 0) > RANK.get(was, 0)))
    return changes


def exit_code(changes: list[Change], fail_on: str) -> int:
    if fail_on == "any":
        return 1 if changes else 0
    if fail_on == "breaking":
        return 1 if any(change.breaking for change in changes) else 0
    return 0


# --- reports ------------------------------------------------------------------------------------

HEADINGS = {
    "operation": "Operations",
    "parameter": "Parameters",
    "response": "Response shapes",
    "verdict": "Verdicts",
    "agent": "Agent pass rates",
}


def render_text(changes: list[Change], old: str, new: str) -> str:
    lines = [f"Changes from {visible(old)} to {visible(new)}: {_count(changes)}"]
    for kind, heading in HEADINGS.items():
        group = [change for change in changes if change.kind == kind]
        if group:
            lines += ["", f"{heading}:"]
            lines += [f"  {'BREAKING ' if c.breaking else ''}{visible(c.subject)}: {visible(c.what)}" for c in group]
    return "\n".join(lines) + "\n"


def render_markdown(changes: list[Change], old: str, new: str) -> str:
    from mcpaql_conformance.report.escape import markdown

    lines = [f"### MCP-AQL drift: {markdown(visible(old))} → {markdown(visible(new))}", "", _count(changes)]
    if changes:
        lines += ["", "| | Change | Subject | What |", "|---|---|---|---|"]
        for change in changes:
            mark = "**breaking**" if change.breaking else ""
            cells = (mark, HEADINGS[change.kind], markdown(visible(change.subject)), markdown(visible(change.what)))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def as_json(changes: list[Change], old: str, new: str) -> dict[str, Any]:
    return {
        "old": old,
        "new": new,
        "breaking": sum(1 for change in changes if change.breaking),
        "changes": [change.as_dict() for change in changes],
    }


def _count(changes: list[Change]) -> str:
    if not changes:
        return "no change"
    breaking = sum(1 for change in changes if change.breaking)
    return f"{len(changes)} change(s), {breaking} breaking"
