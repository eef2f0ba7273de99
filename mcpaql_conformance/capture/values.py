"""Synthesise parameter values from introspection (type, enum, default, bounds, format)."""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mcpaql_conformance.capture.patterns import fits, matching, pattern_of
from mcpaql_conformance.evidence.declared import object_properties, typed
from mcpaql_conformance.files.values import json_equal, json_key
from mcpaql_conformance.regex import lazy

JsonObject = dict[str, Any]
# Every string capture makes up starts with this, so that what it names (a record, a file, a
# path, a repository) can be found and cannot be taken for real data.
MADE_UP = "mcpaql-conformance"
# A token of the capture run, at the end of every made-up string: a record an earlier run left
# behind never collides with one this run creates (CONFLICT_EXISTS would be our doing).
_RUN: ContextVar[str] = ContextVar("mcpaql_conformance_run", default="")


# The keys of new records this run has sent (by parameter): none is sent twice.
_USED: ContextVar[set[tuple[str, Any]] | None] = ContextVar("mcpaql_conformance_used", default=None)


@contextmanager
def run_values(stamp: str) -> Iterator[str]:
    """Made-up strings of this run end with a short token derived from ``stamp`` (the run's time
    and process id); the token."""
    token = hashlib.sha256(stamp.encode()).hexdigest()[:6]
    reset, used = _RUN.set(token), _USED.set(set())
    try:
        yield token
    finally:
        _RUN.reset(reset)
        _USED.reset(used)


def run_token() -> str:
    """The token of the capture run in progress ("" outside one)."""
    return _RUN.get()


MAX_FRESH = 64  # values tried for a key this run has not sent yet


def fresh(parameter: JsonObject, value: Any) -> Any:
    """``value`` for the key of a new record, unless this run sent it before as that parameter's
    value (a second create with it would be refused as a duplicate of our own making): then
    another of its kind (``text_value``'s next number, the next integer), recorded as sent.
    Outside a capture, the value as it is."""
    used = _USED.get()
    name = str(parameter.get("name"))
    if used is None or not isinstance(value, str | int) or isinstance(value, bool):
        return value
    candidate = value
    for number in range(1, MAX_FRESH + 1):
        if (name, json_key(candidate)) not in used:
            break
        candidate = (
            text_value(parameter, _label(parameter), len(used) + number) if isinstance(value, str) else value + number
        )
    used.add((name, json_key(candidate)))
    return candidate


def made_up(label: str = "probe") -> str:
    """A made-up string: ``mcpaql-conformance-probe``, ``mcpaql-conformance-title`` (during a
    capture, with the run's token: ``mcpaql-conformance-title-3f9a2c``)."""
    token = _RUN.get()
    return f"{MADE_UP}-{label}-{token}" if token else f"{MADE_UP}-{label}"


def numbered(value: Any, number: int, parameter: JsonObject | None = None) -> Any:
    """``value`` with every made-up string in it numbered (``...-title-3f9a2c-2``): each call that
    creates something gets names of its own, so the second is no conflict with the first. A
    value made for the parameter's format or pattern is made anew with the number instead (the
    format, pattern and bounds kept together: ``text_value``)."""
    made = parameter is not None and (pattern_of(parameter) is not None or _format(parameter) is not None)
    if isinstance(value, str) and made and parameter is not None:
        return text_value(parameter, _label(parameter), number)
    if isinstance(value, str) and value.startswith(MADE_UP):
        return f"{value}-{number}"
    if isinstance(value, list):
        items = parameter.get("items") if parameter is not None else None
        return [numbered(item, number, items if isinstance(items, dict) else None) for item in value]
    return value


def text_value(parameter: JsonObject, label: str, number: int = 0) -> str:
    """A string for the parameter that keeps its format (``date``, ``date-time``, ``email``,
    ``uri``, ``uuid``...), its pattern and its length bounds together; ``number`` > 0 gives
    another value of the same kind (the nth create's). Values of a format differ by run and by
    number (an email or a uuid names a new record in no other run); where the format's value
    does not keep the pattern, one generated from the pattern that also keeps the format."""
    fmt = _format(parameter)
    formatted = format_value(fmt, label, number)
    first = formatted if formatted is not None else _fit(made_up(label) + (f"-{number}" if number else ""), parameter)
    pattern = pattern_of(parameter)
    if pattern is None or fits(first, parameter) is True:
        return first
    for attempt in range(ATTEMPTS):
        generated = matching(pattern, f"{_RUN.get()}:{label}:{number}:{attempt}:{next(_SERIAL)}", parameter)
        if generated is not None and format_ok(fmt, generated):
            return generated
    return first


ATTEMPTS = 8  # values generated from a pattern until one also keeps the format


def _format(parameter: JsonObject) -> str | None:
    fmt = parameter.get("format")
    return fmt.strip().lower() if isinstance(fmt, str) else None


def _label(parameter: JsonObject) -> str:
    name = parameter.get("name")
    return name if isinstance(name, str) and _LABEL.fullmatch(name) else "probe"


_EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def format_value(fmt: str | None, label: str, number: int = 0) -> str | None:
    """A value of a string format (None for one we do not know): ``number`` days, minutes or
    addresses further on, so that each create gets one of its own."""
    token = _RUN.get()
    suffix = f"-{number}" if number else ""
    mark = f"{MADE_UP}-{token}" if token else MADE_UP
    if fmt == "date":
        return (_EPOCH + dt.timedelta(days=number)).date().isoformat()
    if fmt == "date-time":
        return (_EPOCH + dt.timedelta(minutes=number)).strftime("%Y-%m-%dT%H:%M:%SZ")
    if fmt == "time":
        return f"12:{number % 60:02d}:00"
    if fmt in ("email", "idn-email"):
        return f"{mark}{suffix}@example.org"
    if fmt in ("uri", "url", "iri", "uri-reference", "iri-reference"):
        return f"https://example.org/{MADE_UP}" + (f"/{token}" if token else "") + (f"/{number}" if number else "")
    if fmt == "uuid":
        digest = hashlib.sha256(f"{token}:{label}:{number}".encode()).hexdigest()
        variant = "89ab"[int(digest[16], 16) % 4]
        return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-{variant}{digest[17:20]}-{digest[20:32]}"
    if fmt in ("hostname", "idn-hostname"):
        return "example.org"
    if fmt == "ipv4":
        return f"192.0.2.{1 + number % 254}"
    if fmt == "ipv6":
        return f"2001:db8::{number + 1:x}"
    return None


_CHECKS = {
    "date": lazy(r"\d{4}-\d{2}-\d{2}"),
    "date-time": lazy(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})"),
    "time": lazy(r"\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})?"),
    "email": lazy(r"[^@\s]{1,64}@[^@\s]+\.[^@\s]+"),
    "uuid": lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
}


def format_ok(fmt: Any, text: str) -> bool:
    """Whether a string is a value of the format (a real date, not 6529-59-39); True for a
    format we do not know."""
    fmt = fmt.strip().lower() if isinstance(fmt, str) else None
    if fmt in ("date", "date-time"):
        if _CHECKS[fmt].fullmatch(text) is None:
            return False
        try:
            if fmt == "date":
                dt.date.fromisoformat(text)
            else:
                dt.datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
        except ValueError:
            return False
        return True
    if fmt in ("uri", "url", "iri"):
        from urllib.parse import urlsplit

        parts = urlsplit(text)
        return bool(parts.scheme and (parts.netloc or parts.path)) and " " not in text
    check = _CHECKS.get(fmt or "")
    return check is None or check.fullmatch(text) is not None


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
        return [synthesise(items)] if isinstance(items, dict) and items.get("type") in _ITEMS else []
    if kind == "object":
        return _object(parameter)
    # Named after the parameter: a refusal that quotes it says which of our values it refused.
    return text_value(parameter, _label(parameter))


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
_LABEL = lazy(r"[A-Za-z0-9_]{1,40}")
_ITEMS = ("string", "integer", "number", "boolean", "object")  # an object item: built from its documented fields


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

SENSITIVE_TEXT = "mcpaql-conformance-secret-value"
SENSITIVE_NUMBER = 739184265  # long and unlikely: masking it where a server echoes it hits no other value


def sensitive_value(parameter: JsonObject) -> Any:
    """What capture sends a sensitive parameter no plan gives a value for. Every value sent to
    one is masked wherever it shows (a server may echo it), so it is distinctive: our own text
    where the declaration takes it as it is; else a value of the declared type that keeps its
    enum, pattern, format and bounds, never one the server must refuse for its type (a PIN
    declared as an integer gets a number)."""
    kind = str(parameter.get("type", "")).lower()
    if kind in ("integer", "number"):
        return _sensitive_number(parameter, kind)
    if kind in ("boolean", "array", "object") or isinstance(parameter.get("enum"), list):
        return distinct_value(parameter, "secret")
    if kind == "string" and not _takes_as_is(SENSITIVE_TEXT, parameter):
        return text_value(parameter, "secret")
    return SENSITIVE_TEXT  # a string, or an adapter-defined type: nothing to keep


def _finite(bound: Any) -> float | None:
    """A numeric bound as a finite number (a declared 1e400 reads as infinity: no bound)."""
    if isinstance(bound, int | float) and not isinstance(bound, bool) and math.isfinite(bound):
        return bound
    return None


def _takes_as_is(text: str, parameter: JsonObject) -> bool:
    return _format(parameter) is None and fits(text, parameter) is not False and _fit(text, parameter) == text


def _sensitive_number(parameter: JsonObject, kind: str) -> float:
    minimum, maximum = _finite(parameter.get("minimum")), _finite(parameter.get("maximum"))
    low = math.ceil(minimum) if minimum is not None else None
    high = math.floor(maximum) if maximum is not None else None
    if (low is None or low <= SENSITIVE_NUMBER) and (high is None or high >= SENSITIVE_NUMBER):
        return SENSITIVE_NUMBER
    if high is not None and (low is None or low <= high):
        return high  # the widest number the bounds allow (a four-digit PIN: 9999)
    if kind == "number" and minimum is not None and maximum is not None and minimum <= maximum:
        return (minimum + maximum) / 2  # no whole number between the bounds
    return low if low is not None else SENSITIVE_NUMBER


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
    return text_value(parameter, label)


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
    made = pattern_of(declared) is not None or _format(declared) is not None
    if isinstance(value, str) and made:  # another value of its format and pattern, not "<value>-updated"
        changed = next((text for n in range(1, 5) if (text := text_value(declared, label, n)) != value), changed)
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
