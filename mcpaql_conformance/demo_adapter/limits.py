"""The demo's payload limits (core §4.7.5): told in `_protocol.limits`, enforced on every request
before anything else reads it, and refused with VALIDATION_PAYLOAD_TOO_LARGE naming the limit;
and the text of its parameters (core §4.7.1): bytes that are not UTF-8 and U+0000 are refused."""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]

LIMITS = {
    "max_request_size": 1_048_576,
    "max_response_size": 10_485_760,
    "max_string_length": 1_048_576,
    "max_array_elements": 10_000,
    "max_nesting_depth": 32,
}


def over_limit(arguments: Any) -> tuple[str, int, int] | None:
    """(the limit a request exceeds, its value, what the request has), or None. Depth counts the
    request object as level 1 (core §4.7.5); the walk stops where a limit is passed."""
    pending: list[tuple[Any, int]] = [(arguments, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str) and len(value) > LIMITS["max_string_length"]:
            return "max_string_length", LIMITS["max_string_length"], len(value)
        if not isinstance(value, dict | list):
            continue
        if depth > LIMITS["max_nesting_depth"]:
            return "max_nesting_depth", LIMITS["max_nesting_depth"], depth
        if isinstance(value, list) and len(value) > LIMITS["max_array_elements"]:
            return "max_array_elements", LIMITS["max_array_elements"], len(value)
        items = value.values() if isinstance(value, dict) else value
        pending.extend((item, depth + 1) for item in items)
    return None


# What the demo's stdio reader puts for each byte of a request that is not UTF-8 (server.py): a
# noncharacter, which no client sends as text, so that the adapter can refuse it (core §4.7.1).
NOT_UTF8 = "\ufdd0"


def not_text(params: JsonObject, null_bytes: bool = False) -> tuple[str, str] | None:
    """(the parameter, what it holds) of the first parameter holding bytes that are not UTF-8,
    else (unless ``null_bytes`` are taken: the fault) U+0000; None when every one is text."""
    for char, said in ((NOT_UTF8, "bytes that are not UTF-8"), ("\x00", "a null byte (U+0000)")):
        held = next((name for name, value in params.items() if _holds(value, char)), None)
        if held is not None and not (null_bytes and char == "\x00"):
            return held, said
    return None


def _holds(value: Any, char: str, depth: int = 0) -> bool:
    """Whether a parameter's value holds ``char`` in any string, its keys included (bounded depth)."""
    if isinstance(value, str):
        return char in value
    if depth > 32:
        return False
    if isinstance(value, dict):
        return any(_holds(key, char, depth + 1) or _holds(item, char, depth + 1) for key, item in value.items())
    return isinstance(value, list) and any(_holds(item, char, depth + 1) for item in value)
