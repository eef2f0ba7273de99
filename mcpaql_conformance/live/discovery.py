"""Discovery: the MCP-AQL tools, the operations list, the types and every operation's details,
read as leniently as the evidence allows. What deviates is kept as evidence (the checks fail
it); discovery goes on with the best reading it can make."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from mcpaql_conformance.evidence.configurations import modes_of
from mcpaql_conformance.evidence.named import NamedTypes
from mcpaql_conformance.evidence.reading import (
    SINGLE,
    TYPE_NAME_KEYS,
    Readings,
    category_of,
    declarations_of,
    detail_of,
    documents_shape,
    name_of,
    operations_of,
    parameters_of,
    read_detail,
    read_entry,
    read_tool,
    read_type,
    type_detail_of,
    types_of,
)
from mcpaql_conformance.files.schemas import introspection_schema
from mcpaql_conformance.files.vocabulary import NOT_APPLICABLE, OPERATIONS, TYPES, IntrospectQuery
from mcpaql_conformance.files.vocabulary import SEMANTIC_CATEGORIES as CRUDE_CATEGORIES
from mcpaql_conformance.live.levels import Need, strictest
from mcpaql_conformance.live.safety import UNKNOWN_OPERATION, operation_need, tool_need
from mcpaql_conformance.live.session import (
    PHASE_DETAILS,
    PHASE_INTROSPECT,
    PHASE_TYPE_DETAILS,
    PHASE_TYPES,
    Live,
    gather,
    note,
)
from mcpaql_conformance.sanitize import plain

JsonObject = dict[str, Any]
CRUDE_FAMILIES = tuple(category.lower() for category in CRUDE_CATEGORIES)


@dataclass
class Operation:
    """One operation as capture understands it (the best reading of every declaration)."""

    name: str
    index: int
    category: str | None
    tool: str
    parameters: list[JsonObject] | None  # None: introspection gave no parameter list
    declarations: list[JsonObject] = field(default_factory=list)
    need: Need = field(default_factory=lambda: operation_need([], []))  # what calling it needs
    discovered: list[str] = field(default_factory=list)  # required parameters the server named

    @property
    def required(self) -> list[JsonObject]:
        return [p for p in self.parameters or [] if p.get("required") is True]

    def parameter(self, name: str) -> JsonObject:
        """The documented parameter of that name (the last, where a name repeats), or one known
        by its name alone (discovered)."""
        return self._by_name.get(name, {"name": name})

    @cached_property
    def _by_name(self) -> dict[str, JsonObject]:
        """Documented parameters by name, built once (the list is read, never changed, once the
        operation is described)."""
        return {p["name"]: p for p in self.parameters or []}

    @property
    def required_names(self) -> list[str]:
        """Documented required parameters, or those the server's refusals named."""
        return [p["name"] for p in self.required] if self.parameters is not None else list(self.discovered)


async def discover_tools(live: Live) -> bool:
    """Read the tool list; False when the server has no MCP-AQL tool at all."""
    tools = await live.connection.list_tools()
    live.evidence.mcp_tools = live.redactor.value(tools)
    for tool in tools:
        reading = read_tool(tool["name"], tool.get("inputSchema"))
        if reading is not None:
            live.tools[tool["name"]] = reading
            if reading.deviation is not None:
                family = reading.family.upper() or "single"
                live.readings.add(f"used tool {tool['name']!r} as the {family} endpoint {reading.standard}", "")
    live.modes = modes_of([reading.family for reading in live.tools.values()])
    live.guard.learn_tools(live.tools, [name for name, reading in live.tools.items() if reading.family == "read"])
    return bool(live.tools)


def _introspect_tools(live: Live) -> list[str]:
    """Where to ask introspect: the READ endpoint, the single tool, then every other MCP-AQL tool;
    never a tool whose name bars the run's level (noted instead)."""
    first = [t for t in (live.tool_for_family("read"), live.tool_for_family(SINGLE)) if t is not None]
    ordered = first + [name for name in live.tools if name not in first]
    skipped = [name for name in ordered if not live.allows(tool_need(name))]
    if skipped:
        shown = ", ".join(plain(name) for name in skipped)
        need = strictest([tool_need(name) for name in skipped])
        what = f"introspect was not sent to {shown}"
        live.evidence.notes.append(live.withheld(None, "introspection", need, len(skipped), what))
    return [name for name in ordered if name not in skipped]


# introspect parameters to try, in order: as the spec says, then without `query`
_LIST_QUERIES: tuple[JsonObject, ...] = ({"query": "operations"}, {})


async def introspect(live: Live) -> list[str]:
    """The operations list (with fallbacks); returns the operation names, in list order."""
    attempt = 0
    for tool in _introspect_tools(live):
        for params in _LIST_QUERIES:
            answer = await live.send(
                (PHASE_INTROSPECT, attempt),
                tool,
                {"operation": "introspect", "params": dict(params)},
                "introspect",
                "introspection",
                "list operations" + ("" if params else " (introspect without query)"),
            )
            attempt += 1
            entries, readings = operations_of(answer)
            names = list(dict.fromkeys(n for n in (name_of(e)[0] for e in entries or []) if n is not None))
            if names:
                live.evidence.operations_list = answer
                live.introspect_tool = tool
                live.introspect_params = dict(params)
                if not params:
                    live.readings.add("called introspect without `query` (the server refused it)", tool)
                live.readings.merge(_list_readings(entries or [], readings))
                return names
            live.evidence.query_attempts.append(
                {"query": OPERATIONS, "tool": tool, "params": dict(params), "response": answer}
            )
    return []


def _list_readings(entries: list[JsonObject], readings: Readings) -> Readings:
    found = Readings()
    found.merge(readings)
    for entry in entries:
        read_entry(entry, found)
    return found


async def introspect_types(live: Live) -> None:
    """The types list: `query: types` on the tool that listed the operations, else the types
    carried by the operations answer."""
    tool = live.introspect_tool
    answer = await live.send(
        (PHASE_TYPES, 0), tool, {"operation": "introspect", "params": {"query": "types"}}, "introspect",
        "introspection", "list types",
    )  # fmt: skip
    types, readings = types_of(answer)
    if types is not None:
        live.evidence.types_list = answer
        for entry in types:
            read_type(entry, readings)
        live.readings.merge(readings)
        return
    live.evidence.query_attempts.append(
        {"query": TYPES, "tool": tool, "params": {"query": "types"}, "response": answer}
    )
    if types_of(live.evidence.operations_list)[0] is not None:
        live.evidence.types_list = live.evidence.operations_list
        live.readings.add("read the types from the operations answer (`query: types` did not answer)", tool)


async def describe_types(live: Live) -> None:
    """Every listed type's detail (``introspect {query: types, name}``), asked for concurrently;
    a type the detail query does not describe keeps its list entry when that documents fields
    or values, and is noted otherwise."""
    listed = types_of(live.evidence.types_list)[0] or []
    entries = {name: entry for entry in listed if (name := name_of(entry, TYPE_NAME_KEYS)[0]) is not None}
    if not entries or live.introspect_tool is None:
        return
    names = list(entries)

    def ask(index: int, name: str) -> Any:
        params = {"query": "types", "name": name}
        return lambda: live.send(
            (PHASE_TYPE_DETAILS, index), live.introspect_tool, {"operation": "introspect", "params": params},
            "introspect", "introspection", f"describe type {name}",
        )  # fmt: skip

    answers = await gather([ask(index, name) for index, name in enumerate(names)])
    for name, answer in zip(names, answers, strict=True):
        if not _spec_shaped(answer, "TypeDetailData", "type"):  # as sent: the types-query test fails it
            live.evidence.type_queries.append({"type": name, "response": answer})
        detail, problem = type_detail_of(answer, name)
        if detail is None and documents_shape(entries[name]):
            detail = read_type(entries[name], Readings())
        if detail is not None:
            live.evidence.type_details.append({**detail, "name": name})
        else:
            reason = f"type {name}: the detail query {problem}; its declared return shape is not checked"
            live.evidence.notes.append(note(None, "type_details", plain(reason), NOT_APPLICABLE))
    live.named = NamedTypes(live.evidence.type_details, listed)


def _spec_shaped(answer: Any, definition: str, key: str) -> bool:
    """Whether a detail answer is ``{success: true, data: {<key>: details}}`` as the spec shows it."""
    data = answer.get("data") if isinstance(answer, dict) and answer.get("success") is True else None
    if not isinstance(data, dict) or not isinstance(data.get(key), dict):
        return False
    return introspection_schema(definition).is_valid(data)


# Names no server defines: introspect answers `null` for them (introspection §4.3).
UNKNOWN_TYPE = "McpaqlConformanceNoSuchType"


async def ask_unknown_names(live: Live, names: list[str]) -> None:
    """A detail query for an operation and for a type that do not exist, asked as the detail
    queries were (introspect only: read-only at every level)."""
    if live.introspect_tool is None:
        return
    queries: list[tuple[IntrospectQuery, str, tuple[int, ...]]] = [
        (OPERATIONS, UNKNOWN_OPERATION, (PHASE_DETAILS, len(names)))
    ]
    listed_types = types_of(live.evidence.types_list)[0]
    if listed_types is not None and live.introspect_params:  # types are asked for by `query: types`
        queries.append((TYPES, UNKNOWN_TYPE, (PHASE_TYPE_DETAILS, len(listed_types))))

    def ask(query: str, name: str, key: tuple[int, ...]) -> Any:
        params = {**live.introspect_params, "query": query, "name": name}
        if not live.introspect_params:
            params = {"name": name}  # the server refused `query`: ask the way that worked
        return lambda: live.send(
            key, live.introspect_tool, {"operation": "introspect", "params": params}, "introspect",
            "introspection", f"describe a {query.rstrip('s')} that does not exist",
        )  # fmt: skip

    answers = await gather([ask(query, name, key) for query, name, key in queries])
    for (query, name, _), answer in zip(queries, answers, strict=True):
        live.evidence.unknown_name_queries.append({"query": query, "name": name, "response": answer})


async def describe_operations(live: Live, names: list[str]) -> list[Operation]:
    """Every listed operation's detail, asked for concurrently; then one Operation each."""
    by_name = declarations_of(live.evidence.operations_list)

    def ask(index: int, name: str) -> Any:
        params = {**live.introspect_params, "query": "operations", "name": name}
        if not live.introspect_params:
            params = {"name": name}  # the server refused `query`: ask the way that worked
        return lambda: live.send(
            (PHASE_DETAILS, index), live.introspect_tool, {"operation": "introspect", "params": params},
            "introspect", "introspection", f"describe {name}",
        )  # fmt: skip

    answers = await gather([ask(index, name) for index, name in enumerate(names)])
    operations = []
    for index, (name, answer) in enumerate(zip(names, answers, strict=True)):
        found = detail_of(answer, name)
        declarations = list(by_name.get(name, []))
        # Another operation's detail, answered for this one: never its reading, but it may add danger.
        alien = [found.candidate] if found.candidate is not None else []
        if found.detail is not None:
            live.evidence.details.append(found.detail)
            declarations.append(found.detail)
            live.readings.merge(found.readings)
        if found.detail is None or found.readings:  # the answer as sent: the details test fails it
            live.evidence.detail_queries.append({"operation": name, "response": answer})
        operations.append(_operation(live, name, index, declarations, found.detail, alien))
    for operation in operations:
        live.guard.learn(operation.name, operation.need)
    return operations


def _operation(
    live: Live, name: str, index: int, declarations: list[JsonObject], detail: Any, alien: list[JsonObject]
) -> Operation:
    readings = Readings()
    shaped = read_detail(detail, readings) if isinstance(detail, dict) else None
    live.readings.merge(readings)
    categories = [c for c in (category_of(d)[0] for d in declarations) if c is not None]
    category = categories[-1] if categories else None  # the detail is the last declaration
    tool = _tool_for(live, shaped or (declarations[0] if declarations else {}), category)
    parameters = parameters_of(shaped)[0] if shaped is not None else None
    if parameters is not None:
        # Types read as the JSON types they stand for (`string[]` is an array): what is sent keeps them.
        # A named type (`location: Location`) as the object, enum or union its TypeDetails describe.
        parameters = [
            live.named.resolve(p) for p in parameters if isinstance(p, dict) and isinstance(p.get("name"), str)
        ]
        live.redactor.sensitive |= {(name, p["name"]) for p in parameters if p.get("sensitive") is True}
    need = operation_need(declarations + alien, [tool], (name,), parameters)
    return Operation(name, index, category, tool, parameters, declarations, need)


def _tool_for(live: Live, declaration: JsonObject, category: str | None) -> str:
    """The server's tool for an operation: its endpoint family's, the single tool, the tool the
    detail names, else the introspect tool."""
    endpoint = declaration.get("endpoint")
    family = endpoint.strip().lower() if isinstance(endpoint, str) else ""
    if family.upper() in CRUDE_CATEGORIES or family not in {t.family for t in live.tools.values()}:
        family = category.lower() if category else family
    for candidate in (live.tool_for_family(family) if family else None, live.tool_for_family(SINGLE)):
        if candidate is not None:
            return candidate
    named = declaration.get("mcpTool")
    if isinstance(named, str) and named in live.tools:
        return named
    return live.introspect_tool
