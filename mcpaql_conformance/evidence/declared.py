"""What a parameter declaration means for the values capture may send: its type read
leniently (``string[]``, ``Array<string>``, ``list[str]``, ``"string | null"``, ``int``) as the
JSON type it stands for, and values that are placeholders, not values (``<path>``, ``{id}``,
``YOUR_API_KEY``), which a server's examples often hold and which are never sent.

Reading is bounded: a type string longer than ``MAX_TYPE`` or nested deeper than ``MAX_NESTING``
is left as the server wrote it (an adapter-defined type: nothing is checked against it).
"""

from __future__ import annotations

import re
from typing import Any

from mcpaql_conformance.regex import lazy

JsonObject = dict[str, Any]
JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object"})
MAX_TYPE = 200
MAX_NESTING = 4

_ALIASES = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "bool": "boolean",
    "dict": "object",
    "map": "object",
    "record": "object",
    "list": "array",
    "tuple": "array",
    "set": "array",
}
_NULLS = frozenset({"null", "none", "undefined", "nil"})
_SUFFIX_ARRAY = lazy(r"^(.+?)\s*\[\s*\]$")
_GENERIC = lazy(r"^([A-Za-z]+)\s*[<\[(]\s*(.*?)\s*[>\])]$")
_BRACKETED = lazy(r"^\[\s*(.+?)\s*\]$")


def typed(parameter: JsonObject) -> JsonObject:
    """The declaration with its ``type`` as a JSON type where the server wrote one another way
    (and ``items`` for an array type that names its items); the same object when nothing changes."""
    raw = parameter.get("type")
    if raw is None and isinstance(parameter.get("items"), dict):
        return {**parameter, "type": "array"}
    kind, items = json_type(raw)
    if kind is None or (kind == raw and items is None):
        return parameter
    entry = {**parameter, "type": kind}
    if kind == "array" and items is not None and not isinstance(parameter.get("items"), dict):
        entry["items"] = {"type": items}
    return entry


def declared_types(schema: JsonObject) -> frozenset[str] | None:
    """Every JSON type a declaration takes, as a set: ``["string", "null"]``, ``"null | string"``
    and ``type: string, nullable: true`` are one and the same; None where no type is declared or
    one we cannot read is (an adapter-defined type)."""
    types = _type_set(schema.get("type"), 0)
    if types is not None and schema.get("nullable") is True:
        return types | {"null"}
    return types


def _type_set(raw: Any, depth: int) -> frozenset[str] | None:
    if depth > MAX_NESTING:
        return None
    if isinstance(raw, list):
        members = [_type_set(member, depth + 1) for member in raw[: MAX_NESTING * 4]]
        if not members or any(member is None for member in members):
            return None
        return frozenset().union(*(member for member in members if member is not None))
    if not isinstance(raw, str) or len(raw) > MAX_TYPE:
        return None
    text = raw.strip()
    if text.lower() in _NULLS:
        return frozenset({"null"})
    if "|" in text and not _GENERIC.match(text):
        return _type_set([part for part in text.split("|") if part.strip()], depth + 1)
    kind = json_type(text, depth)[0]
    return frozenset({kind}) if kind is not None else None


def object_properties(schema: JsonObject) -> dict[str, JsonObject]:
    """A place's object properties: JSON Schema's ``properties`` map, or a list of entries with
    a ``name`` (how parameters and TypeDetails fields are written); each with ``required`` set
    from the object's ``required`` list where it names it."""
    raw = schema.get("properties")
    listed = [p for p in raw if isinstance(p, dict) and isinstance(p.get("name"), str)] if isinstance(raw, list) else []
    found = {p["name"]: p for p in listed} if listed else {}
    if isinstance(raw, dict):
        found = {name: value for name, value in raw.items() if isinstance(value, dict)}
    required = schema.get("required")
    if isinstance(required, list):
        names = {name for name in required if isinstance(name, str)}
        found = {name: ({**value, "required": True} if name in names else value) for name, value in found.items()}
    return found


def json_type(raw: Any, depth: int = 0) -> tuple[str | None, str | None]:
    """The JSON type a declared type stands for, and its items' type for an array (None where
    it is not one we know: an adapter-defined type)."""
    if isinstance(raw, list):  # JSON Schema's ["string", "null"]
        members = [m for m in raw if isinstance(m, str) and m.strip().lower() not in _NULLS]
        return json_type(members[0], depth + 1) if members and depth < MAX_NESTING else (None, None)
    if not isinstance(raw, str) or len(raw) > MAX_TYPE or depth > MAX_NESTING:
        return None, None
    text = raw.strip()
    lowered = text.lower()
    if lowered in JSON_TYPES:
        return lowered, None
    if lowered in _ALIASES:
        return _ALIASES[lowered], None
    if "|" in text and not _GENERIC.match(text):
        members = [m.strip() for m in text.split("|") if m.strip().lower() not in _NULLS and m.strip()]
        return json_type(members[0], depth + 1) if members else (None, None)
    array_of = array_item_type(text)
    if array_of is not None:
        return "array", json_type(array_of, depth + 1)[0]
    generic = _GENERIC.match(text)
    if generic is not None and _ALIASES.get(generic.group(1).lower()) == "object":
        return "object", None
    return None, None


def array_item_type(text: str) -> str | None:
    """The item type of ``string[]``, ``Array<string>``, ``list[str]`` or ``[string]``."""
    for pattern in (_SUFFIX_ARRAY, _BRACKETED):
        match = pattern.match(text)
        if match is not None:
            return match.group(1)
    generic = _GENERIC.match(text)
    if generic is not None and generic.group(1).lower() in ("array", "list", "set", "tuple", "sequence", "vec"):
        return generic.group(2)
    return None


# A value that stands for one: <path>, <your id>, {id}, {{token}}, ${HOME}, YOUR_API_KEY, your-token-here,
# REPLACE_ME, xxx, ... (a whole value, or a part of a path or URL: /home/<user>/notes).
_PLACEHOLDERS = (
    lazy(r"<[^<>\n]{1,64}>"),
    lazy(r"\$\{[^{}\n]{1,64}\}|\{\{[^{}\n]{1,64}\}\}"),
    lazy(r"^\{[A-Za-z_][\w.:-]{0,63}\}$|/\{[A-Za-z_][\w.-]{0,63}\}(?:/|$)"),
    lazy(r"^(?:your|my)[_ -][\w -]{1,60}$|[_-]here$", re.IGNORECASE),
    lazy(r"^(?:YOUR|MY)_[A-Z0-9_]+$|^(?:REPLACE[_ -]?ME|CHANGE[_ -]?ME|TODO|TBD|FIXME|PLACEHOLDER)$", re.I),
    lazy(r"^(?:\.{3}|\u2026|x{3,}|X{3,})$"),
)
MAX_PLACEHOLDER_NODES = 200  # values looked at inside one example value


def is_placeholder(value: Any) -> bool:
    """Whether a value (or a string inside it) is placeholder syntax rather than a value."""
    stack = [value]
    looked = 0
    while stack and looked < MAX_PLACEHOLDER_NODES:
        item = stack.pop()
        looked += 1
        if isinstance(item, str):
            if any(pattern.search(item[:MAX_TYPE]) for pattern in _PLACEHOLDERS):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


# What a server says of a field it takes but never gives back: a secret, a password, a one-way value.
_WRITE_ONLY_TEXT = lazy(
    r"write[- ]only|never (?:returned|read back|shown|echoed|exposed)|not (?:returned|echoed|exposed|included in "
    r"(?:the )?(?:response|answer|output)s?)|(?:is|are) hashed|one-way",
    re.IGNORECASE,
)
_SECRET_NAMES = lazy(r"(?:^|_)(?:password|passphrase|passwd|secret|token|api_?key|credentials?)(?:$|_)", re.I)


def write_only(parameter: JsonObject) -> bool:
    """Whether a documented parameter is one a read is not expected to give back: declared
    ``writeOnly`` or ``sensitive``, described as never returned, or named as a secret."""
    if parameter.get("writeOnly") is True or parameter.get("sensitive") is True:
        return True
    description = parameter.get("description")
    if isinstance(description, str) and _WRITE_ONLY_TEXT.search(description[: MAX_TYPE * 10]):
        return True
    name = parameter.get("name")
    return isinstance(name, str) and _SECRET_NAMES.search(name) is not None
