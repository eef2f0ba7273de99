"""The evidence index every check reads: a bundle plus the indexes computed from it once (the
documented parameters per operation, the readings of the listing and the details, the tools by
endpoint), so that each check is a pass over prepared columns, not a new walk of the bundle."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, compress, islice, repeat
from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.blanket import Blanket
from mcpaql_conformance.evidence.bundle import Bundle, JsonObject
from mcpaql_conformance.evidence.fields import (
    GET_REQUIRED,
    NAME,
    OPERATION,
    OPERATION_PARAMETER,
    PARAMETER,
    PARAMETERS,
    REQUIRED,
)
from mcpaql_conformance.evidence.named import NamedTypes
from mcpaql_conformance.evidence.reading import (
    Readings,
    ToolReading,
    operations_of,
    read_detail,
    read_entry,
    read_tool,
    types_of,
)
from mcpaql_conformance.files.schemas import introspection_schema, operation_result_schema
from mcpaql_conformance.files.vocabulary import DESTRUCTIVE, NOTHING_TO_KEEP, WRITES
from mcpaql_conformance.files.vocabulary import SEMANTIC_CATEGORIES as CRUDE_CATEGORIES

REFUSAL_TEXT = 2000  # characters of a refusal's message kept for the checks that read what it says
MAX_COMPUTED_ITEMS = 100  # the items of one page looked at for `_computed` objects

CRUDE_ENDPOINTS = ("create", "read", "update", "delete", "execute")
CATEGORY_SET = frozenset(CRUDE_CATEGORIES)


# Why capture withheld a probe for safety (a note's cause), and the option that allows it.
WITHHELD: dict[str, str] = {WRITES: "--allow-writes", DESTRUCTIVE: "--allow-destructive"}


def introspect_withheld(notes: Any) -> JsonObject | None:
    """Capture's note when the run's level kept it from sending introspect at all (every tool
    that could serve it needs a flag the run lacked): then nothing else was probed either."""
    if not isinstance(notes, list):
        return None
    return next(
        (
            n
            for n in notes
            if isinstance(n, dict)
            and n.get("operation") is None
            and n.get("probe") == "introspection"
            and n.get("cause") in WITHHELD
            and str(n.get("reason", "")).startswith("introspect was not sent")
        ),
        None,
    )


@dataclass(frozen=True)
class Pairs:
    """(operation, parameter) pairs as two parallel columns, compared without building tuples."""

    operations: list[str]
    parameters: list[str]

    def __len__(self) -> int:
        return len(self.operations)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return zip(self.operations, self.parameters, strict=True)

    def uncovered_by(self, cases: list[JsonObject]) -> list[str]:
        """``operation.parameter`` of each pair no case names."""
        return [f"{op}.{p}" for op, p in self.uncovered_pairs(cases)]

    def uncovered_pairs(self, cases: list[JsonObject]) -> list[tuple[str, str]]:
        """(operation, parameter) of each pair no case names. Usually none, decided by one
        C-level comparison when the cases follow the documented order."""
        if list(map(OPERATION, cases)) == self.operations and list(map(PARAMETER, cases)) == self.parameters:
            return []
        covered = set(map(OPERATION_PARAMETER, cases))
        return [(op, p) for op, p in self if (op, p) not in covered]


class ParameterIndex:
    """Documented parameters (well-formed entries only) per operation, flattened, and the
    pairs that are required or declare a default.

    Built lazily, with whole-collection operations (map, compress) instead of one
    Python step per parameter: a 64,000-operation bundle indexes in about 15 ms."""

    def __init__(self, by_operation: dict[str, list[JsonObject]]) -> None:
        self.by_operation = by_operation

    def names_of(self, operation: str) -> list[str]:
        return list(map(NAME, self.by_operation.get(operation, [])))

    @cached_property
    def _columns(self) -> tuple[list[str], list[JsonObject]]:
        """(operation of each parameter, parameter), flattened in document order."""
        lists = self.by_operation.values()
        operations = list(chain.from_iterable(map(repeat, self.by_operation, map(len, lists))))
        return operations, list(chain.from_iterable(lists))

    @cached_property
    def names(self) -> list[str]:
        """Every documented parameter name, flattened in document order."""
        return list(map(NAME, self._columns[1]))

    def _pairs_where(self, flags: Iterable[bool]) -> Pairs:
        selected = list(flags)
        return Pairs(list(compress(self._columns[0], selected)), list(compress(self.names, selected)))

    @cached_property
    def required(self) -> Pairs:
        parameters = self._columns[1]
        try:
            flags = list(map(REQUIRED, parameters))
        except KeyError:  # only in bundles with invalid details
            flags = list(map(GET_REQUIRED, parameters))
        return self._pairs_where(map(operator.is_, flags, repeat(True)))

    @cached_property
    def defaults(self) -> Pairs:
        return self._pairs_where(map(operator.contains, self._columns[1], repeat("default")))


@dataclass
class Context:
    """A bundle plus the indexes every check needs, each computed once."""

    bundle: Bundle
    tier: str = "both"
    _validity: dict[int, bool] = field(default_factory=dict)

    @cached_property
    def all_responses_valid(self) -> bool:
        """One bulk validation of every recorded response: the common, fast case."""
        return operation_result_schema().all_valid(self.bundle.responses)

    @cached_property
    def refusals(self) -> list[tuple[str | None, str]]:
        """(the operation its case names, or None; its message's first REFUSAL_TEXT characters) of
        every recorded answer that refuses, in ``response_groups`` order: one pass that the checks
        reading what refusals say share."""
        said: list[tuple[str | None, str]] = []
        for template, responses in self.bundle.response_groups:
            cases = self.bundle.group_cases(template) or []
            operations = [case.get("operation") if isinstance(case, dict) else None for case in cases]
            for operation, response in zip(chain(operations, repeat(None)), responses, strict=False):
                answer = classify(response)
                if answer.refused:
                    said.append((operation if isinstance(operation, str) else None, answer.message[:REFUSAL_TEXT]))
        return said

    def is_valid_result(self, response: Any) -> bool:
        """Whether a response is a valid discriminated-union result (memoised by identity)."""
        if self.all_responses_valid:
            return True
        key = id(response)
        known = self._validity.get(key)
        if known is None:
            known = operation_result_schema().is_valid(response)
            self._validity[key] = known
        return known

    @cached_property
    def _detail_reading(self) -> tuple[list[JsonObject], Readings]:
        raw = self.bundle.operation_details
        readings = Readings()
        if self.all_details_valid:  # the common case: read as the spec shapes them
            return raw, readings
        return [read_detail(d, readings) if isinstance(d, dict) else d for d in raw], readings

    @property
    def details(self) -> list[JsonObject]:
        """Every operation detail, read leniently (names under other keys, the category only
        in `endpoint`, parameters as a map); the raw ones are judged by the details test."""
        return self._detail_reading[0]

    @property
    def detail_readings(self) -> Readings:
        """The lenient readings the details needed (each is a deviation the details test fails)."""
        return self._detail_reading[1]

    @cached_property
    def details_by_name(self) -> dict[str, JsonObject]:
        """First operation detail per name (duplicates are reported by the details check)."""
        index: dict[str, JsonObject] = {}
        for detail in self.details:
            name = detail.get("name") if isinstance(detail, dict) else None
            if isinstance(name, str) and name not in index:
                index[name] = detail
        return index

    @cached_property
    def named_types(self) -> NamedTypes:
        """The types the server documents (type details, else list entries with fields or values)."""
        listed = types_of(self.bundle.types_list)[0] or []
        details = self.bundle.introspection.get("type_details")
        return NamedTypes(details if isinstance(details, list) else [], listed)

    @cached_property
    def _listing(self) -> tuple[dict[str, JsonObject], Readings]:
        entries, readings = operations_of(self.bundle.operations_list)
        index: dict[str, JsonObject] = {}
        for entry in entries or []:
            name = entry.get("name")
            if not isinstance(name, str) or entry.get("semantic_category") not in CATEGORY_SET:
                entry = read_entry(entry, readings)
                name = entry.get("name")
            if isinstance(name, str) and name not in index:
                index[name] = entry
        return index, readings

    @property
    def listed_operations(self) -> dict[str, JsonObject]:
        """Operations named by the introspect operations answer (read leniently), by name."""
        return self._listing[0]

    @property
    def list_readings(self) -> Readings:
        """The lenient readings the operations list needed."""
        return self._listing[1]

    @cached_property
    def operation_names(self) -> list[str]:
        """Every operation the bundle knows of, in first-seen order."""
        details, listed = self.details_by_name, self.listed_operations
        if listed.keys() <= details.keys():
            return list(details)
        return list(dict.fromkeys([*details, *listed]))

    @cached_property
    def categories(self) -> dict[str, str]:
        """Semantic category per operation: the detail's, else the operations list's."""
        found: dict[str, str] = {}
        for source in (self.listed_operations, self.details_by_name):
            for name, entry in source.items():
                category = entry.get("semantic_category")
                if isinstance(category, str):
                    found[name] = category
        return found

    def operations_in(self, semantic_category: str) -> list[str]:
        categories = self.categories
        return [name for name in self.operation_names if categories.get(name) == semantic_category]

    @property
    def captured(self) -> bool:
        """Whether the bundle was captured from a live server (not written by hand)."""
        provenance = self.bundle.data.get("provenance")
        return isinstance(provenance, dict) and provenance.get("captured") is True

    @cached_property
    def _notes_by_operation(self) -> dict[str, list[JsonObject]]:
        notes: dict[str, list[JsonObject]] = {}
        for entry in self.bundle.cases("capture_notes"):
            if isinstance(entry.get("operation"), str):
                notes.setdefault(entry["operation"], []).append(entry)
        return notes

    @cached_property
    def blanket(self) -> Blanket:
        """Operations every probe of which got one refusal not about the request."""
        return Blanket.of(self.bundle)

    @cached_property
    def introspection_withheld(self) -> JsonObject | None:
        """Capture's note when it withheld introspect itself and no introspect answer came: every
        test short of evidence is short because of our caution, not the server."""
        if self.bundle.data.get("introspection", {}).get("operations_list") is not None:
            return None
        return introspect_withheld(self.bundle.data.get("capture_notes"))

    @cached_property
    def withheld_operations(self) -> set[str]:
        """Operations capture withheld probes of, for safety (the run's permission level)."""
        return {op for op, notes in self._notes_by_operation.items() if any(n.get("cause") in WITHHELD for n in notes)}

    def withheld(self, operation: str, probes: tuple[str, ...] = ()) -> bool:
        """Whether capture withheld, for safety, the probes (any, when none named) of an operation."""
        return self.withheld_flag(operation, probes) is not None

    def withheld_flag(self, operation: str, probes: tuple[str, ...] = ()) -> str | None:
        """The option that would have let capture send these probes (any, when none named) of an
        operation it withheld for safety: ``--allow-writes`` or ``--allow-destructive``; None when
        it withheld none of them."""
        causes = {
            n.get("cause")
            for n in self._notes_by_operation.get(operation, [])
            if n.get("cause") in WITHHELD and (not probes or n.get("probe") in probes)
        }
        if not causes:
            return None
        return WITHHELD["destructive"] if "destructive" in causes else WITHHELD["writes"]

    def nothing_to_keep(self, operation: str, probe: str) -> bool:
        """Whether capture found nothing the operation writes that a read could show (its inputs
        name other records, duplicate_note's note_id, or are never given back), so its round trip
        has nothing to judge."""
        return any(
            n.get("probe") == probe and n.get("cause") == NOTHING_TO_KEEP
            for n in self._notes_by_operation.get(operation, [])
        )

    def not_probed(self, operation: str, probes: tuple[str, ...], parameter: str | None = None) -> str | None:
        """Why capture has no evidence from these probes of an operation (its note), if it says."""
        for entry in self._notes_by_operation.get(operation, []):
            if entry.get("probe") not in probes or not isinstance(entry.get("reason"), str):
                continue
            if parameter is None or entry.get("parameter") in (None, parameter):
                return str(entry["reason"])
        return None

    @cached_property
    def all_details_valid(self) -> bool:
        """One bulk validation of every OperationDetails entry."""
        return introspection_schema("OperationDetails").all_valid(self.bundle.operation_details)

    def parameters_of(self, operation: str) -> list[JsonObject]:
        """Documented parameters (well-formed entries only) of an operation."""
        return self.parameter_index.by_operation.get(operation, [])

    @cached_property
    def parameter_index(self) -> ParameterIndex:
        """Every documented parameter, indexed once."""
        details = self.details_by_name
        if self.all_details_valid:  # shapes are guaranteed: no per-item type checks
            return ParameterIndex(dict(zip(details, map(PARAMETERS, details.values()), strict=True)))
        return ParameterIndex(
            {
                operation: [p for p in parameters if isinstance(p, dict) and isinstance(p.get("name"), str)]
                for operation, detail in details.items()
                if isinstance(parameters := detail.get("parameters"), list)
            }
        )

    @cached_property
    def computed(self) -> dict[str, set[str]]:
        """The keys of the `_computed` objects (features/computed-fields §2) each documented operation
        answered, in its data or the items of its page (the first 100): one pass over the answers."""
        found: dict[str, set[str]] = {}
        for template, group in self.bundle.response_groups:
            cases = self.bundle.group_cases(template) or []
            for case, response in zip(cases, group, strict=False):
                data = response.get("data") if isinstance(response, dict) and response.get("success") is True else None
                op = case.get("operation") if isinstance(case, dict) else None
                if not isinstance(op, str) or not isinstance(data, dict) or op not in self.details_by_name:
                    continue
                items = data.get("items")
                for shown in chain((data,), islice(items if isinstance(items, list) else (), MAX_COMPUTED_ITEMS)):
                    inside = shown.get("_computed") if isinstance(shown, dict) else None
                    if isinstance(inside, dict):
                        found.setdefault(op, set()).update(str(key) for key in inside)
        return found

    @cached_property
    def aql_tools(self) -> list[ToolReading]:
        """The server's MCP-AQL tools (captured bundles), each read for its family and name."""
        readings = []
        for tool in self.bundle.mcp_tools or []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                reading = read_tool(tool["name"], tool.get("inputSchema"))
                if reading is not None:
                    readings.append(reading)
        return readings

    @cached_property
    def allowed_tools(self) -> dict[str, list[str]]:
        """The mcpTool names each CRUDE endpoint may be served by, given the declared modes
        (and the prefix the server's tools share, which the spec allows)."""
        modes = self.modes
        semantic = modes is None or "crude" in modes or "single" not in modes
        single = modes is None or "single" in modes
        prefix = self.tool_prefix
        return {
            endpoint: [f"{prefix}mcp_aql_{endpoint}"] * semantic + [f"{prefix}mcp_aql"] * single
            for endpoint in CRUDE_ENDPOINTS
        }

    @cached_property
    def tool_prefix(self) -> str:
        """The prefix every well-named MCP-AQL tool of the server shares (``github_``), else ""."""
        prefixes = {r.standard.partition("mcp_aql")[0] for r in self.aql_tools if r.deviation is None}
        return prefixes.pop() if len(prefixes) == 1 else ""

    @cached_property
    def modes(self) -> set[str] | None:
        modes = self.bundle.endpoint_modes
        return None if modes is None else set(modes)
