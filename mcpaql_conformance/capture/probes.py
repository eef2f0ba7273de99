"""Per-operation probes (required, unknown, accepted, default, routing), plan examples and the
batch. Independent probes go out together; evidence is kept in plan order."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.capture.values import matches_type, synthesise
from mcpaql_conformance.evidence.answers import Kind, classify
from mcpaql_conformance.evidence.reading import SINGLE
from mcpaql_conformance.files.values import MISSING
from mcpaql_conformance.live.discovery import CRUDE_FAMILIES, Operation
from mcpaql_conformance.live.safety import HOW_TO_PROBE, tool_is_destructive
from mcpaql_conformance.live.session import (
    DESTRUCTIVE,
    NOT_APPLICABLE,
    PHASE_BATCH,
    PHASE_EXAMPLES,
    PHASE_PROBES,
    PLAN,
    UNKNOWN_PARAMETERS,
    Findings,
    Live,
    gather,
    note,
)
from mcpaql_conformance.verdict.textmatch import mentions_identifier

JsonObject = dict[str, Any]
UNKNOWN_PROBE = "zz_conformance_probe"
SENSITIVE_PROBE = "conformance-probe-secret-value"
# Parameters adapters commonly accept without documenting them (Introspection Completeness).
CROSS_CUTTING = ("fields", "limit", "offset", "cursor", "sort", "filter", "query", "include_deleted", "priority")
MAX_DISCOVERY = 8  # required parameters discovered from refusals, at most, per operation


@dataclass(frozen=True)
class Probe:
    """One planned call of an operation."""

    kind: str  # missing_required | unknown_parameter | accepted_parameters | optional_defaults | routing
    description: str
    params: JsonObject
    parameter: str | None = None
    tool: str | None = None  # another tool than the operation's own (routing)


def value(live: Live, operation: str, parameter: JsonObject) -> Any:
    """The value to send: the plan's, a distinctive one for a sensitive parameter, else synthesised."""
    planned = live.plan.value_for(operation, parameter["name"])
    if planned is not MISSING:
        return planned
    if parameter.get("sensitive") is True:
        return SENSITIVE_PROBE  # distinctive, so that masking it cannot hit other text
    return synthesise(parameter)


def planned_probes(live: Live, op: Operation, required: list[str], base: JsonObject) -> list[Probe]:
    """Every probe of an operation, in order (the same plan decides what is sent and what is
    counted as not sent)."""
    probes = [
        Probe("missing_required", f"omit required {name}", {k: v for k, v in base.items() if k != name}, name)
        for name in required
    ]
    probes.append(Probe("unknown_parameter", f"add unknown {UNKNOWN_PROBE}", {**base, UNKNOWN_PROBE: "probe"}))
    documented = {p["name"]: value(live, op.name, p) for p in op.parameters or []}
    if documented:
        probes.append(Probe("accepted_parameters", "every documented parameter", documented))
    probes += [
        Probe("accepted_parameters", f"undocumented {extra}", {**base, extra: _cross_value(extra)}, extra)
        for extra in CROSS_CUTTING
        if extra not in documented
    ]
    probes += [
        Probe("optional_defaults", f"omit optional {p['name']}", dict(base), p["name"])
        for p in op.parameters or []
        if "default" in p and p.get("required") is not True
    ]
    wrong = _wrong_tool(live, op)
    if wrong is not None:
        probes.append(Probe("routing", f"send to the wrong endpoint {wrong}", dict(base), tool=wrong))
    return probes


def _wrong_tool(live: Live, op: Operation) -> str | None:
    """A CRUDE endpoint tool other than the operation's own (never a DELETE or EXECUTE tool
    without --allow-destructive)."""
    if "crude" not in live.modes:
        return None
    own = live.tools.get(op.tool)
    for family in CRUDE_FAMILIES:
        tool = live.tool_for_family(family)
        if tool is None or tool == op.tool or (own is not None and own.family == family):
            continue
        if (tool_is_destructive(family) or tool_is_destructive(tool)) and not live.allow_destructive:
            continue
        return tool
    return None


async def probe_operation(live: Live, op: Operation) -> Findings:
    """Every probe of one operation; a destructive one gets no call at all without permission."""
    findings = Findings()
    if op.destructive and not live.allow_destructive:
        required = [p["name"] for p in op.required]
        counts = Counter(p.kind for p in planned_probes(live, op, required, {}))
        if op.parameters is None:
            counts["missing_required"] += 1  # at least the discovery call
        reason = f"destructive operation: not called ({HOW_TO_PROBE})"
        findings.notes += [note(op.name, kind, reason, DESTRUCTIVE, count) for kind, count in counts.items()]
        return findings
    key = (PHASE_PROBES, op.index)
    discovered: list[tuple[str, Any]] = []
    if op.parameters is None:
        discovered = await discover_required(live, op, key)
        required = [name for name, _ in discovered]
        op.discovered = required
        findings.notes.append(
            note(
                op.name,
                "accepted_parameters",
                "introspection gave no parameter list: required parameters were discovered from the server's "
                "refusals; documented parameters and their defaults could not be probed",
                UNKNOWN_PARAMETERS,
            )
        )
    else:
        required = [p["name"] for p in op.required]
    documented = {p["name"]: p for p in op.parameters or []}
    base = {name: value(live, op.name, documented.get(name, {"name": name})) for name in required}
    probes = planned_probes(live, op, [] if discovered else required, base)
    answers = await gather([_sender(live, op, probe, (*key, 1, index)) for index, probe in enumerate(probes)])
    for name, response in discovered:
        _missing(findings, op.name, name, response)
    _interpret(op, probes, answers, findings)
    # Parameters the server asked for by name are accepted by definition.
    findings.accepted = list(dict.fromkeys([*(findings.accepted or []), *(name for name, _ in discovered)]))
    return findings


def _sender(live: Live, op: Operation, probe: Probe, key: tuple[int, ...]) -> Any:
    arguments = {"operation": op.name, "params": probe.params}
    return lambda: live.send(key, probe.tool or op.tool, arguments, op.name, probe.kind, probe.description)


def _interpret(op: Operation, probes: list[Probe], answers: list[Any], findings: Findings) -> None:
    accepted: list[str] = []
    for probe, response in zip(probes, answers, strict=True):
        if probe.kind == "missing_required" and probe.parameter is not None:
            _missing(findings, op.name, probe.parameter, response)
        elif probe.kind == "unknown_parameter":
            findings.unknown_parameter.append({"operation": op.name, "parameter": UNKNOWN_PROBE, "response": response})
            findings.error_tests.append(
                {"name": f"unknown-{op.name}", "must_mention": [UNKNOWN_PROBE], "response": response}
            )
        elif probe.kind == "accepted_parameters" and probe.parameter is None:
            accepted += [p for p in probe.params if not _rejects_as_unknown(response, p)]
        elif probe.kind == "accepted_parameters" and probe.parameter is not None:
            if _accepted(response, probe.parameter):
                accepted.append(probe.parameter)
        elif probe.kind == "optional_defaults" and probe.parameter is not None:
            _default(findings, op, probe.parameter, response)
        elif probe.kind == "routing" and probe.tool is not None:
            findings.routing_tests.append({"operation": op.name, "tool": probe.tool, "response": response})
    findings.accepted = list(dict.fromkeys(accepted))


def _missing(findings: Findings, operation: str, parameter: str, response: Any) -> None:
    findings.missing_required.append({"operation": operation, "parameter": parameter, "response": response})
    findings.error_tests.append(
        {"name": f"missing-{operation}-{parameter}", "must_mention": [parameter], "response": response}
    )


def _default(findings: Findings, op: Operation, name: str, response: Any) -> None:
    default = next(p["default"] for p in op.parameters or [] if p["name"] == name)
    path = _find_value(response, name, default)
    answer = classify(response)
    # A refusal for something else (a synthesised id that does not exist) shows nothing about
    # the default; prose, text or a refusal about this parameter is judged by the test.
    unrelated = answer.refused and not mentions_identifier(answer.message, name)
    if path is None and answer.kind is not Kind.SUCCESS and not unrelated:
        path = f"data.{name}"
    if path is None:
        reason = (
            f"the call was refused for another reason ({answer.describe()}), so its default cannot be "
            "observed; plan values for the other parameters can fix that"
            if unrelated
            else f"the answer shows no {name!r} field to observe its default in"
        )
        # The probe was sent (count 0); its answer shows nothing to judge.
        findings.notes.append(note(op.name, "optional_defaults", reason, NOT_APPLICABLE, count=0, parameter=name))
        return
    findings.optional_defaults.append(
        {
            "operation": op.name,
            "parameter": name,
            "expected_value_path": path,
            "expected_value": default,
            "response": response,
        }
    )


# --- required-parameter discovery (operations without a parameter list) ------------------------

_QUOTES = "'\"`\u2018\u2019\u201c\u201d"
_QUOTED = re.compile(f"[{_QUOTES}]([A-Za-z_][A-Za-z0-9_]{{0,63}})[{_QUOTES}]")
_AFTER_WORD = re.compile(
    r"\b(?:parameters?|params?|fields?|arguments?|property)\b\s*[:=]?\s*([A-Za-z_][A-Za-z0-9_]{0,63})"
)
_BEFORE_REQUIRED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{0,63}) (?:is|are) (?:required|missing)")
_MISSING_WORDS = re.compile(r"missing|required|must be (?:provided|given|set)|not provided", re.IGNORECASE)
_NOT_NAMES = frozenset({"parameter", "parameters", "param", "params", "field", "fields", "required", "missing"})


async def discover_required(live: Live, op: Operation, key: tuple[int, ...]) -> list[tuple[str, Any]]:
    """Call the operation with what is known so far; while the server refuses for a missing
    parameter it names, add that parameter and call again. Each refusal is the
    missing-parameter evidence of the parameter it named."""
    found: list[tuple[str, Any]] = []
    params: JsonObject = {}
    for step in range(MAX_DISCOVERY):
        sent = ", ".join(params) or "no parameters"
        response = await live.send(
            (*key, 0, step), op.tool, {"operation": op.name, "params": dict(params)}, op.name, "missing_required",
            f"discover required parameters ({sent})",
        )  # fmt: skip
        answer = classify(response)
        if not answer.refused or not (_MISSING_WORDS.search(answer.message) or "MISSING" in (answer.code or "")):
            break
        named = [n for n in _named_parameters(answer.message) if n not in params and n != op.name]
        if not named:
            break
        found.append((named[0], response))
        params[named[0]] = value(live, op.name, {"name": named[0]})
    return found


def _named_parameters(message: str) -> list[str]:
    text = message[:2000]
    names = [*_QUOTED.findall(text), *_AFTER_WORD.findall(text), *_BEFORE_REQUIRED.findall(text)]
    return [n for n in dict.fromkeys(names) if n.lower() not in _NOT_NAMES and not n.isupper()]


# --- reading the answers ---------------------------------------------------------------------------


def _rejects_as_unknown(response: Any, parameter: str) -> bool:
    """The answer refuses ``parameter`` as unknown (a code or text says UNKNOWN and names it)."""
    answer = classify(response)
    if not answer.refused:
        return False
    said = f"{answer.code or ''} {answer.message} {answer.details}"
    return "UNKNOWN" in said.upper() and parameter in said


def _accepted(response: Any, parameter: str) -> bool:
    """An undocumented parameter counts as accepted when the call went through, or failed with a
    structured error that shows the parameters were taken (not an unknown, missing or invalid
    parameter, not an internal fault). A protocol error or a text says nothing either way."""
    answer = classify(response)
    if answer.succeeded:
        return True
    if answer.kind is not Kind.ERROR:
        return False
    said = f"{answer.code or ''} {answer.message}".upper()
    if "INTERNAL" in (answer.code or "") or "MISSING" in said or answer.validation:
        return False
    return not _rejects_as_unknown(response, parameter)


def _cross_value(name: str) -> Any:
    return {"fields": ["name"], "limit": 1, "offset": 0, "sort": {}, "filter": {}, "include_deleted": False}.get(
        name, "probe"
    )


def _find_value(response: Any, key: str, expected: Any, path: str = "", depth: int = 0) -> str | None:
    """The dotted path of a field named ``key`` holding ``expected``, searched breadth-first."""
    if depth > 8:
        return None
    if isinstance(response, dict):
        for name, item in response.items():
            if name == key and item == expected and type(item) is type(expected):
                return f"{path}{name}"
        for name, item in response.items():
            found = _find_value(item, key, expected, f"{path}{name}.", depth + 1)
            if found is not None:
                return found
    return None


# --- plan examples and the batch -----------------------------------------------------------------


async def run_examples(live: Live, operations: dict[str, Operation]) -> None:
    """The plan's example requests (checked against introspection first)."""
    jobs = []
    sent: list[tuple[Operation, JsonObject, str]] = []
    for index, example in enumerate(live.plan.examples):
        op = operations.get(example["operation"])
        params = example.get("params", {})
        problem = _invalid_example(op, params)
        if problem is None and op is not None and op.destructive and not live.allow_destructive:
            live.evidence.notes.append(
                note(op.name, "example", f"not sent: destructive operation ({HOW_TO_PROBE})", DESTRUCTIVE)
            )
            continue
        if problem is not None or op is None:
            live.evidence.notes.append(note(example["operation"], "example", f"not sent: {problem}", PLAN))
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


async def probe_batch(live: Live) -> None:
    single = live.tool_for_family(SINGLE)
    if single is None or (tool_is_destructive(single) and not live.allow_destructive):
        return
    queries = [{"operation": "introspect", "params": {"query": query}} for query in ("operations", "types")]
    live.evidence.batch_example = await live.send(
        (PHASE_BATCH, 0), single, {"operations": queries}, "batch", "batch", "introspect twice in one batch"
    )
