"""``--cleanup``: at the end of a run with ``--allow-destructive``, delete every record the run
created, with a DELETE operation whose required parameters the create's answer fills (the
identifier it returned). What was changed in place (an UPDATE) cannot be undone: it stays
listed in the bundle's ``changes``, as does each record that could not be deleted, and why."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.capture.cycles import filled, shared_suffix
from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.live.changes import answer_identifiers
from mcpaql_conformance.live.discovery import Operation
from mcpaql_conformance.live.guard import operations_named
from mcpaql_conformance.live.session import PHASE_CLEANUP, Live, gather

JsonObject = dict[str, Any]


async def clean_up(live: Live, operations: list[Operation]) -> dict[int, str]:
    """Delete what the run created; for each created record (by its index in the guard's
    changes), what became of it."""
    by_name = {op.name: op for op in operations}
    deleters = [op for op in operations if op.category == "DELETE" and live.allows(op.need)]
    deleted = _deleted(live, by_name)
    outcomes: dict[int, str] = {}
    jobs = []
    for index, change in enumerate(list(live.guard.changes)):
        created = by_name.get((operations_named(change.arguments) or [""])[0])
        if created is None or created.category != "CREATE":
            continue
        identifiers = answer_identifiers(change.response)
        by = next((deleted[_key(value)] for value in identifiers.values() if _key(value) in deleted), None)
        if by is not None:
            outcomes[index] = f"already deleted during the run, by {by}"
            continue
        found = _deleter(created, identifiers, deleters)
        if found is None:
            outcomes[index] = _why_not(identifiers, deleters)
            continue
        jobs.append((index, found))
    start = len(live.guard.changes)
    answers = await gather([_delete(live, created_index, op, params) for created_index, (op, params) in jobs])
    for change in live.guard.changes[start:]:
        change.cleanup = True
    for (index, (op, _)), answer in zip(jobs, answers, strict=True):
        verdict = classify(answer)
        outcomes[index] = f"deleted by {op.name}" if verdict.succeeded else f"{op.name} refused: {verdict.describe()}"
    return outcomes


def _why_not(identifiers: JsonObject, deleters: list[Operation]) -> str:
    if not identifiers:
        return "not deleted: its answer names no identifier"
    if not deleters:
        return "not deleted: no DELETE operation may be called"
    return f"not deleted: no DELETE operation takes the identifiers its answer gave ({', '.join(identifiers)})"


def _deleted(live: Live, by_name: dict[str, Operation]) -> dict[str, str]:
    """The values a DELETE call of the run was sent (and not refused for), and by which
    operation: a record the run already deleted is not deleted again."""
    found: dict[str, str] = {}
    for change in live.guard.changes:
        for name in operations_named(change.arguments):
            op = by_name.get(name)
            params = change.arguments.get("params")
            if op is not None and op.category == "DELETE" and isinstance(params, dict):
                found.update({_key(value): name for value in params.values() if isinstance(value, str | int)})
    return found


def _key(value: Any) -> str:
    return f"{type(value).__name__}:{value}"


def _deleter(created: Operation, identifiers: JsonObject, deleters: list[Operation]) -> tuple[Operation, Any] | None:
    """The DELETE operation whose required parameters the identifiers fill (the one whose name
    shares the most with the create's, ``create_note``/``delete_note``), and its parameters."""
    found = []
    for op in deleters:
        params = filled(op.required_names, lambda name: _identifier_for(name, identifiers))
        if params:
            found.append((-shared_suffix(created.name, op.name), op.index, op, params))
    if not found:
        return None
    _, _, op, params = min(found, key=lambda item: item[:2])
    return op, params


def _identifier_for(name: str, identifiers: JsonObject) -> Any:
    """The value for a parameter: the identifier of its name, or ``id`` for a ``*_id`` one."""
    if name in identifiers:
        return identifiers[name]
    if (name.endswith("_id") or name.endswith("Id")) and "id" in identifiers:
        return identifiers["id"]
    return None


def _delete(live: Live, index: int, op: Operation, params: JsonObject) -> Any:
    arguments = {"operation": op.name, "params": params}
    description = f"--cleanup: delete the record change {index} created"
    return lambda: live.send((PHASE_CLEANUP, index), op.tool, arguments, op.name, "cleanup", description)
