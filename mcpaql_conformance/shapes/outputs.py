"""Output schemas of a server's operations, from what it answered (``schemas``): one JSON
Schema (2020-12) per operation of the successful answers' ``data``, or the same as MCP-AQL
TypeDetails ready to paste into the server's introspection. The inference rules are in
``shapes``; the evidence is gathered by ``samples``."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from mcpaql_conformance.evidence.reading import identifier_words
from mcpaql_conformance.evidence.samples import Source
from mcpaql_conformance.shapes.infer import infer_schema, type_details


def operation_schemas(source: Source) -> dict[str, dict[str, Any]]:
    """Per answered operation (sorted), the JSON Schema of its successful answers' data."""
    schemas: dict[str, dict[str, Any]] = {}
    for operation in sorted(source.samples):
        schema = infer_schema(source.samples[operation], source.documented(operation))
        schemas[operation] = {"title": f"{operation} data", **schema}
    return schemas


def type_catalogue(source: Source) -> list[dict[str, Any]]:
    """TypeDetails for what the operations return: the type each one declares (`Note`; the
    items of `Note[]`), or ``<Operation>Result``; operations sharing a type share its samples."""
    grouped: dict[str, list[Any]] = {}
    documented: dict[str, dict[str, str]] = {}
    for operation in sorted(source.samples):
        declared = source.returns(operation)
        name = declared.removesuffix("[]") if declared else _result_name(operation)
        samples = source.samples[operation]
        if declared and declared.endswith("[]"):
            samples = [item for sample in samples if isinstance(sample, list) for item in sample]
        grouped.setdefault(name, []).extend(samples)
        documented.setdefault(name, {}).update(
            {path.removeprefix("[]."): text for path, text in source.documented(operation).items()}
        )
    return [type_details(name, infer_schema(grouped[name], documented[name])) for name in sorted(grouped)]


def unanswered(source: Source) -> list[str]:
    """Operations described or named but never answered with success: no schema for them."""
    return [operation for operation in source.operations if operation not in source.samples]


def _result_name(operation: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in identifier_words(operation)) + "Result"


def schema_file_names(operations: list[str]) -> dict[str, str]:
    """One file name per operation (``NAME.schema.json``), never two alike, also where case
    does not count (macOS, Windows), and the same for the same operation whatever else is
    listed: an operation whose name is already a safe file name, unlike any other in case,
    keeps it; any other gets the safe part of its name and a digest of the whole name
    (``x/y`` and ``x_y``: ``x_y-3f2a9c01d4.schema.json`` and ``x_y.schema.json``). Should a
    name be taken all the same (a server naming an operation like another's digest), a count
    is added."""
    from mcpaql_conformance.live.records import safe_name

    unique = list(dict.fromkeys(operations))
    folded = Counter(operation.casefold() for operation in unique if safe_name(operation) == operation)
    names: dict[str, str] = {}
    taken: set[str] = set()
    kept = [op for op in unique if safe_name(op) == op and folded[op.casefold()] == 1]  # json: a count of ours
    for operation in kept:
        names[operation] = operation
        taken.add(operation.casefold())
    for operation in unique:
        if operation in names:
            continue
        digest = hashlib.sha256(operation.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        name = f"{safe_name(operation)[:80]}-{digest}"
        count = 1
        while (name if count == 1 else f"{name}-{count}").casefold() in taken:
            count += 1
        name = name if count == 1 else f"{name}-{count}"
        names[operation] = name
        taken.add(name.casefold())
    return {operation: f"{names[operation]}.schema.json" for operation in operations}
