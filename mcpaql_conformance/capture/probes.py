"""Per-operation probes (required, unknown, accepted, default, routing; the plan's examples, the
batch and the unknown-operation call are ``calls``'). Independent probes go out together;
evidence is kept in plan order."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from mcpaql_conformance.capture.candidates import (
    ANSWER,
    MADE_BY_US,
    SAFE,
    SYNTHESISED,
    Candidate,
    SeenValues,
    candidates,
    names_existing,
    new_record_key,
    retry_order,
)
from mcpaql_conformance.capture.candidates import PLAN as PLAN_SOURCE
from mcpaql_conformance.capture.collections import collection_calls, next_cursor
from mcpaql_conformance.capture.exclusions import combinable
from mcpaql_conformance.capture.refusals import kept_because, rejects_as_unknown
from mcpaql_conformance.capture.values import fresh, made_up, matches_type, numbered, sensitive_value
from mcpaql_conformance.evidence.answers import Kind, classify
from mcpaql_conformance.evidence.identifiers import identifier_like
from mcpaql_conformance.files.values import MISSING, json_equal
from mcpaql_conformance.files.vocabulary import (
    IDENTIFIER_IN_INPUT,
    INPUT_NOT_OBJECT,
    INPUT_UNKNOWN_FIELD,
    INPUT_WRONG_TYPE,
    MISSING_INPUT,
    NOT_APPLICABLE,
    PAGE_OF_ONE,
    UNKNOWN_PARAMETERS,
    ValueSource,
)
from mcpaql_conformance.live.discovery import CRUDE_FAMILIES, Operation
from mcpaql_conformance.live.redact import MASK
from mcpaql_conformance.live.safety import SAFE_ON, safety_switch
from mcpaql_conformance.live.session import PHASE_PROBES, Findings, Live, gather, note
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.textmatch import mentions_identifier

JsonObject = dict[str, Any]
UNKNOWN_PROBE = "zz_conformance_probe"
UNKNOWN_VALUE = "mcpaql-conformance-unknown-value"  # none of the values capture chooses for a real parameter
# Parameters adapters commonly accept without documenting them (Introspection Completeness).
CROSS_CUTTING = ("fields", "limit", "offset", "cursor", "sort", "filter", "query", "include_deleted", "priority")
MAX_DISCOVERY = 8  # required parameters discovered from refusals, at most, per operation


@dataclass(frozen=True)
class Probe:
    """One planned call of an operation."""

    kind: str  # missing_required | unknown_parameter | accepted_parameters | optional_defaults | optional_omitted
    # | update_input | pagination | filter | field | aggregate | relationship | search | sort | routing
    description: str
    params: JsonObject
    parameter: str | None = None
    tool: str | None = None  # another tool than the operation's own (routing)
    variant: str = ""  # which break of `input` an update_input probe sends (UpdateInputKind), or its
    # pagination_tests kind (PaginationTestKind)


def choices(
    live: Live,
    operation: str,
    parameter: JsonObject,
    declarations: list[JsonObject] | None = None,
    seen: SeenValues | None = None,
) -> list[Candidate]:
    """The values to try, best first: the plan's alone; a distinctive one of its type for a
    sensitive parameter (so that masking it cannot hit other text: ``sensitive_value``); else
    what the server documents, then a synthesised value (``candidates``)."""
    planned = live.plan.value_for(operation, parameter["name"])
    if planned is not MISSING:
        return [Candidate(planned, PLAN_SOURCE)]
    if parameter.get("sensitive") is True:
        return [Candidate(sensitive_value(parameter), SYNTHESISED)]
    known = live.operation(operation)
    found = candidates(operation, parameter, declarations, seen, known.category if known is not None else None)
    borrowed = _borrowed(live, operation, parameter)
    if borrowed is not MISSING and matches_type(borrowed, parameter) and found[0].source != SAFE:
        found = [Candidate(borrowed, PLAN_SOURCE), *(c for c in found if not json_equal(c.value, borrowed))]
    return found


def _borrowed(live: Live, operation: str, parameter: JsonObject) -> Any:
    """An identifier the plan gives the same parameter of another operation, for a READ operation
    (a record the user named is read by every operation that takes it, never changed by one that
    was not named for it); MISSING otherwise."""
    name = parameter["name"]
    if not identifier_like(name):
        return MISSING
    given = live.plan.given_elsewhere(operation, name)  # MISSING at once without a plan
    op = live.operation(operation) if given is not MISSING else None
    return given if op is not None and op.category == "READ" and not op.need else MISSING


def next_choice(
    live: Live, op: Operation, name: str, refused: Any, seen: SeenValues | None, made_up: bool = True
) -> Candidate | None:
    """The value to try after the server refused ``refused`` for parameter ``name``: its best
    candidate other than that (for an identifier, one the server returned first); None when the
    plan gave the value (the plan decides) or nothing else is left (``made_up``: a synthesised
    value counts)."""
    found = choices(live, op.name, op.parameter(name), op.declarations, seen)
    if found[0].source == PLAN_SOURCE:
        return None
    for candidate in retry_order(name, found):
        if not json_equal(candidate.value, refused) and (made_up or candidate.source not in MADE_BY_US):
            return candidate
    return None


def value(live: Live, operation: str, parameter: JsonObject, declarations: list[JsonObject] | None = None) -> Any:
    """The first value to send for a parameter."""
    return choices(live, operation, parameter, declarations)[0].value


EVERY = "every documented parameter"


def planned_probes(
    live: Live, op: Operation, required: list[str], base: JsonObject, documented: JsonObject | None = None
) -> list[Probe]:
    """Every probe of an operation, in order (the same plan decides what is sent and what is
    counted as not sent). ``documented``: the value chosen for each documented parameter."""
    if documented is None:
        documented = {p["name"]: value(live, op.name, p, op.declarations) for p in op.parameters or []}
    probes = [
        Probe("missing_required", f"omit required {name}", {k: v for k, v in base.items() if k != name}, name)
        for name in required
        if name not in unsafe_to_omit(op)
    ]
    probes.append(Probe("unknown_parameter", f"add unknown {UNKNOWN_PROBE}", {**base, UNKNOWN_PROBE: UNKNOWN_VALUE}))
    if documented:
        probes.append(Probe("accepted_parameters", EVERY, documented))
    elif op.parameters == []:  # documented as taking none: the plain call (its answer may carry identifiers)
        probes.append(Probe("accepted_parameters", "no parameter, as documented", {}))
    probes += [
        Probe("accepted_parameters", f"undocumented {extra}", {**base, extra: _cross_value(extra)}, extra)
        for extra in CROSS_CUTTING
        if extra not in documented and extra not in base
    ]
    defaults = [
        Probe("optional_defaults", f"omit optional {p['name']}", dict(base), p["name"])
        for p in op.parameters or []
        if "default" in p and p.get("required") is not True
    ]
    probes += defaults
    # A defaults probe sends the same call (its answer shows it); introspect's list calls are that call.
    if optional_names(op) and not defaults and op.name != "introspect":
        probes.append(Probe("optional_omitted", "leave every optional parameter out", dict(base)))
    probes += update_input_probes(op, base)
    probes += [Probe(kind, said, params, variant=kind_of) for kind, said, params, kind_of in
               collection_calls(op, base, UNKNOWN_VALUE)]  # fmt: skip
    wrong = _wrong_tool(live, op)
    if wrong is not None:
        probes.append(Probe("routing", f"send to the wrong endpoint {wrong}", dict(base), tool=wrong))
    return probes


def optional_names(op: Operation) -> list[str]:
    """The documented parameters that are not required (core §4.5.3: `input` of an UPDATE is)."""
    return [p["name"] for p in op.parameters or [] if p.get("required") is not True]


def update_input_probes(op: Operation, base: JsonObject) -> list[Probe]:
    """UPDATEs whose `input` breaks core §4.5.3, each to be refused: an identifier copied into it
    (item 5), `input` as a string (item 2), a documented field of the wrong type (item 3), a field
    the resource lacks (item 4, VALIDATION_UNKNOWN_FIELD). The call without `input` is the
    missing-parameter probe (or, `input` documented optional, the call without optional ones)."""
    if op.category != "UPDATE" or "input" not in {p["name"] for p in op.parameters or []}:
        return []
    identifiers = [p["name"] for p in op.required if p["name"] != "input"]
    if not identifiers:
        return []
    chosen = base.get("input")
    given: JsonObject = chosen if isinstance(chosen, dict) else {}
    name = identifiers[0]
    copied = {**base, "input": {**given, name: base.get(name)}}
    made_up = {**base, "input": {**given, UNKNOWN_FIELD: UNKNOWN_VALUE}}
    probes = [
        Probe("update_input", f"copy the identifier {name} into input", copied, name, variant=IDENTIFIER_IN_INPUT),
        Probe("update_input", "input as a string", {**base, "input": NOT_AN_OBJECT}, "input", variant=INPUT_NOT_OBJECT),
        Probe("update_input", f"input with the made-up field {UNKNOWN_FIELD}", made_up, UNKNOWN_FIELD,
              variant=INPUT_UNKNOWN_FIELD),
    ]  # fmt: skip
    wrong = _wrongly_typed(op.parameter("input"))
    if wrong is not None:
        field, value = wrong
        params = {**base, "input": {**given, field: value}}
        probes.append(Probe("update_input", f"input.{field} of another type", params, field, variant=INPUT_WRONG_TYPE))
    return probes


NOT_AN_OBJECT = "mcpaql-conformance-not-an-object"
UNKNOWN_FIELD = "zz_conformance_field"
# A value of another JSON type than a documented scalar type (core §4.5.3 item 3).
_OTHER_TYPE: dict[str, Any] = {"string": 12345, "integer": "not-a-number", "number": "not-a-number", "boolean": "yes"}


def _wrongly_typed(input_parameter: JsonObject) -> tuple[str, Any] | None:
    """The first documented field of `input` with a scalar type, and a value of another type."""
    fields = input_parameter.get("fields")
    for entry in fields if isinstance(fields, list) else []:
        kind = entry.get("type") if isinstance(entry, dict) else None
        if isinstance(kind, str) and kind in _OTHER_TYPE and isinstance(entry.get("name"), str):
            return entry["name"], _OTHER_TYPE[kind]
    return None


def unsafe_to_omit(op: Operation) -> list[str]:
    """Required switches that make a call harmless (``dry_run``) and are not documented to default
    to that: a server that does not enforce required parameters would run the call for real, so
    the probe that leaves one out is not sent."""
    return [
        p["name"]
        for p in op.required
        if safety_switch(p) == SAFE_ON and p.get("default") is not True and p.get("type") in ("boolean", None)
    ]


def _wrong_tool(live: Live, op: Operation) -> str | None:
    """A CRUDE endpoint tool other than the operation's own that the run's level lets the call
    reach (below --allow-destructive, never an UPDATE, DELETE or EXECUTE endpoint)."""
    if "crude" not in live.modes:
        return None
    own = live.tools.get(op.tool)
    for family in CRUDE_FAMILIES:
        tool = live.tool_for_family(family)
        if tool is None or tool == op.tool or (own is not None and own.family == family):
            continue
        if live.allows(live.guard.call_need(tool, {"operation": op.name})):
            return tool
    return None


@dataclass
class Sent:
    """One operation's probes and their answers, before they are read: a probe the server
    refused for a value of ours may still be sent again with the next value (``retry``)."""

    op: Operation
    findings: Findings
    probes: list[Probe] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    discovered: list[tuple[str, Any]] = field(default_factory=list)
    chosen: dict[str, Candidate] = field(default_factory=dict)  # the value of each parameter we chose
    sources: dict[int, dict[str, ValueSource]] = field(default_factory=dict)  # per probe, where changed by a retry
    inconclusive: dict[int, JsonObject] = field(default_factory=dict)  # per probe: capture's mark
    first: dict[int, tuple[JsonObject, Any]] = field(default_factory=dict)  # per retried probe: its first try

    @property
    def key(self) -> tuple[int, ...]:
        return (PHASE_PROBES, self.op.index)


async def send_probes(live: Live, op: Operation, seen: SeenValues | None = None) -> Sent:
    """Every probe of one operation, sent; one the run's level does not allow gets no call at all
    (a request with a parameter left out is no safety against a server that does not check).
    ``seen``: what the server answered so far (a reference to another record takes it first)."""
    sent = Sent(op, Findings())
    if not live.allows(op.need):
        counts = withheld_probes(live, op)
        sent.findings.notes += [live.withheld(op.name, kind, op.need, count) for kind, count in counts.items()]
        return sent
    if op.parameters is None:
        sent.discovered = await discover_required(live, op, sent.key)
        required = [name for name, _ in sent.discovered]
        op.discovered = required
        sent.findings.notes.append(
            note(
                op.name,
                "accepted_parameters",
                "introspection gave no parameter list: required parameters were discovered from the server's "
                "refusals; documented parameters and their defaults could not be probed",
                UNKNOWN_PARAMETERS,
            )
        )
    sent.chosen, sent.probes, left_out = probes_of(live, op, [name for name, _ in sent.discovered], seen)
    sent.findings.notes += [
        note(op.name, "accepted_parameters", f"{name} left out of the call with every documented parameter: {why}",
             NOT_APPLICABLE, parameter=name, count=0)
        for name, why in left_out.items()
    ]  # fmt: skip
    for name in unsafe_to_omit(op):
        reason = f"not sent: without {name} the call could run for real (a plan cannot lift this)"
        sent.findings.notes.append(note(op.name, "missing_required", reason, NOT_APPLICABLE, parameter=name))
    sent.answers = await gather(
        [sender(live, op, probe, (*sent.key, 1, index)) for index, probe in enumerate(sent.probes)]
    )
    return sent


def probes_of(
    live: Live, op: Operation, discovered: list[str], seen: SeenValues | None = None
) -> tuple[dict[str, Candidate], list[Probe], dict[str, str]]:
    """The value chosen for each parameter, the probes of an operation the run may call
    (``discovered``: the required parameters its refusals named, when introspection gave none),
    and the documented parameters left out of the call with every one of them, with why."""
    required = discovered if op.parameters is None else [p["name"] for p in op.required]
    documented = [p["name"] for p in op.parameters or []]
    chosen = {
        name: choices(live, op.name, op.parameter(name), op.declarations, seen)[0] for name in [*required, *documented]
    }
    base = {name: chosen[name].value for name in required}
    if op.name == "introspect":  # the spec requires `query`: every probe of introspect sends one
        base.setdefault("query", "operations")
    values, left_out = combinable(
        op.parameters or [],
        {name: chosen[name].value for name in documented},
        [name for name in documented if chosen[name].source in (ANSWER, PLAN_SOURCE)],
    )
    probes = planned_probes(live, op, [] if discovered else required, base, values)
    if left_out:  # the call with every documented parameter is one a valid request could be
        said = "; ".join(f"{name} ({why})" for name, why in left_out.items())
        probes = [
            replace(p, description=f"{p.description} but {said}") if p.description == EVERY else p for p in probes
        ]
    if op.category == "CREATE":  # each create gets names of its own: the second is no conflict with the first
        made_up = {
            name
            for name, candidate in chosen.items()
            if candidate.source in MADE_BY_US and not names_existing(op.name, name, op.category)
        }
        probes = [
            replace(p, params={k: numbered(v, n, op.parameter(k)) if k in made_up else v for k, v in p.params.items()})
            if n > 1
            else p
            for n, p in enumerate(probes, 1)
        ]  # fmt: skip  (a value the server gave names its record)
        probes = [replace(p, params=fresh_keys(live, op, p.params)) for p in probes]
    return chosen, probes, left_out


def fresh_keys(live: Live, op: Operation, params: JsonObject) -> JsonObject:
    """A create's parameters with the key of the new record one this run has not sent before
    (``values.fresh``), unless the plan gives it: values that name a new record are new."""
    return {
        name: fresh(op.parameter(name), value)
        if new_record_key(op.name, name, op.category) and live.plan.value_for(op.name, name) is MISSING
        else value
        for name, value in params.items()
    }


def withheld_probes(live: Live, op: Operation) -> Counter[str]:
    """How many probes of each kind an operation would get, were it allowed."""
    required = [p["name"] for p in op.required]
    documented = {p["name"]: None for p in op.parameters or []}  # the values do not count
    counts = Counter(p.kind for p in planned_probes(live, op, required, {}, documented))
    if op.parameters is None:
        counts["missing_required"] += 1  # at least the discovery call
    return counts


def read_probes(live: Live, sent: Sent) -> Findings:
    """What the answers of one operation's probes show (after any retry)."""
    findings = sent.findings
    for name, response in sent.discovered:
        _missing(findings, sent.op.name, name, response)
    if sent.probes:
        _interpret(live, sent, findings)
        # Parameters the server asked for by name are accepted by definition.
        named = (name for name, _ in sent.discovered)
        findings.accepted = list(dict.fromkeys([*(findings.accepted or []), *named]))
    elif sent.discovered:
        findings.accepted = [name for name, _ in sent.discovered]
    return findings


def under_test(probe: Probe) -> str | None:
    """The parameter a probe is about (None: the probe of every documented parameter)."""
    return UNKNOWN_PROBE if probe.kind == "unknown_parameter" else probe.parameter


def case_context(live: Live, sent: Sent, index: int) -> JsonObject:
    """What a case records of its probe: the request as sent (sensitive values masked), where
    capture took each value, the first try when the probe was sent again, and capture's mark
    when the answer refused a value of ours."""
    probe = sent.probes[index]
    sources = {name: c.source for name, c in sent.chosen.items() if name in probe.params}
    sources.update({k: v for k, v in sent.sources.get(index, {}).items() if k in probe.params})
    context: JsonObject = {"request": live.redactor.params(sent.op.name, dict(probe.params)), "value_sources": sources}
    if index in sent.first:  # the first try, refused for our value: kept, so that the retry shows why
        params, response = sent.first[index]
        context["first_try"] = {"request": live.redactor.params(sent.op.name, dict(params)), "response": response}
    if index in sent.inconclusive:
        mark = sent.inconclusive[index]
        if (sent.op.name, mark["parameter"]) in live.redactor.sensitive:  # its values are secrets
            mark = {**mark, "reason": f"refused our value for {mark['parameter']}", "values": [MASK]}
        context["inconclusive"] = live.redactor.value(mark)  # and a plan's secrets masked wherever they show
    return context


def sender(live: Live, op: Operation, probe: Probe, key: tuple[int, ...]) -> Any:
    arguments = {"operation": op.name, "params": probe.params}
    return lambda: live.send(key, probe.tool or op.tool, arguments, op.name, probe.kind, probe.description)


def _interpret(live: Live, sent: Sent, findings: Findings) -> None:
    op = sent.op
    accepted: list[str] = []
    unjudged: list[str] = []  # undocumented parameters whose call was refused for another reason
    refusal = ""
    for index, (probe, response) in enumerate(zip(sent.probes, sent.answers, strict=True)):
        context = case_context(live, sent, index)
        if probe.kind == "accepted_parameters" and not findings.valid_requests:
            # the answer is read for the parameters only: one that is no MCP-AQL result, or that calls a
            # documented parameter unknown or asks for one introspection does not show, is kept, to be judged
            why = kept_because(op, probe.params, probe.parameter is not None, response)
            if why:
                findings.valid_requests.append(
                    {"operation": op.name, "_description": f"{probe.description}, kept as {why}",
                     "params": context["request"], "response": response}
                )  # fmt: skip
        if probe.kind == "missing_required" and probe.parameter is not None:
            _missing(findings, op.name, probe.parameter, response, context)
            if probe.parameter == "input" and op.category == "UPDATE":  # core §4.5.3 item 1
                case = {"operation": op.name, "kind": MISSING_INPUT, "request": context["request"]}
                findings.update_input_tests.append({**case, "response": response})
        elif probe.kind == "unknown_parameter":
            case = {"operation": op.name, "parameter": UNKNOWN_PROBE, "response": response, **context}
            findings.unknown_parameter.append(case)
            error_test = {"name": f"unknown-{op.name}", "operation": op.name, "must_mention": [UNKNOWN_PROBE],
                          "response": response}  # fmt: skip
            findings.error_tests.append({**error_test, **context})
        elif probe.kind == "accepted_parameters" and probe.parameter is None:
            accepted += [p for p in probe.params if not rejects_as_unknown(response, p, probe.params)]
        elif probe.kind == "accepted_parameters" and probe.parameter is not None:
            taken = _accepted(response, probe.parameter)
            if taken:
                accepted.append(probe.parameter)
            elif taken is None:
                unjudged.append(probe.parameter)
                refusal = classify(response).describe()
        elif probe.kind == "optional_defaults" and probe.parameter is not None:
            _default(findings, op, probe.parameter, response, index in sent.inconclusive)
            if not findings.optional_omitted:  # the call without any optional parameter
                _omitted(findings, op, response, context)
        elif probe.kind == "optional_omitted":
            _omitted(findings, op, response, context)
        elif probe.kind == "update_input" and probe.parameter is not None:
            case = {"operation": op.name, "kind": probe.variant or IDENTIFIER_IN_INPUT}
            case |= {"parameter": probe.parameter} if probe.variant != INPUT_NOT_OBJECT else {}
            findings.update_input_tests.append({**case, "request": context["request"], "response": response})
        elif probe.kind in ("pagination", "filter", "field", "aggregate", "relationship", "search", "sort"):
            case = {"operation": op.name, **({"kind": probe.variant} if probe.variant else {}),
                    "request": context["request"], "response": response}  # fmt: skip
            getattr(findings, f"{probe.kind}_tests").append(case)
            cursor = next_cursor(response) if probe.variant == PAGE_OF_ONE else None
            if cursor is not None:  # the page after it is asked for once every read is probed
                live.next_pages.append((op, dict(probe.params), cursor))
        elif probe.kind == "routing" and probe.tool is not None:
            findings.routing_tests.append({"operation": op.name, "tool": probe.tool, "response": response})
    findings.accepted = list(dict.fromkeys(accepted))
    if unjudged:
        reason = (
            f"undocumented {', '.join(unjudged)}: not judged: the call was refused for another reason ({refusal}), "
            "so it shows neither that the server took them nor that it refused them; plan values for the "
            "operation's parameters can fix that"
        )
        findings.notes.append(note(op.name, "accepted_parameters", reason, NOT_APPLICABLE, count=0))


def _missing(
    findings: Findings, operation: str, parameter: str, response: Any, context: JsonObject | None = None
) -> None:
    case = {"operation": operation, "parameter": parameter, "response": response, **(context or {})}
    findings.missing_required.append(case)
    error_test = {"name": f"missing-{operation}-{parameter}", "operation": operation, "must_mention": [parameter],
                  "response": response}  # fmt: skip
    findings.error_tests.append({**error_test, **(context or {})})


def _omitted(findings: Findings, op: Operation, response: Any, context: JsonObject) -> None:
    """The call without any optional parameter: a refusal for one shows it is required in fact."""
    omitted = optional_names(op)
    case = {"operation": op.name, "omitted": omitted, "response": response, "request": context["request"]}
    findings.optional_omitted.append(case)
    if op.category == "UPDATE" and "input" in omitted:  # `input` documented optional: this call lacks it
        findings.update_input_tests.append(
            {"operation": op.name, "kind": MISSING_INPUT, "request": context["request"], "response": response}
        )


def _default(findings: Findings, op: Operation, name: str, response: Any, inconclusive: bool = False) -> None:
    default = next(p["default"] for p in op.parameters or [] if p["name"] == name)
    path = _find_value(response, name, default)
    answer = classify(response)
    # A refusal for something else (a synthesised id that does not exist) shows nothing about
    # the default; prose, text or a refusal about this parameter is judged by the test.
    unrelated = inconclusive or (answer.refused and not mentions_identifier(answer.message, name))
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
_QUOTED = lazy(f"[{_QUOTES}]([A-Za-z_][A-Za-z0-9_]{{0,63}})[{_QUOTES}]")
_AFTER_WORD = lazy(r"\b(?:parameters?|params?|fields?|arguments?|property)\b\s*[:=]?\s*([A-Za-z_][A-Za-z0-9_]{0,63})")
_BEFORE_REQUIRED = lazy(r"\b([A-Za-z_][A-Za-z0-9_]{0,63}) (?:is|are) (?:required|missing)")
_MISSING_WORDS = lazy(r"missing|required|must be (?:provided|given|set)|not provided", re.IGNORECASE)
_NOT_NAMES = frozenset({"parameter", "parameters", "param", "params", "field", "fields", "required", "missing"})


async def discover_required(live: Live, op: Operation, key: tuple[int, ...]) -> list[tuple[str, Any]]:
    """Call the operation with what is known so far; while the server refuses for a missing
    parameter it names, add that parameter and call again. Each refusal is the
    missing-parameter evidence of the parameter it named."""
    found: list[tuple[str, Any]] = []
    params: JsonObject = {"query": "operations"} if op.name == "introspect" else {}  # the spec requires it
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
        params[named[0]] = value(live, op.name, {"name": named[0]}, op.declarations)
    return found


def _named_parameters(message: str) -> list[str]:
    text = message[:2000]
    names = [*_QUOTED.findall(text), *_AFTER_WORD.findall(text), *_BEFORE_REQUIRED.findall(text)]
    return [n for n in dict.fromkeys(names) if n.lower() not in _NOT_NAMES and not n.isupper()]


# --- reading the answers ---------------------------------------------------------------------------


def _accepted(response: Any, parameter: str) -> bool | None:
    """Whether the server took an undocumented parameter: True when the call went through; False
    when it refused the parameter as unknown, or answered with no structured result (which says
    nothing); None when it refused the call for another reason (a record of ours not found, no
    credentials upstream, a conflict): a verdict may rest only on a request valid apart from the
    one thing under test, and this one was not."""
    answer = classify(response)
    if answer.succeeded:
        return True
    if answer.kind is not Kind.ERROR or rejects_as_unknown(response, parameter):
        return False
    return None


def _cross_value(name: str) -> Any:
    return {"fields": ["name"], "limit": 1, "offset": 0, "sort": {}, "filter": {}, "include_deleted": False}.get(
        name, made_up(name)
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
