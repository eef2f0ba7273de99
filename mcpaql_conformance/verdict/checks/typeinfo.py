"""Types and names introspection answers for (part of Introspection Fidelity).

- Every domain type an operation's ``returns`` names is listed by ``introspect {query: types}``
  (core §9.2, a MUST); primitives (``string``, ``Widget[]``'s element aside) are no types at
  all. The protocol types are a SHOULD of their own (introspection §5.3): the list lacking the
  two the core defines (§9.1: SemanticCategory, OperationResult), or one an operation returns,
  warns.
- Every type's details are valid TypeDetails (introspection §3.6, §5.2: an enum lists its
  values, an object its fields as ParameterInfo, a union its members), and a detail query for a
  listed type answers one (introspection §8.1 item 6).
- A detail query for a name that does not exist answers success with ``null`` (introspection
  §4.3 and §8.1 item 9, with the normative schema's ``operation``/``type``: details or null):
  a correct null passes, a refusal or someone else's details fail.
"""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import TYPE_NAME_KEYS, data_of, name_of, returned_type, types_of
from mcpaql_conformance.files.schemas import introspection_schema
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

# Not domain types: JSON's own, their common spellings, and "nothing" (core §9.1 uses these).
JSON_TYPES = frozenset(
    {"string", "number", "integer", "boolean", "object", "array", "null", "int", "float", "bool", "str", "list",
     "dict", "any", "unknown", "void", "none", "json", "undefined"}
)  # fmt: skip
# Names of scalars a server need not list, unless its `returns` says the type is its own (kind object,
# enum or union): a `Url` object is the server's.
SCALAR_NAMES = frozenset(
    {"date", "datetime", "date-time", "timestamp", "time", "uuid", "uri", "url", "email", "binary", "bytes",
     "double", "long", "decimal", "text", "map", "record"}
)  # fmt: skip
PROTOCOL_TYPES = frozenset(
    {"SemanticCategory", "OperationInput", "OperationResult", "OperationSuccess", "OperationFailure",
     "EndpointPermissions"}
)  # fmt: skip
CORE_PROTOCOL_TYPES = ("SemanticCategory", "OperationResult")  # the two core §9.1 names
PROTOCOL_TYPES_RULE = "introspection:5.3:protocol-types"
_TYPE_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_.]*")
_WRAPPERS = lazy(r"^(?:Array|List|list|array|Promise|Optional)\s*[<\[](.*)[>\]]$")

DISCOVERABLE = "core:9.2:types-discoverable"
MUST_LIST = "introspection:8.1:must-list"
UNKNOWN_NULL = "introspection:4.3:unknown-operation-null"


def listed_types(ctx: Context) -> set[str] | None:
    """The names the types list answered (None: no list was recorded or read)."""
    entries = types_of(ctx.bundle.types_list)[0]
    if entries is None:
        return None
    return {name for entry in entries if (name := name_of(entry, TYPE_NAME_KEYS)[0]) is not None}


def returned_names(declared: str, kind: Any = None) -> list[str]:
    """The type names a ``returns`` declares: ``Note``, ``Note[]``, ``Array<Note>``, ``A | B``;
    none for a primitive (unless ``kind`` says it is an object, enum or union: a type named
    ``Url`` of kind object is the server's own) or a spelling we cannot read."""
    own = kind in ("object", "enum", "union")
    names: list[str] = []
    for part in declared.split("|"):
        name = part.strip()
        while (inner := _WRAPPERS.match(name)) is not None:
            name = inner.group(1).strip()
        name = name.removesuffix("[]").removesuffix("?").strip()
        lowered = name.lower()
        if _TYPE_NAME.fullmatch(name) and lowered not in JSON_TYPES and (own or lowered not in SCALAR_NAMES):
            names.append(name)
    return names


def undiscoverable(ctx: Context) -> tuple[list[str], list[str]]:
    """(failures, warnings): a domain type an operation returns that the types list does not
    name fails; a protocol type (introspection §5.3 asks the list to hold them) warns."""
    listed = listed_types(ctx)
    if listed is None:
        return [], []
    failures: list[str] = []
    lacking = [name for name in CORE_PROTOCOL_TYPES if name not in listed]
    warnings: list[str] = []
    if lacking:
        text = f"the types list lacks the protocol type(s) {', '.join(lacking)} (core §9.1 defines them)"
        warnings.append(cite(PROTOCOL_TYPES_RULE, text))
    for operation, detail in ctx.details_by_name.items():
        if operation == "introspect":
            continue  # its result is the spec's own
        returns = detail.get("returns")
        kind = returns.get("kind") if isinstance(returns, dict) else None
        for name in returned_names(returned_type(returns) or "", kind):
            if name in listed:
                continue
            text = f"{operation}: returns {plain(name)!r}, which introspect {{query: types}} does not list"
            if name in PROTOCOL_TYPES:
                warnings.append(cite(PROTOCOL_TYPES_RULE, text))
            else:
                failures.append(cite(DISCOVERABLE, text))
    return list(dict.fromkeys(failures)), list(dict.fromkeys(warnings))


def type_detail_failures(ctx: Context) -> tuple[list[str], int]:
    """Each recorded type detail that is no valid TypeDetails, and each detail query of a listed
    type that answered none (``type_queries``); with how many were judged."""
    schema = introspection_schema("TypeDetails")
    details = ctx.bundle.introspection.get("type_details")
    entries = details if isinstance(details, list) else []
    failures: list[str] = []
    for index, entry in enumerate(entries):
        if schema.is_valid(entry):
            continue
        name = name_of(entry, TYPE_NAME_KEYS)[0] if isinstance(entry, dict) else None
        where = f"type {plain(name)}" if name else f"$.introspection.type_details[{index}]"
        failures.append(cite(MUST_LIST, f"{where}: not valid TypeDetails ({'; '.join(schema.explain(entry))})"))
    queries = _list(ctx.bundle.introspection.get("type_queries"))
    for case in queries:
        name = str(case.get("type"))
        failures.append(cite(MUST_LIST, f"introspect {{query: types, name: {plain(name)}}}: {_type_answer(case)}"))
    return failures, len(entries) + len(queries)


def _type_answer(case: JsonObject) -> str:
    answer = classify(case.get("response"))
    if answer.refused:
        return f"refused ({answer.describe()})"
    data, _ = data_of(case.get("response"))
    if isinstance(data, dict) and "type" in data and data["type"] is None:
        return "answered `type: null` for a listed type"
    return f"gave no TypeDetails under data.type ({answer.describe()})"


def unknown_name_findings(ctx: Context, query: str) -> tuple[list[str], int]:
    """Failures of the detail queries for made-up names (``unknown_name_queries`` of ``query``):
    anything but ``{success: true, data: {operation|type: null}}``; with how many were judged."""
    key = "operation" if query == "operations" else "type"
    cases = [
        case for case in _list(ctx.bundle.introspection.get("unknown_name_queries")) if case.get("query") == query
    ]  # json: our query word
    failures: list[str] = []
    for case in cases:
        problem = unknown_name_problem(case.get("response"), key)
        if problem is not None:
            name = plain(str(case.get("name")), max_len=80)
            text = f"introspect {{query: {query}, name: {name}}} (no such {key}): {problem}"
            failures.append(cite(UNKNOWN_NULL, text))
    return failures, len(cases)


def unknown_name_problem(response: Any, key: str) -> str | None:
    """What is wrong with the answer to a detail query for a name that does not exist (None:
    success with ``data.<key>: null``, as introspection §4.3 shows)."""
    answer = classify(response)
    if answer.refused:
        return f"refused where it should succeed with `{key}: null` ({answer.describe()})"
    if not answer.succeeded:
        return f"answered no result ({answer.describe()})"
    data = response.get("data") if isinstance(response, dict) else None
    if data is None:
        return None  # "a success response with null data" (§4.3), read as the sentence says it
    if not isinstance(data, dict) or key not in data:  # json: a key looked up
        return f"succeeded without `data.{key}` (expected `{key}: null`)"
    if data[key] is not None:
        found = name_of(data[key], TYPE_NAME_KEYS)[0] if isinstance(data[key], dict) else None
        said = f"the details of {plain(found)!r}" if found else "a value"
        return f"answered {said} instead of `{key}: null`"
    return None


def _list(value: Any) -> list[JsonObject]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
