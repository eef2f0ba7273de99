"""Our JSON Schemas, compiled once per process.

A compiled validator (jsonschema-rs) answers "valid?" on the hot path; the
pure-Python ``jsonschema`` explains only the few objects that are not valid.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from mcpaql_conformance.regex import lazy

_IDENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*")


_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_HERE = Path(__file__).parent  # package data ships beside this module (see pyproject.toml)


def json_path(parts: Iterable[str | int], root: str = "$") -> str:
    """Render a JSON path such as ``$.parameter_tests.missing_required[3].response``."""
    text = root
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENT.fullmatch(part):
            text += f".{part}"
        else:
            text += "[" + orjson.dumps(part).decode() + "]"
    return text


@functools.cache
def schema_document(name: str) -> dict[str, Any]:
    """One of our schema files, parsed (``bundle``, ``operation-result``, ``introspection``)."""
    from mcpaql_conformance.files.jsonio import parse_json

    text = (_HERE / f"{name}.schema.json").read_bytes()
    document: dict[str, Any] = parse_json(text, f"{name}.schema.json")
    return document


class CompiledSchema:
    """A schema with a fast yes/no validator and a slow, precise explainer."""

    def __init__(self, schema: dict[str, Any]) -> None:
        import jsonschema_rs

        self.schema = schema
        self._fast = jsonschema_rs.validator_for(schema)

    def is_valid(self, instance: Any) -> bool:
        return bool(self._fast.is_valid(instance))

    def all_valid(self, instances: list[Any]) -> bool:
        """Whether every instance is valid, in one call (far cheaper than one call each)."""
        return bool(self._array_validator.is_valid(instances))

    @functools.cached_property
    def _array_validator(self) -> Any:
        import jsonschema_rs

        item = dict(self.schema)
        item.setdefault("$id", "urn:mcpaql-conformance:item")
        item.pop("$schema", None)
        array = {"$schema": _DRAFT, "type": "array", "items": {"$ref": item["$id"]}, "$defs": {"item": item}}
        return jsonschema_rs.validator_for(array)

    def explain(self, instance: Any, limit: int = 3) -> list[str]:
        """Human-readable reasons (with JSON paths) why ``instance`` is invalid."""
        import jsonschema

        validator = jsonschema.Draft202012Validator(self.schema)
        try:
            errors = sorted(validator.iter_errors(instance), key=jsonschema.exceptions.relevance)
        except RecursionError:
            return ["$: nested too deeply to explain (it does not match the schema)"]
        reasons = [f"{json_path(e.absolute_path)}: {describe_error(e)}" for e in errors]
        if not reasons:  # the validators disagree (Python's "$" also matches before a final line break)
            reasons = [
                f"{json_path(list(e.instance_path))}: {_describe_fast(e, instance)}"
                for e in self._fast.iter_errors(instance)
            ]
        return list(dict.fromkeys(reasons))[:limit]

    def shape_error(self, instance: Any) -> str | None:
        """``$.path: message`` of the first violation (fast validator, terminal-safe), or None."""
        from mcpaql_conformance.sanitize import plain

        if self.is_valid(instance):
            return None
        for error in self._fast.iter_errors(instance):
            where = json_path(list(error.instance_path))
            return f"{plain(where, max_len=300)}: {plain(_describe_fast(error, instance), max_len=300)}"
        return "$: invalid"


def describe_error(error: Any) -> str:
    """Our own wording for a jsonschema error; never echoes long untrusted values."""
    keyword = error.validator
    expected = error.validator_value
    if keyword == "type":
        return f"expected {_types(expected)}, got {_json_type(error.instance)}"
    if keyword == "required":
        missing = [name for name in expected if isinstance(error.instance, dict) and name not in error.instance]
        return "missing required property " + ", ".join(repr(name) for name in missing)
    if keyword in ("enum", "const"):
        options = expected if keyword == "enum" else [expected]
        return _one_of(options, error.instance)
    if keyword == "pattern":
        return f"does not match the pattern {expected}"
    if keyword == "minLength":
        return "must not be empty" if expected == 1 else f"must be at least {expected} characters"
    if keyword == "minimum":
        return f"must be at least {expected}"
    if keyword == "not" and isinstance(expected, dict) and expected.get("required"):
        return f"must not have property {expected['required'][0]!r} here"
    if keyword == "additionalProperties" and expected is False and isinstance(error.instance, dict):
        return _undefined_keys(error.instance, error.schema)
    return str(error.message)[:200]


# Why a key is out of place where the reader would most likely expect it.
_MISPLACED = {
    ("warnings", "a failure result"): "warnings go only in successful answers",
    ("data", "a failure result"): "a failure carries error, not data",
    ("error", "a success result"): "a success carries data, not error",
}


def _undefined_keys(instance: dict[str, Any], schema: dict[str, Any]) -> str:
    """``'stack' is not part of a failure result (...)``: the keys a closed object does not define."""
    from mcpaql_conformance.sanitize import plain

    defined = schema.get("properties") or {}
    patterns = [re.compile(pattern) for pattern in schema.get("patternProperties") or {}]
    extra = [str(key) for key in instance if key not in defined and not any(p.search(str(key)) for p in patterns)]
    what = str(schema.get("title") or "this object")
    shown = ", ".join(repr(plain(key, max_len=60)) for key in extra[:5]) + (" ..." if len(extra) > 5 else "")
    verb = "is" if len(extra) == 1 else "are"
    why = _MISPLACED.get((extra[0], what)) if len(extra) == 1 else None
    if why is not None:
        return f"{shown} {verb} not part of {what}: {why}"
    metadata = "; metadata keys start with an underscore" if patterns else ""
    return f"{shown} {verb} not part of {what} (the spec defines {', '.join(sorted(defined))}{metadata})"


def _describe_fast(error: Any, root: Any) -> str:
    kind = error.kind
    name = type(kind).__name__
    instance = _at(root, error.instance_path)
    if name == "Type":
        return f"expected {_types(list(kind.types))}, got {_json_type(instance)}"
    if name == "Required":
        return f"missing required property {kind.property!r}"
    if name == "Enum":
        return _one_of(kind.options, instance)
    if name == "Pattern":
        return f"does not match the pattern {kind.pattern}"
    return str(error.message)[:200]


def _one_of(options: Any, instance: Any) -> str:
    """``must be one of "a", "b" (not "c")``: the allowed values and the one given (cut short)."""
    from mcpaql_conformance.sanitize import plain

    try:
        given = orjson.dumps(instance).decode()
    except (TypeError, orjson.JSONEncodeError):
        given = _json_type(instance)
    allowed = ", ".join(orjson.dumps(o).decode() for o in options)
    return f"must be one of {allowed} (not {plain(given, max_len=80)})"


def _at(root: Any, path: Sequence[str | int]) -> Any:
    current = root
    for part in path:
        current = current[part]
    return current


def _types(expected: Any) -> str:
    names = [expected] if isinstance(expected, str) else list(expected)
    return " or ".join("an " + n if n[0] in "aeiou" else "a " + n for n in names)


def _json_type(value: Any) -> str:
    from mcpaql_conformance.files.values import json_type

    return json_type(value)


def _wrap(document: dict[str, Any], definition: str) -> dict[str, Any]:
    return {"$schema": _DRAFT, "$defs": document["$defs"], "$ref": f"#/$defs/{definition}"}


@functools.cache
def bundle_schema() -> CompiledSchema:
    return CompiledSchema(schema_document("bundle"))


@functools.cache
def operation_result_schema() -> CompiledSchema:
    return CompiledSchema(schema_document("operation-result"))


@functools.cache
def introspection_schema(definition: str) -> CompiledSchema:
    """``OperationsListData``, ``TypesListData`` or ``OperationDetails``."""
    return CompiledSchema(_wrap(schema_document("introspection"), definition))


@functools.cache
def report_schema() -> CompiledSchema:
    return CompiledSchema(schema_document("report"))


@functools.cache
def plan_schema() -> CompiledSchema:
    return CompiledSchema(schema_document("plan"))


def unknown_key(document: dict[str, Any], data: Any) -> tuple[str, str, list[str]] | None:
    """A key that a strict schema (``additionalProperties: false``) does not allow, the
    shallowest first: ``(json path of its object, the key, the allowed keys)``. Follows
    ``properties``, ``items``, local ``$ref``s and the ``oneOf`` branch of the value's type."""
    from collections import deque

    stack: deque[tuple[Any, dict[str, Any], list[str | int]]] = deque([(data, document, [])])
    while stack:
        value, schema, path = stack.popleft()
        schema = _branch(document, _resolve(document, schema), value)
        if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
            properties: dict[str, Any] = schema["properties"]
            for key, item in value.items():
                if key in properties:
                    stack.append((item, properties[key], [*path, key]))
                elif schema.get("additionalProperties") is False:
                    return json_path(path), str(key), sorted(properties)
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            stack.extend((item, schema["items"], [*path, index]) for index, item in enumerate(value))
    return None


def _branch(document: dict[str, Any], schema: dict[str, Any], value: Any) -> dict[str, Any]:
    """Of a ``oneOf``/``anyOf``, the branch for the value's JSON type (an object or an array)."""
    wanted = "object" if isinstance(value, dict) else "array" if isinstance(value, list) else None
    for branch in schema.get("oneOf") or schema.get("anyOf") or []:
        resolved = _resolve(document, branch)
        if wanted is not None and resolved.get("type") == wanted:
            return resolved
    return schema


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    for _ in range(20):  # a chain of $refs, never a loop
        reference = schema.get("$ref")
        if not isinstance(reference, str) or not reference.startswith("#/$defs/"):
            return schema
        schema = document["$defs"][reference.removeprefix("#/$defs/")]
    return schema


@functools.cache
def compiled_schema(name: str) -> CompiledSchema:
    """One of our schema files, compiled (``plan``, ``tasks``, ``scenario``, ``baseline``...)."""
    return CompiledSchema(schema_document(name))


def did_you_mean(word: str, choices: Any) -> str:
    """`` (did you mean 'x'?)`` for the closest choice (a close spelling, or a shortening), else ""."""
    import difflib

    options = sorted(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if not close and len(word) >= 3:
        close = [c for c in options if c.startswith(word) or word.startswith(c)][:1]
    return f" (did you mean {close[0]!r}?)" if close else ""
