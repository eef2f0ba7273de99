"""Drift between two captures of one server (``diff OLD NEW``): what a client would notice.

- Operations added and removed (removed: breaking).
- Parameters of an operation both sides describe: added (breaking when required), removed
  (breaking), newly required (breaking), no longer required, type changed (breaking), enum
  values removed (breaking) or added.
- Response shapes, from the schemas inferred from each side's successful answers (``shapes``):
  a field no longer present (breaking), a field whose types changed to include a new one
  (breaking), a field no longer in every answer (breaking), a field added.
- Test verdicts (bundles only): each test's result on both sides; a worse one is breaking.

Every change is one ``Change``; the report is text, JSON or markdown. Linear in the size of
both sides: operations, parameters and fields are compared through dictionaries.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.evidence.reading import name_of, parameters_of
from mcpaql_conformance.evidence.samples import Source
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.shapes.infer import infer_schema

RANK = {"PASS": 0, "SKIP": 1, "WARN": 2, "FAIL": 3}  # how bad a verdict is


@dataclass(frozen=True)
class Change:
    kind: str  # operation | parameter | response | verdict
    subject: str  # what changed: an operation, operation.parameter, operation:path, a test id
    what: str  # one sentence
    breaking: bool

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "what": self.what, "breaking": self.breaking}


def compare(old: Source, new: Source, verdicts: tuple[dict[str, str], dict[str, str]] | None = None) -> list[Change]:
    """Every change from ``old`` to ``new``: operations, parameters, response shapes, verdicts."""
    changes = list(_operations(old, new))
    after = set(new.operations)
    common = [operation for operation in old.operations if operation in after]
    for operation in common:  # what is equal on both sides (compared in C) has no change to find
        before, after_detail = old.details.get(operation), new.details.get(operation)
        if before != after_detail:
            changes += _parameters(operation, before, after_detail)
        samples = old.samples.get(operation), new.samples.get(operation)
        if samples[0] and samples[1] and samples[0] != samples[1]:
            changes += _shape(operation, infer_schema(samples[0]), infer_schema(samples[1]))
    if verdicts is not None:
        changes += _verdicts(*verdicts)
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
    before, after = _parameter_map(old), _parameter_map(new)
    if before is None or after is None:
        return []  # one side did not describe the parameters: nothing certain to compare
    changes: list[Change] = []
    for name in sorted(set(before) - set(after)):
        changes.append(Change("parameter", f"{operation}.{name}", "removed", True))
    for name in sorted(set(after) - set(before)):
        required = after[name].get("required") is True
        changes.append(
            Change("parameter", f"{operation}.{name}", f"added{' (required)' if required else ''}", required)
        )
    for name in sorted(set(before) & set(after)):
        changes += _parameter_changes(f"{operation}.{name}", before[name], after[name])
    return changes


def _parameter_changes(subject: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    changes: list[Change] = []
    was, now = old.get("required") is True, new.get("required") is True
    if now and not was:
        changes.append(Change("parameter", subject, "now required", True))
    elif was and not now:
        changes.append(Change("parameter", subject, "no longer required", False))
    if old.get("type") != new.get("type") and old.get("type") is not None:
        what = f"type changed from {_show(old.get('type'))} to {_show(new.get('type'))}"
        changes.append(Change("parameter", subject, what, True))
    before, after = _values(old.get("enum")), _values(new.get("enum"))
    if before is not None and after is not None:
        removed = [value for value in before if value not in after]
        added = [value for value in after if value not in before]
        if removed:
            changes.append(Change("parameter", subject, f"enum values removed: {_list(removed)}", True))
        if added:
            changes.append(Change("parameter", subject, f"enum values added: {_list(added)}", False))
    return changes


def _values(enum: Any) -> list[Any] | None:
    return list(enum) if isinstance(enum, list) else None


def _shape(operation: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Field changes between two inferred schemas (depth-first; each place compared once)."""
    changes: list[Change] = []
    stack: list[tuple[str, dict[str, Any], dict[str, Any]]] = [("data", old, new)]
    while stack:
        path, before, after = stack.pop()
        was, now = _types(before), _types(after)
        if was and now and not now <= was:
            what = f"now {' or '.join(sorted(now))}, was {' or '.join(sorted(was))}"
            changes.append(Change("response", f"{operation}:{path}", what, True))
        old_props, new_props = before.get("properties", {}), after.get("properties", {})
        old_required, new_required = set(before.get("required", ())), set(after.get("required", ()))
        for key in sorted(set(old_props) - set(new_props)):
            changes.append(Change("response", f"{operation}:{path}.{key}", "no longer in any answer", True))
        for key in sorted(set(new_props) - set(old_props)):
            changes.append(Change("response", f"{operation}:{path}.{key}", "added", False))
        for key in sorted(set(old_props) & set(new_props), reverse=True):
            if key in old_required and key not in new_required:
                changes.append(Change("response", f"{operation}:{path}.{key}", "no longer in every answer", True))
            stack.append((f"{path}.{key}", old_props[key], new_props[key]))
        if isinstance(before.get("items"), dict) and isinstance(after.get("items"), dict):
            stack.append((f"{path}[]", before["items"], after["items"]))
    return sorted(changes, key=lambda change: change.subject)


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    types = {declared} if isinstance(declared, str) else set(declared or ())
    if "integer" in types:  # an integer where a number was is no change for a client
        types = (types - {"integer"}) | {"number"}
    return types


def _verdicts(old: dict[str, str], new: dict[str, str]) -> list[Change]:
    changes: list[Change] = []
    for test in sorted(set(old) & set(new)):
        if old[test] != new[test]:
            worse = RANK.get(new[test], 0) > RANK.get(old[test], 0)
            changes.append(Change("verdict", test, f"{old[test]} -> {new[test]}", worse))
    return changes


def exit_code(changes: list[Change], fail_on: str) -> int:
    if fail_on == "any":
        return 1 if changes else 0
    if fail_on == "breaking":
        return 1 if any(change.breaking for change in changes) else 0
    return 0


# --- reports ------------------------------------------------------------------------------------

HEADINGS = {"operation": "Operations", "parameter": "Parameters", "response": "Response shapes", "verdict": "Verdicts"}


def render_text(changes: list[Change], old: str, new: str) -> str:
    lines = [f"Changes from {plain(old)} to {plain(new)}: {_count(changes)}"]
    for kind, heading in HEADINGS.items():
        group = [change for change in changes if change.kind == kind]
        if group:
            lines += ["", f"{heading}:"]
            lines += [f"  {'BREAKING ' if c.breaking else ''}{plain(c.subject)}: {plain(c.what)}" for c in group]
    return "\n".join(lines) + "\n"


def render_markdown(changes: list[Change], old: str, new: str) -> str:
    from mcpaql_conformance.report.escape import markdown

    lines = [f"### MCP-AQL drift: {markdown(old)} → {markdown(new)}", "", _count(changes)]
    if changes:
        lines += ["", "| | Change | Subject | What |", "|---|---|---|---|"]
        for change in changes:
            mark = "**breaking**" if change.breaking else ""
            cells = (mark, HEADINGS[change.kind], markdown(change.subject), markdown(change.what))
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


def _show(value: Any) -> str:
    return plain(repr(value), max_len=60)


def _list(values: list[Any]) -> str:
    more = f" (+{len(values) - 10} more)" if len(values) > 10 else ""
    return ", ".join(_show(value) for value in values[:10]) + more
