"""A read-only field tried without a plan (conformance-testing §3.5, "Read-Only Field Protection";
introspection §8.2.2): after an inferred update-read cycle whose UPDATE documents the fields its
`input` takes, one field the record read back holds and that `input` does not take, sent in `input`
with a changed value (where `input` documents no fields, one the cycle's create did not send
either): a field introspection calls read-only first, else one the server sets by its
name (`created_at`, `added_at`, `updated`). The server must refuse it (L2.constraints.enforced);
whether introspection says it is read-only (a `readOnly` or `read_only` flag, or a description
saying read-only, immutable, set by the server...) is the case's `documented`
(L2.constraints.documented). Identifiers are left alone: core §4.5.3's own probes send them.

Introspection is read once, linearly and bounded (MAX_NODES nodes, each description MAX_TEXT characters)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from mcpaql_conformance.capture.values import changed_value
from mcpaql_conformance.evidence.declared import object_properties
from mcpaql_conformance.evidence.identifiers import identifier_like
from mcpaql_conformance.files.values import objects_in, resolve_path
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.textmatch import sentences

JsonObject = dict[str, Any]
Send = Callable[[str, JsonObject, str], Awaitable[Any]]  # (reader or update, params, step) -> the answer
ATTEMPT = "read-only attempt"  # how its record's description says what the call asks for (a refusal)
MAX_NODES = 10_000
MAX_TEXT = 1000
MAX_FIELDS = 50  # fields of the record looked at
_SERVER_SET = lazy(
    r"(?:^|_)(?:created|updated|modified|added|inserted|published|deleted)(?:_(?:at|on|date|time))?$|_(?:at|on)$",
    re.IGNORECASE,
)
_READ_ONLY_TEXT = lazy(
    r"read[-_ ]?only|immutable|append[-_ ]?only|set by the server|server[-_ ](?:set|generated|managed|assigned)"
    r"|cannot be (?:changed|modified|updated|edited|written)|not (?:writable|editable|updatable|modifiable)",
    re.IGNORECASE,
)
_FLAGS = ("readOnly", "read_only", "readonly", "immutable", "appendOnly", "append_only")


def read_only_names(candidates: list[str], introspection: Iterable[Any]) -> set[str]:
    """The ``candidates`` what introspection answered calls read-only, in one walk: a parameter or
    field entry of that name (``{"name": field, ...}``) or a schema property of it, flagged or
    described so, or named in a sentence of any description that says so ("book_id and added_at
    are read-only.")."""
    wanted = set(candidates)
    if not wanted:
        return set()
    named = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, sorted(wanted))) + r")(?![A-Za-z0-9_])")
    found: set[str] = set()
    for node in objects_in(introspection, MAX_NODES):
        name = node.get("name")
        if isinstance(name, str) and name in wanted and _says_read_only(node):  # json: names
            found.add(name)
        properties = node.get("properties")
        if isinstance(properties, dict):
            found |= {
                key for key in wanted if isinstance(properties.get(key), dict) and _says_read_only(properties[key])
            }
        found |= _named_read_only(node.get("description"), named)
        if found == wanted:
            break
    return found


def _named_read_only(description: Any, named: re.Pattern[str]) -> set[str]:
    """The names a sentence of ``description`` that says read-only (or so) names."""
    if not isinstance(description, str):
        return set()
    said = sentences(description, MAX_TEXT)
    return {match for sentence in said if _READ_ONLY_TEXT.search(sentence) for match in named.findall(sentence)}


def _says_read_only(entry: JsonObject) -> bool:
    if any(entry.get(flag) is True for flag in _FLAGS):
        return True
    description = entry.get("description")
    return isinstance(description, str) and _READ_ONLY_TEXT.search(description[:MAX_TEXT]) is not None


def read_only_field(record: JsonObject, takes: JsonObject, introspection: Iterable[Any]) -> tuple[str, bool] | None:
    """The field of ``record`` to try, and whether introspection calls it read-only: one `input` does
    not take (``takes``), no identifier, that introspection calls read-only, else that the server
    sets by its name; None where there is none."""
    fields = [key for key in list(record)[:MAX_FIELDS] if key not in takes and not key.startswith("_")]
    fields = [key for key in fields if not identifier_like(key)]
    documented = read_only_names(fields, introspection)
    chosen = next((k for k in fields if k in documented), None) or next(
        (k for k in fields if _SERVER_SET.search(k)), None
    )
    return None if chosen is None else (chosen, chosen in documented)


_DATE_TIME = lazy(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_DATE = lazy(r"\d{4}-\d{2}-\d{2}")


def _another(value: Any, field: str) -> Any:
    """Another value of the field's kind: a timestamp or a date stays one (a refusal of the format
    would be about something else), anything else as an update changes it."""
    if isinstance(value, str) and _DATE_TIME.fullmatch(value):
        return "2001-02-03T04:05:06Z" if not value.startswith("2001-02-03") else "2002-03-04T05:06:07Z"
    if isinstance(value, str) and _DATE.fullmatch(value):
        return "2001-02-03" if value != "2001-02-03" else "2002-03-04"
    return changed_value(value, field)


def input_fields(parameter: Any) -> JsonObject:
    """The fields an UPDATE's `input` documents: its schema ``properties``, or its ``fields``
    entries (as TypeDetails write them); {} where it documents none."""
    if not isinstance(parameter, dict):
        return {}
    fields = parameter.get("fields")
    listed = fields[:500] if isinstance(fields, list) else []
    named = {entry["name"]: entry for entry in listed if isinstance(entry, dict) and isinstance(entry.get("name"), str)}
    return object_properties(parameter) or named


async def read_only_attempt(
    send: Send, shape: JsonObject, read: Any, kept: JsonObject, writes: tuple[Any, Iterable[str]],
    introspection: list[Any], operation: str,
) -> JsonObject | None:  # fmt: skip
    """The constraint case of one read-only field (module docstring): ``shape`` the update's
    identifiers (and `input`), ``read`` the record read back, ``kept`` its paths, ``writes`` the
    UPDATE's `input` parameter and the fields the cycle's create sent (what a caller writes where
    `input` documents no fields); None where the record holds no field to try."""
    takes = input_fields(writes[0]) or dict.fromkeys(writes[1])
    if "input" not in shape or not takes or not kept:
        return None
    record = resolve_path(read, next(iter(kept)).rsplit(".", 1)[0])
    if not isinstance(record, dict):
        return None
    chosen = read_only_field(record, takes, introspection)
    if chosen is None:
        return None
    field, documented = chosen
    params = {**shape, "input": {field: _another(record[field], field)}}
    answer = await send("update", params, f"input.{field}: {ATTEMPT}, a field the record has and `input` does not take")
    return {
        "name": f"{operation}: input.{field} (read-only)",
        "field": field,
        "documented": documented,
        "inferred": True,
        "request": params,
        "response": answer,
    }
