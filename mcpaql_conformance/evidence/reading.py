"""Lenient reading of what a server says about itself: the best reading the evidence allows.

Real servers deviate from the introspection shapes: names under ``element_name``,
the category only as an upper-case ``endpoint``, parameters as a map, the list in a
bare array. Capture and the checks read introspection through these functions, so
the other tests are judged on what the server meant, while the test that owns each
deviation fails it, naming the reading it took ("read `element_name` as the
operation name"). Every reading is a fixed sentence, so that readings of many
entries aggregate into one line.

Safety never depends on a reading: ``declared_categories`` collects every category
that any field of any declaration names, so a lenient reading can only make an
operation more destructive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcpaql_conformance.files.values import show
from mcpaql_conformance.files.vocabulary import SEMANTIC_CATEGORIES as CRUDE_CATEGORIES
from mcpaql_conformance.regex import lazy

JsonObject = dict[str, Any]

OPERATION_NAME_KEYS = ("name", "element_name", "operation_name", "operation", "op_name", "op", "id", "key")
TYPE_NAME_KEYS = ("name", "type_name", "element_name", "typeName", "id", "key")
PARAMETER_NAME_KEYS = ("name", "param_name", "parameter_name", "param", "parameter", "element_name", "field", "key")
CATEGORY_KEYS = ("semantic_category", "semanticCategory", "category", "crude_category", "crudeCategory")
PARAMETER_LIST_KEYS = ("parameters", "params", "inputs", "arguments", "args")
# The cross-cutting parameters of operations §4.4.1 (`query` aside: a search_* operation takes text
# in it, a query_* one an object, both as the table says).
CROSS_CUTTING = ("fields", "filter", "sort", "aggregate", "first", "after", "last", "before", "limit", "offset",
                 "page", "page_size", "dry_run")  # fmt: skip
SCHEMA_KEYS = ("inputSchema", "input_schema")
LIST_KEYS = ("operations", "items", "results", "list")
TYPE_LIST_KEYS = ("types", "items", "results", "list")
DETAIL_KEYS = ("operation", "operation_details", "details", "detail")
_TRUE_WORDS = frozenset({"true", "yes", "required"})
_FALSE_WORDS = frozenset({"false", "no", "optional"})


@dataclass
class Readings:
    """The lenient readings taken, each with the names of the entries it was taken for."""

    taken: dict[str, list[str]] = field(default_factory=dict)

    def add(self, reading: str, name: str) -> None:
        self.taken.setdefault(reading, []).append(name)

    def merge(self, other: Readings) -> None:
        for reading, names in other.taken.items():
            self.taken.setdefault(reading, []).extend(names)

    def lines(self, what: str, limit: int = 5) -> list[str]:
        """``read `element_name` as the operation name (76 operation(s): a, b, c, d, e (+71 more))``."""
        lines = []
        for reading, names in self.taken.items():
            unique = [name for name in dict.fromkeys(names) if name]
            if not unique:  # a reading of a whole answer, not of entries
                lines.append(reading)
                continue
            shown = ", ".join(unique[:limit]) + (f" (+{len(unique) - limit} more)" if len(unique) > limit else "")
            count = f"{len(unique)} {what}(s)" if what else str(len(unique))
            lines.append(f"{reading} ({count}: {shown})")
        return lines

    def __bool__(self) -> bool:
        return bool(self.taken)


# --- names and categories -----------------------------------------------------------------


def name_of(entry: Any, keys: tuple[str, ...] = OPERATION_NAME_KEYS) -> tuple[str | None, str | None]:
    """The entry's name and the key it was read from when that is not ``name``."""
    if not isinstance(entry, dict):
        return None, None
    for key in keys:
        value = entry.get(key)
        if isinstance(value, str) and value.strip():
            return value, None if key == "name" else key
    return None, None


def category_of(entry: Any) -> tuple[str | None, str | None]:
    """The entry's CRUDE category (upper case) and the reading it took, if any."""
    if not isinstance(entry, dict):
        return None, None
    for key in CATEGORY_KEYS:
        value = entry.get(key)
        if isinstance(value, str) and value.strip().upper() in CRUDE_CATEGORIES:
            category = value.strip().upper()
            if key == "semantic_category" and value == category:
                return category, None
            if key == "semantic_category":
                return category, "read a `semantic_category` in another case or spacing as the semantic category"
            return category, f"read `{key}` as the semantic category"
    endpoint = entry.get("endpoint")
    if isinstance(endpoint, str) and endpoint.strip().upper() in CRUDE_CATEGORIES:
        category = endpoint.strip().upper()
        return category, "read the CRUDE word in `endpoint` as the semantic category (no `semantic_category`)"
    return None, None


# A word of letters in any case style: ``HTTPServer`` is HTTP + Server, ``softDelete`` soft + Delete.
# Each alternative consumes what it matched, so a name of any length is read in linear time.
_WORD = lazy(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# Where a camelCase or PascalCase name changes words (``mcpAqlDelete``, ``MCPAQLDelete``).
_CASE_BREAK = lazy(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def name_words(name: Any) -> list[str]:
    """The lower-case words of a tool, family or operation name in any case style and at any
    length (``mcp_aql_delete_v2``: mcp, aql, delete, v; ``mcpAqlSoftDelete``: mcp, aql, soft, delete)."""
    return [word.lower() for word in _WORD.findall(name)] if isinstance(name, str) else []


def snake_case(name: str) -> str:
    """A name in lower snake case, whatever its style (``mcpAqlDelete``, ``MCP-AQL.Read``)."""
    return _SEPARATORS.sub("_", _CASE_BREAK.sub("_", name).lower()).strip("_")


def tool_category(tool: Any) -> str | None:
    """The CRUDE category a tool name ends in (``mcp_aql_delete``, ``mcpaql-Delete``), if any."""
    words = name_words(tool)
    last = words[-1].upper() if words else ""
    return last if last in CRUDE_CATEGORIES else None


def tool_categories(tool: Any) -> set[str]:
    """Every CRUDE category a tool name mentions (``mcp_aql_delete_v2``: DELETE)."""
    return {word.upper() for word in name_words(tool) if word.upper() in CRUDE_CATEGORIES}


def declared_categories(*entries: Any) -> set[str]:
    """Every CRUDE category that any field of any of these declarations names."""
    found: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        for key in (*CATEGORY_KEYS, "endpoint"):
            value = entry.get(key)
            if isinstance(value, str) and value.strip().upper() in CRUDE_CATEGORIES:
                found.add(value.strip().upper())
        found |= tool_categories(entry.get("mcpTool"))
    return found


def declares_destructive(*entries: Any) -> bool:
    """Whether any declaration says destructive, or says "not read-only" in a way that is not
    plainly ``false`` (fail safe: ``"destructive": "false"`` is not a plain false)."""
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        permissions = entry.get("permissions")
        for source in (entry, permissions if isinstance(permissions, dict) else {}):
            for key in ("destructive", "destructiveHint", "is_destructive", "dangerous"):
                if key in source and source[key] is not False and source[key] is not None:
                    return True
        danger = entry.get("danger_level")
        if isinstance(danger, str) and danger.strip().lower() not in ("safe", "none", "low", "read", "readonly"):
            return True
    return False


def declared_names(*entries: Any) -> list[str]:
    """Every name any of these declarations gives: under each name key, its ``mcpTool`` and its
    ``endpoint`` (danger is read from all of them, never from the chosen reading alone)."""
    found: list[str] = []
    for entry in entries:
        if isinstance(entry, dict):
            values = (entry.get(key) for key in (*OPERATION_NAME_KEYS, "mcpTool", "endpoint"))
            found += [value for value in values if isinstance(value, str)]
    return found


def declares_read_only(*entries: Any) -> bool:
    """Whether every declaration that speaks of it says read-only, and at least one does."""
    said = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        permissions = entry.get("permissions")
        for source in (entry, permissions if isinstance(permissions, dict) else {}):
            if "readOnly" in source:
                said.append(source["readOnly"] is True)
    return bool(said) and all(said)


# --- answers: where the data is ------------------------------------------------------------


def data_of(answer: Any) -> tuple[Any, str | None]:
    """The payload of an introspect answer and the reading it took (``result`` for ``data``)."""
    if not isinstance(answer, dict):
        return None, None
    if "data" in answer:
        return answer["data"], None
    if "result" in answer:
        return answer["result"], "read `result` as the answer's `data`"
    return answer, "read the answer itself as its `data` (no `data` field)"


def _entries(data: Any, keys: tuple[str, ...], what: str) -> tuple[list[Any] | None, str | None]:
    if isinstance(data, list):
        return data, f"read a bare array as the {what} list"
    if not isinstance(data, dict):
        return None, None
    for key in keys:
        if isinstance(data.get(key), list):
            return data[key], None if key == keys[0] else f"read `{key}` as the {what} list"
    return None, None


def _listed(answer: Any, keys: tuple[str, ...], what: str) -> tuple[list[Any] | None, Readings]:
    """The list of an introspect list answer, wherever the server put it, and how it was read."""
    readings = Readings()
    data, how = data_of(answer)
    entries, where = _entries(data, keys, what)
    if entries is not None:
        for reading in (how, where):
            if reading:
                readings.add(reading, "")
    return entries, readings


def operations_of(answer: Any) -> tuple[list[JsonObject] | None, Readings]:
    """Entries of an ``introspect {query: operations}`` answer (None: no list found)."""
    entries, readings = _listed(answer, LIST_KEYS, "operations")
    return (None if entries is None else _ungrouped(entries, readings)), readings


def declarations_of(answer: Any) -> dict[str, list[JsonObject]]:
    """Every declaration the operations list makes about each operation: its entries (twins
    included) and, for entries grouped by endpoint, the group too (the group's category
    counts even where the entry says otherwise)."""
    entries, _ = _listed(answer, LIST_KEYS, "operations")
    found: dict[str, list[JsonObject]] = {}
    for entry in entries or []:
        if not isinstance(entry, dict):
            continue
        nested = entry.get("operations")
        if name_of(entry)[0] is None and isinstance(nested, list):
            group = {k: v for k, v in entry.items() if k != "operations"}
            for item in nested:
                if isinstance(item, dict) and (name := name_of(item)[0]) is not None:
                    found.setdefault(name, []).extend([item, group])
        elif (name := name_of(entry)[0]) is not None:
            found.setdefault(name, []).append(entry)
    return found


def _ungrouped(entries: list[Any], readings: Readings) -> list[JsonObject]:
    """Entries grouped by endpoint (``[{endpoint, operations: [...]}]``) flattened."""
    if not any(isinstance(e, dict) and "operations" in e for e in entries):  # the common case: a flat list
        return [e for e in entries if isinstance(e, dict)]
    flat: list[JsonObject] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        nested = entry.get("operations")
        if name_of(entry)[0] is None and isinstance(nested, list):
            group = {k: v for k, v in entry.items() if k != "operations"}
            for item in nested:
                if isinstance(item, dict):
                    flat.append({**group, **item})
                    readings.add("read operations grouped by endpoint as one list", name_of(item)[0] or "?")
            continue
        flat.append(entry)
    return flat


def types_of(answer: Any) -> tuple[list[JsonObject] | None, Readings]:
    """Entries of an ``introspect {query: types}`` answer (None: no list found)."""
    entries, readings = _listed(answer, TYPE_LIST_KEYS, "types")
    return (None if entries is None else [entry for entry in entries if isinstance(entry, dict)]), readings


@dataclass(frozen=True)
class DetailReading:
    """What a detail answer gave: the detail (raw, as sent), the readings, or the problem."""

    detail: JsonObject | None
    readings: Readings
    problem: str | None = None
    candidate: JsonObject | None = None  # a detail found under another name: not this operation's,
    # but still a declaration for safety


def detail_of(answer: Any, requested: str) -> DetailReading:
    """The OperationDetails of ``requested`` in an ``introspect {query: operations, name}`` answer."""
    from mcpaql_conformance.evidence.answers import classify

    readings = Readings()
    verdict = classify(answer)
    if verdict.refused:
        return DetailReading(None, readings, f"refused: {verdict.describe()}")
    data, how = data_of(answer)
    if how:
        readings.add(how, requested)
    if isinstance(data, dict):
        for key in DETAIL_KEYS:
            if key not in data:
                continue
            found = data[key]
            if found is None:
                return DetailReading(None, readings, f"answered `{key}: null` for a listed operation")
            # under the spec's own key, an object named as asked is its detail, however partial
            # ({name, endpoint, description}): kept, for the schema to name what it lacks
            partial = key == "operation" and isinstance(found, dict) and name_of(found)[0] == requested
            if isinstance(found, dict) and (partial or _looks_like_detail(found)):
                if key != "operation":
                    readings.add(f"read `{key}` as the operation detail", requested)
                return _named(found, requested, readings)
        if _looks_like_detail(data) and name_of(data)[0] is not None:
            readings.add("read the answer's data itself as the operation detail", requested)
            return _named(data, requested, readings)
    entries, _ = _entries(data, LIST_KEYS, "operations")
    if entries is not None:
        match = next((e for e in _ungrouped(entries, Readings()) if name_of(e)[0] == requested), None)
        if match is not None and _looks_like_detail(match):
            readings.add("found the detail in an operations list (the `name` filter was ignored)", requested)
            return DetailReading(match, readings)
        return DetailReading(None, readings, "answered the operations list instead of the detail (ignored `name`)")
    return DetailReading(None, readings, f"gave no operation detail ({verdict.describe()})")


TYPE_DETAIL_KEYS = ("type", "type_details", "typeDetails", "details", "detail")


def type_detail_of(answer: Any, requested: str) -> tuple[JsonObject | None, str | None]:
    """The TypeDetails of ``requested`` in an ``introspect {query: types, name}`` answer, read
    leniently (under `data.type`, the data itself, or a types list that ignored `name`), and the
    problem when there is none."""
    from mcpaql_conformance.evidence.answers import classify

    verdict = classify(answer)
    if verdict.refused:
        return None, f"refused: {verdict.describe()}"
    data, _ = data_of(answer)
    if isinstance(data, dict):
        for key in TYPE_DETAIL_KEYS:
            found = data.get(key)
            if isinstance(found, dict) and name_of(found, TYPE_NAME_KEYS)[0] in (requested, None):
                return read_type(found, Readings()), None
        if name_of(data, TYPE_NAME_KEYS)[0] == requested:
            return read_type(data, Readings()), None
    entries, _ = _entries(data, TYPE_LIST_KEYS, "types")
    for entry in entries or []:
        if isinstance(entry, dict) and name_of(entry, TYPE_NAME_KEYS)[0] == requested:
            return read_type(entry, Readings()), None
    return None, f"gave no type detail ({verdict.describe()})"


def documents_shape(entry: Any) -> bool:
    """Whether a type entry says what its values look like (fields or enum values)."""
    return isinstance(entry, dict) and (isinstance(entry.get("fields"), list) or isinstance(entry.get("values"), list))


def _named(detail: JsonObject, requested: str, readings: Readings) -> DetailReading:
    name = name_of(detail)[0]
    if name is not None and name != requested:
        return DetailReading(None, readings, f"answered the detail of {name!r} instead", candidate=detail)
    return DetailReading(detail, readings)


def _looks_like_detail(entry: JsonObject) -> bool:
    keys = set(entry)
    return bool(keys & {*PARAMETER_LIST_KEYS, *SCHEMA_KEYS, "mcpTool", "permissions", "returns"})


# --- normalised entries ------------------------------------------------------------------------


def label(entry: Any, keys: tuple[str, ...] = OPERATION_NAME_KEYS) -> str:
    """How to name an entry in a message: its name, else what stands under `name`, else unnamed."""
    name = name_of(entry, keys)[0]
    if name is not None:
        return name
    return show(entry.get("name")) if isinstance(entry, dict) and "name" in entry else "(unnamed)"


def read_entry(raw: JsonObject, readings: Readings) -> JsonObject:
    """An operations-list entry as the spec shapes it (a copy only when something was read)."""
    entry = raw
    name, key = name_of(raw)
    if key is not None:
        entry = {**entry, "name": name}
        readings.add(f"read `{key}` as the operation name", str(name))
    category, how = category_of(raw)
    if how is not None:
        entry = {**entry, "semantic_category": category}
        readings.add(how, label(raw))
        endpoint = raw.get("endpoint")
        if isinstance(endpoint, str) and endpoint.strip().upper() == category:
            entry["endpoint"] = category.lower() if category else endpoint  # the CRUDE profile's family
    return entry


def read_detail(raw: JsonObject, readings: Readings) -> JsonObject:
    """An OperationDetails object as the spec shapes it, and the readings it took."""
    detail = read_entry(raw, readings)
    name = label(raw)
    parameters, how = parameters_of(raw)
    if how is not None and parameters is not None:
        detail = {**detail, "parameters": parameters}
        readings.add(how, name)
    elif parameters is not None and any(p is not q for p, q in zip(parameters, raw["parameters"], strict=True)):
        detail = {**detail, "parameters": parameters}  # some parameter entries were read leniently
    for parameter_reading in _parameter_readings(raw):
        readings.add(parameter_reading, name)
    returns = raw.get("returns")
    type_name, key = name_of(returns, TYPE_NAME_KEYS)
    if isinstance(returns, dict) and key is not None:
        detail = {**detail, "returns": {**returns, "name": type_name}}
        readings.add(f"read `{key}` as the return type's name", name)
    return detail


def returned_type(returns: Any) -> str | None:
    """The type an operation's ``returns`` names (``"Note"``, ``{"name": "Note"}``, or the name
    under another key), stripped; None when it names none."""
    if isinstance(returns, str):
        return returns.strip() or None
    name = name_of(returns, TYPE_NAME_KEYS)[0]
    return name.strip() if name else None


_IDENTIFIER_BREAKS = lazy(r"[_\W]+|(?<=[a-z])(?=[A-Z])")


def identifier_words(name: str) -> list[str]:
    """The words of an identifier in any case style (``create_note``, ``addBookmark``)."""
    return [word for word in _IDENTIFIER_BREAKS.split(name) if word]


def read_type(raw: JsonObject, readings: Readings) -> JsonObject:
    name, key = name_of(raw, TYPE_NAME_KEYS)
    if key is None:
        return raw
    readings.add(f"read `{key}` as the type name", str(name))
    return {**raw, "name": name}


def parameters_of(detail: Any) -> tuple[list[JsonObject] | None, str | None]:
    """A detail's parameters (each as the spec shapes it) and the reading it took for the list.
    None: the detail says nothing about its parameters."""
    if not isinstance(detail, dict):
        return None, None
    for key in PARAMETER_LIST_KEYS:
        value = detail.get(key)
        if isinstance(value, list):
            how = None if key == "parameters" else f"read `{key}` as the parameter list"
            # Entries that are not objects stay, for the schema check to name them.
            return [_parameter(p) if isinstance(p, dict) else p for p in value], how
        if isinstance(value, dict):
            return _from_map(value), f"read the `{key}` map keyed by name as the parameter list"
    for key in SCHEMA_KEYS:
        schema = detail.get(key)
        if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
            listed = schema.get("required")
            required: list[Any] = listed if isinstance(listed, list) else []
            parameters = [
                {**_parameter({"name": name, **(info if isinstance(info, dict) else {})}), "required": name in required}
                for name, info in schema["properties"].items()
            ]
            return parameters, f"read `{key}` (a JSON Schema) as the parameter list"
    return None, None


def _from_map(value: JsonObject) -> list[JsonObject]:
    parameters = []
    for name, info in value.items():
        entry = info if isinstance(info, dict) else {"type": info} if isinstance(info, str) else {}
        parameters.append(_parameter({**entry, "name": str(name)}))
    return parameters


def _parameter(raw: JsonObject) -> JsonObject:
    """A parameter entry as the spec shapes it (a copy only when something was read)."""
    entry = raw
    name, key = name_of(raw, PARAMETER_NAME_KEYS)
    if key is not None:
        entry = {**entry, "name": name}
    required = raw.get("required")
    if not isinstance(required, bool):
        reading = _required_reading(raw)
        if reading is not None:
            entry = {**entry, "required": reading}
    return entry


def _required_reading(raw: JsonObject) -> bool | None:
    required = raw.get("required")
    if isinstance(required, str) and required.strip().lower() in _TRUE_WORDS | _FALSE_WORDS:
        return required.strip().lower() in _TRUE_WORDS
    optional = raw.get("optional")
    if isinstance(optional, bool):
        return not optional
    return None


def _parameter_readings(detail: JsonObject) -> list[str]:
    parameters = detail.get("parameters")
    if not isinstance(parameters, list):
        return []
    found: dict[str, None] = {}
    for raw in parameters:
        if not isinstance(raw, dict):
            continue
        key = name_of(raw, PARAMETER_NAME_KEYS)[1]
        if key is not None:
            found[f"read `{key}` as the parameter name"] = None
        flag = _required_reading(raw) if not isinstance(raw.get("required"), bool) else None
        if flag is not None:
            said = (
                f"`required: {show(raw['required'])}`" if "required" in raw else f"`optional: {show(raw['optional'])}`"
            )
            found[f"read {said} as required: {str(flag).lower()}"] = None
    return list(found)


# --- MCP tools -------------------------------------------------------------------------------

SINGLE = ""  # the family of the single-mode tool `mcp_aql`
_STANDARD_TOOL = lazy(r"(?P<prefix>(?:[a-z0-9]+_)*?)mcp_aql(?:_(?P<family>[a-z][a-z0-9_]*))?")
STANDARD_TAIL = lazy(r"mcp_aql(?:_[a-z][a-z0-9_]*)?$")  # a standard tool name, after whatever prefix
_SEPARATORS = lazy(r"[^a-z0-9]+")
MAX_TOOL_NAME = 128  # MCP's own limit; longer names are read by their schema only


@dataclass(frozen=True)
class ToolReading:
    """What an MCP tool is to MCP-AQL: the endpoint family it serves (``SINGLE`` for the
    unified tool), the name the spec gives it, and how its own name deviates (None: as
    the spec names it, a prefix included)."""

    name: str
    family: str
    standard: str
    deviation: str | None = None


def read_tool(name: str, input_schema: Any = None) -> ToolReading | None:
    """How a tool serves MCP-AQL, or None when it is not an MCP-AQL tool: its name is
    ``mcp_aql[_family]`` (optionally prefixed), a near miss of it (``mcpaql_read``,
    ``mcp-aql-read``, ``MCP_AQL_READ``), or its input schema takes an ``operation``."""
    exact = _STANDARD_TOOL.fullmatch(name)
    if exact is not None:
        family = exact.group("family") or SINGLE
        return ToolReading(name, family, name)
    normalized = snake_case(name[: MAX_TOOL_NAME + 1]).replace("mcpaql", "mcp_aql")
    loose = _STANDARD_TOOL.fullmatch(normalized) if len(name) <= MAX_TOOL_NAME else None
    if loose is not None:
        family = loose.group("family") or SINGLE
        return ToolReading(name, family, normalized, f"tool {name!r} is named {normalized!r} by the spec")
    if _takes_operation(input_schema):
        category = tool_category(name)
        family = category.lower() if category else SINGLE
        standard = f"mcp_aql_{family}" if family else "mcp_aql"
        return ToolReading(
            name, family, standard, f"tool {name!r} takes MCP-AQL operations but is not named {standard!r}"
        )
    return None


def _takes_operation(input_schema: Any) -> bool:
    if not isinstance(input_schema, dict):
        return False
    properties = input_schema.get("properties")
    return isinstance(properties, dict) and "operation" in properties


# Names servers give the batch flag that introspection §4.1.1 calls `batch`.
BATCH_ALIASES = ("batch_operations", "batchOperations", "supports_batch", "supportsBatch", "batching", "batches")


def protocol_of(operations_list: Any) -> dict[str, Any]:
    """The ``_protocol`` of an operations list answer (introspection §4.1.1); {} without one."""
    data, _ = data_of(operations_list)
    protocol = data.get("_protocol") if isinstance(data, dict) else None
    return protocol if isinstance(protocol, dict) else {}


def protocol_capabilities(operations_list: Any) -> dict[str, Any]:
    """The ``_protocol.capabilities`` of an operations list answer (introspection §4.1.1); {}."""
    capabilities = protocol_of(operations_list).get("capabilities")
    return capabilities if isinstance(capabilities, dict) else {}


def declares(capabilities: dict[str, Any], name: str, aliases: tuple[str, ...] = ()) -> bool:
    """Whether the capabilities set a flag true, under the spec's name or one of ``aliases``."""
    return capabilities.get(name) is True or any(capabilities.get(key) is True for key in aliases)
