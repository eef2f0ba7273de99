"""The demo's payload limits (core §4.7.5): told in `_protocol.limits`, enforced on every request
before anything else reads it, and refused with VALIDATION_PAYLOAD_TOO_LARGE naming the limit."""

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
