"""The execution lifecycle (core §8.4) as capture's drive of the safety loop (``execution_tests``)
shows it: the state an answer gives (execution_id and status, §8.4.3), its progress object, states
beyond the core five listed in introspection (§8.4.4), the lifecycle field (§8.4.5), the transitions
between the states one execution went through (§8.4.2), and an abort while running (§8.4.4)."""

from __future__ import annotations

import itertools
from typing import Any

from mcpaql_conformance.evidence.execution import (
    CORE_STATES,
    LOOP_OPERATIONS,
    TERMINAL,
    data_of,
    execution_id_of,
    field_of,
    status_of,
)
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.vocabulary import (
    CANCEL_SCENARIO,
    EXECUTION_STATE,
    LIFECYCLE_SCENARIO,
    PROGRESS,
    PROGRESS_ASKED,
    PROGRESS_NOTIFIED,
    TERMINAL_TOUCHED,
)
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import Call, calls_of, cite

LIFECYCLE_RULES: tuple[str, ...] = (
    "core:8.4:standard-lifecycle", "core:8.4.2:terminal-final", "core:8.4.3:state-fields",
    "core:8.4.3:progress-content", "core:8.4.4:custom-states-documented", "core:8.4.4:cancel-from-any",
    "core:8.4.5:states-introspected", "mcp:5.1:execute-progress", "mcp:5.2:progress-on-token",
    "mcp:5.3:mcp-progress-format",
)  # fmt: skip
# core §8.4.2's transitions, as (from, to); a state kept is no transition
TRANSITIONS = frozenset({("pending", "running"), ("pending", "cancelled"), ("running", "completed"),
                         ("running", "failed"), ("running", "cancelled"), ("failed", "running")})  # fmt: skip


def lifecycle_findings(ctx: Context) -> list[str]:
    """What the answers about executions show of their lifecycle."""
    calls = [call for call in calls_of(ctx, "execution_tests") if call.answer.succeeded]
    if not calls:
        return []
    listed = listed_states(ctx)
    findings = _state_shapes(calls, listed)
    findings += _introspected(ctx, calls)
    findings += _transitions(calls)
    abort = next((c for c in calls_of(ctx, "execution_tests") if c.case.get("scenario") == CANCEL_SCENARIO
                  and c.case.get("call") == "abort_running"), None)  # fmt: skip
    findings += progress_findings(ctx)
    if abort is not None and abort.answer.refused:
        findings.append(cite("core:8.4.4:cancel-from-any", f"{abort.name} of a running execution was refused "
                             f"({abort.answer.describe()})"))  # fmt: skip
    return findings


def lifecycle_evidence(ctx: Context) -> list[str]:
    """What the answers about executions held: EXECUTION_STATE, PROGRESS, TERMINAL_TOUCHED."""
    calls = [call for call in calls_of(ctx, "execution_tests") if call.answer.succeeded]
    held = {
        EXECUTION_STATE: any(status_of(c.response) and execution_id_of(c.response) for c in calls),
        PROGRESS: any(isinstance(field_of(data_of(c.response), "progress"), dict) for c in calls),
        TERMINAL_TOUCHED: any(c.case.get("call") == "after_terminal" for c in calls_of(ctx, "execution_tests")),
        PROGRESS_ASKED: any(_asked_progress(ctx, c) for c in calls),
        PROGRESS_NOTIFIED: any(c.case.get("progress") for c in calls_of(ctx, "execution_tests")),
    }
    return [label for label, found in held.items() if found]


def reports_progress(ctx: Context, operation: str) -> bool:
    """Whether an operation's lifecycle declares progress_reporting (core §8.4.5)."""
    lifecycle = (ctx.details_by_name.get(operation) or {}).get("lifecycle")
    return isinstance(lifecycle, dict) and lifecycle.get("progress_reporting") is True


def progress_findings(ctx: Context) -> list[str]:
    """The notifications/progress a call carrying a progress token brought (mcp-integration §5.2-5.3)."""
    findings: list[str] = []
    for call in calls_of(ctx, "execution_tests"):
        notified = call.case.get("progress")
        if not isinstance(notified, list):
            continue  # no token sent
        entries = [n for n in notified if isinstance(n, dict)]
        values = [v for n in entries if (v := _number(n.get("progress"))) is not None]
        past = [v for n in entries if (v := _number(n.get("progress"))) is not None
                and (total := _number(n.get("total"))) is not None and v > total]  # fmt: skip
        if not notified and call.answer.succeeded and reports_progress(ctx, str(call.case.get("operation"))):
            findings.append(cite("mcp:5.2:progress-on-token", f"{call.name} declares progress_reporting, but sent no "
                                 "notifications/progress for a call carrying a progress token"))  # fmt: skip
        elif any(later <= earlier for earlier, later in itertools.pairwise(values)):
            findings.append(cite("mcp:5.3:mcp-progress-format", f"{call.name}'s notifications/progress do not rise: "
                                 f"{', '.join(str(v) for v in values[:10])}"))  # fmt: skip
        elif past:
            findings.append(cite("mcp:5.3:mcp-progress-format", f"{call.name} reported progress past its total"))
    return findings


def _asked_progress(ctx: Context, call: Call) -> bool:
    return isinstance(call.case.get("progress"), list) and reports_progress(ctx, str(call.case.get("operation")))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def listed_states(ctx: Context) -> set[str]:
    """The states the loop operations' ``lifecycle.states`` list in introspection."""
    states: set[str] = set()
    for name in LOOP_OPERATIONS:
        lifecycle = (ctx.details_by_name.get(name) or {}).get("lifecycle")
        found = lifecycle.get("states") if isinstance(lifecycle, dict) else None
        states |= {s for s in found[:50] if isinstance(s, str)} if isinstance(found, list) else set()
    return states


def _state_shapes(calls: list[Call], listed: set[str]) -> list[str]:
    findings: list[str] = []
    for call in calls:
        data = data_of(call.response)
        status, execution = status_of(call.response), execution_id_of(call.response)
        if status is not None and status not in CORE_STATES and status not in listed:
            findings.append(cite("core:8.4.4:custom-states-documented", f"{call.name} answered the execution state "
                                 f"{plain(status, max_len=40)!r}, which introspection lists nowhere"))  # fmt: skip
            break
        if (status is None) != (execution is None) and call.case.get("operation") != "record_execution_step":
            missing = "status" if status is None else "execution_id"
            findings.append(cite("core:8.4.3:state-fields", f"{call.name} answered execution state without "
                                 f"{missing}"))  # fmt: skip
            break
        progress = field_of(data, "progress")
        if isinstance(progress, dict) and not _progress_said(progress):
            findings.append(cite("core:8.4.3:progress-content", f"{call.name} answered a progress object with "
                                 "neither percentage, current and total, nor message"))  # fmt: skip
            break
    return findings


def _progress_said(progress: dict[str, Any]) -> bool:
    return (
        "percentage" in progress  # json: keys of the answer's object
        or {"current", "total"} <= progress.keys()
        or isinstance(progress.get("message"), str)
    )


def _introspected(ctx: Context, calls: list[Call]) -> list[str]:
    """The operation that starts executions lists its states (§8.4.5)."""
    starts = [c for c in calls if c.case.get("operation") == "execute_agent" and execution_id_of(c.response)]
    if not starts or isinstance((ctx.details_by_name.get("execute_agent") or {}).get("lifecycle"), dict):
        return []
    return [cite("core:8.4.5:states-introspected", "execute_agent answers execution state, but its details have "
                 "no lifecycle field listing the states")]  # fmt: skip


def _transitions(calls: list[Call]) -> list[str]:
    """The statuses one execution went through, in the order answered (a custom state is no judge)."""
    seen: dict[str, str] = {}
    for call in calls:
        execution, status = _execution_of(call), status_of(call.response)
        if execution is None or status is None:
            continue
        previous = seen.get(execution)
        seen[execution] = status
        if previous is None or previous not in CORE_STATES or status not in CORE_STATES:
            continue
        before: str = previous  # a core state, a string
        if before == status:  # json: two core state names
            continue
        if (before, status) in TRANSITIONS:
            continue
        if before in TERMINAL and call.case.get("scenario") == LIFECYCLE_SCENARIO:
            return [cite("core:8.4.2:terminal-final", f"execution {plain(execution, max_len=60)} went from "
                         f"{before} to {status} ({call.name}, {call.case.get('call')})")]  # fmt: skip
        if before not in TERMINAL:
            return [cite("core:8.4:standard-lifecycle", f"execution {plain(execution, max_len=60)} went from "
                         f"{before} to {status}, no transition of the standard lifecycle ({call.name})")]  # fmt: skip
    return []


def _execution_of(call: Call) -> str | None:
    found = execution_id_of(call.response)
    request = call.case.get("request")
    asked = field_of(request, "execution_id") if isinstance(request, dict) else None
    return found or (asked if isinstance(asked, str) else None)
