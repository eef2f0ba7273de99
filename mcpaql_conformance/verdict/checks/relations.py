"""How a relationship query answers and documents itself (features/relationship-queries), all
SHOULDs or informative MUSTs: its details advertise the support and its maximum depth (§5, §6)
and it keeps the standard traversal words (§2); without `include` it answers root, relationships
and graph, with `include` only what was named (§3); a deep traversal answers, visits no node twice
and repeats no edge (§5); a relationship type beyond the standard five is listed in its details
(§4). A relationship query is a READ operation named query_relationships or taking `root` and
`direction`; a server with none offers none of this."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.values import json_key
from mcpaql_conformance.files.vocabulary import ALL_SECTIONS, DEEP_TRAVERSAL, ONE_SECTION, RELATIONSHIPS
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import calls_of, cite, kinds_held

_RQ = "features/relationship-queries"
ADVERTISED = f"{_RQ}:6:advertise"
DEPTH_DOCUMENTED = f"{_RQ}:5:max-depth-documented"
VOCABULARY = f"{_RQ}:2:stable-vocabulary"
ALL_BY_DEFAULT = f"{_RQ}:3:all-sections-default"
ONLY_ASKED = f"{_RQ}:3:requested-sections"
VISITED_ONCE = f"{_RQ}:5:dedupe-visited"
BOUNDED = f"{_RQ}:5:bounded-expansion"
CUSTOM_TYPES = f"{_RQ}:4:custom-types-documented"
STANDARD_TYPES = frozenset({"uses", "extends", "references", "triggers", "composes"})  # §4
SECTIONS = ("root", "relationships", "graph")
# Names a relationship query may take its standard controls by (§2 keeps root, direction, depth, relationship).
ALIASES = {"root": ("start", "from", "origin", "source", "node"), "direction": ("dir",),
           "depth": ("max_depth", "hops", "levels"), "relationship": ("relation", "rel", "edge_type")}  # fmt: skip


def relationship_operations(ctx: Context) -> list[str]:
    """The READ operations that traverse relationships."""
    return [
        op for op in ctx.operations_in("READ")
        if op.startswith("query_relationships") or {"root", "direction"} <= {p["name"] for p in ctx.parameters_of(op)}
    ]  # fmt: skip


def relationship_documentation_findings(ctx: Context) -> list[str]:
    """A relationship query whose details do not advertise it or its maximum depth, or that takes
    a standard control under another name."""
    findings: list[str] = []
    for op in relationship_operations(ctx):
        name, detail = plain(op, max_len=80), ctx.details_by_name.get(op) or {}
        capabilities = detail.get("relationship_capabilities")
        parameters = {p["name"]: p for p in ctx.parameters_of(op)}
        if not isinstance(capabilities, dict):
            findings.append(cite(ADVERTISED, f"{name} traverses relationships but its details have no "
                                 "relationship_capabilities"))  # fmt: skip
        depth = parameters.get("depth", {})
        if not _number((capabilities or {}).get("max_depth")) and not _number(depth.get("maximum")):
            findings.append(cite(DEPTH_DOCUMENTED, f"{name} documents no maximum depth (relationship_capabilities."
                                 "max_depth, or a maximum on `depth`)"))  # fmt: skip
        renamed = [f"{alias} for {word}" for word, aliases in ALIASES.items() if word not in parameters
                   for alias in aliases if alias in parameters]  # fmt: skip
        missing = [word for word in ("root", "direction") if word not in parameters and not renamed]
        if renamed or missing:
            said = "; ".join(renamed) or f"no {' and no '.join(missing)}"
            findings.append(cite(VOCABULARY, f"{name} takes its traversal by other words than the standard ones "
                                 f"({plain(said, max_len=120)})"))  # fmt: skip
    return findings


def relationship_test_findings(ctx: Context) -> list[str]:
    """What capture's relationship calls (relationship_tests) show, by kind of call."""
    findings: list[str] = []
    for case, name, kind, response, answer in calls_of(ctx, "relationship_tests"):
        data = response.get("data") if answer.succeeded and isinstance(response, dict) else None
        if kind == DEEP_TRAVERSAL and not answer.structured:
            findings.append(cite(BOUNDED, f"{name} asked for a deep traversal gave no answer: {answer.describe()}"))
        if not isinstance(data, dict):
            continue
        if kind == ALL_SECTIONS and (left := [s for s in SECTIONS if s not in data]):  # json: keys of the answer
            findings.append(cite(ALL_BY_DEFAULT, f"{name} asked without include answered no {', '.join(left)}"))
        if kind == ONE_SECTION and (extra := [s for s in SECTIONS if s != "relationships" and s in data]):  # json: keys
            findings.append(cite(ONLY_ASKED, f"{name} asked to include relationships alone answered "
                                 f"{', '.join(extra)} too"))  # fmt: skip
        if kind == DEEP_TRAVERSAL:
            findings += _deep(name, data)
        findings += _undocumented_types(ctx, str(case.get("operation")), name, data)
    return list(dict.fromkeys(findings))


def relationship_evidence(ctx: Context) -> list[str]:
    """``relationship_tests:KIND`` for each kind of call, RELATIONSHIPS where an operation traverses."""
    return [*kinds_held(ctx, "relationship_tests"), *([RELATIONSHIPS] if relationship_operations(ctx) else [])]


def _deep(name: str, data: JsonObject) -> list[str]:
    graph = _graph(data)
    nodes = [node.get("id") for node in _list(graph.get("nodes")) if isinstance(node, dict)]
    edges = [json_key([edge.get(k) for k in ("source", "target", "type")]) for edge in _list(graph.get("edges"))
             if isinstance(edge, dict)]  # fmt: skip
    found: list[str] = []
    if len(set(map(json_key, nodes))) < len(nodes):
        found.append(cite(VISITED_ONCE, f"{name} asked for a deep traversal listed a node more than once"))
    if len(set(edges)) < len(edges):
        found.append(cite(BOUNDED, f"{name} asked for a deep traversal repeated an edge: it expanded a cycle again"))
    return found


def _undocumented_types(ctx: Context, operation: str, name: str, data: JsonObject) -> list[str]:
    capabilities = (ctx.details_by_name.get(operation) or {}).get("relationship_capabilities")
    listed = capabilities.get("relationship_types") if isinstance(capabilities, dict) else None
    documented = {kind for kind in listed if isinstance(kind, str)} if isinstance(listed, list) else set()
    entries = [*_list(data.get("relationships")), *_list(_graph(data).get("edges"))]
    seen: set[str] = {
        str(entry["type"]) for entry in entries if isinstance(entry, dict) and isinstance(entry.get("type"), str)
    }
    custom = sorted(seen - STANDARD_TYPES - documented)
    if not custom:
        return []
    return [cite(CUSTOM_TYPES, f"{name} answered relationship type(s) {plain(', '.join(custom[:5]), max_len=120)} "
                 "its details do not list (relationship_capabilities.relationship_types)")]  # fmt: skip


def _graph(data: JsonObject) -> JsonObject:
    graph = data.get("graph")
    return graph if isinstance(graph, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
