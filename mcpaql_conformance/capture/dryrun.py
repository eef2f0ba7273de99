"""``--dry-run``: what a capture would send at the run's permission level, and what it would
withhold and why, read from introspection alone. Nothing but ``introspect`` reaches the server
(the guard refuses any other call of a dry run). Calls whose values depend on earlier answers
(a read by the identifier a create returns, a retry with the next value) are described, not
spelled out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcpaql_conformance.capture.calls import BATCH_DESCRIPTION, batch_items, request_plan, unknown_operation_tool
from mcpaql_conformance.capture.collections import NEXT_DESCRIPTION
from mcpaql_conformance.capture.cycles import create_params
from mcpaql_conformance.capture.probes import probes_of, withheld_probes
from mcpaql_conformance.capture.safety import NEEDED, SCENARIO_NAMES
from mcpaql_conformance.evidence.execution import LOOP_OPERATIONS
from mcpaql_conformance.evidence.reading import SINGLE
from mcpaql_conformance.files.vocabulary import PAGE_OF_ONE
from mcpaql_conformance.live.discovery import Operation
from mcpaql_conformance.live.encoding import as_recorded
from mcpaql_conformance.live.guard import withheld_reason
from mcpaql_conformance.live.levels import Need, strictest
from mcpaql_conformance.live.safety import UNKNOWN_OPERATION
from mcpaql_conformance.live.session import Live

JsonObject = dict[str, Any]


@dataclass
class DryRun:
    """The calls a capture would send, and those it would withhold."""

    permission: str
    introspected: int  # introspect calls sent to read the operations
    sends: list[JsonObject] = field(default_factory=list)
    withholds: list[JsonObject] = field(default_factory=list)

    def send(self, op: Operation, probe: str, description: str, params: Any = None, tool: str | None = None) -> None:
        call = {"operation": op.name, "tool": tool or op.tool, "probe": probe, "description": description}
        self.sends.append(call if params is None else {**call, "params": params})

    def withhold(self, operation: str, probes: dict[str, int], reason: str, need: Need) -> None:
        self.withholds.append(
            {"operation": operation, "probes": probes, "reason": reason, "needs": need.level.flag or None}
        )

    def as_dict(self) -> JsonObject:
        return {
            "dry_run": True,
            "permission": self.permission,
            "introspect_calls": self.introspected,
            "would_send": self.sends,
            "would_withhold": self.withholds,
            "calls_sent": self.introspected,
            "calls_planned": len(self.sends),
            "calls_withheld": sum(sum(entry["probes"].values()) for entry in self.withholds),
        }


def plan_run(live: Live, operations: list[Operation], introspected: int, cleanup: bool) -> DryRun:
    """Every call the capture would make after introspection, in its order."""
    dry = DryRun(live.guard.permission.label, introspected)
    for op in operations:
        _probes(live, dry, op)
    by_name = {op.name: op for op in operations}
    _examples(live, dry, by_name)
    _plan_cycles(live, dry, by_name)
    _inferred(live, dry, operations)
    if cleanup:
        _cleanup(live, dry, operations)
    single = live.tool_for_family(SINGLE)
    queries = batch_items()
    if single is not None and live.allows(live.guard.call_need(single, {"operations": queries})):
        dry.sends.append({"operation": "batch", "tool": single, "probe": "batch", "description": BATCH_DESCRIPTION})
    _safety_loop(live, dry, by_name)
    tool, _ = unknown_operation_tool(live)
    if tool is not None:
        description = "an operation name the server does not list"
        dry.sends.append({"operation": UNKNOWN_OPERATION, "tool": tool, "probe": "unknown_operation",
                          "description": description, "params": {}})  # fmt: skip
        for _, said, arguments in request_plan(live, tool)[0]:
            dry.sends.append({"operation": str(arguments.get("operation", "")), "tool": tool, "probe": "request",
                              "description": said, "params": as_recorded(arguments.get("params", {}))})  # fmt: skip
    return dry


def _probes(live: Live, dry: DryRun, op: Operation) -> None:
    if not live.allows(op.need):
        counts = dict(withheld_probes(live, op))
        dry.withhold(op.name, counts, withheld_reason(op.need, live.guard.permission), op.need)
        return
    if op.parameters is None:
        dry.send(
            op,
            "missing_required",
            "discover required parameters: called with none, then with each parameter its refusal names (up to 8"
            " calls); then the probes of the parameters it named",
            {},
        )
        return
    _, probes, _ = probes_of(live, op, [])
    for probe in probes:
        dry.send(op, probe.kind, probe.description, live.redactor.params(op.name, dict(probe.params)), probe.tool)
    if any(probe.variant == PAGE_OF_ONE for probe in probes):  # its values come from the page of one's answer
        dry.send(op, "pagination", f"where the page of one says another follows: {NEXT_DESCRIPTION}")


def _examples(live: Live, dry: DryRun, operations: dict[str, Operation]) -> None:
    for example in live.plan.examples:
        op = operations.get(example["operation"])
        if op is None:
            continue
        if not live.allows(op.need):
            dry.withhold(op.name, {"example": 1}, withheld_reason(op.need, live.guard.permission), op.need)
            continue
        params = live.redactor.params(op.name, dict(example.get("params", {})))
        dry.send(op, "example", str(example.get("_description", "plan example")), params)


def _plan_cycles(live: Live, dry: DryRun, operations: dict[str, Operation]) -> None:
    kinds: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("create_read", ("create", "read")),
        ("update_read", ("create", "update", "read")),
        ("constraints", ("create", "attempt")),
    )
    for key, names in kinds:
        for cycle in getattr(live.plan, key):
            steps = ("setup", *names) if "setup" in cycle else names
            ops = [operations.get(cycle[step]["operation"]) for step in steps]
            if any(op is None for op in ops):
                continue
            known = [op for op in ops if op is not None]
            barred = [op for op in known if not live.allows(op.need)]
            if barred:
                need = strictest([op.need for op in barred])
                reason = f"cycle {cycle['name']!r} skipped: " + withheld_reason(need, live.guard.permission)
                dry.withhold(barred[0].name, {cycle["name"]: len(steps)}, reason, need)
                continue
            for step, op in zip(steps, known, strict=True):
                params = live.redactor.params(op.name, dict(cycle[step].get("params", {})))
                dry.send(op, cycle["name"], f"{cycle['name']}: {step}", params)


def _inferred(live: Live, dry: DryRun, operations: list[Operation]) -> None:
    planned = {c["create"]["operation"] for c in live.plan.create_read}
    planned |= {c["update"]["operation"] for c in live.plan.update_read}
    readers = [op.name for op in operations if op.category == "READ" and op.required_names and live.allows(op.need)]
    shown = ", ".join(readers[:5]) or "none may be called"
    for op in operations:
        if op.category not in ("CREATE", "UPDATE") or op.name in planned or op.name in LOOP_OPERATIONS:
            continue
        probe = "create_read" if op.category == "CREATE" else "update_read"
        if not live.allows(op.need):
            reason = f"inferred {probe.replace('_', '-')} cycle not run: " + withheld_reason(
                op.need, live.guard.permission
            )
            dry.withhold(op.name, {probe: 2 if op.category == "CREATE" else 3}, reason, op.need)
        elif op.category == "CREATE" and op.parameters is not None:
            params = live.redactor.params(op.name, create_params(live, op))
            dry.send(
                op, probe, f"inferred create-read: create (then a READ by the identifier it returns: {shown})", params
            )
        else:
            stale = ", then the change again with an if_match naming no version" if any(
                p.get("name") == "if_match" for p in op.parameters or []) else ""  # fmt: skip
            dry.send(op, probe, f"inferred update-read: a created record, one field changed, then read back{stale}")


def _safety_loop(live: Live, dry: DryRun, operations: dict[str, Operation]) -> None:
    """The drive of the execution safety loop (capture/safety.py), where the server lists it."""
    if not all(name in operations for name in NEEDED):  # json: operation names
        return
    ops = [op for name, op in operations.items() if name in LOOP_OPERATIONS]
    barred = [op for op in ops if not live.allows(op.need)]
    if barred:
        need = strictest([op.need for op in barred])
        reason = "the execution safety loop's scenarios (they start executions): " + withheld_reason(
            need, live.guard.permission
        )
        dry.withhold(barred[0].name, {"execution": len(SCENARIO_NAMES)}, reason, need)
        return
    start = operations["execute_agent"]
    description = (
        f"the execution safety loop, one execution each: {', '.join(SCENARIO_NAMES)} (up to 100 calls); then a "
        "second connection, once the first closed: the blocked agent's new execution, a step of the one left running"
    )
    dry.send(start, "execution", description)


def _cleanup(live: Live, dry: DryRun, operations: list[Operation]) -> None:
    deleters = [op.name for op in operations if op.category == "DELETE" and live.allows(op.need)]
    if deleters:
        description = "--cleanup: each record the run created, deleted by an operation that takes its identifier"
        dry.sends.append(
            {"operation": ", ".join(deleters[:5]), "tool": "", "probe": "cleanup", "description": description}
        )
