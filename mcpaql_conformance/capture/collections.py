"""Calls that show how a collection operation reads its controls, each to a READ operation that
documents them: `first` with `last`, a contradiction features/pagination §2.3 asks to be refused;
for an operation that pages with cursors, a page of one (its shape, its pageInfo), the page after it
by the cursor it gave (twice: the cursor is stable), a page of 1000 (capped, not refused), no page
size (the default) and cursor with offset or page pagination at once (refused, collection-querying
§2.6); each standard preset as `fields` and a field name no server has (field-selection §3.1,
§5.2); for one documenting `aggregate`, a count, with include_items, an unknown function and
field, and group_by (aggregations §2-§4); for a relationship query, every section, one section and
a deep traversal (relationship-queries §3-§5); and a filter key no server supports, which
collection-querying §2.2 asks to be refused with a validation error."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.files.vocabulary import (
    ALL_SECTIONS,
    COMPUTED,
    COMPUTED_FILTER,
    COMPUTED_SORT,
    DEEP_TRAVERSAL,
    DEFAULT_PAGE,
    FIRST_AND_LAST,
    GROUPED,
    LARGE_PAGE,
    MIXED_STYLES,
    NEXT_PAGE,
    ONE_SECTION,
    ONE_WORD,
    PAGE_OF_ONE,
    REPEATED_WORD,
    SORT_SHORTHAND,
    STANDARD_PRESETS,
    SUMMARY,
    TWO_WORDS,
    UNKNOWN_AGGREGATE_FIELD,
    UNKNOWN_FIELD_NAME,
    UNKNOWN_FUNCTION,
    WITH_ITEMS,
)
from mcpaql_conformance.live.discovery import Operation
from mcpaql_conformance.live.session import PHASE_PAGES, Live, gather

UNKNOWN_FILTER_KEY = "zz_conformance_filter_key"
UNKNOWN_FIELD = "zz_conformance_field"
UNKNOWN_AGGREGATE = "zz_conformance_function"
NOWHERE = "zzconformanceword"  # a word no record holds
DEEP = 50  # deeper than any traversal a server means to expand: its cap and its cycles show
LARGE = 1000  # beyond any page cap the spec advises (features/pagination §5.3: 100)
PAGING = frozenset({"first", "after", "last", "before", "offset", "page", "limit", "page_size", "cursor"})
NEXT_DESCRIPTION = "the page after the page of one, by the endCursor it gave (sent twice: the cursor is stable)"
Call = tuple[str, str, JsonObject, str]  # probe kind, description, params, variant (a pagination_tests kind)


def collection_calls(op: Operation, base: JsonObject, unknown: Any) -> list[Call]:
    """(probe kind, description, params, variant) of each such call ``op`` takes; ``unknown``: the
    value capture sends where no real one belongs."""
    if op.category != "READ":
        return []
    names = {p.get("name") for p in op.parameters or []}
    calls: list[Call] = []
    if {"first", "last"} <= names:
        calls.append(("pagination", "first and last together", {**base, "first": 1, "last": 1}, FIRST_AND_LAST))
    if "first" in names:  # pages with cursors (features/pagination §2)
        plain = {key: value for key, value in base.items() if key not in PAGING}
        calls += [
            ("pagination", "a page of one item", {**plain, "first": 1}, PAGE_OF_ONE),
            ("pagination", f"a page of {LARGE} items", {**plain, "first": LARGE}, LARGE_PAGE),
            ("pagination", "no page size", plain, DEFAULT_PAGE),
        ]
        other = "offset" if "offset" in names else "page" if "page" in names else None
        if other is not None:
            mixed = {**plain, "first": 1, other: 0 if other == "offset" else 1}
            calls.append(("pagination", f"first and {other} together", mixed, MIXED_STYLES))
    if "fields" in names:  # field selection (features/field-selection §3.1, §5.2)
        rest = {key: value for key, value in base.items() if key != "fields"}
        calls += [("field", f"fields {preset!r}", {**rest, "fields": preset}, preset) for preset in STANDARD_PRESETS]
        calls.append(("field", f"fields naming {UNKNOWN_FIELD}, a field no server has",
                      {**rest, "fields": [UNKNOWN_FIELD]}, UNKNOWN_FIELD_NAME))  # fmt: skip
        calls += computed_calls(op, rest, names)
    if "aggregate" in names:  # features/aggregations
        calls += aggregate_calls(op, {key: value for key, value in base.items() if key != "aggregate"}, names)
    if traverses(op.name, names):  # features/relationship-queries
        rest = {key: value for key, value in base.items() if key not in ("include", "depth", "first", "after")}
        rest |= {"direction": "both"} if "direction" in names else {}
        deep = max_depth(op) or DEEP
        calls += [
            ("relationship", "every section (no include)", rest, ALL_SECTIONS),
            ("relationship", "the relationships section alone", {**rest, "include": ["relationships"]}, ONE_SECTION),
            ("relationship", f"a traversal {deep} levels deep", {**rest, "depth": deep}, DEEP_TRAVERSAL),
        ]
    calls += search_calls(op, base) + sort_calls(op, base)
    if takes_filter_object(op):
        calls.append(("filter", f"a filter key it does not support ({UNKNOWN_FILTER_KEY})",
                      {**base, "filter": {UNKNOWN_FILTER_KEY: unknown}}, ""))  # fmt: skip
    return calls


def computed_calls(op: Operation, rest: JsonObject, names: set[Any]) -> list[Call]:
    """Calls about the first computed field the details list (features/computed-fields): asked for
    by `fields`, and sorted or filtered on where the details say it cannot be."""
    entry = next(iter(computed_fields(op)), None)
    if entry is None:
        return []
    path = f"_computed.{entry['name']}"
    calls: list[Call] = [("field", f"fields naming {path}", {**rest, "fields": [path]}, COMPUTED)]
    if entry.get("sortable") is False and "sort" in names:
        calls.append(("field", f"sort by {path}, documented as not sortable",
                      {**rest, "sort": {"field": path, "order": "asc"}}, COMPUTED_SORT))  # fmt: skip
    if entry.get("filterable") is False and takes_filter_object(op):
        calls.append(("field", f"a filter on {path}, documented as not filterable",
                      {**rest, "filter": {path: 1}}, COMPUTED_FILTER))  # fmt: skip
    return calls


def computed_fields(op: Operation) -> list[JsonObject]:
    """The computed fields an operation's details list (each with a string name)."""
    for declaration in op.declarations:
        listed = declaration.get("computed_fields") if isinstance(declaration, dict) else None
        if isinstance(listed, list):
            return [entry for entry in listed if isinstance(entry, dict) and isinstance(entry.get("name"), str)]
    return []


def aggregate_calls(op: Operation, rest: JsonObject, names: set[Any]) -> list[Call]:
    """The aggregate calls of an operation documenting `aggregate`: a count alone, with include_items
    where documented, a function and a field no server has, and group_by a documented groupable
    field with count."""
    count = {"total": {"count": True}}
    calls: list[Call] = [("aggregate", "a count", {**rest, "aggregate": count}, SUMMARY)]
    if "include_items" in names:
        calls.append(("aggregate", "a count with include_items", {**rest, "aggregate": count, "include_items": True},
                      WITH_ITEMS))  # fmt: skip
    calls += [
        ("aggregate", f"an aggregate function no server has ({UNKNOWN_AGGREGATE})",
         {**rest, "aggregate": {"total": {UNKNOWN_AGGREGATE: True}}}, UNKNOWN_FUNCTION),
        ("aggregate", f"a sum over a field no server has ({UNKNOWN_FIELD})",
         {**rest, "aggregate": {"total": {"sum": UNKNOWN_FIELD}}}, UNKNOWN_AGGREGATE_FIELD),
    ]  # fmt: skip
    groupable = next(iter(aggregation_fields(op, "groupable_fields")), None)
    if groupable is not None:
        grouped = {"by": {"group_by": groupable, "count": True}}
        calls.append(("aggregate", f"a count grouped by {groupable}", {**rest, "aggregate": grouped}, GROUPED))
    return calls


def aggregation_fields(op: Operation, key: str) -> list[str]:
    """The fields an operation's details list under ``aggregation_support.<key>`` (strings only)."""
    for declaration in op.declarations:
        support = declaration.get("aggregation_support") if isinstance(declaration, dict) else None
        listed = support.get(key) if isinstance(support, dict) else None
        if isinstance(listed, list):
            return [name for name in listed if isinstance(name, str)]
    return []


def search_calls(op: Operation, base: JsonObject) -> list[Call]:
    """For a search_* operation whose `query` capture holds as text: one of its words, that word with
    a word no record holds, and that word twice (collection-querying §4.1)."""
    query = base.get("query")
    words = query.split() if isinstance(query, str) and op.name.startswith("search_") else []
    if not words:
        return []
    word = words[0]
    return [
        ("search", f"one word ({word})", {**base, "query": word}, ONE_WORD),
        ("search", f"{word} and a word no record holds", {**base, "query": f"{word} {NOWHERE}"}, TWO_WORDS),
        ("search", f"{word} twice", {**base, "query": f"{word} {word}"}, REPEATED_WORD),
    ]


def sort_calls(op: Operation, base: JsonObject) -> list[Call]:
    """For a READ operation documenting `sort` as an object and no `order` of its own: sort as a bare
    field name with order beside it (collection-querying §2.3's shortcut form)."""
    names = {p.get("name") for p in op.parameters or []}
    entry = op.parameter("sort")
    if "order" in names or "sort" not in names or "object" not in str(entry.get("type", "")).casefold():
        return []
    field = sort_field(entry, base.get("sort"))
    if field is None:
        return []
    rest = {key: value for key, value in base.items() if key != "sort"}
    return [("sort", f"sort {field!r} with order 'desc' beside it", {**rest, "sort": field, "order": "desc"},
             SORT_SHORTHAND)]  # fmt: skip


def sort_field(entry: JsonObject, sent: Any) -> str | None:
    """A field to sort by: the one capture's own sort names, the documented default's, or the first of
    the documented field's enum."""
    declared = entry.get("fields")
    fields: list[Any] = declared if isinstance(declared, list) else []
    listed = next((f.get("enum") for f in fields if isinstance(f, dict) and f.get("name") == "field"), None)
    for candidate in (
        sent,
        entry.get("default"),
        {"field": listed[0] if isinstance(listed, list) and listed else None},
    ):
        field = candidate.get("field") if isinstance(candidate, dict) else None
        if isinstance(field, str) and field:
            return field
    return None


def traverses(name: str, parameters: set[Any]) -> bool:
    """A relationship query: named query_relationships, or taking `root` and `direction`."""
    return name.startswith("query_relationships") or {"root", "direction"} <= parameters


def max_depth(op: Operation) -> int | None:
    """The deepest traversal an operation documents (relationship_capabilities.max_depth, or a maximum
    on `depth`), where it documents one above 1: a deep traversal asks that much and no more."""
    found = [declaration.get("relationship_capabilities") for declaration in op.declarations
             if isinstance(declaration, dict)]  # fmt: skip
    found += [{"max_depth": p.get("maximum")} for p in op.parameters or [] if p.get("name") == "depth"]
    depths = [entry.get("max_depth") for entry in found if isinstance(entry, dict)]
    usable = [depth for depth in depths if isinstance(depth, int) and not isinstance(depth, bool) and depth > 1]
    return min(min(usable), DEEP) if usable else None


def takes_filter_object(op: Operation) -> bool:
    """Whether the operation documents `filter` as an object (collection-querying §2.2)."""
    entry = next((p for p in op.parameters or [] if p.get("name") == "filter"), None)
    return entry is not None and "object" in str(entry.get("type", "")).casefold()


async def probe_next_pages(live: Live) -> None:
    """For each page of one that gave an endCursor and said another page follows (``live.next_pages``),
    the page after it, twice: ``next_page`` cases of pagination_tests (features/pagination §6.1, §6.4)."""
    follow = [(op, {**params, "after": cursor}) for op, params, cursor in live.next_pages if live.allows(op.need)]
    follow = [call for call in follow for _ in range(2)]
    live.next_pages.clear()
    answers = await gather([_page(live, index, op, params) for index, (op, params) in enumerate(follow)])
    for (op, params), response in zip(follow, answers, strict=True):
        request = live.redactor.params(op.name, params)
        live.evidence.pagination_tests.append({"operation": op.name, "kind": NEXT_PAGE, "request": request,
                                               "response": response})  # fmt: skip


def next_cursor(response: Any) -> str | None:
    """The endCursor of a successful page that says another follows, or None."""
    data = response.get("data") if isinstance(response, dict) and response.get("success") is True else None
    info = data.get("pageInfo") if isinstance(data, dict) else None
    cursor = info.get("endCursor") if isinstance(info, dict) and info.get("hasNextPage") is True else None
    return cursor if isinstance(cursor, str) and cursor else None


def _page(live: Live, index: int, op: Operation, params: JsonObject) -> Any:
    arguments = {"operation": op.name, "params": params}
    return lambda: live.send((PHASE_PAGES, index), op.tool, arguments, op.name, "pagination", NEXT_DESCRIPTION)
