"""Named types are types: a parameter, a field or an array item whose ``type`` names a type the
server lists (``location: Location``, ``input: ItemUpdateInput``, ``items: {type: Ingredient}``)
stands for what that type's TypeDetails say (introspection §3.6, §5.2): an object with its
``fields``, an enum of its ``values``, a union of its ``members``.

``NamedTypes`` holds the types a server documents (its TypeDetails, else a list entry that
documents fields or values) and ``resolve`` gives a declaration with every named type in it
read as the JSON shape it stands for: ``{type: object, properties: [fields...]}``,
``{type: string, enum: [...]}``, nested types and array items included. Reading is bounded
(``MAX_DEPTH`` types deep, a type that contains itself is not followed again) and lenient (a name
in another case, ``Location[]``, ``Array<Ingredient>``); a name the server does not describe
is left as written (an adapter-defined type: nothing is checked against it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcpaql_conformance.evidence.declared import JSON_TYPES, array_item_type, json_type, typed
from mcpaql_conformance.evidence.reading import TYPE_NAME_KEYS, documents_shape, name_of

JsonObject = dict[str, Any]
MAX_DEPTH = 6  # named types followed inside one another
MAX_FIELDS = 100  # fields of one object type read
NAMED = "x-named-type"  # on a resolved declaration: the type name the server wrote


class NamedTypes:
    """The types a server documents, by name (exact, else ignoring case)."""

    def __init__(self, details: Iterable[Any] = (), listed: Iterable[Any] = ()) -> None:
        self.by_name: dict[str, JsonObject] = {}
        for entry in [*listed, *details]:  # a detail (later) wins over its list entry
            name = name_of(entry, TYPE_NAME_KEYS)[0]
            if name is not None and (documents_shape(entry) or _kind(entry) is not None):
                self.by_name[name] = entry
        self._folded = {name.lower(): entry for name, entry in self.by_name.items()}

    def __bool__(self) -> bool:
        return bool(self.by_name)

    def get(self, name: Any) -> JsonObject | None:
        """The documented type of that name, if any."""
        if not isinstance(name, str):
            return None
        return self.by_name.get(name.strip()) or self._folded.get(name.strip().lower())

    def kind(self, name: Any) -> str | None:
        """``object``, ``enum``, ``union`` or ``scalar`` for a documented type (None otherwise)."""
        entry = self.get(name)
        return _kind(entry) if entry is not None else None

    def resolve(self, declaration: JsonObject) -> JsonObject:
        """The declaration with its type read as the JSON type it stands for (``declared.typed``)
        and every named type in it as the JSON shape it stands for."""
        if not self.by_name:
            return typed(declaration)
        return self._resolve(declaration, 0, frozenset())

    def _resolve(self, declaration: JsonObject, depth: int, inside: frozenset[str]) -> JsonObject:
        entry = typed(declaration)
        raw = entry.get("type")
        written = declaration.get("type")
        if raw == "array" and not isinstance(entry.get("items"), dict) and isinstance(written, str):
            item = array_item_type(written.strip())  # `Ingredient[]`, `Array<Ingredient>`
            entry = {**entry, "items": {"type": item}} if item is not None else entry
        if depth > MAX_DEPTH:
            return entry
        if raw == "array" and isinstance(entry.get("items"), dict):
            items = self._resolve(entry["items"], depth + 1, inside)
            return entry if items is entry["items"] else {**entry, "items": items}
        if raw == "object" and isinstance(entry.get("properties"), list | dict):
            return self._with_fields(entry, entry["properties"], depth, inside)
        if not isinstance(raw, str) or raw.lower() in JSON_TYPES:
            return entry
        named = self.get(raw)
        if named is None and json_type(raw)[0] is None:
            named = self.get(_bare(raw))
        if named is None:
            return entry
        name = str(name_of(named, TYPE_NAME_KEYS)[0])
        if name in inside:
            return {**entry, "type": "object", NAMED: name}  # a type that holds itself: not followed again
        return self._named(entry, named, name, depth, inside | {name})

    def _named(self, entry: JsonObject, named: JsonObject, name: str, depth: int, inside: frozenset[str]) -> JsonObject:
        kind = _kind(named)
        resolved: JsonObject = {**entry, NAMED: name}
        if kind == "object":
            resolved["type"] = "object"
            return self._with_fields(resolved, named.get("fields") or [], depth, inside)
        if kind == "enum":
            values = [value for value in named.get("values") or [] if isinstance(value, str | int | float)]
            if values and not isinstance(entry.get("enum"), list):
                resolved["enum"] = values
            resolved["type"] = "string" if all(isinstance(v, str) for v in values) else "number"
            return resolved
        if kind == "union":
            for member in named.get("members") or []:
                found = self._resolve({**entry, "type": member}, depth + 1, inside)
                if found.get("type") != member:
                    return {**found, NAMED: name}
        return entry  # a scalar (a DateTime, a Money): as the server wrote it

    def _with_fields(self, entry: JsonObject, fields: Any, depth: int, inside: frozenset[str]) -> JsonObject:
        if isinstance(fields, dict):  # JSON Schema's properties map
            listed = [{**value, "name": key} for key, value in fields.items() if isinstance(value, dict)]
        else:
            listed = [f for f in fields if isinstance(f, dict) and isinstance(f.get("name"), str)]
        said = entry.get("required")
        required: list[Any] = said if isinstance(said, list) else []
        properties = [
            self._resolve({**f, "required": True} if f["name"] in required else f, depth + 1, inside)
            for f in listed[:MAX_FIELDS]
        ]
        return {**entry, "properties": properties}

    def is_object(self, declaration: JsonObject) -> bool | None:
        """Whether a declared type is an object (a JSON object type, or a listed object type);
        None when it names a type the server does not describe."""
        raw = typed(declaration).get("type")
        kind = json_type(raw)[0]
        if kind is not None:
            return kind == "object"
        documented = self.kind(raw)
        return None if documented is None else documented == "object"


def _kind(entry: Any) -> str | None:
    """A type's kind as declared, else as its shape says (fields: object, values: enum)."""
    if not isinstance(entry, dict):
        return None
    kind = entry.get("kind")
    if isinstance(kind, str) and kind.strip().lower() in ("object", "enum", "union", "scalar"):
        return kind.strip().lower()
    if isinstance(entry.get("fields"), list):
        return "object"
    if isinstance(entry.get("values"), list):
        return "enum"
    if isinstance(entry.get("members"), list):
        return "union"
    return None


def _bare(raw: str) -> str:
    """``Location`` of ``Location?``, ``Location!`` or ``Location | null``."""
    text = raw.strip().rstrip("?!").strip()
    parts = [part.strip() for part in text.split("|") if part.strip().lower() not in ("null", "none", "undefined")]
    return parts[0] if parts else text
