"""The capability matrix of collection-querying §3: which controls each family of collection READ
operations takes (list_*: filter, sort, pagination, fields; search_*: the same beside `query`;
query_*: sort, pagination, fields), read from what introspection documents. §3 lets an adapter
leave a control out if it says so in its description: one whose description names the control
(no filter, not sorted, one page) has said so. A relationship query is no collection and is
judged by its own document. `filter`, where documented, is an object of the server's own keys
(§2.2). All SHOULDs: warnings."""

from __future__ import annotations

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.checks.relations import relationship_operations
from mcpaql_conformance.verdict.textmatch import identifiers_folded

_CQ = "features/collection-querying"
PAGING = frozenset({"first", "after", "last", "before", "limit", "offset", "page", "page_size", "cursor"})
# control -> (the parameters that take it, the words a description leaves it out by)
CONTROLS = {
    "filter": (frozenset({"filter"}), frozenset({"filter", "filters", "filtered", "filtering"})),
    "sort": (frozenset({"sort", "order_by"}), frozenset({"sort", "sorted", "sorting", "order", "ordered"})),
    "pagination": (PAGING, frozenset({"page", "pages", "paged", "paging", "paginated", "pagination", "cursor"})),
    "fields": (frozenset({"fields", "preset"}), frozenset({"fields", "selection", "selected", "projection"})),
}
# family -> the rule each control of it is judged by (§3's matrix, one SHOULD per pair of cells)
MATRIX = {
    "list_": {"filter": f"{_CQ}:3:list-controls", "sort": f"{_CQ}:3:list-controls",
              "pagination": f"{_CQ}:3:list-paging-fields", "fields": f"{_CQ}:3:list-paging-fields"},
    "search_": {"filter": f"{_CQ}:3:search-filter-sort", "sort": f"{_CQ}:3:search-filter-sort",
                "pagination": f"{_CQ}:3:search-paging-fields", "fields": f"{_CQ}:3:search-paging-fields"},
    "query_": {"sort": f"{_CQ}:3:query-sort", "pagination": f"{_CQ}:3:query-paging-fields",
               "fields": f"{_CQ}:3:query-paging-fields"},
}  # fmt: skip
FILTER_OBJECT = f"{_CQ}:2.2:filter-object"


def matrix_findings(ctx: Context) -> list[str]:
    """Each control of its family's row a collection operation neither documents nor says it leaves out."""
    findings: list[str] = []
    traversals = set(relationship_operations(ctx))
    for op in ctx.operations_in("READ"):
        family = next((prefix for prefix in MATRIX if op.startswith(prefix)), None)
        if family is None or op in traversals:
            continue
        names = {p["name"] for p in ctx.parameters_of(op)}
        said = identifiers_folded(str((ctx.details_by_name.get(op) or {}).get("description") or ""))
        for control, rule in MATRIX[family].items():
            parameters, words = CONTROLS[control]
            if names & parameters or said & words:
                continue
            findings.append(cite(rule, f"{plain(op, max_len=80)} takes no {control} and its description does not say "
                                 "it leaves it out"))  # fmt: skip
        findings += _filter_shape(ctx, op)
    return findings


def _filter_shape(ctx: Context, op: str) -> list[str]:
    """features/collection-querying §2.2: `filter` is an object keyed by the server's filter fields."""
    entry = next((p for p in ctx.parameters_of(op) if p["name"] == "filter"), None)
    kind = str(entry.get("type", "")) if entry is not None else ""
    if entry is None or not kind or "object" in kind.casefold() or ctx.named_types.is_object(entry) is not False:
        return []  # an object, or a documented object type (ItemFilter), or a type we cannot read
    return [cite(FILTER_OBJECT, f"{plain(op, max_len=80)} takes filter as {plain(kind, max_len=40)}, not an object of "
                 "filter keys")]  # fmt: skip
