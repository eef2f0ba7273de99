"""The MCP-AQL engine of the demo adapter: operations, introspection, validation, routing.

Pure Python and transport-free: ``NotesAdapter.handle(tool, arguments)`` returns an
MCP-AQL operation result. ``server.py`` exposes it over MCP. Each fault breaks
one MUST category on purpose, so the capture-and-test pipeline can be shown to
catch it.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcpaql_conformance.demo_adapter.fields import FIELDS_DOC, NOTE_FIELDS, PRESETS, computed, selection
from mcpaql_conformance.demo_adapter.limits import LIMITS, not_text, over_limit

JsonObject = dict[str, Any]
SPEC_VERSION = "1.0.0-draft"  # the MCP-AQL version the demo speaks (its own copy: the demo stands alone)

FAULTS = {
    "leaky-errors": "validation errors leak a stack frame and an exception name (Error Quality)",
    "silent-unknown": "unknown parameters are silently ignored (Parameter Handling)",
    "warn-unknown": "unknown parameters are accepted with a warning naming them, where the default must refuse "
    "them (Parameter Handling)",
    "lossy-round-trip": "create_note drops the tags it was given (Round-Trip Integrity)",
    "undocumented-param": "create_note accepts a 'priority' parameter introspection does not document "
    "(Introspection Fidelity)",
    "wrong-endpoint": "operations sent to the wrong endpoint are executed anyway (Introspection Fidelity)",
    "shape-drift": "notes come back with created_at as a number and without updated_at, unlike the Note type "
    "they are declared to return (Introspection Fidelity: the shape warns, the epoch time is no ISO 8601 date)",
    "no-limits": "a request nested deeper than any payload limit is answered (core §4.7.5)",
    "null-bytes": "strings holding U+0000 are taken as they come (core §4.7.1)",
    "any-case": "operation names are taken in any letter case: INTROSPECT runs introspect (operations §2.4)",
    "string-examples": "operation details give their examples as strings, not {request} objects (core Appendix D)",
    "numeric-request-id": "every success carries _meta.request_id as a number (core Appendix D)",
    "no-annotations": "the MCP tools carry no annotations (mcp-integration §2.3)",
    "bare-descriptions": "the MCP tools' descriptions name no operation and show no call (mcp-integration §2.1.1)",
}
CRUDE = ("create", "read", "update", "delete", "execute")
PERMISSIONS = {
    "CREATE": (False, False),
    "READ": (True, False),
    "UPDATE": (False, True),
    "DELETE": (False, True),
    "EXECUTE": (False, True),
}


def _field(name: str, type_: str, required: bool, description: str) -> JsonObject:
    return {"name": name, "type": type_, "required": required, "description": description}


# What the operations return, as `introspect {query: types, name}` describes it.
TYPES: dict[str, JsonObject] = {
    "Note": {
        "kind": "object",
        "description": "A note with a title, a body and tags.",
        "fields": [
            _field("note_id", "string", True, "Identifier of the note"),
            _field("title", "string", True, "Title of the note"),
            _field("body", "string", False, "Text of the note"),
            _field("tags", "string[]", False, "Tags of the note"),
            _field("created_at", "string", True, "When the note was created (RFC 3339)"),
            _field("updated_at", "string", True, "When the note was last changed (RFC 3339)"),
        ],
    },
    "NotePage": {
        "kind": "object",
        "description": "A page of notes and the limit applied.",
        "fields": [_field("items", "Note[]", True, "The notes"), _field("applied", "object", True, "Limits used")],
    },
    "Deletion": {
        "kind": "object",
        "description": "What a delete removed.",
        "fields": [_field("deleted", "string", True, "Identifier of the deleted note")],
    },
    "TagRemoval": {
        "kind": "object",
        "description": "A tag removed from every note.",
        "fields": [
            _field("tag", "string", True, "The tag removed"),
            _field("notes_changed", "integer", True, "How many notes lost it"),
        ],
    },
    "JobStatus": {"kind": "enum", "description": "How a runtime job ended.", "values": ["completed", "failed"]},
    "Job": {
        "kind": "object",
        "description": "A runtime job and how it ended.",
        "fields": [_field("job", "string", True, "The job"), _field("status", "JobStatus", True, "How it ended")],
    },
    # The protocol types (core §9.1, introspection §5.3).
    "SemanticCategory": {
        "kind": "enum",
        "description": "The standard semantic categories.",
        "values": ["CREATE", "READ", "UPDATE", "DELETE", "EXECUTE"],
    },
    "OperationResult": {
        "kind": "union",
        "description": "What every operation answers: a success or a failure.",
        "members": ["OperationSuccess", "OperationFailure"],
    },
    "OperationSuccess": {
        "kind": "object",
        "description": "A successful result.",
        "fields": [_field("success", "boolean", True, "Always true"), _field("data", "object", True, "The result")],
    },
    "OperationFailure": {
        "kind": "object",
        "description": "A failed result.",
        "fields": [
            _field("success", "boolean", True, "Always false"),
            _field("error", "object", True, "The error: code, message, details"),
        ],
    },
}


def ok(data: Any, **extra: Any) -> JsonObject:
    return {"success": True, "data": data, **extra}


def failure(code: str, message: str, **details: Any) -> JsonObject:
    error: JsonObject = {"code": code, "message": message}
    if details:
        error["details"] = details
    return {"success": False, "error": error}


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    required: bool = False
    description: str = ""
    extra: JsonObject = field(default_factory=dict)

    def info(self) -> JsonObject:
        info = {"name": self.name, "type": self.type, "required": self.required, "description": self.description}
        return info | self.extra


@dataclass(frozen=True)
class Operation:
    name: str
    category: str
    description: str
    params: tuple[Param, ...]
    handler: Callable[[NotesAdapter, JsonObject], JsonObject]
    returns: str = "Note"

    @property
    def endpoint(self) -> str:
        return self.category.lower()

    def details(self, single_only: bool) -> JsonObject:
        read_only, destructive = PERMISSIONS[self.category]
        return {
            "name": self.name,
            "semantic_category": self.category,
            "endpoint": self.endpoint,
            "mcpTool": "mcp_aql" if single_only else f"mcp_aql_{self.endpoint}",
            "description": self.description,
            "permissions": {"readOnly": read_only, "destructive": destructive},
            "parameters": [param.info() for param in self.params],
            "returns": {"name": self.returns, "kind": TYPES.get(self.returns, {}).get("kind", "object")},
        }


class NotesAdapter:
    """An in-memory notes store speaking MCP-AQL."""

    def __init__(self, mode: str = "both", fault: str | None = None) -> None:
        if fault is not None and fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; valid faults: {', '.join(FAULTS)}")
        self.mode = mode
        self.fault = fault
        self.notes: dict[str, JsonObject] = {}
        self.passphrases: dict[str, str] = {}
        self._ids = itertools.count(1)
        self._clock = itertools.count(1)
        self.operations = {op.name: op for op in OPERATIONS}

    # --- MCP tool entry point -------------------------------------------------

    def handle(self, tool: str, arguments: JsonObject) -> JsonObject:
        """Answer one MCP tool call with an MCP-AQL operation result."""
        exceeded = over_limit(arguments) if self.fault != "no-limits" else None
        if exceeded is not None:  # core §4.7.5: before anything reads the request
            limit, allowed, actual = exceeded
            return failure(
                "VALIDATION_PAYLOAD_TOO_LARGE",
                f"Request exceeds the {limit} limit of {allowed} (it has {actual}).",
                limit=limit,
                limit_value=allowed,
                actual_value=actual,
            )
        if tool == "mcp_aql" and "operations" in arguments:
            return self._batch(arguments["operations"])
        operation = arguments.get("operation")
        params = arguments.get("params") or {}
        if not isinstance(operation, str) or not operation:
            return failure("VALIDATION_MISSING_PARAM", "Missing required field 'operation'.", param="operation")
        if not isinstance(params, dict):
            return failure("VALIDATION_INVALID_TYPE", "Field 'params' must be an object.", param="params")
        spec = self.operations.get(operation.lower() if self.fault == "any-case" else operation)
        if spec is None:
            return failure(
                "NOT_FOUND_OPERATION",
                f"Unknown operation '{operation}'. Use introspect to list operations.",
                operation=operation[:80],
                available=sorted(self.operations),
            )
        if tool != "mcp_aql" and tool != f"mcp_aql_{spec.endpoint}" and self.fault != "wrong-endpoint":
            return failure(
                "VALIDATION_WRONG_ENDPOINT",
                f"Operation '{operation}' is a {spec.category} operation; call it through mcp_aql_{spec.endpoint}.",
            )
        problem = self._validate(spec, params)
        if problem is not None:
            return problem
        result = spec.handler(self, params)
        ignored = sorted(k for k in params if k not in {p.name for p in spec.params} and not k.startswith("_"))
        if ignored and self.fault == "warn-unknown" and result.get("success") is True:
            text = f"Parameter '{ignored[0]}' is not recognised by {operation} and was ignored."
            result = {**result, "warnings": [{"code": "UNKNOWN_PARAMETER_IGNORED", "message": text}]}
        if self.fault == "numeric-request-id" and result.get("success") is True:
            result = {**result, "_meta": {"request_id": 7}}
        return _drifted(result) if self.fault == "shape-drift" else result

    def _batch(self, items: Any) -> JsonObject:
        if not isinstance(items, list) or not items:
            return failure("VALIDATION_INVALID_TYPE", "Field 'operations' must be a non-empty array.")
        results: list[JsonObject] = []
        for index, item in enumerate(items):
            item = item if isinstance(item, dict) else {}
            results.append(
                {"index": index, "operation": str(item.get("operation")), "result": self.handle("mcp_aql", item)}
            )
        succeeded = sum(1 for r in results if r["result"]["success"])
        summary = {"total": len(results), "succeeded": succeeded, "failed": len(results) - succeeded}
        return ok(None, results=results, summary=summary)

    # --- validation ------------------------------------------------------------

    def _validate(self, spec: Operation, params: JsonObject) -> JsonObject | None:
        documented = {p.name for p in spec.params} | ({"priority"} if self._priority_accepted(spec) else set())
        unknown = sorted(k for k in params if k not in documented and not k.startswith("_"))
        if unknown and self.fault == "warn-unknown":
            return None  # answered with a warning (``handle``)
        if unknown and self.fault != "silent-unknown":
            named = f"parameter '{unknown[0]}'" if len(unknown) == 1 else f"parameters {', '.join(map(repr, unknown))}"
            return failure(
                "VALIDATION_UNKNOWN_PARAM",
                f"Unknown {named} for operation '{spec.name}'. "
                f"Valid parameters: {', '.join(p.name for p in spec.params)}.",
                operation=spec.name,
                unknown_params=unknown,
                valid_params=[p.name for p in spec.params],
            )
        held = not_text(params, null_bytes=self.fault == "null-bytes")
        if held is not None:  # core §4.7.1: no parameter here takes either
            return failure(
                "VALIDATION_INVALID_ENCODING",
                f"Invalid character encoding in request: parameter '{held[0]}' holds {held[1]}.",
                param_name=held[0],
            )
        for param in spec.params:
            if param.required and param.name not in params:
                return self._error(
                    "VALIDATION_MISSING_PARAM",
                    f"Missing required parameter '{param.name}'. Expected: {param.type} ({param.description})",
                    param_name=param.name,
                    operation=spec.name,
                )
            if param.name in params and not _has_type(params[param.name], param.type):
                return self._error(
                    "VALIDATION_INVALID_TYPE",
                    f"Parameter '{param.name}' must be of type {param.type}.",
                    param_name=param.name,
                )
            if "enum" in param.extra and param.name in params and params[param.name] not in param.extra["enum"]:
                allowed = ", ".join(map(str, param.extra["enum"]))
                return self._error("VALIDATION_INVALID_VALUE", f"Parameter '{param.name}' must be one of: {allowed}.")
        return None

    def _priority_accepted(self, spec: Operation) -> bool:
        return self.fault == "undocumented-param" and spec.name == "create_note"

    def _error(self, code: str, message: str, **details: Any) -> JsonObject:
        if self.fault == "leaky-errors":
            message = f"TypeError: {message} at validate (/srv/demo/src/notes.ts:42:7)"
        return failure(code, message, **details)

    # --- store -------------------------------------------------------------------

    def note(self, note_id: Any) -> JsonObject | None:
        return self.notes.get(note_id) if isinstance(note_id, str) else None

    def stamp(self) -> str:
        return f"2026-01-01T00:00:{next(self._clock) % 60:02d}Z"

    def new_id(self) -> str:
        return f"note_{next(self._ids)}"


def _has_type(value: Any, kind: str) -> bool:
    checks: dict[str, Callable[[Any], bool]] = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "boolean": lambda v: isinstance(v, bool),
    }
    return checks.get(kind, lambda v: True)(value)


FIELDS = Param("fields", "string | string[]", False, FIELDS_DOC, {"presets": {k: list(v) for k, v in PRESETS.items()}})


def _selected(fields: Any) -> tuple[str, ...] | JsonObject:
    """The note fields ``fields`` selects, or VALIDATION_INVALID_TYPE saying why it selects none."""
    selected = selection(fields)
    return selected if isinstance(selected, tuple) else failure("VALIDATION_INVALID_TYPE", selected, param="fields")


def _select(note: JsonObject, fields: tuple[str, ...]) -> JsonObject:
    return {**{key: copy.deepcopy(note[key]) for key in note if key in fields}, **computed(note, fields)}


# --- operation handlers ------------------------------------------------------------


def _introspect(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    single_only = adapter.mode == "single"
    name = params.get("name")
    if params["query"] == "types":
        if name is None:
            return ok(
                {"types": [{"name": n, "kind": t["kind"], "description": t["description"]} for n, t in TYPES.items()]}
            )
        return ok({"type": {"name": name, **TYPES[name]} if name in TYPES else None})
    if name is None:
        summaries = [
            {"name": op.name, "semantic_category": op.category, "endpoint": op.endpoint, "description": op.description}
            for op in adapter.operations.values()
        ]
        return ok({"_protocol": _protocol(adapter), "operations": summaries})
    spec = adapter.operations.get(name)
    detail = spec.details(single_only) if spec else None
    if detail is not None and adapter.fault == "string-examples":
        detail["examples"] = [f"{name} with its required parameters"]
    return ok({"operation": detail})


def _protocol(adapter: NotesAdapter) -> JsonObject:
    """Protocol metadata of the operations list (introspection §4.1.1)."""
    mode = {"single": "single", "crude": "semantic"}.get(adapter.mode, "all")
    capabilities = {"batch": adapter.mode != "crude", "field_selection": True}
    protocol = {"version": SPEC_VERSION, "conformance": "level-2", "mode": mode, "capabilities": capabilities}
    return {**protocol, "limits": dict(LIMITS)}


def _drifted(result: JsonObject) -> JsonObject:
    """The shape-drift fault: every note in an answer has a numeric created_at and no updated_at."""
    data = result.get("data")
    notes: list[Any] = data["items"] if isinstance(data, dict) and isinstance(data.get("items"), list) else [data]
    for note in notes:
        if isinstance(note, dict) and "note_id" in note and "created_at" in note:
            note["created_at"] = 1767225600
            note.pop("updated_at", None)
    return result


def _create(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    now = adapter.stamp()
    tags = [] if adapter.fault == "lossy-round-trip" else list(params.get("tags", []))
    note = {
        "note_id": adapter.new_id(),
        "title": params["title"],
        "body": params.get("body", ""),
        "tags": tags,
        "created_at": now,
        "updated_at": now,
    }
    adapter.notes[note["note_id"]] = note
    if "passphrase" in params:
        adapter.passphrases[note["note_id"]] = params["passphrase"]  # kept apart: never echoed back
    return ok(copy.deepcopy(note))


def _get(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    note = adapter.note(params["note_id"])
    if note is None:
        return failure("NOT_FOUND_RESOURCE", f"No note with note_id '{params['note_id']}'.")
    fields = _selected(params.get("fields"))
    return fields if isinstance(fields, dict) else ok(_select(note, fields))


def _list(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    limit = params.get("limit", 20)
    if not 1 <= limit <= 100:
        return adapter._error("VALIDATION_INVALID_VALUE", "Parameter 'limit' must be between 1 and 100.")
    fields = _selected(params.get("fields"))
    if isinstance(fields, dict):
        return fields
    items = [_select(note, fields) for note in list(adapter.notes.values())[:limit]]
    return ok({"items": items, "applied": {"limit": limit}})


def _update(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    changes = params["input"]
    for key in changes:  # `input` is validated before the note is looked up (core §4.5.3)
        if key == "note_id":
            return failure("VALIDATION_INVALID_PARAM", "The identifier note_id belongs in params, not inside 'input'.")
        if key in ("created_at", "updated_at"):
            return failure("VALIDATION_READ_ONLY_FIELD", f"Field '{key}' is read-only and cannot be updated.")
        if key not in NOTE_FIELDS:
            return failure("VALIDATION_UNKNOWN_FIELD", f"Unknown field '{key}' in input. Updatable: title, body, tags.")
    note = adapter.note(params["note_id"])
    if note is None:
        return failure("NOT_FOUND_RESOURCE", f"No note with note_id '{params['note_id']}'.")
    note.update(copy.deepcopy(changes))
    note["updated_at"] = adapter.stamp()
    return ok(copy.deepcopy(note))


def _delete(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    note = adapter.notes.pop(params["note_id"], None) if isinstance(params["note_id"], str) else None
    if note is None:
        return failure("NOT_FOUND_RESOURCE", f"No note with note_id '{params['note_id']}'.")
    return ok({"deleted": note["note_id"]})


def _duplicate(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    note = adapter.note(params["note_id"])
    if note is None:
        return failure("NOT_FOUND_RESOURCE", f"No note with note_id '{params['note_id']}'.")
    return _create(adapter, {"title": f"{note['title']} (copy)", "body": note["body"], "tags": note["tags"]})


def _tag(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    tags = params["input"].get("tags")
    others = sorted(set(params["input"]) - {"tags"})
    if others:  # core §4.5.3: a field the input does not define
        return failure("VALIDATION_UNKNOWN_FIELD", f"Unknown field '{others[0]}' in input. tag_note takes only tags.")
    if not isinstance(tags, list):
        return failure("VALIDATION_INVALID_VALUE", "Field 'input' must be {tags: [...]} for tag_note.")
    return _update(adapter, params)


def _delete_tag(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    touched = 0
    for note in adapter.notes.values():
        if params["tag"] in note["tags"]:
            note["tags"] = [tag for tag in note["tags"] if tag != params["tag"]]
            touched += 1
    return ok({"tag": params["tag"], "notes_changed": touched})


def _export(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    lines = [
        f"# {note['title']}" if params["format"] == "markdown" else note["title"] for note in adapter.notes.values()
    ]
    return ok({"job": "export", "format": params["format"], "status": "completed", "lines": len(lines)})


def _reindex(adapter: NotesAdapter, params: JsonObject) -> JsonObject:
    return ok({"job": "reindex", "scope": params["scope"], "status": "completed", "notes": len(adapter.notes)})


OPERATIONS = (
    Operation(
        "introspect",
        "READ",
        "Discover operations and types.",
        (
            Param("query", "string", True, "What to list", {"enum": ["operations", "types"]}),
            Param("name", "string", False, "One operation or type to describe"),
        ),
        _introspect,
        "IntrospectionData",
    ),
    Operation(
        "create_note",
        "CREATE",
        "Create a note.",
        (
            Param("title", "string", True, "Title of the note", {"minLength": 1, "maxLength": 200}),
            Param("body", "string", False, "Text of the note", {"default": ""}),
            Param("tags", "array", False, "Tags", {"default": [], "items": {"type": "string"}}),
            Param("passphrase", "string", False, "Optional passphrase that locks the note", {"sensitive": True}),
        ),
        _create,
    ),
    Operation(
        "duplicate_note",
        "CREATE",
        "Create a copy of a note.",
        (Param("note_id", "string", True, "Identifier of the note to copy"),),
        _duplicate,
    ),
    Operation(
        "get_note",
        "READ",
        "Read one note.",
        (
            Param("note_id", "string", True, "Identifier of the note"),
            Param(
                "fields", "string | string[]", False, FIELDS_DOC, {"presets": {k: list(v) for k, v in PRESETS.items()}}
            ),
        ),
        _get,
    ),
    Operation(
        "list_notes",
        "READ",
        "List notes, in the order they were created (no filter or sort: a notebook is short).",
        (
            Param("limit", "integer", False, "Page size", {"default": 20, "minimum": 1, "maximum": 100}),
            Param(
                "fields", "string | string[]", False, FIELDS_DOC, {"presets": {k: list(v) for k, v in PRESETS.items()}}
            ),
        ),
        _list,
        "NotePage",
    ),
    Operation(
        "update_note",
        "UPDATE",
        "Update a note; note_id, created_at and updated_at are read-only.",
        (
            Param("note_id", "string", True, "Identifier of the note"),
            Param("input", "object", True, "Fields to change: title, body, tags"),
        ),
        _update,
    ),
    Operation(
        "tag_note",
        "UPDATE",
        "Replace the tags of a note.",
        (
            Param("note_id", "string", True, "Identifier of the note"),
            Param("input", "object", True, "The new tags: {tags: [...]}"),
        ),
        _tag,
    ),
    Operation(
        "delete_note",
        "DELETE",
        "Delete a note permanently.",
        (Param("note_id", "string", True, "Identifier of the note"),),
        _delete,
        "Deletion",
    ),
    Operation(
        "delete_tag",
        "DELETE",
        "Remove a tag from every note.",
        (Param("tag", "string", True, "The tag to remove"),),
        _delete_tag,
        "TagRemoval",
    ),
    Operation(
        "export_notes",
        "EXECUTE",
        "Export all notes (a runtime job).",
        (Param("format", "string", True, "Export format", {"enum": ["text", "markdown"]}),),
        _export,
        "Job",
    ),
    Operation(
        "reindex_notes",
        "EXECUTE",
        "Rebuild the search index (a runtime job).",
        (Param("scope", "string", True, "What to reindex", {"enum": ["titles", "all"]}),),
        _reindex,
        "Job",
    ),
)
