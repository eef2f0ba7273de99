"""Declared returns against what the server answered (part of Introspection Completeness).

An operation's detail names the type it returns (``returns: {name: "Note"}``); the type's
details (``introspection.type_details``, from ``introspect {query: types, name}``) list its
``fields`` (ParameterInfo: name, type, required) or, for an enum, its ``values``. Every
successful answer of the operation recorded in the bundle (plan examples, documented-default
probes, the batch's results, agent runs: ``samples.successful_candidates``) is compared with them:

- a required field missing from every answer (one answer without it may be field selection);
- a field whose JSON type is not the declared one (``string``, ``number``, ``integer``,
  ``boolean``, ``object``, ``array``, ``null``, ``T[]``, unions ``a | b``, another object type,
  an enum type whose values are checked);
- an answer that is not an object where an object type is declared, or an enum value not listed.

Each finding names the operation, the field and one JSON path where it shows; every finding
is a warning of the completeness test (the spec's thirteen MUST tests stay thirteen). A type
name we cannot interpret is accepted: only what is certain is reported.
"""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import Bundle, JsonObject
from mcpaql_conformance.evidence.reading import TYPE_NAME_KEYS, data_of, name_of, returned_type, types_of
from mcpaql_conformance.evidence.samples import successful_candidates
from mcpaql_conformance.files.values import json_in, json_type
from mcpaql_conformance.sanitize import plain

PRIMITIVES = {  # a declared type -> the JSON types of the values it takes (json_type: 3.0 is an integer)
    "string": frozenset({"string"}),
    "number": frozenset({"number", "integer"}),
    "integer": frozenset({"integer"}),
    "boolean": frozenset({"boolean"}),
    "object": frozenset({"object"}),
    "array": frozenset({"array"}),
    "null": frozenset({"null"}),
}
ALIASES = {"int": "integer", "float": "number", "bool": "boolean", "str": "string", "list": "array", "dict": "object"}
IGNORED_OPERATIONS = frozenset({"introspect"})  # its return shape is the spec's own
MAX_FINDINGS_PER_OPERATION = 5


def return_shape_warnings(bundle: Bundle, details: dict[str, JsonObject]) -> list[str]:
    """Warnings for every operation whose answers do not match the type it declares returning."""
    if not bundle.introspection.get("type_details"):
        return []  # no type details recorded: nothing to compare with (hand-written lists may be samples)
    types = _documented_types(bundle)
    samples = _samples(bundle)
    warnings: list[str] = []
    for operation, detail in details.items():
        if operation in IGNORED_OPERATIONS:
            continue
        declared = returned_type(detail.get("returns"))
        if declared is None or declared.lower() in PRIMITIVES or declared.lower() in ALIASES:
            continue
        element = declared.removesuffix("[]")
        if element not in types[1]:  # json: a type name among names
            continue  # a type the list does not name: the types-query test fails that (core §9.2)
        found = _operation_findings(operation, declared, types[0], samples.get(operation, []))
        warnings += found[:MAX_FINDINGS_PER_OPERATION]
        if len(found) > MAX_FINDINGS_PER_OPERATION:
            warnings.append(f"{operation}: {len(found) - MAX_FINDINGS_PER_OPERATION} more return-shape finding(s)")
    return warnings


def _documented_types(bundle: Bundle) -> tuple[dict[str, JsonObject], set[str]]:
    """(type name -> details that document fields or values, every listed type name)."""
    intro = bundle.introspection
    listed = {
        name
        for entry in types_of(intro.get("types_list"))[0] or []
        if (name := name_of(entry, TYPE_NAME_KEYS)[0]) is not None
    }
    documented: dict[str, JsonObject] = {}
    for entry in intro.get("type_details") or []:
        name = name_of(entry, TYPE_NAME_KEYS)[0]
        if name is not None and isinstance(entry, dict):
            listed.add(name)
            if isinstance(entry.get("fields"), list) or isinstance(entry.get("values"), list):
                documented[name] = entry
    return documented, listed


def _samples(bundle: Bundle) -> dict[str, list[tuple[str, Any]]]:
    """Every successful answer's data per operation, with the JSON path of that data."""
    found: dict[str, list[tuple[str, Any]]] = {}
    for operation, path, response in successful_candidates(bundle):
        if isinstance(operation, str) and classify(response).succeeded:
            data, _ = data_of(response)
            found.setdefault(operation, []).append((f"{path}.data", data))
    return found


def _operation_findings(
    operation: str, declared: str, types: dict[str, JsonObject], samples: list[tuple[str, Any]]
) -> list[str]:
    element = declared.removesuffix("[]")
    shape = types.get(element)
    if shape is None or not samples:
        return []
    values: list[tuple[str, Any]] = []
    for path, data in samples:
        if declared.endswith("[]"):
            if not isinstance(data, list):
                return [f"{operation}: declares returning {plain(declared)}, but answered {_kind(data)} at {path}"]
            values += [(f"{path}[{i}]", item) for i, item in enumerate(data)]
        else:
            values.append((path, data))
    if isinstance(shape.get("values"), list):
        return _enum_findings(operation, element, shape["values"], values)
    return _object_findings(operation, element, shape, types, values)


def _enum_findings(operation: str, name: str, allowed: list[Any], values: list[tuple[str, Any]]) -> list[str]:
    for path, value in values:
        if not json_in(value, allowed):
            return [f"{operation}: answered {_show(value)} at {path}, not one of the values of {plain(name)}"]
    return []


def _object_findings(
    operation: str, name: str, shape: JsonObject, types: dict[str, JsonObject], values: list[tuple[str, Any]]
) -> list[str]:
    objects = [(path, value) for path, value in values if isinstance(value, dict)]
    findings = [
        f"{operation}: declares returning {plain(name)} (an object), but answered {_kind(value)} at {path}"
        for path, value in values[:1]
        if not isinstance(value, dict)
    ]
    if not objects:
        return findings
    for field in shape["fields"]:
        field_name = name_of(field, ("name", "field", "key"))[0] if isinstance(field, dict) else None
        if field_name is None:
            continue
        present = [(path, value[field_name]) for path, value in objects if field_name in value]  # json: a key looked up
        if not present:
            if field.get("required") is True:
                findings.append(
                    f"{operation}.{plain(field_name)}: {plain(name)} declares it required, but it is missing from"
                    f" every answer (e.g. {objects[0][0]})"
                )
            continue
        declared = field.get("type")
        if not isinstance(declared, str):
            continue
        for path, value in present:
            problem = _mismatch(declared, value, types)
            if problem is not None:
                findings.append(
                    f"{operation}.{plain(field_name)}: {problem} at {path}.{plain(field_name)}, but {plain(name)}"
                    f" declares {plain(declared)}"
                )
                break
    return findings


def _mismatch(declared: str, value: Any, types: dict[str, JsonObject]) -> str | None:
    """What is wrong with ``value`` for the declared type (None: it fits, or the type is unknown)."""
    alternatives = [part.strip() for part in declared.split("|") if part.strip()]
    problems = [_fits(part, value, types) for part in alternatives]
    if not alternatives or any(problem is None for problem in problems):
        return None
    return problems[0]


def _fits(declared: str, value: Any, types: dict[str, JsonObject]) -> str | None:
    name = ALIASES.get(declared.lower(), declared.lower())
    if name in PRIMITIVES:
        return None if json_type(value) in PRIMITIVES[name] else f"it is {_kind(value)}"
    if declared.endswith("[]"):
        return None if isinstance(value, list) else f"it is {_kind(value)}"
    shape = types.get(declared)
    if shape is None:
        return None  # a type we cannot interpret: accepted
    if isinstance(shape.get("values"), list):
        return None if json_in(value, shape["values"]) else f"{_show(value)} is not one of its values"
    return None if isinstance(value, dict) else f"it is {_kind(value)}"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    names = {dict: "an object", list: "an array", str: "a string", int: "an integer", float: "a number"}
    return names.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    return plain(repr(value), max_len=60)
