"""Output schemas inferred from captured responses, and their MCP-AQL TypeDetails.

``infer_schema(samples)`` returns a JSON Schema (draft 2020-12) that every sample validates
against and that claims no more than the samples show. A *place* is the root, a property of
the objects at a place, or the items of the arrays at a place; all samples meet at each place.

- Types: a place lists every JSON type seen there, sorted (``["null", "string"]``); a single
  type is written as a string. A number is an ``integer`` by its value (``3.0`` too, as
  ``files.values.json_type``); an integer and a number at one place merge to ``number``;
  ``true``/``false`` are ``boolean``, never ``integer``.
- Objects: ``properties`` merges the keys of every object at the place, in first-seen order;
  ``required`` lists (sorted) the keys present in every one of those objects and is left out
  when empty. ``additionalProperties`` is never set: samples show what a server sent, not all
  it may send.
- Arrays: ``items`` merges every element of every array at the place; a place whose arrays
  were all empty gets no ``items``.
- Mixed places (objects and strings, arrays and nulls...) keep the object and array keywords
  for the object and array samples while ``type`` lists all types: JSON Schema applies
  ``properties``, ``required`` and ``items`` only to instances of the matching type.
- Formats: ``date-time`` (RFC 3339 with ``T``, seconds and a zone, ``Z`` or ``+hh:mm``; real
  calendar dates; no leap second), ``uri`` (RFC 3986 ``scheme://host...`` in ASCII, no IP
  literal), ``email`` (dot-atom ``local@host.tld``) and ``uuid`` (8-4-4-4-12 hex digits) are
  set only when every string at the place matches the same one. Anything looser (a date
  without a zone, ``mailto:``, ``urn:``) gets no format: a wrong format fails good answers.
- ``enum`` is never inferred: a few samples cannot tell a closed set from a coincidence.
- Depth: places are described down to ``MAX_DEPTH`` (64) levels of nesting, the root being
  level 1; a value below that is ``{}`` (anything). The walk is iterative and stops there,
  so a 100,000-level sample costs 64 steps.
- Cost: one merge per value visited (dictionary lookups, one regex per string while a format
  is still possible), so the time is linear in the total size of the samples.
- No samples: ``{"$schema": ...}`` alone, which accepts anything.

``documented`` maps a field path to a description copied into that place's ``description``.
Paths are dotted property names; ``[]`` after a name steps into the items of that array:
``title``, ``author.name``, ``items[].title``, ``matrix[][]``; a path starting with ``[]``
(``[].id``) steps into the items of a root array, and ``""`` is the root itself. A path that
names no inferred place is ignored (documentation never invents a field), and a key that
contains ``.``, ``[`` or ``]`` cannot be addressed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import date
from typing import Any

from mcpaql_conformance.regex import lazy

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
MAX_DEPTH = 64

_TYPE_NAMES: dict[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}

_DATE_TIME = lazy(
    r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})"
    r"T(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})(?:\.[0-9]+)?"
    r"(?:Z|[+-](?P<zone_hour>[0-9]{2}):(?P<zone_minute>[0-9]{2}))"
)
# RFC 3986 with an authority: scheme "://" [userinfo "@"] reg-name [":" port] path [? query] [# fragment].
_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_URI = lazy(
    rf"[A-Za-z][A-Za-z0-9+.\-]*://"
    rf"(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?"
    rf"(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})+"
    rf"(?::[0-9]*)?"
    rf"(?:/{_PCHAR}*)*"
    rf"(?:\?(?:{_PCHAR}|[/?])*)?"
    rf"(?:#(?:{_PCHAR}|[/?])*)?"
)
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
_EMAIL = lazy(rf"{_ATOM}(?:\.{_ATOM})*@{_LABEL}(?:\.{_LABEL})+")
_UUID = lazy(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_PATH_SEGMENT = lazy(r"(?P<name>[^\[\]]*)(?P<arrays>(?:\[\])*)")


def _is_date_time(text: str) -> bool:
    match = _DATE_TIME.fullmatch(text)
    if match is None:
        return False
    part = {key: int(value) for key, value in match.groupdict("0").items()}
    try:
        date(part["year"], part["month"], part["day"])
    except ValueError:  # 2024-02-30 and the like
        return False
    clock = (part["hour"], part["minute"], part["second"], part["zone_hour"], part["zone_minute"])
    return all(field < limit for field, limit in zip(clock, (24, 60, 60, 24, 60), strict=True))


def _is_uri(text: str) -> bool:
    return _URI.fullmatch(text) is not None


def _is_email(text: str) -> bool:
    local, _, domain = text.rpartition("@")
    return len(local) <= 64 and len(domain) <= 253 and _EMAIL.fullmatch(text) is not None


def _is_uuid(text: str) -> bool:
    return _UUID.fullmatch(text) is not None


# No string matches two of these, so the first match is the only candidate for a place.
_FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": _is_date_time,
    "uri": _is_uri,
    "email": _is_email,
    "uuid": _is_uuid,
}


def _string_format(text: str) -> str | None:
    """The format of one string under the strict rules above, or None."""
    return next((name for name, matches in _FORMATS.items() if matches(text)), None)


class _Place:
    """What the samples showed at one place of the document."""

    __slots__ = ("depth", "format", "items", "objects", "properties", "types", "visits")

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.visits = 0  # values merged here; for a property, the objects that had the key
        self.types: set[str] = set()
        self.objects = 0
        self.properties: dict[str, _Place] = {}
        self.items: _Place | None = None
        self.format: str | None = None  # None: no string yet; "": strings without one common format


def infer_schema(samples: Iterable[Any], documented: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A draft 2020-12 JSON Schema that every sample validates against (rules in the module docstring)."""
    root = _accumulate(samples)
    schema: dict[str, Any] = {"$schema": SCHEMA_DIALECT}
    if root is not None:
        schema.update(_emit(root))
    for path, description in (documented or {}).items():
        target = _find(schema, path)
        if target is not None:
            target["description"] = description
    return schema


def _accumulate(samples: Iterable[Any]) -> _Place | None:
    root: _Place | None = None
    pending: list[tuple[Any, _Place]] = []
    for sample in samples:
        if root is None:
            root = _Place(0)
        pending.append((sample, root))
        while pending:
            value, place = pending.pop()
            place.visits += 1
            if place.depth >= MAX_DEPTH:
                continue  # described as {}: nothing below is read
            kind = _TYPE_NAMES.get(type(value)) or _subclass_type(value)
            if kind == "number" and value.is_integer():  # 3.0 is an integer by its value (json_type)
                kind = "integer"
            place.types.add(kind)
            if kind == "object":
                place.objects += 1
                properties = place.properties
                children: list[tuple[Any, _Place]] = []
                for key, item in value.items():
                    child = properties.get(key)
                    if child is None:
                        child = properties[key] = _Place(place.depth + 1)
                    children.append((item, child))
                pending.extend(reversed(children))  # popped in document order: first seen, first listed
            elif kind == "array":
                if value:
                    if place.items is None:
                        place.items = _Place(place.depth + 1)
                    items = place.items
                    pending.extend((element, items) for element in reversed(value))  # idem
            elif kind == "string" and place.format != "":
                if place.format is None:
                    place.format = _string_format(value) or ""
                elif not _FORMATS[place.format](value):
                    place.format = ""
    return root


def _subclass_type(value: Any) -> str:
    for base in (bool, int, float, str, dict, list):  # bool first: it is an int to isinstance
        if isinstance(value, base):
            return _TYPE_NAMES[base]
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _emit(place: _Place) -> dict[str, Any]:
    # Recursion is bounded by MAX_DEPTH: places below it are never created with children.
    if place.depth >= MAX_DEPTH:
        return {}
    types = place.types - {"integer"} if "number" in place.types else place.types
    names = sorted(types)
    schema: dict[str, Any] = {"type": names[0] if len(names) == 1 else names}
    if place.format:
        schema["format"] = place.format
    if place.properties:
        schema["properties"] = {key: _emit(child) for key, child in place.properties.items()}
        required = sorted(key for key, child in place.properties.items() if child.visits == place.objects)
        if required:
            schema["required"] = required
    if place.items is not None:
        schema["items"] = _emit(place.items)
    return schema


def _find(schema: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The sub-schema a ``documented`` path names, or None."""
    target: Any = schema
    for index, segment in enumerate(path.split(".")):
        match = _PATH_SEGMENT.fullmatch(segment)
        # A segment names a key, except a leading "[]" (a root array's items) and the path "" (the root).
        if match is None or (not match["name"] and (index or (path and not match["arrays"]))):
            return None
        if match["name"]:
            target = target.get("properties", {}).get(match["name"])
        for _ in range(len(match["arrays"]) // 2):
            target = target.get("items") if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return None
    return target if isinstance(target, dict) else None


def type_details(name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The MCP-AQL TypeDetails of a schema from ``infer_schema`` (introspection spec §3.5-§3.6).

    ``kind`` stays within the spec's TypeKind (enum, object, scalar, union):

    - a schema of type object alone is an ``object`` with ``fields``;
    - a schema of several types is a ``union`` whose ``members`` are the type names, and
      ``fields`` describe its object member when it has one (``null | object`` is common);
    - anything else is a ``scalar``: a string, number, boolean or null, and also an array or
      an unconstrained schema, since the spec has no array kind (arrays exist only as the
      ``array`` type of a ParameterInfo). ``enum`` is never produced, as no enum is inferred.

    ``fields`` are ParameterInfo entries ``{name, type, required, description?, format?}`` for
    the top-level properties only, in the schema's property order; a nested object's type is
    ``object`` and its inner fields are not listed. Type names are the spec's (``string``,
    ``number``, ``integer``, ``boolean``, ``array``, ``object``, ``null``). The spec has no
    nullable flag and ``type`` is free text, so several types are joined TypeScript-style as
    in the spec's own interfaces: ``"string | null"`` (sorted, ``null`` last); a field with no
    type constraint (below the depth limit) is ``"unknown"``.
    """
    types = _schema_types(schema)
    kind = "union" if len(types) > 1 else "object" if types == ["object"] else "scalar"
    details: dict[str, Any] = {"name": name, "kind": kind}
    if isinstance(schema.get("description"), str):
        details["description"] = schema["description"]
    if kind == "union":
        details["members"] = types
    if "object" in types:
        details["fields"] = _fields(schema)
    return details


def _fields(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    fields: list[dict[str, Any]] = []
    for key, sub in properties.items():
        types = _schema_types(sub)
        field: dict[str, Any] = {"name": key, "type": " | ".join(types) or "unknown", "required": key in required}
        for keyword in ("description", "format"):
            if isinstance(sub.get(keyword), str):
                field[keyword] = sub[keyword]
        fields.append(field)
    return fields


def _schema_types(schema: Mapping[str, Any]) -> list[str]:
    """The schema's type names, sorted with ``null`` last (the reading order of ``string | null``)."""
    declared = schema.get("type", [])
    names = [declared] if isinstance(declared, str) else list(declared)
    return sorted(names, key=lambda type_name: (type_name == "null", type_name))
