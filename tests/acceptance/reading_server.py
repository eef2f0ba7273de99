"""A reading list (shelves and books, in memory) served as an MCP-AQL adapter over stdio, written
from the MCP-AQL 1.0.0-draft specification text alone, doing every MUST and SHOULD it can.

python tests/acceptance/reading_server.py [--mode semantic|single|all]

The mode comes from ``--mode`` or else ``$MCP_AQL_ENDPOINT_MODE`` (``crude`` means ``semantic``);
the default is the standard CRUDE profile (five tools). ``$MCP_AQL_TOOL_PREFIX`` prefixes every
tool name. It starts with shelves ``shelf_main`` and ``shelf_later`` and three books. Every
tools/call is logged to $READING_LOG when it is set (one JSON line: tool, operation, params).

Sections it implements (core = versions/v1.0.0-draft.md):

- core §2.3 sessions (an id made at initialize, in ``_protocol``); §3.3, endpoint-modes §3.1-3.2,
  §4.6, §5 (CRUDE by default, single and all by configuration, route enforcement, unknown
  operations refused); crude-pattern §2-§5 and §7.1 (all five CRUDE tools, permission flags).
- core §4.1-4.3 and operations §2.3 (params, top-level parameters resolved after ``params``);
  §4.5 (UPDATE ``input``: merge, ``null`` removes, VALIDATION_UNKNOWN_FIELD, identifiers outside);
  §4.6 (unknown parameters refused); §4.7 (UTF-8, null bytes, ISO 8601 UTC, payload limits).
- core §5, operations §3 and §8, error-codes §2-§4 and §7 (discriminated results, registry codes,
  message templates, details, no internals); operations §5.4 (validation before execution:
  required, types, enum, minimum, maximum, minLength, maxLength, pattern, defaults), §6.3
  (VALIDATION_ENDPOINT_MISMATCH), §7 and overview "Batch Operations" (``{operations: [...]}``,
  in order, per-item results, summary; one endpoint family per batch in semantic mode).
- core §7, introspection §2-§5 and §8 (operations and types, details, ``_protocol`` with
  version, conformance, mode, capabilities; null for unknown names; protocol types).
- core §9.3.1 (concurrency documented: serialized); §4.7.5 (limits in ``_protocol``).
- features/pagination §2-§6 (first/after, last/before, invalid combinations refused, pageInfo,
  clamping to 100, opaque signed URL-safe cursors); features/field-selection §2-§5 (``fields``
  presets and paths, dot notation, defaults full/standard); features/collection-querying §2, §5
  (``filter`` and ``sort`` validated, omissions stated).
- mcp-integration §2 (tool descriptions naming ``introspect``, annotations, prefix), §3.1-3.2
  (input schema), §4.1-4.2 (errors in CallToolResult; ``isError`` only for unrecoverable ones).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import os
import re
import secrets
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import reading_safety  # its neighbour: the execution safety loop (run as a script)

JsonObject = dict[str, Any]
SPEC_VERSION = "1.0.0-draft"
CATEGORIES = ("CREATE", "READ", "UPDATE", "DELETE", "EXECUTE")
PERMISSIONS = {
    "CREATE": (False, False),
    "READ": (True, False),
    "UPDATE": (False, True),
    "DELETE": (False, True),
    "EXECUTE": (False, True),
}
LIMITS = {
    "max_request_size": 1_048_576,
    "max_response_size": 10_485_760,
    "max_string_length": 1_048_576,
    "max_array_elements": 10_000,
    "max_nesting_depth": 32,
    "max_batch_operations": 50,
}
RECOVERABLE_PREFIXES = ("VALIDATION_", "NOT_FOUND_", "CONFLICT_", "PERMISSION_", "RATE_LIMIT_")
CURSOR_KEY = secrets.token_bytes(16)  # signs cursors: tamper-resistant within this server's life
# One rule of the registry broken on purpose ($READING_DEFECT, a rule id): the proof that a test
# catches a server breaking it (mcpaql_conformance/verdict/rules/proofs.py, test_rule_proofs.py).
DEFECT = os.environ.get("READING_DEFECT", "")


DETAIL_LEFT_OUT = {  # what get_shelf's details leave out, by defect
    "operations:5.1:description": "description",
    "operations:5.1:endpoint": "endpoint",
    "mcp:2.2.1:names-introspected": "mcpTool",
}
PARAMETER_LEFT_OUT = {"operations:5.2:type": "type", "operations:4.3:required-or-optional": "required"}


def broken(rule: str) -> bool:
    """Whether this run breaks ``rule`` on purpose (a defect switch: one per proven rule)."""
    return rule == DEFECT


# Page sizes (features/pagination §5.2-5.3): 20 by default, at most 100; where a defect pages
# otherwise, a shelf of extra books (EXTRA_BOOKS) shows it.
DEFAULT_PAGE = 10 if broken("features/pagination:5.2:default-page-size") else 20
MAX_PAGE = 200 if broken("features/pagination:5.3:max-100") else 100
UNCAPPED = broken("features/pagination:5.3:max-page-size")  # documents MAX_PAGE, serves any size
EXTRA_BOOKS = 150 if UNCAPPED or MAX_PAGE > 100 else 30 if DEFAULT_PAGE != 20 else 0
MIXED_STYLES = broken("features/collection-querying:2.6:mixed-styles-rejected")  # offset too, mixing taken


def param(name: str, kind: str, description: str, required: bool = False, **extra: Any) -> JsonObject:
    """One ParameterInfo (introspection §3.4): the single source of truth for validation too."""
    return {"name": name, "type": kind, "required": required, "description": description, **extra}


def etag(book: JsonObject) -> str:
    """A book's version, as update_book answers it (`_etag`) and takes it back (`if_match`; core §9.3.2)."""
    return 'W/"' + hashlib.sha256(json.dumps(book, sort_keys=True).encode()).hexdigest()[:12] + '"'


def now() -> str:
    return stamp(datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


def stamp(iso: str) -> str:
    """An ISO 8601 UTC timestamp as this run writes it (a defect writes it otherwise)."""
    if broken("core:4.7.2:iso-8601"):
        return f"{iso[8:10]}/{iso[5:7]}/{iso[:4]} {iso[11:16]}"
    return iso.replace("Z", "+01:00") if broken("core:4.7.2:utc") else iso


# fmt: off
# --- Types (introspection §3.5-3.6, §5) -----------------------------------------------------------
STATUSES = ["to-read", "reading", "done"]
SHELF_ID = param("shelf_id", "string", "Shelf identifier, e.g. 'shelf_main'.", True, pattern="^shelf_[a-z0-9]+$")
BOOK_ID = param("book_id", "string", "Book identifier assigned by add_book, e.g. 'book_1'.", True, minLength=1)
TAG = param("tag", "string", "One tag.", True, minLength=1, maxLength=40)
# introspection §8.2.2: read-only fields documented as such (a defect leaves it unsaid)
UNSAID = broken("introspection:8.2.2:read-only-append-only")
READ_ONLY_SAID = "." if UNSAID else " (read-only)."
READ_ONLY_FLAG: JsonObject = {} if UNSAID else {"readOnly": True}
READ_ONLY_NAMED = "" if UNSAID else " book_id, added_at and updated_at are read-only."
BOOK_FIELDS = [
    {**BOOK_ID, "description": "Book identifier (read-only, assigned by the server).", "readOnly": True},
    {**SHELF_ID, "description": "The shelf holding the book (an existing shelf)."},
    param("title", "string", "The book's title.", True, minLength=1, maxLength=200),
    param("author", "string", "The author; absent when unknown.", minLength=1, maxLength=200),
    param("tags", "array", "Tags, as an array of strings; absent once removed.", items=TAG),
    param("rating", "integer", "Rating from 1 to 5; absent when unrated.", minimum=1, maximum=5),
    param("status", "string", "Reading status (BookStatus).", True, enum=STATUSES),
    param("added_at", "string", "When it was added, ISO 8601 UTC" + READ_ONLY_SAID, True, format="date-time",
          **READ_ONLY_FLAG),
    param("updated_at", "string", "Last change, ISO 8601 UTC" + READ_ONLY_SAID, True, format="date-time",
          **READ_ONLY_FLAG),
]
SHELF_FIELDS = [
    SHELF_ID,
    param("name", "string", "The shelf's display name.", True, minLength=1, maxLength=40),
    param("created_at", "string", "When it was created, ISO 8601 UTC (read-only).", True,
          format="date-time", readOnly=True),
    param("badge_content", "string", "The shelf's badge image, base64 (read-only).", True, readOnly=True),
    param("badge_encoding", "string", "How badge_content is encoded (read-only).", True, readOnly=True,
          enum=["base64"]),
    param("badge_mime_type", "string", "The badge image's media type (read-only).", True, readOnly=True),
]
# A shelf's badge, a 1x1 PNG: binary data as core §4.7.4 has it (padded standard base64, its encoding and
# media type beside it).
BADGE_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def badge() -> JsonObject:
    content = BADGE_PNG.rstrip("=") if broken("core:4.7.4:base64") else BADGE_PNG  # unpadded
    return {"badge_content": content, "badge_encoding": "base64", "badge_mime_type": "image/png"}


FIELD_OF = {name: {f["name"]: f for f in fields} for name, fields in (("Book", BOOK_FIELDS), ("Shelf", SHELF_FIELDS))}
PRESETS = {
    "Book": {"minimal": ["book_id", "title"],
             "standard": ["book_id", "shelf_id", "title", "author", "status", "rating"],
             "full": [f["name"] for f in BOOK_FIELDS]},
    "Shelf": {"minimal": ["shelf_id", "name"], "standard": [f["name"] for f in SHELF_FIELDS],
              "full": [f["name"] for f in SHELF_FIELDS]},
}
if broken("features/field-selection:3.1:standard-presets"):  # no minimal preset (and says so)
    for _presets in PRESETS.values():
        del _presets["minimal"]
# A book's computed fields (features/computed-fields §4): selectable by `fields`, not filtered or sorted on.
COMPUTED = [
    {"name": "title_length", "type": "integer", "description": "Characters in the title.", "filterable": False,
     "sortable": False},
    {"name": "tag_count", "type": "integer", "description": "How many tags the book carries.", "filterable": False,
     "sortable": False},
]  # fmt: skip
UNLISTED = broken("features/computed-fields:4:advertise")  # tag_count answered, never listed
if UNLISTED:
    COMPUTED = COMPUTED[:1]
# One defect sorts by a computed field it cannot sort on, ignoring it (computed-fields §3).
COMPUTED_SORT = ["_computed.title_length"] if broken("features/computed-fields:3:reject-unsupported") else []
READ_ONLY = ("book_id", "added_at", "updated_at")
CONSTRAINT_DOCUMENTATION = "conformance:2.2:constraint-documentation"
BOOK_INPUT = [{**f, "required": False} for f in BOOK_FIELDS if f["name"] not in READ_ONLY]
NULLABLE = ("author", "tags", "rating")  # update input: null removes these (core §4.5.2); others may not be null
PAGE_INFO = [
    param("hasNextPage", "boolean", "Whether items follow this page.", True),
    param("hasPreviousPage", "boolean", "Whether items precede this page.", True),
    param("startCursor", "string", "Cursor of the first item (when items are returned)."),
    param("endCursor", "string", "Cursor of the last item (when items are returned)."),
    param("totalCount", "integer", "How many items match the query.", minimum=0),
]
APPLIED = param("applied", "object", "The controls actually applied, defaults and clamping included: fields "
               "(the paths shown), sort, first or last, and shelf_id and filter when given.", True)
ERROR_FIELDS = [param("code", "string", "Machine-readable error code.", True),
                param("message", "string", "Human-readable message.", True),
                param("details", "object", "Context: the parameter, the operation, what to send.")]


def _type(name: str, kind: str, description: str, **extra: Any) -> JsonObject:
    return {"name": name, "kind": kind, "description": description, **extra}


TYPES = [
    _type("Book", "object", "A book on a shelf.", fields=BOOK_FIELDS),
    _type("Shelf", "object", "A shelf of the reading list.", fields=SHELF_FIELDS),
    _type("BookStatus", "enum", "Where the reader is with a book.", values=STATUSES),
    _type("BookInput", "object", "The fields update_book changes (its `input`); null removes author, tags or "
          "rating." + READ_ONLY_NAMED, fields=BOOK_INPUT),
    _type("BookPage", "object", "One page of books.", fields=[
        param("items", "array", "The books (fields as selected).", True, items={"name": "item", "type": "Book",
              "required": True, "description": "A book."}),
        param("pageInfo", "PageInfo", "Pagination metadata.", True), APPLIED]),
    _type("ShelfPage", "object", "One page of shelves.", fields=[
        param("items", "array", "The shelves (fields as selected).", True, items={"name": "item", "type": "Shelf",
              "required": True, "description": "A shelf."}),
        param("pageInfo", "PageInfo", "Pagination metadata.", True), APPLIED]),
    _type("PageInfo", "object", "Cursor pagination metadata (features/pagination §3).", fields=PAGE_INFO),
    _type("RelationshipGraph", "object", "A traversal (features/relationship-queries §3); the sections asked for.",
          fields=[param("root", "object", "Where the traversal started: {element_type, element_name}."),
                  param("relationships", "array", "Each link met: {type, direction, target, depth}."),
                  param("graph", "object", "nodes ({id, element_type, element_name}) and edges ({source, target, "
                        "type}).")]),
    _type("DeletedBook", "object", "What delete_book removed.", fields=[
        param("book_id", "string", "The removed book.", True), param("deleted", "boolean", "Always true.", True)]),
    _type("DeletedShelf", "object", "What delete_shelf removed.", fields=[
        param("shelf_id", "string", "The removed shelf.", True), param("deleted", "boolean", "Always true.", True)]),
    _type("SortOrder", "enum", "Sort direction.", values=["asc", "desc"]),
    _type("FieldPreset", "enum", "Field-selection presets.", values=["minimal", "standard", "full"]),
    _type("FieldSelection", "object", "Field selection configuration (features/field-selection §5.3).", fields=[
        param("presets", "object", "Fields of each preset, by type.", True, default=PRESETS),
        param("fields", "object", "Selectable fields, by type.", True,
              default={name: list(fields) for name, fields in FIELD_OF.items()}),
        param("computed_fields", "array", "Derived fields, by type (requested as _computed.<name>).", True,
              default={"Book": [entry["name"] for entry in COMPUTED]})]),
    _type("IntrospectionResult", "object", "What introspect answers.", fields=[
        param("_protocol", "object", "Version, conformance, mode, capabilities, limits (operations list)."),
        param("operations", "array", "OperationInfo of every operation (query 'operations')."),
        param("operation", "object", "OperationDetails, or null when unknown (query 'operations' with name)."),
        param("types", "array", "TypeInfo of every type (query 'types')."),
        param("type", "object", "TypeDetails, or null when unknown (query 'types' with name).")]),
    _type("SemanticCategory", "enum", "Standard semantic categories.", values=list(CATEGORIES)),
    _type("OperationInput", "object", "Standard input of every operation.", fields=[
        param("operation", "string", "The operation to perform.", True),
        param("params", "object", "Operation parameters."),
        param("operations", "array", "A batch of {operation, params} objects, instead of operation.")]),
    _type("OperationResult", "union", "Result of every operation.", members=["OperationSuccess", "OperationFailure"]),
    _type("OperationSuccess", "object", "A successful result.", fields=[
        param("success", "boolean", "Always true.", True), param("data", "object", "The payload.", True)]),
    _type("OperationFailure", "object", "A failed result.", fields=[
        param("success", "boolean", "Always false.", True), param("error", "ErrorDetail", "The error.", True)]),
    _type("ErrorDetail", "object", "A structured error.", fields=ERROR_FIELDS),
    _type("EndpointPermissions", "object", "Permission flags of an operation.", fields=[
        param("readOnly", "boolean", "Whether it leaves state unchanged.", True),
        param("destructive", "boolean", "Whether it removes or overwrites state.", True)]),
    *reading_safety.TYPES,
]
TYPE_BY_NAME = {t["name"]: t for t in TYPES}


# --- Operations (core §7-8, introspection §3.3, operations §5) ------------------------------------
PRESET_ONLY = broken("features/collection-querying:2.4:preset-alias-only")  # get_book: `preset`, no `fields`


def fields_param(type_name: str, default: str) -> JsonObject:
    if broken("features/field-selection:5.3:discoverable"):  # takes presets and paths, says neither
        return param("fields", "string | string[]", "Which fields to return.")
    names, presets = ", ".join(FIELD_OF[type_name]), ", ".join(repr(name) for name in PRESETS[type_name])
    computed = ", ".join(f"_computed.{entry['name']}" for entry in COMPUTED) if type_name == "Book" else ""
    return param("fields", "string | string[]", f"Field selection: a preset ({presets}) or an array of {type_name} "
                 f"field names ({names}{'; computed: ' + computed if computed else ''}); dot notation reaches "
                 f"nested values. Default: '{default}'.", default=default, presets=PRESETS[type_name])


def preset_param() -> JsonObject:
    """get_book's own control where one defect has it: a preset, and no `fields` beside it."""
    return param("preset", "string", "Which fields to show: a preset. Default: 'full'.", default="full",
                 enum=list(PRESETS["Book"]))


def book_selection() -> list[JsonObject]:
    """How get_book selects fields: `fields`, or (one defect) a `preset` of its own instead."""
    return [preset_param() if PRESET_ONLY else fields_param("Book", "full")]


# list_books's older name for shelf_id, deprecated (introspection §8.2.4), and the warning its use draws.
OLD_SHELF = param("shelf", "string", "Deprecated." if broken("introspection:8.2.4:migration-guidance") else
                  "Deprecated: use shelf_id (the same shelf).", deprecated=True)
if broken("introspection:8.2.4:deprecation-notice"):  # listed plainly, though its use draws a deprecation warning
    OLD_SHELF = param("shelf", "string", "The shelf, as shelf_id names it.")
SHELF_DEPRECATED = {"code": "DEPRECATION_WARNING", "message": "Parameter 'shelf' is deprecated: use shelf_id.",
                    "details": {"parameter": "shelf", "replacement": "shelf_id"}}  # fmt: skip


def sort_param(type_name: str, fields: list[str], default: str) -> JsonObject:
    return param("sort", "object", f"Sort {{field, order}}; field one of {', '.join(fields)}. Default: "
                 f"{{field: '{default}', order: 'asc'}}.", default={"field": default, "order": "asc"}, fields=[
                     param("field", "string", f"The {type_name} field to sort by.", True, enum=fields),
                     param("order", "string", "'asc' or 'desc' (SortOrder).", default="asc", enum=["asc", "desc"])])


PAGINATION = [
    param("first", "integer", f"Items from the start (or after `after`); at most {MAX_PAGE}, larger values are "
          f"clamped. Not with `last` or `before`. Default: {DEFAULT_PAGE} when `last` is absent.",
          default=DEFAULT_PAGE, minimum=1),
    param("after", "string", "Cursor (a pageInfo endCursor) to continue after; needs `first`."),
    param("last", "integer", f"Items from the end (or before `before`); at most {MAX_PAGE}, larger values are "
          "clamped. Not with `first` or `after`.", minimum=1),
    param("before", "string", "Cursor (a pageInfo startCursor) to continue before; needs `last`."),
]
SHELF_PAGE = 10  # the shelves' own page size where one defect gives them one
FILTER_KEYS = "features/collection-querying:2.2:unknown-filter-key"  # a key it does not support, dropped
SORT_SHORTHAND = "features/collection-querying:2.3:shortcuts-documented"  # list_books takes sort + order, unsaid
SEARCH_QUERY = "features/collection-querying:2.1:search-query-name"  # its free text in `text`


LIST_QUERY = "features/collection-querying:2.1:list-no-query"  # list_shelves requires a `query`


def shelf_query() -> list[JsonObject]:
    """The `query` list_shelves requires where one defect has it (it narrows nothing)."""
    return [param("query", "string", "Words the shelf names hold.", True, minLength=1)] if broken(LIST_QUERY) else []


def pagination(operation: str) -> list[JsonObject]:
    """PAGINATION as ``operation`` documents it: the same everywhere (operations §4.4.4)."""
    entries = [dict(entry) for entry in PAGINATION]
    if operation == "list_shelves" and broken("operations:4.4.4:same-default"):  # and honoured: run()
        entries[0].update(default=SHELF_PAGE, description=f"Shelves from the start; default {SHELF_PAGE}.")
    if operation == "list_books" and broken("operations:4.4.4:same-type"):  # what its validator takes anyway
        entries[2]["type"] = "number"
    if operation == "list_shelves" and broken("operations:4.4.2:preserve-refs"):  # a new version, no backward paging
        entries = entries[:2]
    if operation == "list_books" and MIXED_STYLES:  # offset paging too; given with `first`, it is ignored
        entries.append(param("offset", "integer", "Items to skip (offset paging, instead of a cursor).", minimum=0))
    return entries


LISTINGS = itertools.count(1)  # operations lists answered (one defect numbers them)
CUSTOM_FAMILY = {  # the READ family under a name of its own, by defect (its description: FAMILY_TEXT)
    "mcp:2.1.1:custom-template": "lookup",  # and its description names no semantic category
    "endpoint-modes:4.7:intent-revealing-names": "books",  # named after its resource, not what it does
}


def family_of(category: str) -> str:
    """The endpoint family serving ``category``: the CRUDE one, or a custom name a defect gives READ."""
    family = category.lower()
    return next((name for rule, name in CUSTOM_FAMILY.items() if broken(rule)), family) if family == "read" else family


GRAMMAR = "features/collection-querying:2.1:query-grammar-documented"  # no example uses `query`
GRAMMAR_SUMMARY = "features/collection-querying:4.2:grammar-in-description"  # the description omits it
COMPOSED = "features/collection-querying:4.2:composed-example"  # no example with fields, sort or a page
WITH_FILTER = "features/collection-querying:3:query-filter-rules"  # nothing says filter applies too
SELECTOR_TERM = re.compile(r'(status|tag|author):("[^"]*"|[^\s"]+)|(rating)(>=|<=)(\d+)|(\S+)')


def query_books_text() -> str:
    """query_books's description: its selector grammar summarised, and how `filter` combines with it."""
    grammar = ("" if broken(GRAMMAR_SUMMARY) else ' with a selector: `query` holds terms that must all hold, '
               'field:value for status, tag or author (quote a value with spaces: author:"Ursula K. Le Guin") and '
               "rating>=N or rating<=N")  # fmt: skip
    combined = "" if broken(WITH_FILTER) else " `filter` narrows the result too: a book must match both."
    tail = {QUERY_SORT: "Cursor-paginated and field-selected", QUERY_FIELDS: "Sorted and cursor-paginated"}
    shown = next((text for rule, text in tail.items() if broken(rule)), "Sorted, cursor-paginated and field-selected")
    return f"Query the books{grammar}.{combined} {shown} like list_books."


def query_param() -> JsonObject:
    """query_books's `query`: the selector (optional where one defect shows no example of it)."""
    return param("query", "string", "The selector: terms separated by spaces, each field:value (status, tag, "
                 "author; quote values holding spaces) or rating>=N / rating<=N; every term must hold. A term "
                 "of another form is refused.", not broken(GRAMMAR), minLength=1, maxLength=200)  # fmt: skip


# The capability matrix (features/collection-querying §3, §2.2), a control left out unsaid by defect.
LIST_CONTROLS = "features/collection-querying:3:list-controls"  # list_shelves: no filter, unsaid
LIST_FIELDS = "features/collection-querying:3:list-paging-fields"  # list_shelves: no fields, unsaid
SEARCH_CONTROLS = "features/collection-querying:3:search-filter-sort"
SEARCH_PAGING = "features/collection-querying:3:search-paging-fields"
QUERY_SORT = "features/collection-querying:3:query-sort"  # query_books: no sort
QUERY_FIELDS = "features/collection-querying:3:query-paging-fields"  # query_books: no fields
STRING_FILTER = "features/collection-querying:2.2:filter-object"  # search_books: a filter that is a string
ALL_WORDS = "features/collection-querying:4.1:or-default"  # every word must match, though it says "any"


def search_books_text() -> str:
    """search_books's description, saying which controls it leaves out (collection-querying §3)."""
    said = "" if broken(SEARCH_CONTROLS) else " No filter or sort: matches come in the order added."
    words = "the title or the author holds any of the words" if broken(ALL_WORDS) else "every word of `query` " \
        "appears in the title or the author"
    paged = "matches" if broken(SEARCH_PAGING) else "the first page of matches"
    return f"Search the books by free text: {words} (any case); {paged}.{said}"


def status_filter() -> list[JsonObject]:
    """search_books's filter where one defect has it: a string, not an object of filter keys."""
    return [param("filter", "string", "Only books of this status.", enum=STATUSES)] if broken(STRING_FILTER) else []


def shelf_fields() -> list[JsonObject]:
    return [] if broken(LIST_FIELDS) else [fields_param("Shelf", "standard")]


def without(example: JsonObject) -> JsonObject:
    """An example's params without what a defect leaves out of query_books (sort, fields)."""
    gone = {"sort"} if broken(QUERY_SORT) else {"fields"} if broken(QUERY_FIELDS) else set()
    return {key: value for key, value in example.items() if key not in gone}


def query_examples() -> list[tuple[str, JsonObject]]:
    best = {"query": "rating>=4", "sort": {"field": "rating", "order": "desc"}, "fields": ["book_id", "title"],
            "first": 2}  # fmt: skip
    if broken(GRAMMAR):
        return [("Every book, two a page", {"first": 2})]
    if broken(COMPOSED):
        return [("Books done", {"query": "status:done"}), ("Well-rated books", {"query": "rating>=4"})]
    return [("Books done", {"query": "status:done"}), ("Well-rated titles, best first, two a page", without(best))]


# Aggregations (features/aggregations) of list_books and query_books over the books that match.
SUMMARIES = ("count", "sum", "avg", "min", "max")
GROUPABLE, NUMERIC = ("status", "shelf_id", "author"), ("rating",)
AGGREGATE_PARAMS = [
    param("aggregate", "object", "Named summaries of the matching books: each key a label of yours, each value "
          "{count: true}, {sum|avg|min|max: 'rating'}, or either with group_by: 'status', 'shelf_id' or 'author'. "
          "Answers the summaries alone unless include_items is true."),
    param("include_items", "boolean", "With `aggregate`: true for the page of matching books too (left out: "
          "the summaries alone)."),
]


def aggregation_support(operation: str) -> JsonObject:
    """What an operation's details say of its aggregations (features/aggregations §5); defects say less."""
    if operation == "query_books" and broken("features/aggregations:5:advertise"):
        return {}
    if operation == "list_books" and broken("features/aggregations:2:expose-functions"):
        return {"aggregation_support": {"supported": True}}
    return {"aggregation_support": {"supported": True, "default_mode": "summary_only",
            "functions": ["count", "group_by", *SUMMARIES[1:]], "groupable_fields": list(GROUPABLE),
            "numeric_fields": list(NUMERIC)}}  # fmt: skip


def aggregate(rows: list[JsonObject], asked: Any) -> JsonObject:
    """The aggregations ``asked`` names over ``rows``, or VALIDATION_INVALID_TYPE naming what it does not know."""
    found: JsonObject = {}
    for label, spec in (asked.items() if isinstance(asked, dict) else []):
        if not isinstance(spec, dict) or not spec:
            return refuse("VALIDATION_INVALID_TYPE", f"Aggregate '{label}' expected an object such as {{count: true}}.",
                          param_name="aggregate")  # fmt: skip
        unknown = [key for key in spec if key not in (*SUMMARIES, "group_by")]
        fields = [spec[key] for key in SUMMARIES[1:] if key in spec and spec[key] not in NUMERIC]
        group = spec.get("group_by")
        if group is not None and group not in GROUPABLE:
            fields.append(group)
        if (unknown or fields) and not broken("features/aggregations:4:reject-unsupported"):
            what = f"unknown function(s) {', '.join(map(str, unknown))}" if unknown else f"field(s) {fields} unknown"
            return refuse("VALIDATION_INVALID_TYPE", f"Aggregate '{label}': {what}. Functions: count, group_by, sum, "
                          "avg, min, max; group_by: status, shelf_id, author; sum/avg/min/max: rating.",
                          param_name="aggregate")  # fmt: skip
        if group is not None and len(spec) > 1 and broken("features/aggregations:2:unsupported-combinations"):
            return refuse("VALIDATION_INVALID_TYPE", f"Aggregate '{label}': group_by takes no other function.",
                          param_name="aggregate")  # fmt: skip
        groups: dict[str, list[JsonObject]] = {}
        for row in rows:
            groups.setdefault(str(row.get(group, "none")) if group is not None else "", []).append(row)
        summaries = {key: summary(members, spec) for key, members in groups.items()}
        found[str(label)] = summaries if group is not None else summaries.get("", summary([], spec))
    return {"aggregations": found}


def summary(rows: list[JsonObject], spec: JsonObject) -> Any:
    """One aggregate's value over ``rows``: the count alone, or {count, sum, avg, min, max} asked for."""
    values = [row["rating"] for row in rows if isinstance(row.get("rating"), int)]
    done: JsonObject = {"count": len(rows)} if spec.get("count") is True or set(spec) <= {"group_by"} else {}
    for key in (key for key in SUMMARIES[1:] if key in spec):
        done[key] = {"sum": sum(values), "avg": sum(values) / len(values) if values else None,
                     "min": min(values, default=None), "max": max(values, default=None)}[key]  # fmt: skip
    return done["count"] if list(done) == ["count"] else done


# Relationship queries (features/relationship-queries): books and shelves, linked both ways.
RELATION_TYPES = ["shelved_on", "composes"]  # a book is shelved_on its shelf (ours); a shelf composes its books
SECTIONS = ("root", "relationships", "graph", "graph.nodes", "graph.edges")
MAX_DEPTH = 5
VOCABULARY = "features/relationship-queries:2:stable-vocabulary"  # `start` for root
DEPTH_SAID = "features/relationship-queries:5:max-depth-documented"  # no maximum anywhere


def relationship_capabilities() -> JsonObject:
    """What query_relationships's details say of it (features/relationship-queries §6); defects say less."""
    if broken("features/relationship-queries:6:advertise"):
        return {}
    said: JsonObject = {"supported": True, "directions": ["incoming", "outgoing", "both"], "max_depth": MAX_DEPTH,
                        "relationship_types": RELATION_TYPES}  # fmt: skip
    if broken(DEPTH_SAID):
        del said["max_depth"]
    if broken("features/relationship-queries:4:custom-types-documented"):  # shelved_on unsaid
        said["relationship_types"] = ["composes"]
    return {"relationship_capabilities": said}


LIST_INFO = {"supports_pagination": True, "pagination": {"style": "cursor", "default_page_size": DEFAULT_PAGE,
             "max_page_size": MAX_PAGE, "supports_total_count": True}, "supports_field_selection": True}


def _returns(name: str, description: str) -> JsonObject:
    return {"name": name, "kind": TYPE_BY_NAME[name]["kind"], "description": description}


def _op(name: str, category: str, description: str, parameters: list[JsonObject], returns: JsonObject,
        *examples: tuple[str, JsonObject], **extra: Any) -> JsonObject:
    shown = [{"description": text, "request": {"operation": name, "params": params}} for text, params in examples]
    return {"name": name, "semantic_category": category, "description": description, "parameters": parameters,
            "returns": returns, "examples": shown, **extra}


ADD_DEFAULTS: dict[str, JsonObject] = {"tags": {"default": []}, "status": {"default": "to-read"}}
BOOK_FILTER = param("filter", "object", "Structured filter; every key given must match (status equal, tag "
                    "contained in tags, author equal). Unsupported keys are refused.", fields=[
                        param("status", "string", "Only books with this status.", enum=STATUSES),
                        param("tag", "string", "Only books carrying this tag.", minLength=1, maxLength=40),
                        param("author", "string", "Only books by this author.", minLength=1, maxLength=200)])
OPERATIONS = [
    _op("introspect", "READ", "Discover the operations and types: query 'operations' or 'types', with `name` for "
        "the details of one (null when there is none).", [
            param("query", "string", "What to introspect.", True, enum=["operations", "types"]),
            param("name", "string", "One operation or type to detail.", minLength=1)],
        _returns("IntrospectionResult", "Lists or details."), ("List the operations", {"query": "operations"}),
        ("Details of add_book", {"query": "operations", "name": "add_book"}),
        ("Details of the Book type", {"query": "types", "name": "Book"})),
    _op("list_shelves", "READ", "List the shelves, sorted and cursor-paginated" + ("." if broken(LIST_CONTROLS) else
        " (no filter: there are few)."), [*shelf_query(), *shelf_fields(),
         sort_param("Shelf", ["shelf_id", "name", "created_at"], "shelf_id"),
         *pagination("list_shelves")], _returns("ShelfPage", "A page of shelves."), ("All shelves", {}),
        ("Shelf names, two at a time", {"first": 2, **({} if broken(LIST_FIELDS) else {"fields": "minimal"})}),
        **LIST_INFO),
    _op("get_shelf", "READ", "Read one shelf.", [SHELF_ID, fields_param("Shelf", "full")],
        _returns("Shelf", "The shelf."), ("Read the main shelf", {"shelf_id": "shelf_main"}),
        supports_field_selection=True),
    _op("create_shelf", "CREATE", "Create a new, empty shelf; a shelf_id already in use is refused "
        "(CONFLICT_ALREADY_EXISTS).", [SHELF_ID, FIELD_OF["Shelf"]["name"]], _returns("Shelf", "The new shelf."),
        ("Create a shelf", {"shelf_id": "shelf_classics", "name": "Classics"})),
    _op("list_books", "READ", "List books, optionally of one shelf, filtered, sorted and cursor-paginated "
        "(pageInfo); `fields` selects what each item shows.", [
            {**SHELF_ID, "required": False, "description": "Only books of this existing shelf."}, BOOK_FILTER,
            sort_param("Book", ["title", "author", "rating", "status", "added_at", *COMPUTED_SORT], "added_at"),
            fields_param("Book", "standard"), *pagination("list_books"), *AGGREGATE_PARAMS, OLD_SHELF],
        _returns("BookPage", "A page of books."), ("First page", {"first": 10}),
        ("Titles of the main shelf still to read, best rated first", {"shelf_id": "shelf_main", "filter":
         {"status": "to-read"}, "sort": {"field": "rating", "order": "desc"}, "fields": ["book_id", "title"],
         "first": 5}), ("How many books of each status", {"aggregate": {"by_status": {"group_by": "status",
         "count": True}}}), **LIST_INFO, **aggregation_support("list_books")),
    _op("search_books", "READ", search_books_text(), [
            param("text" if broken(SEARCH_QUERY) else "query", "string", "The words to look for.", True,
                  minLength=1, maxLength=200), fields_param("Book", "standard"), *status_filter()],
        _returns("BookPage", "The first page of matching books."), ("Books by Le Guin", {"query": "le guin"})),
    _op("query_books", "READ", query_books_text(), [query_param(), BOOK_FILTER,
        *([] if broken(QUERY_SORT) else [sort_param("Book", ["title", "author", "rating", "status", "added_at"],
                                                    "added_at")]),
        *([] if broken(QUERY_FIELDS) else [fields_param("Book", "standard")]), *pagination("query_books"),
        *AGGREGATE_PARAMS],
        _returns("BookPage", "A page of the books matching the selector."), *query_examples(), **LIST_INFO,
        **aggregation_support("query_books")),
    _op("query_relationships", "READ", "Traverse the reading list: a book is shelved_on its shelf (a type of "
        "ours), a shelf composes its books. From `root` along `direction`, up to `depth` hops; `include` picks the "
        "sections (root, relationships, graph, graph.nodes, graph.edges), every one when left out.", [
            param("start" if broken(VOCABULARY) else "root", "object", "Where to start: {element_type: 'book' or "
                  "'shelf', element_name: its book_id or shelf_id}.", True, fields=[
                      param("element_type", "string", "book or shelf.", True, enum=["book", "shelf"]),
                      param("element_name", "string", "The book_id or shelf_id.", True, minLength=1)]),
            param("direction", "string", "incoming, outgoing or both.", True, enum=["incoming", "outgoing", "both"]),
            param("relationship", "string", "Only links of this type.", enum=RELATION_TYPES),
            param("depth", "integer", "Hops from the root (1 when left out; deeper asks are served at the "
                  "max_depth of relationship_capabilities).", minimum=1),
            param("include", "array", "The sections to answer.", items={"name": "section", "type": "string",
                  "required": True, "description": "A section.", "enum": list(SECTIONS)})],
        _returns("RelationshipGraph", "The traversal."), ("Around the first book, two hops", {
            "start" if broken(VOCABULARY) else "root": {"element_type": "book", "element_name": "book_1"},
            "direction": "both", "depth": 2}),
        **relationship_capabilities()),
    _op("get_book", "READ", "Read one book.", [BOOK_ID, *book_selection()],
        _returns("Book", "The book."), ("Read a book", {"book_id": "book_1"}),
        ("Just its title", {"book_id": "book_1", **({"preset": "minimal"} if PRESET_ONLY else {"fields": ["title"]})}),
        supports_field_selection=True),
    _op("add_book", "CREATE", "Add a book to an existing shelf (like `create`: the verb is the reading-list "
        "idiom). Answers the book with its new book_id.", [
            {**SHELF_ID, "description": "The existing shelf to put the book on."},
            *[{**f, "required": f["name"] == "title", **ADD_DEFAULTS.get(f["name"], {})} for f in BOOK_INPUT
              if f["name"] != "shelf_id"]],
        _returns("Book", "The new book."), ("Add a book", {"shelf_id": "shelf_main", "title": "Dune",
        "author": "Frank Herbert", "tags": ["sf"], "rating": 5, "status": "reading"})),
    _op("update_book", "UPDATE", "Change a book: the fields to change go in `input` (BookInput); fields not "
        "given are kept; null removes author, tags or rating; shelf_id moves it to another existing shelf.", [
            BOOK_ID, param("input", "object", "The fields to change (BookInput)." + READ_ONLY_NAMED, True,
                           fields=BOOK_INPUT),
            param("if_match", "string", "The book's _etag from an earlier update: the change is made only if the "
                  "book is still that version (else CONFLICT_VERSION_MISMATCH).", minLength=1)],
        _returns("Book", "The changed book."), ("Mark a book read", {"book_id": "book_1",
        "input": {"status": "done", "rating": 4}})),
    _op("delete_book", "DELETE", "Delete a book permanently.", [BOOK_ID], _returns("DeletedBook", "What was removed."),
        ("Delete a book", {"book_id": "book_3"})),
    _op("delete_shelf", "DELETE", "Delete an empty shelf, once confirmed: called without `confirmation_token` it "
        "answers CONFIRMATION_REQUIRED with a token for the operator to confirm, and called again with that token "
        "it deletes (a shelf holding books is refused).",
        [SHELF_ID, param("confirmation_token", "string", "The token a CONFIRMATION_REQUIRED answer gave, once the "
                         "operator confirmed.", minLength=1)],
        _returns("DeletedShelf", "What was removed."), ("Delete a shelf", {"shelf_id": "shelf_later"})),
]
# fmt: on
OPERATIONS += reading_safety.OPERATIONS  # execute_agent, record_execution_step... (core §8.6-8.8)
for _declared in OPERATIONS:  # the permission flags of core §6.1, from the category
    if _declared["returns"]["name"] in ("Book", "BookPage") and any(
        p["name"] == "fields" for p in _declared["parameters"]
    ):  # a book's derived values (features/computed-fields §4)
        _declared["computed_fields"] = COMPUTED
    read_only, destructive = PERMISSIONS[_declared["semantic_category"]]
    _declared["permissions"] = {"readOnly": read_only, "destructive": destructive}
    _declared["endpoint"] = family_of(_declared["semantic_category"])
if broken("core:4.5:update-input"):  # the changes documented as a string, not an object
    _update = next(op for op in OPERATIONS if op["name"] == "update_book")
    _update["parameters"] = [p if p["name"] != "input" else {**p, "type": "string"} for p in _update["parameters"]]
if broken("core:4.5:identifiers-in-params"):  # update_book finds the book by input.book_id
    _update = next(op for op in OPERATIONS if op["name"] == "update_book")
    _input = next(p for p in _update["parameters"] if p["name"] == "input")
    _update["parameters"] = [{**_input, "fields": [{**BOOK_ID, "description": "The book to change."}, *BOOK_INPUT]}]
    _update["examples"] = [{"description": "Mark a book read", "request": {"operation": "update_book",
                            "params": {"input": {"book_id": "book_1", "status": "done"}}}}]  # fmt: skip
if broken("introspection:8.1.2:optional-false"):  # get_book's fields documented as required, though optional
    _get = next(op for op in OPERATIONS if op["name"] == "get_book")
    _get["parameters"] = [p if p["name"] != "fields" else {**p, "required": True} for p in _get["parameters"]]
if broken("core:8.5.1:canonical-verbs"):  # add_book, a CREATE, with no word of `create`
    _add = next(op for op in OPERATIONS if op["name"] == "add_book")
    _add["description"] = "Add a book to an existing shelf. Answers the book with its new book_id."
if broken("conformance:2.2:semantic-evaluation"):  # list_books' description no longer says what it lists
    _books = next(op for op in OPERATIONS if op["name"] == "list_books")
    _books["description"] = _books["description"].replace("List books", "List entries")
if broken("core:8.5.2:snake-case-names"):  # list_shelves named listShelves
    next(op for op in OPERATIONS if op["name"] == "list_shelves")["name"] = "listShelves"
if broken("core:8.5.4:no-custom-reserved"):  # a reserved name taken by an adapter's own READ operation
    OPERATIONS[:] = [op for op in OPERATIONS if op["name"] != "confirm_operation"]
    OPERATIONS.append(
        _op(
            "confirm_operation",
            "READ",
            "Check that a shelf exists.",
            [SHELF_ID],
            _returns("Shelf", "The shelf."),
            ("Check the main shelf", {"shelf_id": "shelf_main"}),
        )
        | {"endpoint": "read", "permissions": {"readOnly": True, "destructive": False}}
    )
if broken("core:10.1:l2-field-selection"):  # no field selection at all: no `fields`, answers in full
    for _declared in OPERATIONS:
        _declared["parameters"] = [p for p in _declared["parameters"] if p["name"] != "fields"]
        _declared.pop("supports_field_selection", None)
DELETE_KEY = {"core:4.3:snake-case": "bookId", "operations:4.4.4:same-name": "bookid"}.get(DEFECT, "book_id")
if DELETE_KEY != "book_id":  # delete_book takes bookId (camelCase) or bookid (another name), documented and handled
    _delete = next(op for op in OPERATIONS if op["name"] == "delete_book")
    _delete["parameters"] = [{**BOOK_ID, "name": DELETE_KEY}]
    _delete["examples"] = [
        {"description": "Delete a book", "request": {"operation": "delete_book", "params": {DELETE_KEY: "book_3"}}}
    ]
if broken("operations:9.1:introspect"):  # introspect and every READ served by the execute endpoint
    for _declared in OPERATIONS:
        _declared["endpoint"] = "execute" if _declared["endpoint"] == "read" else _declared["endpoint"]
if broken("operations:6.1:by-semantics"):  # get_shelf, a READ, served by the create endpoint
    next(op for op in OPERATIONS if op["name"] == "get_shelf")["endpoint"] = "create"
if broken("features/field-selection:2.2:prefer-fields"):  # field selection through `select`, not `fields`
    for _declared in OPERATIONS:
        _declared["parameters"] = [
            {**p, "name": "select"} if p["name"] == "fields" else p for p in _declared["parameters"]
        ]
OPERATION_BY_NAME = {op["name"]: op for op in OPERATIONS}
for _declared in OPERATIONS:  # every returned type, parameter type and item type is introspectable
    assert _declared["returns"]["name"] in TYPE_BY_NAME


# --- Errors and validation (error-codes §4, operations §5.4) --------------------------------------
LEAKS = {  # what a message shows of the implementation, by defect
    "introspection:8.1.3:no-stack-traces": ' Traceback (most recent call last): File "store", line 88, in lookup',
    "introspection:8.1.3:no-language-errors": " (KeyError raised in lookup)",
    "introspection:8.1.3:no-class-names-paths": " (raised at /srv/app/src/store)",
}


def refuse(code: str, message: str, **details: Any) -> JsonObject:
    error: JsonObject = {"code": code, "message": message, "details": details}
    if code == "VALIDATION_MISSING_PARAM" and broken("introspection:8.2.3:actionable"):
        error = {"code": code, "message": "Invalid request.", "details": {}}  # says neither what nor how
    error["message"] += next((leak for rule, leak in LEAKS.items() if broken(rule)), "")
    if broken("operations:8.2:code"):
        del error["code"]
    if broken("operations:8.2:message"):
        del error["message"]
    if broken("operations:8.2:structured-errors"):
        return {"success": False, "error": f"{code}: {message}"}
    if broken("operations:3.1:discriminated-union"):
        return {"ok": False, "error": error}
    if broken("features/warnings:6.1:success-only"):
        return {"success": False, "error": error, "warnings": [{"code": "HINT", "message": "See introspect."}]}
    if broken("operations:3.3:failure-shape"):
        return {"success": False, "error": error, "data": None}
    return {"success": False, "error": error}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}.get(type(value), "unknown")


TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string | string[]": lambda v: isinstance(v, str) or (isinstance(v, list) and all(isinstance(s, str) for s in v)),
}


def expected(spec: JsonObject) -> str:
    """What a value of ``spec`` must be, in words."""
    if "enum" in spec:
        return "one of " + ", ".join(f"'{v}'" for v in spec["enum"])
    parts = [spec["type"] if spec["type"] != "array" else f"array of {spec['items']['type']}"]
    if "pattern" in spec:
        parts.append(f"matching {spec['pattern']}")
    if "minimum" in spec and "maximum" in spec:
        parts.append(f"from {spec['minimum']} to {spec['maximum']}")
    elif "minimum" in spec:
        parts.append(f"of at least {spec['minimum']}")
    if "maxLength" in spec:
        parts.append(f"of {spec.get('minLength', 0)} to {spec['maxLength']} characters")
    elif "minLength" in spec:
        parts.append(f"of at least {spec['minLength']} character(s)")
    return " ".join(parts)


def check(name: str, value: Any, spec: JsonObject) -> JsonObject | None:
    """VALIDATION_INVALID_TYPE (the registry's code for a wrong value; features/pagination §2.3 uses it for
    constraints too) when ``value`` breaks ``spec``'s type or constraints."""
    kind = spec["type"]
    ok = TYPE_CHECKS[kind](value)
    if ok and kind == "array":
        for index, item in enumerate(value):
            problem = check(f"{name}[{index}]", item, spec["items"])
            if problem is not None:
                return problem
    if ok and kind == "object" and "fields" in spec:
        return check_object(name, value, spec["fields"])
    if ok and isinstance(value, str):
        ok = spec.get("minLength", 0) <= len(value) <= spec.get("maxLength", len(value))
        ok = ok and ("pattern" not in spec or re.search(spec["pattern"], value) is not None)
    if ok and TYPE_CHECKS["number"](value):
        ok = spec.get("minimum", value) <= value <= spec.get("maximum", value)
    ok = ok and ("enum" not in spec or value in spec["enum"])
    if ok:
        return None
    shown = json.dumps(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return refuse(
        "VALIDATION_INVALID_TYPE",
        f"Parameter '{name}' expected '{expected(spec)}', got {shown} ({json_type(value)}). {spec['description']}",
        param_name=name,
        expected_type=expected(spec),
        actual_type=json_type(value),
    )


def check_object(
    name: str, value: JsonObject, fields: list[JsonObject], nullable: tuple[str, ...] = ()
) -> JsonObject | None:
    """The keys of an object parameter (``input``, ``filter``, ``sort``): VALIDATION_UNKNOWN_FIELD for a key
    it does not define (core §4.5.3), then each value."""
    known = {f["name"]: f for f in fields}
    for key in value:
        if name == "input" and key == "shelf_id" and broken("introspection:8.2.2:nesting"):  # documented flat
            return refuse("VALIDATION_UNKNOWN_FIELD", "Field 'shelf_id' must be nested: send it as "
                          "input.placement.shelf_id.", param_name="input.shelf_id")  # fmt: skip
        if key not in known and name == "input" and key == "added_at" and broken(CONSTRAINT_DOCUMENTATION):
            continue  # taken, and dropped without a word (conformance-testing §3.5: must be refused)
        if key not in known:
            why = "is read-only" if key in READ_ONLY else "is not one of its fields"
            return refuse(
                "VALIDATION_UNKNOWN_FIELD",
                f"Field '{key}' of '{name}' {why}; valid fields: {', '.join(known)}.",
                param_name=name,
                unknown_fields=[key],
                valid_fields=list(known),
            )
    for field in fields:
        if field["required"] and field["name"] not in value:
            return refuse(
                "VALIDATION_MISSING_PARAM",
                f"Missing required parameter '{name}.{field['name']}'. "
                f"Expected: {expected(field)} ({field['description']})",
                param_name=f"{name}.{field['name']}",
            )
    for key, item in value.items():
        if key not in known:  # the defect's read-only field, taken above
            continue
        problem = None if item is None and key in nullable else check(f"{name}.{key}", item, known[key])
        if problem is not None:
            return problem
    return None


def validate(op: JsonObject, params: JsonObject) -> JsonObject | None:
    """Unknown parameters (core §4.6), then required ones, then types and constraints (operations §5.4)."""
    specs = {p["name"]: p for p in op["parameters"]}
    unknown = [key for key in params if key not in specs and not key.startswith("_")]  # metadata: core §4.6.1
    if unknown and broken("core:4.6:unknown-rejected"):
        return validate(op, {k: v for k, v in params.items() if k in specs})  # dropped without a word
    if unknown:
        if broken("error-codes:4.5:several-unknown-parameters"):
            unknown = unknown[:1]  # names the first, says nothing of the rest
        return refuse(
            "VALIDATION_INVALID_TYPE" if broken("core:4.6:unknown-param-code") else "VALIDATION_UNKNOWN_PARAM",
            f"Unknown parameter(s) for operation '{op['name']}': "
            f"{', '.join(unknown)}. Valid parameters: {', '.join(specs) or 'none'}.",
            operation=op["name"],
            unknown_params=unknown,
            valid_params=list(specs),
        )
    for p in op["parameters"]:
        if p["required"] and p["name"] not in params:
            if op["name"] == "get_book" and p["name"] == "fields" and broken("introspection:8.1.2:optional-false"):
                continue  # documented required, handled as optional
            code = "VALIDATION_MISSING_PARAM"
            if p["name"] == "input" and broken("core:4.5.3:missing-input-rejected"):
                code = "VALIDATION_INVALID_TYPE"
            if op["name"] == "get_shelf" and broken("operations:8.3:standard-codes"):
                code = "MISSING_ARGUMENT"
            return refuse(
                code,
                f"Missing required parameter '{p['name']}'. Expected: {expected(p)} ({p['description']})",
                param_name=p["name"],
                operation=op["name"],
            )
    for key, value in params.items():
        if key not in specs:
            continue  # metadata (core §4.6.1): not a parameter to check
        nullable = NULLABLE if key == "input" else ()
        if key == "input" and not isinstance(value, dict) and broken("core:4.5.3:input-object"):
            continue  # taken as no change at all
        if key == "input" and isinstance(value, dict) and broken("core:4.5.3:input-fields-validated"):
            continue  # its fields stored as they come
        if key == "input" and isinstance(value, dict) and broken("core:4.5.3:unknown-field"):
            value = {k: v for k, v in value.items() if k in FIELD_OF["Book"]}  # others pass unchecked
        if key == "input" and isinstance(value, dict) and broken("core:4.5.3:no-identifier-in-input"):
            value = {k: v for k, v in value.items() if k not in READ_ONLY}  # identifiers in input ignored
        problem = (
            check_object(key, value, specs[key]["fields"], nullable)
            if key == "input" and isinstance(value, dict)
            else check(key, value, specs[key])
        )
        if problem is not None:
            problem["error"]["details"]["operation"] = op["name"]
            return problem
    return None


def scan(value: Any, where: str = "params", depth: int = 1) -> JsonObject | None:
    """Payload limits and encoding (core §4.7.1, §4.7.5): depth, array sizes, surrogates, null bytes."""
    if isinstance(value, str):
        if any("\ud800" <= c <= "\udfff" for c in value) and not broken("core:4.7.1:invalid-utf-8"):
            return refuse("VALIDATION_INVALID_ENCODING", "Invalid character encoding in request", location=where)
        if "\x00" in value and not broken("core:4.7.1:null-bytes"):
            return refuse(
                "VALIDATION_INVALID_ENCODING",
                f"Invalid character encoding in request: '{where}' holds "
                "a null byte (U+0000), which no parameter accepts.",
                location=where,
            )
        return None
    if not isinstance(value, list | dict):
        return None
    if depth > LIMITS["max_nesting_depth"] and not broken("core:4.7.5:enforce-limits"):
        return too_large("nesting_depth", LIMITS["max_nesting_depth"], depth, "levels")
    if isinstance(value, list) and len(value) > LIMITS["max_array_elements"]:
        return too_large("array_elements", LIMITS["max_array_elements"], len(value), "elements")
    pairs = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in pairs:
        problem = scan(key, where, depth) if isinstance(key, str) else None
        problem = problem or scan(item, f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]", depth + 1)
        if problem is not None:
            return problem
    return None


def too_large(kind: str, limit: int, actual: int, unit: str) -> JsonObject:
    if broken("core:4.7.5:too-large-error"):  # the right code, but nothing says which limit
        return refuse("VALIDATION_PAYLOAD_TOO_LARGE", "Payload too large")
    return refuse(
        "VALIDATION_PAYLOAD_TOO_LARGE",
        f"Payload exceeds {kind} limit of {limit}",
        limit_type=kind,
        limit_value=limit,
        actual_value=actual,
        unit=unit,
    )


def not_found(kind: str, ident: str, lister: str) -> JsonObject:
    return refuse(
        "NOT_FOUND_RESOURCE",
        f"Resource '{kind}' not found: '{ident}'. Use {lister} to see the existing ones.",
        resource_type=kind,
        resource_id=ident,
    )


# --- Field selection and pagination (features/field-selection, features/pagination) ----------------
def selection(type_name: str, fields: Any) -> list[str] | JsonObject:
    """The paths ``fields`` selects, or VALIDATION_INVALID_TYPE for an unknown preset or field."""
    if isinstance(fields, str):
        if fields in PRESETS[type_name]:
            return PRESETS[type_name][fields]
        fields = [fields] if fields.split(".")[0] in FIELD_OF[type_name] else None
    if fields is None:
        return refuse(
            "VALIDATION_INVALID_TYPE",
            f"Parameter 'fields' expected a preset ({', '.join(map(repr, PRESETS[type_name]))}) or {type_name} field "
            "names.",
            param_name="fields",
            expected_type="preset",
        )
    computed = {f"_computed.{entry['name']}" for entry in COMPUTED} if type_name == "Book" else set()
    if broken("features/collection-querying:2.4:computed-prefix"):  # only by its bare name, no prefix
        fields = [f"_computed.{path}" if f"_computed.{path}" in computed else path for path in fields]
        computed = {path.removeprefix("_computed.") for path in computed}
    unknown = [path for path in fields if path.split(".")[0] not in FIELD_OF[type_name] and path not in computed]
    if broken("features/field-selection:5.2:should-list"):  # names it does not know are dropped unseen
        return [path for path in fields if path not in unknown]
    if unknown:
        return refuse(
            "VALIDATION_INVALID_TYPE",
            f"Parameter 'fields' names unknown {type_name} field(s): "
            f"{', '.join(unknown)}. Known fields: {', '.join(FIELD_OF[type_name])}.",
            param_name="fields",
            expected_type=f"{type_name} field names",
            actual_type="unknown field",
        )
    return list(fields)


def project(item: JsonObject, paths: list[str]) -> JsonObject:
    """Only the selected paths; nested paths keep their structure; missing ones are left out (§4.3);
    `_computed.` paths are derived values, answered under `_computed` (features/computed-fields §2)."""
    out: JsonObject = {}
    item = {**item, "_computed": derived(item)} if any(path.startswith("_computed.") for path in paths) else item
    paths = [*paths, "_computed.tag_count"] if UNLISTED and "title" in item and "title" in paths else paths
    item = {**item, "_computed": derived(item)} if UNLISTED and "title" in item else item
    for path in paths:
        source: Any = item
        target, parts = out, path.split(".")
        for part in parts[:-1]:
            source = source.get(part) if isinstance(source, dict) else None
            target = target.setdefault(part, {}) if isinstance(source, dict) else target
        if isinstance(source, dict) and parts[-1] in source:
            target[parts[-1]] = source[parts[-1]]
    if broken("features/field-selection:4.4:computed-object"):  # derived values beside the stored ones
        out |= out.pop("_computed", {})
    return out


def derived(item: JsonObject) -> JsonObject:
    """A book's computed fields (COMPUTED): its title's length and how many tags it carries."""
    if "title" not in item:
        return {}
    return {"title_length": len(item["title"]), "tag_count": len(item.get("tags", []))}


def encode_cursor(key: list[Any], sort: JsonObject) -> str:
    body = json.dumps([key, sort["field"], sort["order"]], separators=(",", ":")).encode()
    mac = hmac.new(CURSOR_KEY, body, hashlib.sha256).digest()[:8]
    cursor = base64.urlsafe_b64encode(mac + body).decode().rstrip("=")
    return f"page/{cursor}" if broken("features/pagination:6.4:cursor-properties") else cursor  # a slash in it


def decode_cursor(name: str, cursor: str, sort: JsonObject) -> list[Any] | JsonObject:
    try:
        cursor = cursor.removeprefix("page/") if broken("features/pagination:6.4:cursor-properties") else cursor
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        good = hmac.compare_digest(raw[:8], hmac.new(CURSOR_KEY, raw[8:], hashlib.sha256).digest()[:8])
        key, field, order = json.loads(raw[8:]) if good else (None, None, None)
    except (ValueError, TypeError):
        key, field, order = None, None, None
    if key is None or [field, order] != [sort["field"], sort["order"]]:
        return refuse(
            "VALIDATION_INVALID_TYPE",
            f"Parameter '{name}' expected 'a cursor from pageInfo of the same "
            "query (same sort)', got an unknown cursor. Start again without it.",
            param_name=name,
            expected_type="cursor",
            actual_type="unknown cursor",
        )
    return list(key)


def sections(found: JsonObject, include: Any) -> JsonObject:
    """The sections of a traversal ``include`` names (all of them when it names none)."""
    if broken("features/relationship-queries:3:all-sections-default") and include is None:
        return {"relationships": found["relationships"]}
    if include is None or broken("features/relationship-queries:3:requested-sections"):
        return found
    kept: JsonObject = {name: found[name] for name in ("root", "relationships", "graph") if name in include}
    for part in ("nodes", "edges"):
        if f"graph.{part}" in include and "graph" not in include:
            kept.setdefault("graph", {})[part] = found["graph"][part]
    return kept


def paginate(rows: list[JsonObject], id_field: str, params: JsonObject, paths: list[str]) -> JsonObject:
    """A page of ``rows`` per features/pagination §2-§3 (invalid combinations refused, sizes clamped)."""
    given = [name for name in ("first", "after", "last", "before") if name in params]
    bad = {"first", "last"} <= set(given) or {"first", "before"} <= set(given) or {"last", "after"} <= set(given)
    lone = ("after" in given and "first" not in given) or ("before" in given and "last" not in given)
    if (bad or lone) and not broken("features/pagination:2.3:invalid-combinations"):
        return refuse(
            "VALIDATION_INVALID_TYPE",
            f"Invalid pagination: {', '.join(given)}. Use 'first' (with "
            "'after') forward or 'last' (with 'before') backward, never both.",
            param_name="pagination",
            expected_type="valid pagination combination",
            actual_type="conflicting parameters",
            provided=given,
        )
    sort = {"field": params["sort"]["field"], "order": params["sort"].get("order", "asc")}
    field, descending = sort["field"], sort["order"] == "desc"

    def key(row: JsonObject) -> list[Any]:
        value = row.get(field)
        return [value is None, value if value is not None else 0 if field == "rating" else "", row[id_field]]

    ordered = sorted(rows, key=key, reverse=descending)
    window, start, end = ordered, 0, 0
    for name, later in (("after", True), ("before", False)):
        if name in params:
            mark = decode_cursor(name, params[name], sort)
            if isinstance(mark, dict):
                return mark
            window = [r for r in ordered if (key(r) > mark) == (later != descending) and key(r) != mark]
            start, end = (len(ordered) - len(window), 0) if later else (0, len(ordered) - len(window))
    asked = params.get("last", params.get("first", DEFAULT_PAGE))
    if asked > MAX_PAGE and broken("features/pagination:5.3:clamp-not-reject"):
        return refuse("VALIDATION_OUT_OF_RANGE", f"A page holds at most {MAX_PAGE} items; {asked} were asked for.",
                      param_name="last" if "last" in params else "first", maximum=MAX_PAGE)  # fmt: skip
    size = asked if UNCAPPED else min(asked, MAX_PAGE)
    if broken("features/pagination:6.1:must-list"):  # `first` and `last` ignored: every item at once
        size = max(len(window), 1)
    if "offset" in params and "first" not in params:  # offset paging (documented where MIXED_STYLES)
        window, start = window[params["offset"] :], start + params["offset"]
    if "last" in params:
        page, more_before, more_after = window[-size:], len(window) > size, end > 0
    else:
        page, more_before, more_after = window[:size], start > 0, len(window) > size
    info: JsonObject = {"hasNextPage": more_after, "hasPreviousPage": more_before, "totalCount": len(ordered)}
    if broken("features/pagination:3.1:page-info"):
        del info["hasPreviousPage"]
    if page:
        info |= {"startCursor": encode_cursor(key(page[0]), sort), "endCursor": encode_cursor(key(page[-1]), sort)}
    if broken("operations:4.4.3:pagination-metadata"):  # no word of where the next page starts
        info.pop("endCursor", None)
    applied = {"fields": paths, "sort": sort, "last" if "last" in params else "first": size}
    applied |= {k: params[k] for k in ("shelf_id", "filter") if k in params}  # collection-querying §5.5
    items = [project(r, paths) for r in page]
    if broken("operations:4.4.3:page-info"):  # the next cursor alone, no pageInfo
        return {"success": True, "data": {"items": items, "next": info.get("endCursor"), "applied": applied}}
    shown = "results" if broken("features/pagination:4.1:connection-shape") else "items"
    return {"success": True, "data": {shown: items, "pageInfo": info, "applied": applied}}


# --- The reading list ----------------------------------------------------------------------------
class ReadingList:
    """The store, the operations' handlers and the router (core §3.2)."""

    def __init__(self, mode: str, prefix: str) -> None:
        self.mode, self.prefix, self.session = mode, prefix, secrets.token_hex(8)
        self.renamed = broken("mcp:2.2.1:names-stable") and started_before()
        self.loop = reading_safety.SafetyLoop()
        created = stamp("2026-01-05T09:00:00Z")
        self.shelves: dict[str, JsonObject] = {
            "shelf_main": {"shelf_id": "shelf_main", "name": "Main shelf", "created_at": created, **badge()},
            "shelf_later": {"shelf_id": "shelf_later", "name": "Read later", "created_at": created, **badge()},
        }
        seed: list[tuple[str, str, str, list[str], int | None, str]] = [
            ("shelf_main", "The Left Hand of Darkness", "Ursula K. Le Guin", ["sf"], 5, "done"),
            ("shelf_main", "Middlemarch", "George Eliot", ["classic"], None, "reading"),
            ("shelf_later", "The Peregrine", "J. A. Baker", ["nature", "essay"], None, "to-read"),
        ]
        self.books: dict[str, JsonObject] = {}
        for index, (shelf, title, author, tags, rating, status) in enumerate(seed, 1):
            book: JsonObject = {
                "book_id": f"book_{index}",
                "shelf_id": shelf,
                "title": title,
                "author": author,
                "tags": tags,
                "status": status,
                "added_at": stamp(f"2026-01-0{5 + index}T10:00:00Z"),
            }
            book |= {"rating": rating} if rating is not None else {}
            self.books[book["book_id"]] = book | {"updated_at": book["added_at"]}
        for number in range(len(self.books) + 1, len(self.books) + 1 + EXTRA_BOOKS):
            added = stamp(f"2026-02-{1 + number % 28:02d}T10:{number % 60:02d}:00Z")
            self.books[f"book_{number}"] = {"book_id": f"book_{number}", "shelf_id": "shelf_later", "title":
                                            f"Volume {number}", "tags": [], "status": "to-read", "added_at": added,
                                            "updated_at": added}  # fmt: skip
        self.next_book = len(self.books) + 1
        self.confirmations: dict[str, str] = {}  # shelf_id -> the token delete_shelf gave (operations §7.5)

    # Tools and routing ------------------------------------------------------------------------
    def tools(self) -> dict[str, str | None]:
        """Each MCP tool this mode registers and the endpoint family it serves (None: every one)."""
        crude: dict[str, str | None] = {self.tool_name(f"mcp_aql_{family_of(c)}"): family_of(c) for c in CATEGORIES}
        single: dict[str, str | None] = {self.tool_name("mcp_aql"): None}
        modes = {"semantic": crude, "single": single, "all": {**crude, **single}}
        if broken("core:10.1:l2-both-modes"):  # says "all", offers the CRUDE tools only
            modes["all"] = crude
        if broken("operations:9.1:introspect"):  # no read endpoint and no single tool: READs on execute
            modes["all"] = {name: family for name, family in crude.items() if family != "read"}
        return modes[self.mode]

    def tool_of(self, op: JsonObject) -> str:
        return self.tool_name("mcp_aql" + ("" if self.mode == "single" else f"_{op['endpoint']}"))

    def tool_name(self, standard: str) -> str:
        """The name a tool of the standard name ``standard`` goes by (a defect names it otherwise)."""
        if broken("core:3.3:one-mode"):  # no MCP-AQL tool: other names, no `operation` to send
            return standard.replace("mcp_aql", "reading_list")
        if broken("mcp:2.2.1:standard-names"):
            return standard.replace("_", "-")
        if standard == "mcp_aql" and self.renamed:
            standard = "mcp_aql_v2"  # the unified tool, renamed from the second start on
        prefix = {"mcp:6.4:prefix-charset": "Reading-", "mcp:6.4:prefix-underscore": "reading",
                  "mcp:6.4:prefix-short": "reading_list_adapter_v2_"}  # fmt: skip
        return next((p for rule, p in prefix.items() if broken(rule)), self.prefix) + standard

    def answer(self, tool: str, arguments: JsonObject) -> JsonObject:
        """The MCP-AQL result of one tools/call."""
        family = self.tools().get(tool, "?")
        meta = arguments.get("_meta")  # a label for logs (core §2.3.5), save where a defect takes it for identity
        self.loop.session = self.session
        self.loop.claimed = meta.get("session_id") if isinstance(meta, dict) else None
        size = len(json.dumps(arguments))
        if size > LIMITS["max_request_size"]:
            return too_large("request_size", LIMITS["max_request_size"], size, "bytes")
        problem = scan(arguments, "arguments")
        if problem is not None:
            return problem
        if "operations" in arguments:
            return self.batch(family, arguments)
        operation, params = arguments.get("operation"), arguments.get("params", {})
        if not isinstance(params, dict):
            return refuse(
                "VALIDATION_INVALID_TYPE",
                f"Field 'params' expected 'object', got '{json_type(params)}'.",
                param_name="params",
                expected_type="object",
                actual_type=json_type(params),
            )
        extra = {k: v for k, v in arguments.items() if k not in ("operation", "params") and not k.startswith("_")}
        if broken("operations:2.3:resolution-order"):
            return self.run(family, operation, {**params, **extra})  # the top level wins
        return self.run(family, operation, {**extra, **params})  # params win over top-level (core §4.2)

    def run(self, family: str | None, operation: Any, params: JsonObject) -> JsonObject:
        if operation is None and broken("operations:2.2:operation-field"):
            operation = "introspect"  # a request naming no operation taken for introspect
        if operation == "" and broken("operations:2.2:operation-defined"):
            operation = "introspect"
        if isinstance(operation, str) and broken("operations:2.4:case-sensitive"):
            operation = operation.lower()
        if operation is None or operation == "":
            return refuse(
                "VALIDATION_MISSING_PARAM",
                "Missing required parameter 'operation'. Expected: string "
                "(an operation name; list them with introspect, query 'operations')",
                param_name="operation",
            )
        if not isinstance(operation, str):
            return refuse(
                "VALIDATION_INVALID_TYPE",
                f"Parameter 'operation' expected 'string', got '{json_type(operation)}'.",
                param_name="operation",
                expected_type="string",
                actual_type=json_type(operation),
            )
        op = OPERATION_BY_NAME.get(operation)
        if op is None and broken("endpoint-modes:5.5:unknown-operation-structured"):
            return self.run(family, "list_shelves", {})  # guessed: the closest thing it has
        if op is None:
            return refuse(
                "NOT_FOUND_OPERATION",
                f"Unknown operation: '{operation[:80]}'. Use introspect with "
                "query 'operations' to discover the operations.",
                operation=operation[:80],
                available=list(OPERATION_BY_NAME),
            )
        if family is not None and op["endpoint"] != family and broken("operations:6.3:mismatch-error"):
            return refuse("VALIDATION_INVALID_TYPE", "Not allowed here.")
        if family is not None and op["endpoint"] != family and not broken("core:6.2:wrong-endpoint-rejected"):
            actual = f"{self.prefix}mcp_aql_{family}"
            return refuse(
                "VALIDATION_ENDPOINT_MISMATCH",
                f"Operation '{operation}' must be called via {self.tool_of(op)}, not {actual}",
                operation=operation,
                expected_endpoint=op["semantic_category"],
                actual_endpoint=family.upper(),
                expected_tool=self.tool_of(op),
            )
        taken = {"introspection:8.1.2:accepted-documented": "include_deleted",
                 "features/collection-querying:2.6:style-documented": "offset"}  # fmt: skip
        if operation == "list_books" and any(broken(rule) and name in params for rule, name in taken.items()):
            params = {k: v for k, v in params.items() if k not in taken.values()}  # taken, documented nowhere
        if operation == "list_books" and broken("introspection:8.1.2:required-true") and "shelf_id" not in params:
            return refuse("VALIDATION_MISSING_PARAM", "Missing required parameter 'shelf_id'.", param_name="shelf_id")
        if operation == "list_books" and broken("introspection:8.1.1:types-match") and "first" in params:
            if not isinstance(params["first"], str):  # documented an integer, takes a string of digits
                return refuse("VALIDATION_INVALID_TYPE", f"Parameter 'first' expected 'string', got "
                              f"{json.dumps(params['first'])}.", param_name="first", expected_type="string",
                              actual_type=json_type(params["first"]))  # fmt: skip
            params = {**params, "first": int(params["first"]) if params["first"].isdigit() else DEFAULT_PAGE}
        if operation == "list_books" and isinstance(params.get("sort"), str) and broken(SORT_SHORTHAND):
            rest = {k: v for k, v in params.items() if k not in ("sort", "order")}  # sort + order, undocumented
            params = {**rest, "sort": {"field": params["sort"], "order": params.get("order", "asc")}}
        wanted = params.get("filter")
        if operation == "list_books" and isinstance(wanted, dict) and broken(FILTER_KEYS):
            params = {**params, "filter": {k: v for k, v in wanted.items() if k in ("status", "tag", "author")}}
        if (
            operation == "list_shelves"
            and broken("operations:4.4.4:same-default")
            and not {"first", "last"} & set(params)
        ):
            params = {**params, "first": SHELF_PAGE}  # its own documented default, honoured
        if operation == "get_shelf" and broken("introspection:8.1.1:names-match"):  # takes `shelf`, not shelf_id
            if "shelf_id" in params:
                return refuse(
                    "VALIDATION_UNKNOWN_PARAM",
                    "Unknown parameter(s) for operation 'get_shelf': shelf_id. Valid parameters: shelf, fields.",
                    operation="get_shelf",
                    unknown_params=["shelf_id"],
                )
            params = {("shelf_id" if k == "shelf" else k): v for k, v in params.items()}
        unknown = [key for key in params if key not in {p["name"] for p in op["parameters"]}]
        if unknown and broken("core:4.6.2:default-rejects"):  # a warning, where strict mode must refuse
            answer = self.run(family, operation, {k: v for k, v in params.items() if k not in unknown})
            said = {"code": "UNKNOWN_PARAM", "message": f"Ignored unknown parameter(s): {', '.join(unknown)}."}
            return answer | {"warnings": [said]} if answer["success"] else answer
        problem = validate(op, params)
        if problem is not None:
            return problem
        if broken("features/field-selection:2.2:prefer-fields"):  # the handler's own name for it
            params = {("fields" if k == "select" else k): v for k, v in params.items()}
        owner = self.loop if any(op is safety for safety in reading_safety.OPERATIONS) else self
        handler: Callable[[JsonObject], JsonObject] = getattr(owner, operation)
        if operation == "list_books" and "shelf" in params:  # the deprecated alias (introspection §8.2.4)
            shelf = params.pop("shelf")
            params = {"shelf_id": shelf, **params}
            answer = handler(params)
            return answer | {"warnings": [SHELF_DEPRECATED]} if answer.get("success") is True else answer
        return warned(operation, params, handler(params))

    def batch(self, family: str | None, arguments: JsonObject) -> JsonObject:
        """operations §7: in order, each independent, results for all; success false only for the batch."""
        items = arguments["operations"]
        others = [k for k in arguments if k != "operations" and not k.startswith("_")]
        if others:
            return refuse(
                "VALIDATION_UNKNOWN_PARAM",
                f"Unknown parameter(s) for a batch: {', '.join(others)}. A "
                "batch is {operations: [{operation, params}, ...]} alone.",
                operation="batch",
                unknown_params=others,
                valid_params=["operations"],
            )
        if broken("core:10.1:l2-batch"):
            return refuse("VALIDATION_INVALID_TYPE", "Batches are not supported: send one operation at a time.")
        if broken("operations:7.1:batch-format"):  # its own format, though it declares batches
            return refuse("VALIDATION_INVALID_TYPE", "A batch is {batch: [{op, args}, ...]}.", param_name="operations")
        if not isinstance(items, list) or not 0 < len(items) <= LIMITS["max_batch_operations"]:
            return refuse(
                "VALIDATION_INVALID_TYPE",
                "Parameter 'operations' expected 'array of 1 to "
                f"{LIMITS['max_batch_operations']} {{operation, params}} objects'.",
                param_name="operations",
                expected_type="array",
                actual_type=json_type(items),
            )
        results: list[JsonObject] = []
        for index, item in enumerate(items):
            item = item if isinstance(item, dict) else {}
            extra = [k for k in item if k not in ("operation", "params") and not k.startswith("_")]
            params = item.get("params", {})
            if extra or not isinstance(params, dict) or not item:
                result = refuse(
                    "VALIDATION_INVALID_TYPE",
                    f"Batch item {index} expected '{{operation, params}}'.",
                    param_name=f"operations[{index}]",
                    expected_type="object",
                )
            else:
                result = self.run(family, item.get("operation"), params)
            gated = result.get("error", {}).get("code") == "CONFIRMATION_REQUIRED"
            if gated and not broken("operations:7.5.2:halt-on-confirmation"):  # halt there (operations §7.5.2)
                return self.halted(results, {"index": index, "operation": item.get("operation"), "result": result},
                                   items[index + 1:])  # fmt: skip
            results.append({"index": index, "operation": item.get("operation"), "result": result}
                           | ({"status": "pending_confirmation"} if gated else {}))  # fmt: skip
            if not result["success"] and not gated and broken("operations:7.3:failure-continues"):
                break  # the items after a failing one never run
        pending = sum(1 for r in results if r.get("status") == "pending_confirmation")
        failed = sum(1 for r in results if not r["result"]["success"]) - pending
        summary = {"total": len(results), "succeeded": len(results) - failed - pending, "failed": failed}
        summary |= {"pending_confirmation": pending} if pending else {}
        if broken("operations:7.2:batch-results"):
            return {"success": True, "data": None, "results": [r["result"] for r in results[:1]]}
        if failed and broken("operations:7.3:batch-semantics"):  # one item's failure fails the batch
            error = {"code": "VALIDATION_INVALID_VALUE", "message": f"{failed} batch item(s) failed."}
            return {"success": False, "error": error, "results": results, "summary": summary}
        return {"success": True, "data": None, "results": results, "summary": summary}

    @staticmethod
    def halted(results: list[JsonObject], gated: JsonObject, rest: list[Any]) -> JsonObject:
        """A batch halted at an item awaiting confirmation (operations §7.5.2, §7.5.5): what ran,
        where it halted, what did not run."""
        pending = [{"index": gated["index"] + 1 + offset, **(item if isinstance(item, dict) else {})}
                   for offset, item in enumerate(rest)]  # fmt: skip
        succeeded = sum(1 for r in results if r["result"]["success"])
        summary = {"total": len(results) + 1 + len(pending), "succeeded": succeeded,
                   "failed": len(results) - succeeded, "halted": 1, "pending": len(pending)}  # fmt: skip
        return {"success": True, "data": None, "results": results, "halted_at": gated,
                "pending_operations": pending, "summary": summary}  # fmt: skip

    # Introspection (introspection §4-5) ----------------------------------------------------------
    def introspect(self, params: JsonObject) -> JsonObject:
        name = params.get("name")
        if params["query"] == "types" and broken("core:7.2:introspect"):
            return refuse("NOT_FOUND_OPERATION", "Unknown operation: 'introspect'.")
        if params["query"] == "types" and name is None and broken("introspection:3.1:discriminated-union"):
            return {"types": [{k: t[k] for k in ("name", "kind", "description")} for t in TYPES]}
        if params["query"] == "types":
            if name is not None:
                return {"success": True, "data": {"type": self.type_details(name)}}
            return {
                "success": True,
                "data": {
                    "types": [
                        {k: t[k] for k in ("name", "kind", "description")}
                        for t in TYPES
                        if t["name"] not in self.unlisted_types()
                    ]
                },
            }
        if name is not None:
            op = OPERATION_BY_NAME.get(name)
            if op is None and broken("introspection:4.3:unknown-operation-null"):
                return not_found("operation", name, "introspect")
            return {"success": True, "data": {"operation": None if op is None else self.details(op)}}
        listed = [{k: op[k] for k in ("name", "semantic_category", "endpoint", "description")} for op in OPERATIONS]
        if broken("introspection:7.3:caching"):  # built afresh each time: it never reads the same twice
            listed[0] = {**listed[0], "description": f"{listed[0]['description']} (listing {next(LISTINGS)})"}
        if broken("introspection:8.2:should-list"):
            listed = [entry for entry in listed if entry["name"] != "introspect"]
        if broken("introspection:4.1:endpoint-family-name"):
            listed = [entry | {"endpoint": self.tool_of(entry)} for entry in listed]
        if broken("introspection:8.1:protocol-object"):
            return {"success": True, "data": {"operations": listed}}
        return {"success": True, "data": {"_protocol": self.protocol(), "operations": listed}}

    def details(self, op: JsonObject) -> JsonObject:
        shown = {**op, "mcpTool": self.tool_of(op)}
        if op["name"] == "get_book" and broken("introspection:8.1.2:feature-parameters"):  # `fields` untyped
            shown["parameters"] = [{k: v for k, v in p.items() if k != "type" or p["name"] != "fields"}
                                   for p in shown["parameters"]]  # fmt: skip
        if op["name"] == "list_books" and broken("operations:4.4.5:expand-inline"):  # sort by reference
            shown["parameters"] = [
                p if p["name"] != "sort" else {"$ref": "#/types/SortOrder"} for p in shown["parameters"]
            ]
        if op["name"] == "query_books" and broken("features/collection-querying:4.2:input-type-introspected"):
            shown["parameters"] = [{k: v for k, v in p.items() if k != "type" or p["name"] != "query"}
                                   for p in shown["parameters"]]  # fmt: skip
        if op["name"] == "get_shelf":  # one operation's details, broken field by field
            for rule, key in DETAIL_LEFT_OUT.items():
                if broken(rule):
                    shown.pop(key)
            if broken("operations:5.1:semantic-category"):
                shown["semantic_category"] = "QUERY"
            for rule, key in PARAMETER_LEFT_OUT.items():
                if broken(rule):
                    shown["parameters"] = [{k: v for k, v in p.items() if k != key} for p in shown["parameters"]]
        if broken("introspection:4.1:endpoint-family-name"):
            shown["endpoint"] = self.tool_of(op)
        return shown

    @staticmethod
    def type_details(name: str) -> JsonObject | str | None:
        found = TYPE_BY_NAME.get(name)
        if found is not None and broken("introspection:8.1:must-list"):
            return f"{found['name']}: {found['description']}"  # prose, not TypeDetails
        return found

    @staticmethod
    def unlisted_types() -> tuple[str, ...]:
        if broken("introspection:5.3:protocol-types"):
            return ("SemanticCategory", "OperationResult", "OperationSuccess", "OperationFailure", "ErrorDetail")
        if broken("features/field-selection:5.3:discoverable"):
            return ("FieldSelection",)
        return ("BookPage",) if broken("core:9.2:types-discoverable") else ()

    def protocol(self) -> JsonObject:
        capabilities = {
            "batch": not broken("core:10.1:l2-batch"),  # a server without batches says so
            "field_selection": not broken("core:10.1:l2-field-selection"),
            "pagination": True,
            "aggregations": False,
            "computed_fields": False,
            "relationship_queries": False,
            "warnings": False,
            "confirmation": False,
            "dangerous_operations": False,
            **reading_safety.capability(),
        }
        said: JsonObject = {
            "version": "v1" if broken("introspection:4.1.1:protocol-version") else SPEC_VERSION,
            "conformance": "level-2",
            "mode": "crude" if broken("introspection:4.1.1:mode-semantic") else self.mode,
            **({} if broken("endpoint-modes:3.3:active-profile-introspected") else {"profile": "crude"}),
            "profiles": ["crude", "books"],  # its READ family also goes by a books profile (endpoint-modes §3.3)
            "capabilities": capabilities,
            **({} if broken("core:4.7.5:limits-in-protocol") else {"limits": LIMITS}),
            "concurrency": "resource-locked",  # writes to different books may run at once: hence if_match
            "supports_etag": True,
            "session_id": self.session,
            "timestamps": "ISO 8601, UTC (Z)",
            "null_semantics": "Optional parameters may be "
            "omitted, not null; in update_book input, null removes author, tags or rating.",
            "tools": list(self.tools()),
            "safety_loop_configuration": reading_safety.CONFIGURATION,
        }
        for rule, key in (
            ("introspection:4.1.1:protocol-conformance", "conformance"),
            ("introspection:4.1.1:protocol-mode", "mode"),
        ):
            if broken(rule):
                del said[key]
        return said

    # Handlers ------------------------------------------------------------------------------------
    def _shown(self, item: JsonObject, type_name: str, fields: Any) -> JsonObject:
        paths = selection(type_name, fields)
        if isinstance(paths, dict):
            return paths
        if broken("operations:3.2:success-shape"):
            return {"success": True, "result": project(item, paths)}
        if broken("operations:3.4:metadata-underscore"):
            return {"success": True, "data": project(item, paths), "meta": {"type": type_name}}
        return {"success": True, "data": project(item, paths)}

    def list_shelves(self, params: JsonObject) -> JsonObject:
        paths = selection("Shelf", params.get("fields", "standard"))
        if isinstance(paths, dict):
            return paths
        return paginate(list(self.shelves.values()), "shelf_id", {"sort": {"field": "shelf_id"}, **params}, paths)

    def listShelves(self, params: JsonObject) -> JsonObject:
        return self.list_shelves(params)

    def confirm_operation(self, params: JsonObject) -> JsonObject:
        return self.get_shelf(params)

    def get_shelf(self, params: JsonObject) -> JsonObject:
        shelf = self.shelves.get(params["shelf_id"])
        if shelf is None:
            return not_found("shelf", params["shelf_id"], "list_shelves")
        return self._shown(shelf, "Shelf", params.get("fields", "full"))

    def create_shelf(self, params: JsonObject) -> JsonObject:
        if params["shelf_id"] in self.shelves:
            return refuse(
                "CONFLICT_ALREADY_EXISTS",
                f"Resource 'shelf' already exists: '{params['shelf_id']}'. "
                "Choose another shelf_id (list_shelves shows those in use).",
                resource_type="shelf",
                resource_id=params["shelf_id"],
            )
        shelf = {"shelf_id": params["shelf_id"], "name": params["name"], "created_at": now(), **badge()}
        self.shelves[shelf["shelf_id"]] = shelf
        return {"success": True, "data": dict(shelf)}

    def list_books(self, params: JsonObject, selected: Callable[[JsonObject], bool] = lambda book: True) -> JsonObject:
        paths = selection("Book", params.get("fields", "standard"))
        if isinstance(paths, dict):
            return paths
        shelf = params.get("shelf_id")
        if shelf is not None and shelf not in self.shelves:
            return not_found("shelf", shelf, "list_shelves")
        wanted = params.get("filter", {})
        rows = [
            b
            for b in self.books.values()
            if shelf in (None, b["shelf_id"])
            and wanted.get("status", b["status"]) == b["status"]
            and wanted.get("author", b.get("author")) == b.get("author")
            and ("tag" not in wanted or wanted["tag"] in b.get("tags", []))
            and selected(b)
        ]
        if "aggregate" in params:  # features/aggregations: the summaries, the page only when asked for
            summaries = aggregate(rows, params["aggregate"])
            if summaries.get("success") is False:
                return summaries
            rows_too = params.get("include_items") is True and not broken("features/aggregations:3:include-items-flag")
            if not rows_too and not broken("features/aggregations:3:omit-items"):
                return {"success": True, "data": {**summaries, "applied": {"aggregate": params["aggregate"]}}}
            page = paginate(rows, "book_id", {"sort": {"field": "added_at"}, **params}, paths)
            return page if page.get("success") is False else page | {"data": {**summaries, **page["data"]}}
        return paginate(rows, "book_id", {"sort": {"field": "added_at"}, **params}, paths)

    def query_books(self, params: JsonObject) -> JsonObject:
        """list_books narrowed by a selector (field:value terms, rating>=N, rating<=N), all to hold."""
        terms: list[Callable[[JsonObject], bool]] = []
        for found in SELECTOR_TERM.finditer(params.get("query", "")):
            field, value, rating, bound, number, other = found.groups()
            if other is not None:
                return refuse("VALIDATION_INVALID_TYPE", f"Parameter 'query': the term {other[:60]!r} is neither "
                              "field:value (status, tag, author) nor rating>=N or rating<=N.", param_name="query",
                              expected_type="selector", actual_type="unknown term")  # fmt: skip
            if rating is not None:
                at_least, limit = bound == ">=", int(number)
                terms.append(lambda b, at_least=at_least, limit=limit: "rating" in b and
                             (b["rating"] >= limit if at_least else b["rating"] <= limit))  # fmt: skip
            else:
                value = value.strip('"')
                terms.append(lambda b, field=field, value=value: value in b.get("tags", []) if field == "tag"
                             else b.get(field) == value)  # fmt: skip
        return self.list_books(params, lambda book: all(term(book) for term in terms))

    def search_books(self, params: JsonObject) -> JsonObject:
        paths = selection("Book", params.get("fields", "standard"))
        if isinstance(paths, dict):
            return paths
        text = str(params["text" if broken(SEARCH_QUERY) else "query"]).casefold()
        words = [text] if broken("features/collection-querying:4.1:multi-word-consistent") else text.split()
        rows = [b for b in self.books.values() if all(w in f"{b['title']} {b.get('author', '')}".casefold()
                                                       for w in words) and params.get("filter", b["status"]) ==
                b["status"]]  # fmt: skip
        return paginate(rows, "book_id", {"sort": {"field": "added_at"}}, paths)

    def query_relationships(self, params: JsonObject) -> JsonObject:
        """A breadth-first walk from the root, each node expanded once (a cycle's closing edge still shown)."""
        root = params["start" if broken(VOCABULARY) else "root"]
        kind, ident = root["element_type"], root["element_name"]
        if kind == "book" and broken("introspection:8.2.2:not-applicable"):  # documented as a root all the same
            return refuse("VALIDATION_INVALID_VALUE", "query_relationships does not apply to element type 'book': "
                          "start from a shelf.", param_name="root.element_type")  # fmt: skip
        if ident not in (self.books if kind == "book" else self.shelves):
            return not_found(kind, ident, "list_books" if kind == "book" else "list_shelves")
        start, direction, wanted = f"{kind}:{ident}", params["direction"], params.get("relationship")
        depth = min(params.get("depth", 1), MAX_DEPTH)
        again = broken("features/relationship-queries:5:bounded-expansion")  # re-expands what it met (up to 5)
        twice = broken("features/relationship-queries:5:dedupe-visited")  # lists a node each time it meets it
        nodes, edges, links, frontier, visited = [start], [], [], [start], {start}
        for level in range(1, min(depth, MAX_DEPTH) + 1):
            reached = []
            for node in frontier:
                for source, target, kind_of, way in self.links(node, direction):
                    other, edge = (target if way == "outgoing" else source), (source, target, kind_of)
                    if wanted not in (None, kind_of) or (edge in edges and not again):
                        continue  # each link once: a cycle's closing edge is shown, not followed again
                    edges.append(edge)
                    links.append({"type": kind_of, "direction": way, "target": self.node(other), "depth": level})
                    if other not in visited or twice:
                        nodes.append(other)
                    if other not in visited or again:
                        reached.append(other)
                    visited.add(other)
            frontier = reached
        graph = {"nodes": [self.node(node) | {"id": node} for node in nodes],
                 "edges": [{"source": a, "target": b, "type": t} for a, b, t in edges]}  # fmt: skip
        found = {"root": self.node(start), "relationships": links, "graph": graph}
        return {"success": True, "data": sections(found, params.get("include"))}

    def links(self, node: str, direction: str) -> list[tuple[str, str, str, str]]:
        """(source, target, type, direction from ``node``) of each link at a node."""
        kind, ident = node.split(":", 1)
        if kind == "book":
            book = self.books.get(ident, {})
            out = [(node, f"shelf:{book['shelf_id']}", "shelved_on", "outgoing")] if book else []
            into = [(f"shelf:{book['shelf_id']}", node, "composes", "incoming")] if book else []
        else:
            shelved = [b for b in self.books if self.books[b]["shelf_id"] == ident]
            out = [(node, f"book:{b}", "composes", "outgoing") for b in shelved]
            into = [(f"book:{b}", node, "shelved_on", "incoming") for b in shelved]
        return {"outgoing": out, "incoming": into, "both": out + into}[direction]

    @staticmethod
    def node(node: str) -> JsonObject:
        kind, ident = node.split(":", 1)
        return {"element_type": kind, "element_name": ident}

    def get_book(self, params: JsonObject) -> JsonObject:
        book = self.books.get(params["book_id"])
        if book is None:
            return not_found("book", params["book_id"], "list_books")
        return self._shown(book, "Book", params.get("preset" if PRESET_ONLY else "fields", "full"))

    def add_book(self, params: JsonObject) -> JsonObject:
        if params["shelf_id"] not in self.shelves:
            return not_found("shelf", params["shelf_id"], "list_shelves")
        stamp, book_id = now(), f"book_{self.next_book}"
        book = {"book_id": book_id, "tags": [], "status": "to-read", **params, "added_at": stamp, "updated_at": stamp}
        self.books[book_id], self.next_book = book, self.next_book + 1
        return {"success": True, "data": json.loads(json.dumps(book))}

    def update_book(self, params: JsonObject) -> JsonObject:
        if broken("core:4.5:identifiers-in-params"):  # the locator inside input
            changes = dict(params["input"])
            params = {"book_id": changes.pop("book_id"), "input": changes}
        book = self.books.get(params["book_id"])
        if book is None:
            return not_found("book", params["book_id"], "list_books")
        changes: JsonObject = params["input"] if isinstance(params["input"], dict) else {}
        wanted = params.get("if_match")
        if wanted is not None and wanted != etag(book) and not broken("core:9.3.2:optimistic-concurrency"):
            said = f"Book '{params['book_id']}' is not version {wanted}: send the _etag update_book last answered."
            return refuse("CONFLICT_VERSION_MISMATCH", said, book_id=params["book_id"], if_match=wanted)
        if "shelf_id" in changes and changes["shelf_id"] not in self.shelves:
            return not_found("shelf", changes["shelf_id"], "list_shelves")
        if broken("core:4.5.1:deep-merge"):  # the input replaces the book: fields not given are lost
            kept = ("book_id", "shelf_id", "title", "status", "added_at")
            book = {k: v for k, v in book.items() if k in kept}
            self.books[params["book_id"]] = book
        for key, value in changes.items():  # flat fields: top-level replace, arrays replace, null removes
            if value is None:
                book.pop(key, None)
            elif isinstance(value, list) and broken("core:4.5.1:merge-result"):  # arrays merged, not replaced
                book[key] = [*book.get(key, []), *(item for item in value if item not in book.get(key, []))]
            else:
                book[key] = json.loads(json.dumps(value))
        book["updated_at"] = now()
        return {"success": True, "data": {**json.loads(json.dumps(book)), "_etag": etag(book)}}

    def delete_shelf(self, params: JsonObject) -> JsonObject:
        """Held for confirmation (operations §7.5, error-codes §5.4): a token per shelf, never guessed."""
        shelf_id = params["shelf_id"]
        if shelf_id not in self.shelves:
            return not_found("shelf", shelf_id, "list_shelves")
        token = params.get("confirmation_token")
        if token is None:
            self.confirmations[shelf_id] = f"conf_{secrets.token_hex(8)}"
            return refuse("CONFIRMATION_REQUIRED", "This operation requires confirmation.", operation="delete_shelf",
                          danger_level="destructive", reasons=[f"Permanently deletes shelf '{shelf_id}'"],
                          confirmation_token=self.confirmations[shelf_id])  # fmt: skip
        if token != self.confirmations.get(shelf_id):
            return refuse("VALIDATION_INVALID_VALUE", "Parameter 'confirmation_token' names no confirmation of this "
                          "shelf: call delete_shelf without it for one.", param_name="confirmation_token")  # fmt: skip
        if any(book["shelf_id"] == shelf_id for book in self.books.values()):
            return refuse("CONFLICT_RESOURCE_STATE", f"Shelf '{shelf_id}' still holds books: delete them first.",
                          shelf_id=shelf_id)  # fmt: skip
        del self.shelves[shelf_id], self.confirmations[shelf_id]
        return {"success": True, "data": {"shelf_id": shelf_id, "deleted": True}}

    def delete_book(self, params: JsonObject) -> JsonObject:
        book_id = params[DELETE_KEY]
        if self.books.pop(book_id, None) is None:
            return not_found("book", book_id, "list_books")
        return {"success": True, "data": {"book_id": book_id, "deleted": True}}


# --- Warnings (features/warnings): raised only by defects ----------------------------------------
SLOW = {"code": "PERFORMANCE_SLOW_QUERY_WARNING", "message": "Listing books was slow.", "severity": "low"}
OLD_INTROSPECT = {"code": "DEPRECATION_WARNING", "message": "Query 'types' will be renamed.",
                  "details": {"deprecated": "types", "replacement": "type_list"}}  # fmt: skip


def warned(operation: str, params: JsonObject, answer: JsonObject) -> JsonObject:
    """The warnings a success carries (features/warnings): none, save where a defect adds some."""
    raised = defect_warnings(operation, params)
    return answer | {"warnings": raised} if raised and answer.get("success") is True else answer


def defect_warnings(operation: str, params: JsonObject) -> list[JsonObject]:
    """The warnings a defect adds to the successes of ``operation`` called with ``params``."""
    if operation == "introspect" and broken("features/warnings:deduplication-recommendations:batch-summary"):
        return [OLD_INTROSPECT]  # each item of a batch of introspect calls carries it
    slow = {**SLOW, "details": {"elapsed_ms": 900}}
    if operation in ("list_books", "search_books", "query_books") and broken("features/warnings:3.2:high-sparingly"):
        return [{**SLOW, "details": {"operation": operation}, "severity": "high"}]  # every condition high
    if operation in ("search_books", "query_books") and broken("features/warnings:3.2:stable-severity"):
        return [slow]  # the condition list_books reports as high
    if operation != "list_books":
        return []
    if broken("features/warnings:6.4:at-most-ten"):
        return [{**SLOW, "details": {"elapsed_ms": 900, "index_hint": hint}} for hint in range(11)]
    if broken("features/warnings:server-side-deduplication:exact-duplicates"):
        return [slow, dict(slow)]
    if broken("features/warnings:6.2:should-list"):
        return [SLOW]
    if broken("features/warnings:3.2:stable-severity"):
        return [{**slow, "severity": "high"}]  # search_books gives the same warning as low (above)
    return []


# --- MCP (mcp-integration §2-4) --------------------------------------------------------------------
# fmt: off
FAMILY_TEXT = {
    "create": "Additive operations that create new data.|These operations add new data without removing or "
              "overwriting existing content.",
    "read": "Safe, read-only operations.|These queries only read data and never modify server state.",
    "lookup": "Lookups of shelves and books.|These operations change nothing.",
    "books": "Lookups of shelves and books.\n\nPrimary semantic categories: READ|These operations change nothing.",
    "update": "Modifying operations that overwrite data.|These operations modify existing data, potentially "
              "overwriting previous values.",
    "delete": "Destructive operations that remove data.|These operations remove data. Use with caution.",
    "execute": "Execution lifecycle operations.|These operations start, confirm and end monitored agent "
               "executions (the execution safety loop). IMPORTANT: Execute operations are potentially destructive "
               "and non-idempotent.",
}
SCHEMA = {"type": "object", "properties": {
    "operation": {"type": "string", "description": "Operation name to execute"},
    "params": {"type": "object", "description": "Operation parameters", "additionalProperties": True},
    "operations": {"type": "array", "items": {"type": "object"}, "description": "A batch instead of operation: "
                   "[{operation, params}, ...], run in order, one result each"}}, "required": ["operation"]}

# fmt: on


def input_schema() -> JsonObject:
    """The tools' input schema (mcp-integration §3.1); a server with no MCP-AQL tool takes `action`."""
    if broken("mcp:3.1:base-input-schema"):  # params as a JSON string
        return {**SCHEMA, "properties": {**SCHEMA["properties"], "params": {"type": "string"}}}
    if broken("operations:2.2:operation-field"):  # operation optional: a call without it is taken
        return {**SCHEMA, "required": []}
    if broken("mcp:3.1:operation-required"):  # operation optional, and no batch to excuse it
        properties = {k: v for k, v in SCHEMA["properties"].items() if k != "operations"}
        return {"type": "object", "properties": properties}
    if not broken("core:3.3:one-mode"):
        return SCHEMA
    properties = {("action" if k == "operation" else k): v for k, v in SCHEMA["properties"].items()}
    return {**SCHEMA, "properties": properties, "required": ["action"]}


def tool_entry(name: str, family: str | None) -> JsonObject:
    """One MCP tool: the description templates of mcp-integration §2.1 and the annotations of §2.3."""
    if family is None:
        lists = "\n".join(
            f"- {c.title()}: " + (", ".join(op["name"] for op in OPERATIONS if op["semantic_category"] == c) or "none")
            for c in CATEGORIES
        )
        text = (
            f"MCP-AQL reading-list adapter. All operations through unified entry point.\n\nOperations are "
            f"automatically routed based on their documented semantic category and endpoint-family mapping."
            f'\n\nSupported operation categories:\n{lists}\n\nQuick start:\n{{ operation: "introspect", '
            f'params: {{ query: "operations" }} }}\n\nUse introspection to discover all available operations '
            f"and their parameters. Batch: {{ operations: [{{ operation, params }}, ...] }}."
        )
        if broken("endpoint-modes:5.4:unified-description"):  # no families or categories, no call shown
            text = "MCP-AQL reading-list adapter. Use introspect to learn what it offers."
        return {
            "name": name,
            "description": text,
            "inputSchema": input_schema(),
            "annotations": {"readOnlyHint": False, "destructiveHint": True},
        }
    ops = [op for op in OPERATIONS if op["endpoint"] == family]
    purpose, effect = FAMILY_TEXT[family].split("|")
    shown = [op for op in ops if op["name"] != "introspect"]  # a quick start beside the introspect guidance
    sample = json.dumps(shown[0]["examples"][-1]["request"]) if shown else '{"operation": "introspect"}'
    text = (
        f"{purpose}\n\nSupported operations: {', '.join(op['name'] for op in ops) or 'none'}\n\n{effect}\n\n"
        f"Quick start example:\n{sample}\n\nDiscover all operations and parameters (on the "
        f"{family_of('READ')} endpoint):\n"
        '{ operation: "introspect", params: { query: "operations" } }\n{ operation: "introspect", '
        'params: { query: "operations", name: "<operation>" } }'
    )
    if family == "create" and broken("mcp:2.1:introspect-in-descriptions"):
        text = text.split("\n\nDiscover all operations")[0]  # says nothing of introspect
    if family == "update" and broken("mcp:2.1.1:crude-templates"):  # no quick-start call of update_book
        text = text.replace(f"Quick start example:\n{sample}\n\n", "")
    if family == "delete" and broken("mcp:2.1.1:purpose-and-kinds"):  # opens with the list: no purpose
        text = text.split("\n\n", 1)[1]
    category = next(c for c in CATEGORIES if family_of(c) == family)
    read_only, destructive = PERMISSIONS[category]
    if family == "delete" and broken("mcp:2.3:conservative-annotations"):
        destructive = False
    entry = {"name": name, "description": text, "inputSchema": input_schema()}
    if broken("mcp:2.3:tool-annotations"):
        return entry
    return entry | {"annotations": {"readOnlyHint": read_only, "destructiveHint": destructive}}


MODE = "MCP_AQL_ENDPOINT_MODE"


def started_before() -> bool:
    """Whether this server was started before in the same run: ``$READING_RUN`` names the run
    (the proofs set it; a server started from a warm zygote has no telling parent), else the
    process that started it (capture, through its warden: its pid and start time). A marker per
    run in the safety loop's folder."""
    run = os.environ.get("READING_RUN", "")
    if not run:
        try:
            starter = Path(f"/proc/{os.getppid()}/stat").read_text().rpartition(")")[2].split()[1]
            run = starter + "-" + Path(f"/proc/{starter}/stat").read_text().rpartition(")")[2].split()[19]
        except (OSError, IndexError):
            run = str(os.getppid())
    marker = reading_safety.STORE / f"started-{re.sub(r'[^A-Za-z0-9-]', '', run)[:80]}.json"
    if marker.exists():
        return True
    reading_safety.STORE.mkdir(parents=True, exist_ok=True)
    marker.write_text("{}", encoding="utf-8")
    return False


def configuration(argv: list[str]) -> tuple[str, str]:
    """The endpoint mode (endpoint-modes §3.1) and the tool prefix (mcp-integration §6.2)."""
    default = "single" if broken("endpoint-modes:3.2:default-crude") else "semantic"
    mode = default if broken("endpoint-modes:3.1:runtime-mode-selection") else os.environ.get(MODE, default)
    if "--mode" in argv and argv.index("--mode") + 1 < len(argv):
        mode = argv[argv.index("--mode") + 1]
    mode = {"crude": "semantic"}.get(mode, mode)
    prefix = "" if broken("mcp:6.2:tool-prefix") else os.environ.get("MCP_AQL_TOOL_PREFIX", "")
    if mode not in ("semantic", "single", "all") or (prefix and not re.fullmatch(r"[a-z0-9_]*_", prefix)):
        sys.exit(
            f"reading_server: mode must be semantic, single or all (got {mode!r}); a tool prefix must be "
            f"lowercase letters, digits and underscores ending in '_' (got {prefix!r})"
        )
    return mode, prefix


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))  # run as a script: its neighbour servers.py
    from servers import rpc_reply, serve_stdio, text_result

    mode, prefix = configuration(sys.argv[1:])
    store = ReadingList(mode, prefix)
    tools = [tool_entry(name, family) for name, family in store.tools().items()]

    def call(tool: str, arguments: JsonObject) -> JsonObject:
        try:
            answer = store.answer(tool, arguments)
        except Exception:  # never a stack trace (introspection §8.1.3)
            answer = refuse("INTERNAL_ERROR", "Internal error: 'the request could not be completed'")
        error = answer.get("error") if isinstance(answer.get("error"), dict) else {}
        recoverable = answer.get("success", True) is True or str(error.get("code", "")).startswith(RECOVERABLE_PREFIXES)
        if not isinstance(arguments.get("params", {}), dict) or not isinstance(
            arguments.get("operation", arguments.get("operations", "")), str | list
        ):  # the input schema broken before dispatch: unrecoverable (mcp-integration §4.1.2)
            recoverable = False
        if tool not in store.tools():  # a tool this mode does not register: a protocol failure
            answer = refuse(
                "NOT_FOUND_OPERATION",
                f"Unknown tool '{tool[:80]}'; this server's tools are {', '.join(store.tools())}.",
                available=list(store.tools()),
            )
            recoverable = False
        if answer.get("success") is False and not broken("core:2.3.5:session-id-reported"):
            answer = {**answer, "_meta": {"session_id": store.session}}  # for debugging (core §2.3.5)
        if str(error.get("code", "")).startswith("VALIDATION_") and broken("mcp:4.2:domain-errors-as-results"):
            return {"content": [{"type": "text", "text": str(error.get("message"))}], "isError": True}
        if str(error.get("code", "")).startswith("VALIDATION_") and broken("mcp:4.2:no-jsonrpc-codes"):
            return {"rpc_error": {"code": -32602, "message": str(error.get("message"))}}
        return {**text_result(answer), "isError": not recoverable}

    def reply(message: JsonObject) -> JsonObject | None:
        params = message.get("params") or {}
        tool = str(params.get("name"))
        if message.get("method") == "initialize":
            store.session = secrets.token_hex(8)  # a new session (core §2.3)
        log = os.environ.get("READING_LOG")
        if message.get("method") == "tools/call" and log:
            arguments = params.get("arguments") or {}
            with open(log, "a", encoding="utf-8") as sink:
                sink.write(json.dumps({"tool": tool, **arguments}) + "\n")
        token = (params.get("_meta") or {}).get("progressToken") if isinstance(params.get("_meta"), dict) else None
        if message.get("method") == "tools/call" and token is not None:
            for notice in reading_safety.progress(token, params.get("arguments") or {}):  # mcp-integration §5
                sys.stdout.write(json.dumps(notice) + "\n")
        answer = rpc_reply(message, "reading-list", lambda arguments: call(tool, arguments), tools)
        if answer is not None and message.get("method") == "initialize" and broken("core:4.7.1:utf-8"):
            answer["result"]["instructions"] = "Bücher: call introspect first."  # written as Latin-1 below
            sys.stdout.flush()
            sys.stdout.buffer.write((json.dumps(answer, ensure_ascii=False) + "\n").encode("latin-1"))
            sys.stdout.buffer.flush()
            return None
        if answer is not None and "rpc_error" in (answer.get("result") or {}):  # a domain error as JSON-RPC's
            answer = {"jsonrpc": "2.0", "id": answer["id"], "error": answer["result"]["rpc_error"]}
        return answer

    serve_stdio(reply, encoding_checked=False)  # it reads bytes that are not UTF-8 itself (scan)


if __name__ == "__main__":
    main()
