"""The strict dialect: everything the checks judge, the stricter way (DIALECTS["strict"]):
note_id documented and enforced with a pattern, list_notes paged by first/after or
last/before (never together; cursors opaque; pageInfo), the batch flag in every mode with
batches on every tool (operations §7.4), documented `input` properties, only registry and
spec error codes. Without a plan it reaches Level 2 once both modes are seen."""

from __future__ import annotations

import base64
import copy
import re
from collections.abc import Callable
from typing import Any

from mcpaql_conformance.demo_adapter.speech import Dialect, JsonObject, speak

NOTE_ID = "^note_[0-9]+$"
PAGE = 100  # the most notes a page holds
# Codes of the store that neither the registry (error-codes §4.1) nor the spec's examples use.
_SPEC_CODES = {
    "VALIDATION_WRONG_ENDPOINT": "VALIDATION_ENDPOINT_MISMATCH",  # operations §6.3
    "VALIDATION_INVALID_VALUE": "VALIDATION_INVALID_TYPE",
    "VALIDATION_INVALID_PARAM": "VALIDATION_INVALID_TYPE",
    "VALIDATION_READ_ONLY_FIELD": "VALIDATION_UNKNOWN_FIELD",
}
_PAGING = [
    {"name": "first", "type": "integer", "required": False, "default": 20, "minimum": 1, "maximum": PAGE,
     "description": f"Forward page size (larger sizes are clamped to {PAGE}); cannot be used with last."},
    {"name": "after", "type": "string", "required": False,
     "description": "Opaque cursor: pageInfo.endCursor of the page before; cannot be used with before."},
    {"name": "last", "type": "integer", "required": False, "minimum": 1, "maximum": PAGE,
     "description": f"Backward page size (larger sizes are clamped to {PAGE}); cannot be used with first."},
    {"name": "before", "type": "string", "required": False,
     "description": "Opaque cursor: pageInfo.startCursor of the page after; cannot be used with after."},
]  # fmt: skip


_TAGS = {"type": "array", "items": {"type": "string"}, "description": "Tags"}
# What each UPDATE's `input` takes (core §4.5), documented as the object's properties.
INPUTS = {
    "update_note": {
        "title": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Title of the note"},
        "body": {"type": "string", "description": "Text of the note"},
        "tags": _TAGS,
    },
    "tag_note": {"tags": {**_TAGS, "required": True}},
}
PAGE_INFO = {"name": "pageInfo", "type": "object", "required": True,
             "description": "hasNextPage, hasPreviousPage, startCursor, endCursor"}  # fmt: skip


class Strict(Dialect):
    """Everything the checks judge, the stricter way (see DIALECTS["strict"])."""

    name = "strict"

    def family_batches(self) -> bool:
        return True

    def answer(self, tool: str, arguments: JsonObject, handle: Callable[[str, JsonObject], JsonObject]) -> Any:
        if "operations" in arguments:  # every item answered as this dialect answers a call
            return _family_batch(tool, arguments["operations"], lambda t, call: speak(self, handle, t, call))
        params = arguments.get("params")
        if not isinstance(params, dict):
            return None
        note_id = params.get("note_id")
        if isinstance(note_id, str) and not re.fullmatch(NOTE_ID, note_id):
            return _refusal("VALIDATION_INVALID_TYPE", f"Parameter 'note_id' must match {NOTE_ID}, got '{note_id}'.")
        if arguments.get("operation") == "list_notes":
            return _page(tool, params, handle)
        return None

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        result: JsonObject = copy.deepcopy(answer(params))
        data = result.get("data")
        if not isinstance(data, dict):
            return result
        protocol = data.get("_protocol")
        if isinstance(protocol, dict):
            protocol["capabilities"] = {**protocol.get("capabilities", {}), "batch": True}
        detail = data.get("operation")
        if isinstance(detail, dict):
            for parameter in detail["parameters"]:
                if parameter["name"] == "note_id":
                    parameter["pattern"] = NOTE_ID
                if parameter["name"] == "input" and detail["name"] in INPUTS:
                    parameter["properties"] = copy.deepcopy(INPUTS[detail["name"]])
            if detail["name"] == "list_notes":
                kept = [p for p in detail["parameters"] if p["name"] != "limit"]
                detail["parameters"] = [*copy.deepcopy(_PAGING), *kept]
        kind = data.get("type")
        if isinstance(kind, dict) and kind.get("name") == "NotePage":
            kind["fields"] = [*kind["fields"], PAGE_INFO]
        return result

    def respond(self, tool: str, arguments: JsonObject, result: JsonObject) -> JsonObject:
        error = result.get("error")
        if isinstance(error, dict) and error.get("code") in _SPEC_CODES:
            return {**result, "error": {**error, "code": _SPEC_CODES[error["code"]]}}
        return result


def _refusal(code: str, message: str) -> JsonObject:
    return {"success": False, "error": {"code": code, "message": message}}


def _family_batch(tool: str, items: Any, handle: Callable[[str, JsonObject], JsonObject]) -> JsonObject:
    """A batch on an endpoint family's tool: each item answered as that tool answers it (an item
    of another family is refused there, operations §7.4)."""
    if not isinstance(items, list) or not items:
        return _refusal("VALIDATION_INVALID_TYPE", "Parameter 'operations' must be a non-empty array.")
    calls: list[JsonObject] = [item if isinstance(item, dict) else {} for item in items]
    results: list[JsonObject] = [
        {"index": index, "operation": str(call.get("operation")), "result": handle(tool, call)}
        for index, call in enumerate(calls)
    ]
    succeeded = sum(1 for r in results if r["result"].get("success") is True)
    summary = {"total": len(results), "succeeded": succeeded, "failed": len(results) - succeeded}
    return {"success": True, "data": None, "results": results, "summary": summary}


def _page(tool: str, params: JsonObject, handle: Callable[[str, JsonObject], JsonObject]) -> JsonObject:
    """list_notes paged by first/after or last/before (features/pagination §2)."""
    known = {"first", "after", "last", "before", "fields"}
    unknown = sorted(key for key in params if key not in known and not key.startswith("_"))
    if unknown:
        return _refusal("VALIDATION_UNKNOWN_PARAM", f"Unknown parameter '{unknown[0]}' for operation 'list_notes'.")
    for one, other in (("first", "last"), ("after", "before"), ("first", "before"), ("last", "after")):
        if one in params and other in params:
            return _refusal("VALIDATION_INVALID_TYPE", f"Parameters '{one}' and '{other}' cannot be used together.")
    for size in ("first", "last"):
        value = params.get(size)
        if size in params and not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
            return _refusal("VALIDATION_INVALID_TYPE", f"Parameter '{size}' must be an integer from 1 to {PAGE}.")
    params = {**params, **{size: min(params[size], PAGE) for size in ("first", "last") if size in params}}  # §5.3
    positions: dict[str, int] = {}
    for name in ("after", "before"):
        position = _position(params[name]) if name in params else -1
        if position is None:
            return _refusal("VALIDATION_INVALID_TYPE", f"Parameter '{name}' is not a cursor this server gave.")
        if name in params:
            positions[name] = position
    listed = handle(tool, {"operation": "list_notes", "params": {"limit": PAGE, **_fields(params)}})
    if listed.get("success") is not True:
        return listed
    items = listed["data"]["items"]
    start, end = positions.get("after", -1) + 1, positions.get("before", len(items))
    window = items[max(start, 0) : max(end, 0)]
    if "last" in params:
        shown, offset = window[-params["last"] :], max(start, 0) + max(len(window) - params["last"], 0)
    else:
        shown, offset = window[: params.get("first", 20)], max(start, 0)
    info = {
        "hasPreviousPage": offset > 0,
        "hasNextPage": offset + len(shown) < len(items),
        "startCursor": _cursor(offset) if shown else None,
        "endCursor": _cursor(offset + len(shown) - 1) if shown else None,
    }
    return {"success": True, "data": {"items": shown, "applied": {"limit": len(shown)}, "pageInfo": info}}


def _fields(params: JsonObject) -> JsonObject:
    return {"fields": params["fields"]} if "fields" in params else {}


def _cursor(position: int) -> str:
    return base64.urlsafe_b64encode(f"notes:{position}".encode()).decode()


def _position(cursor: Any) -> int | None:
    try:
        text = base64.urlsafe_b64decode(str(cursor).encode()).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    prefix, _, number = text.partition(":")
    return int(number) if prefix == "notes" and number.isdigit() else None
