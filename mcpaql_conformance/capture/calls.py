"""Calls of the whole server rather than of one operation: the plan's example requests, the
batch, one call of an operation no server lists, and the calls that show how it reads a request."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.capture.probes import UNKNOWN_VALUE
from mcpaql_conformance.capture.values import matches_type
from mcpaql_conformance.evidence.reading import BATCH_ALIASES, SINGLE, declares, protocol_capabilities
from mcpaql_conformance.files.vocabulary import (
    DEEP_NESTING,
    DESTRUCTIVE,
    EMPTY_OPERATION,
    INVALID_UTF8,
    NO_OPERATION,
    NOT_APPLICABLE,
    NULL_BYTE,
    OPERATION_CASE,
    OPERATIONS,
    PARAMS_PRECEDENCE,
    PLAN_STEP,
    TWO_UNKNOWN_PARAMETERS,
    TYPES,
    RequestTestName,
)
from mcpaql_conformance.live.connection import CaptureError
from mcpaql_conformance.live.discovery import Operation
from mcpaql_conformance.live.encoding import INVALID, INVALID_SAID, MARK, as_recorded
from mcpaql_conformance.live.levels import Need
from mcpaql_conformance.live.safety import UNKNOWN_OPERATION
from mcpaql_conformance.live.session import (
    PHASE_BATCH,
    PHASE_EXAMPLES,
    PHASE_REQUESTS,
    PHASE_UNKNOWN,
    Live,
    gather,
    note,
)

JsonObject = dict[str, Any]


async def run_examples(live: Live, operations: dict[str, Operation]) -> None:
    """The plan's example requests (checked against introspection first)."""
    jobs = []
    sent: list[tuple[Operation, JsonObject, str]] = []
    for index, example in enumerate(live.plan.examples):
        op = operations.get(example["operation"])
        params = example.get("params", {})
        problem = _invalid_example(op, params)
        if problem is None and op is not None and not live.allows(op.need):
            live.evidence.notes.append(live.withheld(op.name, "example", op.need, what="not sent"))
            continue
        if problem is not None or op is None:
            live.evidence.notes.append(note(example["operation"], "example", f"not sent: {problem}", PLAN_STEP))
            continue
        description = str(example.get("_description", "plan example"))
        arguments = {"operation": op.name, "params": params}
        key = (PHASE_EXAMPLES, index)
        jobs.append(_bind(live, key, op, arguments, description))
        sent.append((op, params, description))
    answers = await gather(jobs)
    for (op, params, description), response in zip(sent, answers, strict=True):
        live.evidence.valid_requests.append(
            {
                "operation": op.name,
                "_description": description,
                "params": live.redactor.params(op.name, params),
                "response": response,
            }
        )


def _bind(live: Live, key: tuple[int, ...], op: Operation, arguments: JsonObject, description: str) -> Any:
    return lambda: live.send(key, op.tool, arguments, op.name, "example", description)


def _invalid_example(op: Operation | None, params: JsonObject) -> str | None:
    if op is None:
        return "operation not in introspection"
    if op.parameters is None:
        return None  # nothing documented to check the example against
    documented = {p["name"]: p for p in op.parameters}
    for key, item in params.items():
        if key not in documented:
            return f"parameter {key!r} is not documented"
        if not matches_type(item, documented[key]):
            return f"parameter {key!r} does not match its introspected type {documented[key].get('type')!r}"
    missing = [p["name"] for p in op.required if p["name"] not in params]
    return f"required parameter(s) missing: {', '.join(missing)}" if missing else None


def unknown_operation_tool(live: Live) -> tuple[str | None, str]:
    """The tool the unknown-operation probe goes to, and why none when it is not sent: a READ
    endpoint at any level; the single tool (or, lacking both, any MCP-AQL tool) only where the
    run may call anything, since a server that routes by guesswork could run something there."""
    read = live.tool_for_family("read")
    if read is not None:
        return read, ""
    other = live.tool_for_family(SINGLE) or next(iter(live.tools), None)
    if other is not None and live.allows(live.guard.call_need(other, _unknown_arguments())):
        return other, ""
    if other is None:
        return None, "the server has no MCP-AQL tool"
    return None, (
        f"not sent: the server has no READ endpoint, and an operation name it does not list, sent to {other}, "
        "needs --allow-destructive (a server that routes by guesswork could run something)"
    )


def _unknown_arguments() -> JsonObject:
    return {"operation": UNKNOWN_OPERATION, "params": {}}


async def probe_unknown_operation(live: Live) -> None:
    """One call of an operation no server lists: its refusal is evidence of the error shape,
    leakage and actionable messages (error-codes §4.8: it names the operation) even on a server
    that otherwise never refuses; a success shows routing by guesswork (endpoint-modes §5.5)."""
    tool, why_not = unknown_operation_tool(live)
    if tool is None:
        cause = DESTRUCTIVE if live.tools else NOT_APPLICABLE
        live.evidence.notes.append(note(None, "unknown_operation", why_not, cause))
        return
    response = await live.send(
        (PHASE_UNKNOWN, 0), tool, _unknown_arguments(), UNKNOWN_OPERATION, "unknown_operation",
        "an operation name the server does not list",
    )  # fmt: skip
    live.evidence.error_tests.append(
        {"name": "unknown-operation", "operation": UNKNOWN_OPERATION, "tool": tool, "must_mention": [UNKNOWN_OPERATION],
         "request": {}, "response": response}
    )  # fmt: skip


RequestProbe = tuple[RequestTestName, str, JsonObject]  # name, description, tool arguments


def request_probes() -> list[RequestProbe]:
    """(name, description, tool arguments) of each call showing how the server reads a request
    itself: every one is introspect, or no operation at all (read-only whatever it is taken for)."""
    listing = {"query": OPERATIONS}
    return [
        (NO_OPERATION, "a request without `operation`", {"params": listing}),
        (EMPTY_OPERATION, "a request whose operation is empty", {"operation": "", "params": listing}),
        (OPERATION_CASE, "INTROSPECT, a known name in upper case", {"operation": "INTROSPECT", "params": listing}),
        (PARAMS_PRECEDENCE, "query types at the top level, operations in params",
         {"operation": "introspect", "query": TYPES, "params": listing}),
        (TWO_UNKNOWN_PARAMETERS, "introspect with two unknown parameters",
         {"operation": "introspect", "params": {**listing, **dict.fromkeys(TWO_UNKNOWN, UNKNOWN_VALUE)}}),
        (NULL_BYTE, "introspect with a name holding U+0000",
         {"operation": "introspect", "params": {**listing, "name": "intro\u0000spect"}}),
        (DEEP_NESTING, f"introspect with a value nested {DEEP} levels deep",
         {"operation": "introspect", "params": {**listing, NESTED: nested(DEEP)}}),
        (INVALID_UTF8, f"introspect with a name holding {INVALID_SAID}, last, on a session of its own",
         {"operation": "introspect", "params": {**listing, "name": f"intro{MARK}spect"}}),
    ]  # fmt: skip


# Deeper than the 64 levels core §4.7.5 lets any server configure (its default is 32), in a
# metadata field of params: no unknown-parameter refusal applies to it (core §4.6.1), so a server
# that enforces no limit answers the listing, and one that does refuses with the limit's error.
DEEP = 70
NESTED = "_conformance_nested"


def nested(depth: int) -> list[Any]:
    """``[[[...[]...]]]``: ``depth`` arrays, each holding the next."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


TWO_UNKNOWN = ("zz_conformance_first", "zz_conformance_second")


def request_plan(live: Live, tool: str) -> tuple[list[RequestProbe], list[tuple[RequestProbe, Need]]]:
    """``request_probes`` as they go to ``tool``: (those the run's level lets it send, those it
    withholds with what they need). The request without `operation` goes only where the tool's
    input schema leaves it optional (where it requires it, MCP itself refuses such a call before
    the server sees it: nothing of the server to judge)."""
    listed = next((t for t in live.evidence.mcp_tools or [] if isinstance(t, dict) and t.get("name") == tool), {})
    schema = listed.get("inputSchema")
    required = schema.get("required") if isinstance(schema, dict) else None
    demanded = isinstance(required, list) and "operation" in required
    sent: list[RequestProbe] = []
    withheld: list[tuple[RequestProbe, Need]] = []
    for probe in request_probes():
        if demanded and probe[0] == NO_OPERATION:
            continue
        need = live.guard.call_need(tool, probe[2])
        if live.allows(need):
            sent.append(probe)
        else:  # a request naming no operation is unknown ground for the guard
            withheld.append((probe, need))
    return sent, withheld


LAST = (INVALID_UTF8,)  # sent last, on a session of its own (last_probe): a server may end the session on it


async def probe_requests(live: Live) -> None:
    """The calls of ``request_probes`` but the LAST, to the tool the unknown-operation call goes
    to (an operation name the server may not know is sent only where that one may go)."""
    tool, _ = unknown_operation_tool(live)
    if tool is None:
        return  # the unknown-operation call's note says why
    probes, withheld = request_plan(live, tool)
    probes = [probe for probe in probes if probe[0] not in LAST]
    for (name, description, _), need in withheld:
        live.evidence.notes.append(live.withheld(None, f"request {name}", need, what=f"{description}: not sent"))
    answers = await gather(
        [_request(live, tool, index, description, arguments) for index, (_, description, arguments) in
         enumerate(probes)]
    )  # fmt: skip
    for (name, _, arguments), response in zip(probes, answers, strict=True):
        live.evidence.request_tests.append({"name": name, "tool": tool, "arguments": arguments, "response": response})


LastProbe = tuple[str, RequestProbe]  # the tool, the request


def last_probe(live: Live) -> LastProbe | None:
    """The request of invalid UTF-8 (core §4.7.1: refused with VALIDATION_INVALID_ENCODING), where
    the run's level lets it go: sent on a session of its own once everything else is done
    (capture/run.py), since a server may end the session on it."""
    tool, _ = unknown_operation_tool(live)
    probe = next((probe for probe in request_plan(live, tool)[0] if probe[0] in LAST), None) if tool else None
    return (tool, probe) if tool is not None and probe is not None else None  # withheld: probe_requests said so


async def send_last(live: Live, last: LastProbe) -> Any:
    """Its answer; no answer (the server closed the session, or did not answer in time) as such."""
    tool, (_, description, arguments) = last
    try:
        return await _request(live, tool, len(request_probes()), description, arguments)()
    except CaptureError as exc:  # recorded by send; the session is over, the capture is not
        return {"_timeout": live.redactor.text(str(exc))}


def record_last(live: Live, last: LastProbe, response: Any) -> None:
    """The request_tests case of the request of invalid UTF-8, its bytes said."""
    tool, (name, _, arguments) = last
    at = {"at": "params.name", "bytes": INVALID.hex(" ").upper()}
    recorded = {"name": name, "tool": tool, "arguments": as_recorded(arguments), "invalid_utf8": at}
    live.evidence.request_tests.append({**recorded, "response": response})


def _request(live: Live, tool: str, index: int, description: str, arguments: JsonObject) -> Any:
    operation = str(arguments.get("operation", ""))
    return lambda: live.send((PHASE_REQUESTS, index), tool, arguments, operation, "request", description)


BAD_QUERY = "zz_conformance_no_such_query"  # a query no server knows: that item fails
BATCH_DESCRIPTION = "introspect three times in one batch, the second with a query no server knows"


def batch_items() -> list[JsonObject]:
    """Introspect's operations list, a query that fails, the types list: the failing item in the
    middle shows whether the one after it still runs and the batch still succeeds (operations §7.3)."""
    return [{"operation": "introspect", "params": {"query": query}} for query in (OPERATIONS, BAD_QUERY, TYPES)]


async def probe_batch(live: Live) -> None:
    """One batch of ``batch_items``: on the single tool, or where the server declares batches
    (``_protocol.capabilities.batch``) and has no single tool, on its READ tool (operations §7.4:
    in semantic mode a batch keeps to one endpoint family)."""
    queries = batch_items()
    tool = live.tool_for_family(SINGLE)
    if tool is None and declares(protocol_capabilities(live.evidence.operations_list), "batch", BATCH_ALIASES):
        tool = live.tool_for_family("read")
    if tool is None or not live.allows(live.guard.call_need(tool, {"operations": queries})):
        return
    live.evidence.batch_example = await live.send(
        (PHASE_BATCH, 0), tool, {"operations": queries}, "batch", "batch", BATCH_DESCRIPTION
    )


CONFIRMATION_DESCRIPTION = (
    "a batch of a call that answered CONFIRMATION_REQUIRED alone, then introspect: operations §7.5.2 asks the "
    "batch to halt at the first, listing the second as pending"
)


async def probe_confirmation_batch(live: Live) -> None:
    """Where a call answered CONFIRMATION_REQUIRED, one batch on the single tool of that call (as
    sent, never confirmed) and then introspect's operations list (``confirmation_batch``): halted
    there (operations §7.5.2), the introspect item never runs. Only with the level that call's
    operation needs (a server might run it in a batch all the same), and only on the single tool:
    in semantic mode a batch keeps to one endpoint family (§7.4), and a second item of the gated
    one's family could change something."""
    tool = live.tool_for_family(SINGLE)
    gated = next(iter(live.gated.items()), None)
    if gated is None:
        return
    operation, params = gated
    check: JsonObject = {"query": OPERATIONS}
    items: list[JsonObject] = [{"operation": operation, "params": params}, {"operation": "introspect", "params": check}]
    if tool is None:
        reason = f"{operation} answered CONFIRMATION_REQUIRED: a batch holding it needs the single tool (mcp_aql)"
        live.evidence.notes.append(note(operation, "confirmation-batch", reason, NOT_APPLICABLE))
        return
    need = live.guard.call_need(tool, {"operations": items})
    if not live.allows(need):
        live.evidence.notes.append(live.withheld(operation, "confirmation-batch", need, what="not sent"))
        return
    response = await live.send(
        (PHASE_BATCH, 1), tool, {"operations": items}, "batch", "confirmation-batch", CONFIRMATION_DESCRIPTION
    )
    request = [{**item, "params": live.redactor.params(str(item["operation"]), item["params"])} for item in items]
    live.evidence.confirmation_batch = {
        "operation": operation,
        "request": {"operations": request},
        "response": response,
    }
