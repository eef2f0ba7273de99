"""JSON values, one model for all of them: the one path resolver; equality (``json_equal``),
membership (``json_in``), set keys (``json_key``) and type names (``json_type``) by the rules of
JSON, not of Python (``true`` is not ``1``, while ``True == 1`` and ``True in [1]`` in Python;
``1`` equals ``1.0``; key order is ignored; a number is an integer by its value, ``3.0`` too);
and ``json_safe`` for values from outside (a model's tool calls) that every JSON writer and
reader of ours must accept. Every comparison of values from a bundle, a capture or a schema goes
through these (tests/unit/test_values_model.py pins the rules; tests/unit/test_json_lint.py
fails on Python ``==``/``in`` over such values in the verdict and drift code)."""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from mcpaql_conformance.files.depth import DEEPER, MAX_DEPTH

MISSING: Any = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})


def resolve_path(document: Any, path: str) -> Any:
    """Follow a dotted path (``data.items.0.id``); list segments are indexes.

    Returns ``MISSING`` when any segment does not exist.
    """
    current = document
    for segment in path.split("."):
        if isinstance(current, dict):
            if segment not in current:
                return MISSING
            current = current[segment]
        elif isinstance(current, list) and (index := list_index(segment)) is not None:
            if index >= len(current):
                return MISSING
            current = current[index]
        else:
            return MISSING
    return current


def objects_in(roots: Iterable[Any], limit: int) -> Iterator[dict[str, Any]]:
    """Every object inside ``roots``, depth first, at most ``limit`` values looked at (lists and
    objects alike, each list or object adding at most ``limit`` children): a walk no document,
    however wide or deep, makes slow. The caller may stop early."""
    stack = list(itertools.islice(roots, limit))
    for _ in range(limit):
        if not stack:
            return
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node[:limit])
        elif isinstance(node, dict):
            yield node
            stack.extend(itertools.islice((v for v in node.values() if isinstance(v, dict | list)), limit))


def list_index(segment: str) -> int | None:
    """A path segment as a list index: ASCII digits only (``"²"`` is a digit to ``isdigit``)."""
    return int(segment) if segment.isascii() and segment.isdigit() else None


def resolve_each(documents: list[Any], paths: list[str]) -> list[Any]:
    """``resolve_path`` of each (document, path) pair. When every pair shares one path that
    exists in every document, the path is followed in C-level passes (one per segment)."""
    if paths and paths.count(paths[0]) == len(paths):
        try:
            values = documents
            for segment in paths[0].split("."):
                values = list(map(operator.itemgetter(segment), values))
            return values
        except (KeyError, TypeError):  # a missing segment, or a list to index: the general rules
            pass
    return list(map(resolve_path, documents, paths))


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def json_equal_each(lefts: list[Any], rights: list[Any]) -> list[bool]:
    """``json_equal`` of each pair; plain scalars of the same type compare at C speed."""
    types = list(map(type, lefts))
    if types == list(map(type, rights)) and _PLAIN_SCALARS.issuperset(types):
        return list(map(operator.eq, lefts, rights))
    return list(map(json_equal, lefts, rights))


def json_equal(left: Any, right: Any) -> bool:
    """JSON deep equality: key order ignored, ``true`` is not ``1``, ``1`` equals ``1.0``.

    Iterative, so that any depth the parser accepts can be compared."""
    pending = [(left, right)]
    while pending:
        a, b = pending.pop()
        if type(a) is type(b) and type(a) in _SCALARS:
            if a != b:
                return False
        elif isinstance(a, dict):
            if not isinstance(b, dict) or a.keys() != b.keys():
                return False
            pending += [(value, b[key]) for key, value in a.items()]
        elif isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b):
                return False
            pending += zip(a, b, strict=True)
        elif not _scalars_equal(a, b):
            return False
    return True


def json_in(value: Any, options: Any) -> bool:
    """Whether ``value`` is one of ``options`` (a list of JSON values) as JSON sees it: ``true``
    is not in ``[0, 1]``, ``1.0`` is in ``[1]``. Linear in the options."""
    if not isinstance(options, list | tuple):
        return False
    if isinstance(value, str):  # a string equals only a string: Python's own test is JSON's
        return value in options
    if isinstance(value, bool) or value is None:
        return any(option is value for option in options)
    if isinstance(value, int | float):
        return any(type(option) in (int, float) and option == value for option in options)
    return any(json_equal(value, option) for option in options)


def json_key(value: Any) -> Any:
    """A hashable key equal for two values exactly when ``json_equal`` says they are: for sets
    and dictionaries of JSON values (enum values compared in linear time)."""
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int):
        return ("number", value)
    if isinstance(value, float):
        return ("number", int(value) if value.is_integer() else value)
    try:
        return ("json", orjson.dumps(_numbers_as_written(value), option=orjson.OPT_SORT_KEYS))
    except TypeError:  # integers beyond 64 bits, which JSON allows
        import json

        return ("json", json.dumps(_numbers_as_written(value), sort_keys=True).encode())


def _numbers_as_written(value: Any) -> Any:
    """A container with every integral float as the integer it equals (``1.0`` -> ``1``), so that
    serialised keys of equal values are equal. Iterative, for any depth the parser accepts."""
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        source, parent, slot = stack.pop()
        copy: Any
        if isinstance(source, dict):
            copy = {}
            for key, item in source.items():
                copy[key] = None
                stack.append((item, copy, key))
        elif isinstance(source, list):
            copy = [None] * len(source)
            stack.extend((item, copy, index) for index, item in enumerate(source))
        elif isinstance(source, float) and not isinstance(source, bool) and source.is_integer():
            copy = int(source)
        else:
            copy = source
        parent[slot] = copy
    return holder[0]


def _scalars_equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    return False  # different JSON types (a container against a scalar, or null against a value)


def show(value: Any, limit: int = 120) -> str:
    """Compact JSON text of a value for a report detail (still untrusted: render escapes it)."""
    if value is MISSING:
        return "(missing)"
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # integers beyond 64 bits, which JSON allows
        import json

        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def json_type(value: Any) -> str:
    """The JSON type name of a Python value from a parsed document; a number is ``integer`` by
    its value (``3`` and ``3.0``, as JSON Schema counts them), ``number`` when it has a fraction."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def json_safe(value: Any) -> Any:
    """``value`` as JSON every writer and reader of ours accepts, whatever a model or server
    sent: text with lone surrogates keeps them as ``\\udXXX`` escapes, numbers beyond 64 bits
    and NaN or infinities become their text, anything that is no JSON value its ``repr``, and
    containers deeper than MAX_DEPTH the DEEPER marker. Iterative: no recursion limit."""
    if isinstance(value, str | bool) or value is None:
        return writable_text(value) if isinstance(value, str) else value
    if not isinstance(value, dict | list | tuple):
        return _scalar(value)
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, holder, 0, 0)]  # (source, its copy's parent, slot, depth)
    while stack:
        source, parent, slot, depth = stack.pop()
        copy: Any
        if isinstance(source, dict | list | tuple) and depth >= MAX_DEPTH:
            copy = DEEPER
        elif isinstance(source, dict):
            copy = {}
            for key, item in source.items():
                name = writable_text(key) if isinstance(key, str) else orjson.dumps(json_safe(key)).decode()
                copy[name] = None
                stack.append((item, copy, name, depth + 1))
        elif isinstance(source, list | tuple):
            copy = [None] * len(source)
            stack.extend((item, copy, index, depth + 1) for index, item in enumerate(source))
        else:
            copy = _scalar(source)
        parent[slot] = copy
    return holder[0]


def writable_text(text: str) -> str:
    """``text`` as every JSON writer accepts it: a lone surrogate kept as its ``\\udXXX`` escape."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _scalar(value: Any) -> Any:
    if isinstance(value, str):
        return writable_text(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return writable_text(repr(value))
