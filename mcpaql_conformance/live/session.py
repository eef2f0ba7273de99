"""The state of one live capture: the session, the evidence being gathered, and the one place
every call goes through (concurrency limit, redaction, records in plan order)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcpaql_conformance.evidence.answers import CONFIRMATION_REQUIRED, classify
from mcpaql_conformance.evidence.named import NamedTypes
from mcpaql_conformance.evidence.reading import Readings, ToolReading
from mcpaql_conformance.files.vocabulary import (
    DESTRUCTIVE,
    PLAN_STEP,
    WRITES,
    NoteCause,
)
from mcpaql_conformance.live.connection import Answer, CaptureError, Connection
from mcpaql_conformance.live.encoding import as_recorded
from mcpaql_conformance.live.guard import Guard, Withheld, withheld_reason
from mcpaql_conformance.live.levels import Need, Permission
from mcpaql_conformance.live.plan import Plan
from mcpaql_conformance.live.records import Exchange, RecordWriter, SortKey
from mcpaql_conformance.live.redact import Redactor

JsonObject = dict[str, Any]

# Phases of a capture, the first part of every record's sort key.
(
    PHASE_INTROSPECT, PHASE_TYPES, PHASE_TYPE_DETAILS, PHASE_DETAILS, PHASE_PROBES, PHASE_EXAMPLES, PHASE_CYCLES,
    PHASE_BATCH, PHASE_UNKNOWN, PHASE_REQUESTS, PHASE_CLEANUP, PHASE_PAGES, PHASE_SAFETY,
) = range(13)  # fmt: skip

# Why a probe was not sent (the bundle's capture_notes[].cause): withheld for safety, the
# run's level too low (WRITES: --allow-writes would send it; DESTRUCTIVE: --allow-destructive);
# or another reason.
WITHHELD_CAUSES: dict[Permission, NoteCause] = {Permission.WRITES: WRITES, Permission.DESTRUCTIVE: DESTRUCTIVE}
PLAN = PLAN_STEP


@dataclass
class Findings:
    """Evidence of one operation (merged into the bundle in operation order)."""

    accepted: list[str] | None = None
    missing_required: list[JsonObject] = field(default_factory=list)
    unknown_parameter: list[JsonObject] = field(default_factory=list)
    optional_defaults: list[JsonObject] = field(default_factory=list)
    optional_omitted: list[JsonObject] = field(default_factory=list)
    update_input_tests: list[JsonObject] = field(default_factory=list)
    pagination_tests: list[JsonObject] = field(default_factory=list)
    filter_tests: list[JsonObject] = field(default_factory=list)
    field_tests: list[JsonObject] = field(default_factory=list)
    aggregate_tests: list[JsonObject] = field(default_factory=list)
    relationship_tests: list[JsonObject] = field(default_factory=list)
    search_tests: list[JsonObject] = field(default_factory=list)
    sort_tests: list[JsonObject] = field(default_factory=list)
    error_tests: list[JsonObject] = field(default_factory=list)
    routing_tests: list[JsonObject] = field(default_factory=list)
    valid_requests: list[JsonObject] = field(default_factory=list)
    notes: list[JsonObject] = field(default_factory=list)


@dataclass
class Evidence:
    """The bundle sections as they are filled in."""

    mcp_tools: list[JsonObject] | None = None
    operations_list: Any = None
    types_list: Any = None
    query_attempts: list[JsonObject] = field(default_factory=list)
    details: list[JsonObject] = field(default_factory=list)
    type_details: list[JsonObject] = field(default_factory=list)
    detail_queries: list[JsonObject] = field(default_factory=list)
    type_queries: list[JsonObject] = field(default_factory=list)
    unknown_name_queries: list[JsonObject] = field(default_factory=list)
    accepted: dict[str, list[str]] = field(default_factory=dict)
    missing_required: list[JsonObject] = field(default_factory=list)
    unknown_parameter: list[JsonObject] = field(default_factory=list)
    optional_defaults: list[JsonObject] = field(default_factory=list)
    optional_omitted: list[JsonObject] = field(default_factory=list)
    update_input_tests: list[JsonObject] = field(default_factory=list)
    pagination_tests: list[JsonObject] = field(default_factory=list)
    filter_tests: list[JsonObject] = field(default_factory=list)
    field_tests: list[JsonObject] = field(default_factory=list)
    aggregate_tests: list[JsonObject] = field(default_factory=list)
    relationship_tests: list[JsonObject] = field(default_factory=list)
    search_tests: list[JsonObject] = field(default_factory=list)
    sort_tests: list[JsonObject] = field(default_factory=list)
    error_tests: list[JsonObject] = field(default_factory=list)
    routing_tests: list[JsonObject] = field(default_factory=list)
    valid_requests: list[JsonObject] = field(default_factory=list)
    round_trip_tests: list[JsonObject] = field(default_factory=list)
    update_preservation_tests: list[JsonObject] = field(default_factory=list)
    constraint_tests: list[JsonObject] = field(default_factory=list)
    execution_tests: list[JsonObject] = field(default_factory=list)
    configuration_tests: list[JsonObject] = field(default_factory=list)
    batch_example: Any = None
    confirmation_batch: Any = None  # capture/calls.py: probe_confirmation_batch
    request_tests: list[JsonObject] = field(default_factory=list)
    notes: list[JsonObject] = field(default_factory=list)

    def merge(self, operation: str, findings: Findings) -> None:
        if findings.accepted is not None:
            self.accepted[operation] = findings.accepted
        for key in (
            "missing_required", "unknown_parameter", "optional_defaults", "optional_omitted", "update_input_tests",
            "pagination_tests", "filter_tests", "field_tests", "aggregate_tests", "relationship_tests", "search_tests",
            "sort_tests", "error_tests", "routing_tests", "valid_requests",
        ):  # fmt: skip
            getattr(self, key).extend(getattr(findings, key))
        self.notes.extend(findings.notes)


def _confirmation_required(response: Any) -> bool:
    """An answer refusing the call until it is confirmed (operations §7.5, error-codes §5.4)."""
    return classify(response).code == CONFIRMATION_REQUIRED


def note(
    operation: str | None, probe: str, reason: str, cause: NoteCause, count: int = 1, parameter: str | None = None
) -> JsonObject:
    """A capture note: ``count`` probes not sent (or not conclusive), and why."""
    entry = {"operation": operation, "probe": probe, "reason": reason, "cause": cause, "count": count}
    return entry if parameter is None else {**entry, "parameter": parameter}


@dataclass
class Live:
    """One capture in progress. Every tool call goes through ``send``."""

    connection: Connection
    writer: RecordWriter
    redactor: Redactor
    plan: Plan
    concurrency: int = 4
    evidence: Evidence = field(default_factory=Evidence)
    readings: Readings = field(default_factory=Readings)
    tools: dict[str, ToolReading] = field(default_factory=dict)  # MCP-AQL tools by their own name
    modes: list[str] = field(default_factory=list)
    introspect_tool: str = ""  # the tool introspect answered on
    introspect_params: JsonObject = field(default_factory=dict)  # the list query that worked
    operations: list[Any] = field(default_factory=list)  # discovery's Operations, in list order
    named: NamedTypes = field(default_factory=NamedTypes)  # the types the server documents, once described
    # (operation, params as sent, endCursor) of each page of one that said another page follows
    next_pages: list[tuple[Any, JsonObject, str]] = field(default_factory=list)
    # what the safety loop's drive left for a second connection: an agent and its running execution, a
    # hard-blocked agent (capture/safety.py)
    left: JsonObject = field(default_factory=dict)
    # each operation a call of which answered CONFIRMATION_REQUIRED, with the params it was sent (as sent)
    gated: dict[str, JsonObject] = field(default_factory=dict)
    _slots: anyio.Semaphore | None = None
    _by_name: dict[str, Any] = field(default_factory=dict)
    _indexed: int = -1  # how many operations _by_name was built from

    def operation(self, name: str) -> Any:
        """The Operation of that name (the last, where a name repeats), or None; indexed once the
        operations are listed, so a server of many thousands costs no scan per lookup."""
        if self._indexed != len(self.operations):
            self._by_name = {op.name: op for op in self.operations}
            self._indexed = len(self.operations)
        return self._by_name.get(name)

    @property
    def guard(self) -> Guard:
        """The run's guard (the connection's: every call passes it)."""
        return self.connection.guard

    def allows(self, need: Need) -> bool:
        """Whether the run's level allows what an operation or call needs."""
        return self.guard.allows(need)

    def withheld(self, operation: str | None, probe: str, need: Need, count: int = 1, what: str = "") -> JsonObject:
        """The note of ``count`` probes not sent because the run's level does not allow them."""
        reason = (f"{what}: " if what else "") + withheld_reason(need, self.guard.permission)
        return note(operation, probe, reason, WITHHELD_CAUSES[need.level], count)

    def tool_for_family(self, family: str) -> str | None:
        """The server's own tool serving an endpoint family (``read``; "" for single), if any."""
        return next((name for name, tool in self.tools.items() if tool.family == family), None)

    async def send(
        self,
        key: SortKey,
        tool: str,
        arguments: JsonObject,
        operation: str,
        probe: str,
        description: str,
        progress: list[JsonObject] | None = None,
    ) -> Any:
        """One call, recorded (redacted) under its plan-order key; returns the redacted answer.
        A timeout is recorded before it ends the capture. ``progress``: see Connection.call."""
        if self._slots is None:
            self._slots = anyio.Semaphore(max(1, self.concurrency))
        params = arguments.get("params", arguments)
        if isinstance(params, dict):  # a server may echo a sensitive value: mask it wherever it shows
            for name, value in params.items():
                if (operation, name) in self.redactor.sensitive:
                    self.redactor.add_secret(value)  # strings and numbers alike
        async with self._slots:
            started = time.perf_counter()
            try:
                answer = await self.connection.call(tool, arguments, progress)
            except Withheld as exc:  # every caller asks first: reaching this line is a fault of ours
                raise CaptureError(f"a call capture planned was withheld by the guard: {exc}") from None
            except CaptureError as exc:
                answer = Answer({"_timeout": str(exc)}, "timeout", (time.perf_counter() - started) * 1000)
                self._record(key, tool, params, operation, probe, description, answer)
                raise
        if isinstance(params, dict) and "operation" in arguments and _confirmation_required(answer.response):
            self.gated.setdefault(operation, params)
        return self._record(key, tool, params, operation, probe, description, answer)

    def _record(
        self, key: SortKey, tool: str, params: Any, operation: str, probe: str, description: str, answer: Answer
    ) -> Any:
        params = self.redactor.params(operation, as_recorded(params)) if isinstance(params, dict) else params
        response = self.redactor.value(answer.response)
        exchange = Exchange(
            index=0,
            operation=operation,
            tool=tool,
            probe=probe,
            description=description,
            params=params,
            response=response,
            milliseconds=answer.milliseconds,
            timestamp=dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            outcome=answer.outcome,
        )
        self.writer.add(exchange, key)
        return response


async def gather(jobs: list[Callable[[], Awaitable[Any]]]) -> list[Any]:
    """Run jobs concurrently (the call slots bound how many calls are in flight) and return
    their results in job order. A capture error in any job ends them all, as itself."""
    results: list[Any] = [None] * len(jobs)

    async def run(index: int, job: Callable[[], Awaitable[Any]]) -> None:
        results[index] = await job()

    try:
        async with anyio.create_task_group() as group:
            for index, job in enumerate(jobs):
                group.start_soon(run, index, job)
    except BaseExceptionGroup as group_error:
        raise _first(group_error) from None
    return results


def _first(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        captures = [e for e in error.exceptions if isinstance(e, CaptureError)]
        error = captures[0] if captures else error.exceptions[0]
    return error
