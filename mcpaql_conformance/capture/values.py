"""Synthesise parameter values from introspection (type, enum, default, bounds, format)."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mcpaql_conformance.capture.patterns import fits, matching, pattern_of
from mcpaql_conformance.evidence.declared import object_properties, typed
from mcpaql_conformance.files.values import json_equal

JsonObject = dict[str, Any]
# Every string capture makes up starts with this, so that what it names (a record, a file, a
# path, a repository) can be found and cannot be taken for real data.
MADE_UP = "mcpaql-conformance"
# A token of the capture run, at the end of every made-up string: a record an earlier run left
# behind never collides with one this run creates (CONFLICT_EXISTS would be our doing).
_RUN: ContextVar[str] = ContextVar("mcpaql_conformance_run", default="")


@contextmanager
def run_values(stamp: str) -> Iterator[str]:
    """Made-up strings of this run end with a short token derived from ``stamp`` (the run's time
    and process id); the token."""
    token = hashlib.sha256(stamp.encode()).hexdigest()[:6]
    reset = _RUN.set(token)
    try:
        yield token
    finally:
        _RUN.reset(reset)


def made_up(label: str = "probe") -> str:
    """A made-up string: ``mcpaql-conformance-probe``, ``mcpaql-conformance-title`` (during a
    capture, with the run's token: ``mcpaql-conformance-title-3f9a2c``)."""
    token = _RUN.get()
    return f"{MADE_UP}-{label}-{token}" if token else f"{MADE_UP}-{label}"


def numbered(value: Any, number: int, parameter: JsonObject | None = None) -> Any:
    """``value`` with every made-up string in it numbered (``...-title-3f9a2c-2``): each call that
    creates something gets names of its own, so the second is no conflict with the first. A
    value generated for the parameter's pattern is generated anew with the number instead."""
    if isinstance(value, str) and value.startswith(MADE_UP):
        return f"{value}-{number}"
    pattern = pattern_of(parameter) if parameter is not None else None
    if isinstance(value, str) and pattern is not None and parameter is not None:
        again = matching(pattern, f"{_RUN.get()}:{parameter.get('name')}:{number}", parameter)
        return again if again is not None else value
    if isinstance(value, list):
        items = parameter.get("items") if parameter is not None else None
        return [numbered(item, number, items if isinstance(items, dict) else None) for item in value]
    return value


_FORMATS = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "email": "mcpaql-conformance@example.org",
    "uri": "https://example.org/mcpaql-conformance",
    "url": "https://example.org/mcpaql-conformance",
    "uuid": "00000000-0000-4000-8000-000000000001",
}


def synthesise(parameter: JsonObject) -> Any:
    """A plausible valid value for a ParameterInfo entry."""
    if "default" in parameter:
        return parameter["default"]
    if isinstance(parameter.get("enum"), list) and parameter["enum"]:
        return parameter["enum"][0]
    kind = str(parameter.get("type", "string")).lower()
    if kind in ("integer", "number"):
        minimum = parameter.get("minimum")
        value = minimum if isinstance(minimum, int | float) and not isinstance(minimum, bool) else 1
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return False
    if kind == "array":
        items = parameter.get("items")  # one item of the declared type: an empty list is often refused
        return [synthesise(items)] if isinstance(items, dict) and items.get("type") in _SCALARS else []
    if kind == "object":
        return _object(parameter)
    # Named after the parameter: a refusal that quotes it says which of our values it refused.
    name = parameter.get("name")
    label = name if isinstance(name, str) and _LABEL.fullmatch(name) else "probe"
    return _patterned(_fit(_FORMATS.get(str(parameter.get("format", "")), made_up(label)), parameter), parameter, label)


def _object(parameter: JsonObject, depth: int = 0) -> JsonObject:
    """An object with the properties the declaration documents: the required ones, or the first
    where none is (an empty ``input`` changes nothing and is often refused); {} where none is
    documented."""
    properties = object_properties(parameter)
    if not properties or depth >= MAX_OBJECT_DEPTH:
        return {}
    chosen = [name for name, schema in properties.items() if schema.get("required") is True] or [next(iter(properties))]
    found: JsonObject = {}
    for name in chosen[:MAX_PROPERTIES]:
        schema = typed({**properties[name], "name": name})
        found[name] = _object(schema, depth + 1) if str(schema.get("type")).lower() == "object" else synthesise(schema)
    return found


MAX_OBJECT_DEPTH = 4
MAX_PROPERTIES = 20
_SERIAL = itertools.count(1)  # each pattern value of a run is generated from a seed of its own


def _patterned(text: str, parameter: JsonObject, label: str) -> str:
    """``text``, or where the parameter documents a pattern it does not keep, a string that
    does (``capture.patterns``); ``text`` when the pattern gives none we may send."""
    pattern = pattern_of(parameter)
    if pattern is None or fits(text, parameter) is True:
        return text
    generated = matching(pattern, f"{_RUN.get()}:{label}:{next(_SERIAL)}", parameter)
    return generated if generated is not None else text


_LABEL = re.compile(r"[A-Za-z0-9_]{1,40}")
_SCALARS = ("string", "integer", "number", "boolean")


MAX_LENGTH = 4096  # a server cannot make us build gigabyte strings


def _length(value: Any, fallback: int | None) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return min(value, MAX_LENGTH)
    return fallback


def matches_type(value: Any, parameter: JsonObject) -> bool:
    """Whether a plan value fits the introspected type (checked before it is sent)."""
    kind = str(parameter.get("type", "")).lower()
    checks = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list),
        "object": lambda v: isinstance(v, dict),
    }
    check = checks.get(kind)
    if check is None:
        return True  # an adapter-defined type: nothing to check against
    enum = parameter.get("enum")
    if not check(value) or (isinstance(enum, list) and value not in enum):
        return False
    items = parameter.get("items")
    if kind == "array" and isinstance(items, dict) and str(items.get("type", "")).lower() in checks:
        return all(matches_type(item, items) for item in value[:MAX_ITEMS])
    return True


MAX_ITEMS = 100  # items of a list value checked against the declared item type


def distinct_value(parameter: JsonObject, label: str) -> Any:
    """A valid value that differs from the parameter's default, for round trips: a server that
    drops a field and falls back to its default must not pass by accident. Strings are made up
    from ``label`` (so a read-back shows which field it was), arrays get one item."""
    default = parameter.get("default")
    enum = parameter.get("enum")
    if isinstance(enum, list) and enum:
        return next((value for value in enum if value != default), enum[0])
    kind = str(parameter.get("type", "string")).lower()
    if kind in ("integer", "number"):
        return _distinct_number(parameter, kind)
    if kind == "boolean":
        return default is not True
    if kind == "array":
        items = parameter.get("items")
        return [distinct_value(items, label) if isinstance(items, dict) else made_up(label)]
    if kind == "object":
        return _object(parameter)
    return _patterned(_fit(_FORMATS.get(str(parameter.get("format", "")), made_up(label)), parameter), parameter, label)


def _distinct_number(parameter: JsonObject, kind: str) -> Any:
    minimum, maximum, default = parameter.get("minimum"), parameter.get("maximum"), parameter.get("default")
    low: float = minimum if isinstance(minimum, int | float) and not isinstance(minimum, bool) else 1
    value = low + 1 if _is_number(default) and low == default else low
    if isinstance(maximum, int | float) and not isinstance(maximum, bool) and value > maximum:
        value = low
    return int(value) if kind == "integer" else float(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fit(text: str, parameter: JsonObject) -> str:
    minimum = _length(parameter.get("minLength"), 0) or 0
    maximum = _length(parameter.get("maxLength"), None)
    if len(text) < minimum:
        text = text + "x" * (minimum - len(text))
    if isinstance(maximum, int) and len(text) > maximum:
        text = text[: max(maximum, minimum)]
    return text


def changed_value(value: Any, label: str, parameter: JsonObject | None = None) -> Any:
    """A value of the same JSON type as ``value`` that differs from it (for an update), within
    what the parameter documents where it is known: another of its enum values, a number
    inside its bounds, a string that keeps its pattern."""
    declared = parameter or {}
    enum = declared.get("enum")
    if isinstance(enum, list) and len(enum) > 1:
        return next((item for item in enum if not json_equal(item, value)), enum[0])
    changed = _changed(value, label)
    maximum: Any = declared.get("maximum")
    if _is_number(changed) and _is_number(maximum) and changed > maximum:
        changed = value - 1
    if isinstance(changed, str) and fits(changed, declared) is False:
        pattern = pattern_of(declared)
        again = matching(pattern, f"{_RUN.get()}:{label}:updated", declared) if pattern is not None else None
        changed = again if again is not None and again != value else changed
    return changed


def _changed(value: Any, label: str) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, list):
        return [*value, made_up(f"{label}-updated")]
    if isinstance(value, dict):
        return {**value, "updated": True}
    return f"{value}-updated" if isinstance(value, str) and value else made_up(f"{label}-updated")
