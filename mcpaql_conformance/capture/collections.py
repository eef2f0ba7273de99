"""Calls that show how a collection operation reads its controls: `first` with `last`, a
contradiction features/pagination §2.3 asks to be refused, and a filter key no server supports,
which features/collection-querying §2.2 asks to be refused with a validation error. Each goes to
a READ operation that documents the controls, and its refusal is the answer asked for."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.live.discovery import Operation

UNKNOWN_FILTER_KEY = "zz_conformance_filter_key"


def collection_calls(op: Operation, base: JsonObject, unknown: Any) -> list[tuple[str, str, JsonObject]]:
    """(probe kind, description, params) of each such call ``op`` takes; ``unknown``: the value
    capture sends where no real one belongs."""
    if op.category != "READ":
        return []
    names = {p.get("name") for p in op.parameters or []}
    calls: list[tuple[str, str, JsonObject]] = []
    if {"first", "last"} <= names:
        calls.append(("pagination", "first and last together", {**base, "first": 1, "last": 1}))
    if takes_filter_object(op):
        calls.append(("filter", f"a filter key it does not support ({UNKNOWN_FILTER_KEY})",
                      {**base, "filter": {UNKNOWN_FILTER_KEY: unknown}}))  # fmt: skip
    return calls


def takes_filter_object(op: Operation) -> bool:
    """Whether the operation documents `filter` as an object (collection-querying §2.2)."""
    entry = next((p for p in op.parameters or [] if p.get("name") == "filter"), None)
    return entry is not None and "object" in str(entry.get("type", "")).casefold()
