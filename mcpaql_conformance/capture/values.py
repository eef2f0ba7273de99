"""Synthesise parameter values from introspection (type, enum, default, bounds, format)."""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]
# Every string capture makes up starts with this, so that what it names (a record, a file, a
# path, a repository) can be found and cannot be taken for real data.
MADE_UP = "mcpaql-conformance"


def made_up(label: str = "probe") -> str:
    """A made-up string: ``mcpaql-conformance-probe``, ``mcpaql-conformance-title``."""
    return f"{MADE_UP}-{label}"


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
        return []
    if kind == "object":
        return {}
    return _fit(_FORMATS.get(str(parameter.get("format", "")), made_up()), parameter)


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
    return bool(check(value)) and (not isinstance(enum, list) or value in enum)


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
        return {}
    return _fit(_FORMATS.get(str(parameter.get("format", "")), made_up(label)), parameter)


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


def changed_value(value: Any, label: str) -> Any:
    """A value of the same JSON type as ``value`` that differs from it (for an update)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, list):
        return [*value, made_up(f"{label}-updated")]
    if isinstance(value, dict):
        return {**value, "updated": True}
    return f"{value}-updated" if isinstance(value, str) and value else made_up(f"{label}-updated")
