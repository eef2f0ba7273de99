"""What changed between two schemas, and whether a client breaks on it: one walk for both
directions. A request schema (an operation's parameters, read as the properties of one object)
breaks clients when it narrows: a value they sent is no longer taken. A response schema (the
one ``shapes`` infers from the answers) breaks them when it widens: a value they never had to
handle may now come. Every rule names which way it goes (``Turn``); the breaking-change table of
the docs site's drift page (docs/drift.md) is this module's.

A place is compared on: its types, read as a set (``["string", "null"]``, ``"null | string"``,
``string[]``, ``nullable: true``; an integer is a number too, so integer -> number widens and
number -> integer narrows); its enum (values compared as JSON: ``true`` is not ``1``; an enum
added where there was none narrows, one dropped widens); its object properties (removed,
added, required or not: a parameter's ``required: true`` or the object's ``required`` list); its
``additionalProperties`` (closed narrows); bounds (``minimum``, ``maxLength``...: tighter
narrows); ``pattern`` and ``format`` (added or changed narrows); and recursively the items of
an array and every property. Linear in the size of both schemas (each place once; enum values
through ``json_key`` sets); nesting is bounded by MAX_DEPTH.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from mcpaql_conformance.evidence.declared import declared_types, object_properties, typed
from mcpaql_conformance.files.values import json_equal, json_key, show

Direction = Literal["request", "response"]
MAX_DEPTH = 32
MAX_SHOWN = 10


class Turn(Enum):
    """Which way a change moves the set of values a place holds."""

    NARROWS = "narrows"  # fewer values: breaks a request, not a response
    WIDENS = "widens"  # more values: breaks a response, not a request
    BOTH = "both"  # neither contains the other (a pattern changed): breaks either

    def breaks(self, direction: Direction) -> bool:
        if self is Turn.BOTH:
            return True
        return (self is Turn.NARROWS) == (direction == "request")


@dataclass(frozen=True)
class Found:
    """One change at a place: ``subject`` is the place's path, ``what`` one sentence."""

    subject: str
    what: str
    breaking: bool


def compare_schemas(subject: str, old: Any, new: Any, direction: Direction) -> list[Found]:
    """Every change between two schemas of one place (and all places under it)."""
    found: list[Found] = []
    stack: list[tuple[str, Any, Any, int]] = [(subject, old, new, 0)]
    while stack:
        path, before, after, depth = stack.pop()
        if not isinstance(before, dict) or not isinstance(after, dict) or json_equal(before, after):
            continue
        found += [Found(path, what, turn.breaks(direction)) for what, turn in _place(before, after, direction)]
        before, after = typed(before), typed(after)  # items of string[] are a place of their own
        if depth >= MAX_DEPTH:
            continue
        found += [Found(path_of(path, name), what, breaking) for name, what, breaking in
                  property_changes(object_properties(before), object_properties(after), direction)]  # fmt: skip
        children = [(f"{path}[]", before.get("items"), after.get("items"), depth + 1)]
        children += [
            (path_of(path, name), schema, object_properties(after)[name], depth + 1)
            for name, schema in object_properties(before).items()
            if name in object_properties(after)
        ]
        stack.extend(reversed(children))
    return found


def path_of(path: str, name: str) -> str:
    return f"{path}.{name}"


def property_changes(
    before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]], direction: Direction
) -> Iterator[tuple[str, str, bool]]:
    """(name, what, breaking) for properties (or parameters) removed, added, and required or not:
    a request breaks on one removed, one added required or one newly required; a response on
    one gone or no longer in every answer."""
    request = direction == "request"
    for name in sorted(set(before) - set(after)):
        yield name, "removed" if request else "no longer in any answer", True
    for name in sorted(set(after) - set(before)):
        required = _required(after[name])
        yield name, "added (required)" if request and required else "added", request and required
    for name in sorted(set(before) & set(after)):
        was, now = _required(before[name]), _required(after[name])
        if now and not was:
            yield name, "now required" if request else "now in every answer", request
        elif was and not now:
            yield name, "no longer required" if request else "no longer in every answer", not request


def _required(schema: dict[str, Any]) -> bool:
    return schema.get("required") is True


def _place(before: dict[str, Any], after: dict[str, Any], direction: Direction) -> Iterator[tuple[str, Turn]]:
    yield from _types(before, after, direction)
    yield from _enum(before.get("enum"), after.get("enum"))
    if direction == "request":
        yield from _closed(before.get("additionalProperties"), after.get("additionalProperties"))
    yield from _bounds(before, after)
    if _both_take_strings(before, after):  # else the type change says it: a format of no string is moot
        for keyword in ("pattern", "format"):
            yield from _text_constraint(keyword, before.get(keyword), after.get(keyword))


def _both_take_strings(before: dict[str, Any], after: dict[str, Any]) -> bool:
    return all(types is None or "string" in types for types in (declared_types(before), declared_types(after)))


def _types(before: dict[str, Any], after: dict[str, Any], direction: Direction) -> Iterator[tuple[str, Turn]]:
    was, now = declared_types(before), declared_types(after)
    if was == now:
        return
    if was is None or now is None:
        if before.get("type") is None:  # a type where none was declared: only it is taken now
            yield f"type now declared: {_types_text(now, after)}", Turn.NARROWS
        elif after.get("type") is None:
            yield f"type no longer declared (was {_types_text(was, before)})", Turn.WIDENS
        elif " ".join(str(before.get("type")).split()) != " ".join(str(after.get("type")).split()):
            yield f"type changed from {_types_text(was, before)} to {_types_text(now, after)}", Turn.BOTH
        return
    lost, gained = _not_covered(was, now), _not_covered(now, was)
    if not lost and not gained:
        return
    turn = Turn.BOTH if lost and gained else Turn.NARROWS if lost else Turn.WIDENS
    text = f"type changed from {_types_text(was, before)} to {_types_text(now, after)}"
    yield (text if direction == "request" else f"now {_plain_types(now)}, was {_plain_types(was)}"), turn


def _not_covered(types: frozenset[str], others: frozenset[str]) -> frozenset[str]:
    """The types of ``types`` whose values ``others`` does not take (an integer is a number)."""
    return frozenset(t for t in types if t not in others and not (t == "integer" and "number" in others))


def _types_text(types: frozenset[str] | None, schema: dict[str, Any]) -> str:
    if types is None:
        return show(schema.get("type"), limit=60)
    return " | ".join(sorted(types))


def _plain_types(types: frozenset[str]) -> str:
    return " or ".join(sorted(types))


def _enum(before: Any, after: Any) -> Iterator[tuple[str, Turn]]:
    was = before if isinstance(before, list) else None
    now = after if isinstance(after, list) else None
    if was is None and now is None:
        return
    if was is None and now is not None:
        yield f"enum added: only {_values(now)}", Turn.NARROWS
        return
    if now is None and was is not None:
        yield "enum dropped: any value of the type", Turn.WIDENS
        return
    assert was is not None and now is not None
    keys_now = {json_key(value) for value in now}
    keys_was = {json_key(value) for value in was}
    removed = [value for value in was if json_key(value) not in keys_now]
    added = [value for value in now if json_key(value) not in keys_was]
    if removed:
        yield f"enum values removed: {_values(removed)}", Turn.NARROWS
    if added:
        yield f"enum values added: {_values(added)}", Turn.WIDENS


def _values(values: list[Any]) -> str:
    more = f" (+{len(values) - MAX_SHOWN} more)" if len(values) > MAX_SHOWN else ""
    return ", ".join(show(value, limit=60) for value in values[:MAX_SHOWN]) + more


def _closed(before: Any, after: Any) -> Iterator[tuple[str, Turn]]:
    if after is False and before is not False:
        yield "no longer takes properties it does not name (additionalProperties: false)", Turn.NARROWS
    elif before is False and after is not False:
        yield "now takes properties it does not name", Turn.WIDENS


# keyword -> True where a greater value narrows (a minimum), False where a smaller one does
_BOUNDS = {
    "minimum": True, "exclusiveMinimum": True, "minLength": True, "minItems": True, "minProperties": True,
    "maximum": False, "exclusiveMaximum": False, "maxLength": False, "maxItems": False, "maxProperties": False,
}  # fmt: skip


def _bounds(before: dict[str, Any], after: dict[str, Any]) -> Iterator[tuple[str, Turn]]:
    for keyword, greater_narrows in _BOUNDS.items():
        was, now = _number(before.get(keyword)), _number(after.get(keyword))
        narrows = was is not None and now is not None and (now > was) == greater_narrows
        yield from _constraint(keyword, was, now, Turn.NARROWS if narrows else Turn.WIDENS)


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text_constraint(keyword: str, before: Any, after: Any) -> Iterator[tuple[str, Turn]]:
    was = before if isinstance(before, str) else None
    now = after if isinstance(after, str) else None
    yield from _constraint(keyword, was, now, Turn.BOTH)  # another pattern: neither holds the other


def _constraint(keyword: str, was: Any, now: Any, changed: Turn) -> Iterator[tuple[str, Turn]]:
    """A constraint added (narrows), dropped (widens) or changed (``changed``), if it did."""
    if was == now:
        return
    if was is None:
        yield f"{keyword} {show(now, limit=60)} added", Turn.NARROWS
    elif now is None:
        yield f"{keyword} {show(was, limit=60)} dropped", Turn.WIDENS
    else:
        yield f"{keyword} changed from {show(was, limit=60)} to {show(now, limit=60)}", changed
