"""The two introspect lists (operations, types) read as the spec shows them, or leniently, and
the ``_protocol`` metadata of the operations list (part of Introspection Fidelity).

``_protocol`` is judged rule by rule, each at its own strength (introspection §4.1.1): a
``version`` that is no semantic version fails; a ``mode`` or ``conformance`` outside the listed
values, or no ``_protocol`` at all, warns; capability flags are the server's to add (a MAY).
"""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import CRUDE_ENDPOINTS, Context
from mcpaql_conformance.evidence.reading import data_of, operations_of, read_entry, read_type, types_of
from mcpaql_conformance.files.schemas import introspection_schema, operation_result_schema
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

PROTOCOL = "_protocol"
# The rule a problem with each `_protocol` field is about; a field not named here: the version's.
_PROTOCOL_RULES = {
    "version": "introspection:4.1.1:protocol-version",
    "mode": "introspection:4.1.1:protocol-mode",
    "conformance": "introspection:4.1.1:protocol-conformance",
}
PROTOCOL_OBJECT = "introspection:8.1:protocol-object"
MODE_SEMANTIC = "introspection:4.1.1:mode-semantic"


def introspect_answer(ctx: Context, query: str) -> tuple[list[str], list[JsonObject] | None]:
    """Failures of one introspect list answer, and its entries read leniently (None: unusable).

    A list that deviates from the spec is still read (names under other keys, the list in a
    bare array, ...): each reading it took is a failure, and the rest is judged as read. The
    operations list's ``_protocol`` is judged apart (``protocol_findings``)."""
    answer = ctx.bundle.operations_list if query == "operations" else ctx.bundle.types_list
    label = f"introspect {{query: {query}}}"
    definition = "OperationsListData" if query == "operations" else "TypesListData"
    verdict = classify(answer)
    if verdict.refused:
        return [cite("core:7.2:introspect", f"{label} failed: {verdict.describe()}")], None
    if isinstance(answer, dict) and ctx.is_valid_result(answer):
        data = answer.get("data")
        if isinstance(data, dict) and introspection_schema(definition).is_valid(_without_protocol(data)):
            entries: list[JsonObject] = data[query]
            return [], entries
    return _lenient_list(answer, label, definition, query)


CACHED = "introspection:7.3:caching"


def relisted(ctx: Context) -> list[tuple[str, Any, Any]]:
    """(query, the list introspect answered first, the list a batch item answered again) for each
    introspect list a batch of the run asked for again (in the same session as the first)."""
    example = ctx.bundle.batch_example
    results = example.get("results") if isinstance(example, dict) else None
    firsts = {"operations": data_of(ctx.bundle.operations_list)[0], "types": data_of(ctx.bundle.types_list)[0]}
    pairs: list[tuple[str, Any, Any]] = []
    for item in results if isinstance(results, list) else []:
        again = data_of(item.get("result"))[0] if isinstance(item, dict) else None
        for query, first in firsts.items():
            if isinstance(first, dict) and isinstance(again, dict) and query in first and query in again:
                pairs.append((query, first[query], again[query]))
    return pairs


def cached_findings(ctx: Context) -> list[str]:
    """introspection §7.3: within one session an introspect answer stays the same: a list a batch
    asked for again is the list introspect gave first (a SHOULD)."""
    findings: list[str] = []
    for query, first, again in relisted(ctx):
        if json_equal(first, again):
            continue
        counts = f"{_count(first)} entries, then {_count(again)}"
        same = ", not the same ones" if _count(first) == _count(again) else ""
        text = f"introspect {{query: {query}}} answered another list in the batch than first ({counts}{same})"
        findings.append(cite(CACHED, text))
    return findings


def _count(entries: Any) -> int:
    return len(entries) if isinstance(entries, list) else 0


def _without_protocol(data: JsonObject) -> JsonObject:
    return {key: value for key, value in data.items() if key != PROTOCOL} if PROTOCOL in data else data


def _lenient_list(answer: Any, label: str, definition: str, query: str) -> tuple[list[str], list[JsonObject] | None]:
    failures: list[str] = []
    if not operation_result_schema().is_valid(answer):
        reasons = operation_result_schema().explain(answer)
        text = f"{label} answer is not a valid operation result ({'; '.join(reasons)})"
        failures.append(cite("introspection:3.1:discriminated-union", text))
    data, _ = data_of(answer)
    found, readings = operations_of(answer) if query == "operations" else types_of(answer)
    if found is None:
        if not failures and isinstance(answer, dict):
            reasons = introspection_schema(definition).explain(
                _without_protocol(data) if isinstance(data, dict) else data
            )
            failures.append(f"{label} data does not match {definition} ({'; '.join(reasons)})")
        elif not failures:
            failures.append(f"{label} gave no {query} list ({classify(answer).describe()})")
        return failures, None
    read = [read_entry(e, readings) if query == "operations" else read_type(e, readings) for e in found]
    failures += [f"{label} deviates from the spec: {line}" for line in readings.lines(query.rstrip("s"))]
    shaped = {**(_without_protocol(data) if isinstance(data, dict) else {}), query: read}
    schema = introspection_schema(definition)
    if not schema.is_valid(shaped):
        reasons = schema.explain(shaped)
        failures.append(f"{label} data does not match {definition} ({'; '.join(reasons)})")
    return failures, read


def protocol_findings(ctx: Context) -> list[str]:
    """What is wrong with the operations list's ``_protocol``, each finding naming its rule."""
    data, _ = data_of(ctx.bundle.operations_list)
    if not isinstance(data, dict) or operations_of(ctx.bundle.operations_list)[0] is None:
        return []  # no list was read: the list's own failures say why
    protocol = data.get(PROTOCOL)
    label = "introspect {query: operations}"
    if protocol is None:
        return [cite(PROTOCOL_OBJECT, f"{label} carries no `_protocol` (with at least its spec version)")]
    findings = _missing_protocol_fields(protocol, label)
    schema = introspection_schema("ProtocolMetadata")
    if schema.is_valid(protocol):
        return findings
    for reason in schema.explain(protocol, limit=8):
        path, _, said = reason.partition(": ")
        field = path.removeprefix("$.").split(".", 1)[0].split("[", 1)[0]
        if field == "capabilities":
            continue  # capability flags are the server's to add (a MAY): nothing to fail
        rule = _PROTOCOL_RULES.get(field, _PROTOCOL_RULES["version"])
        text = f"{label}: _protocol{path.removeprefix('$')}: {said}"
        if field == "mode" and isinstance(protocol, dict) and protocol.get("mode") == "crude":
            rule = MODE_SEMANTIC
            text += "; CRUDE is a profile of the semantic endpoint mode: `_protocol.mode` is 'semantic'"
        findings.append(cite(rule, text))
    return findings


# `_protocol` fields a SHOULD asks for, and the rule that asks (introspection §4.1.1)
_ADVISED_FIELDS = {
    "conformance": "introspection:4.1.1:protocol-conformance",
    "mode": "introspection:4.1.1:protocol-mode",
    "limits": "core:4.7.5:limits-in-protocol",  # so clients can check a request before sending it
}


def _missing_protocol_fields(protocol: Any, label: str) -> list[str]:
    """A finding for each field a SHOULD asks `_protocol` to carry and it leaves out."""
    if not isinstance(protocol, dict):
        return []
    return [
        cite(rule, f"{label}: _protocol has no `{field}`")
        for field, rule in _ADVISED_FIELDS.items()
        if field not in protocol
    ]


def _introspect_home(ctx: Context) -> list[str]:
    """introspect is a READ operation on a documented endpoint family (operations §9.1): a server
    whose MCP-AQL tools are all CRUDE endpoints but none the READ one (and no single tool, no
    family of its own) can serve it only where READ operations do not belong. Judged from the tool
    list alone, so also when capture did not call such a tool at all."""
    families = {reading.family for reading in ctx.aql_tools}
    if not families or not families <= set(CRUDE_ENDPOINTS) or "read" in families:
        return []
    names = ", ".join(plain(reading.name, max_len=80) for reading in ctx.aql_tools[:6])
    return [
        cite(
            "operations:9.1:introspect",
            f"the server has no READ endpoint and no single tool (its MCP-AQL tools: {names}): introspect, a READ "
            "operation, can only be served by an endpoint of another category",
        )
    ]


def discovery_failures(ctx: Context, query: str) -> list[str]:
    """Failures of finding introspection at all: no MCP-AQL tool, introspect calls that failed."""
    failures: list[str] = []
    tools = ctx.bundle.mcp_tools
    if query == "operations" and tools is not None and not ctx.aql_tools:
        names = ", ".join(str(t.get("name")) for t in tools[:10] if isinstance(t, dict)) or "none"
        text = f"the server exposes no MCP-AQL tool (mcp_aql, mcp_aql_<family>); its tools: {names}"
        failures.append(cite("core:3.3:one-mode", text))
    if query == "operations":
        failures += _introspect_home(ctx)
    for attempt in ctx.bundle.query_attempts:
        if attempt.get("query") == query:  # json: our query word (a string)
            params = ", ".join(f"{k}: {v}" for k, v in attempt["params"].items()) if attempt["params"] else ""
            answer = classify(attempt["response"])
            if answer.refused:
                said = f"introspect {{{params}}} via {attempt['tool']}: refused ({answer.describe()})"
                failures.append(cite("core:7.2:introspect", said))
            else:
                failures.append(
                    f"introspect {{{params}}} via {attempt['tool']}: gave no {query} list ({answer.describe()})"
                )
    return failures
