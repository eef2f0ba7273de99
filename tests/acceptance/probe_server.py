"""Servers that answer capture's probes the way real ones did (issue 27), over stdio.

python tests/acceptance/probe_server.py KIND

- ``files``: a file store whose examples hold placeholders (``"<path>"``), which checks the file a
  call names before anything else (an unknown parameter beside a missing file gets "no such
  file or directory", never VALIDATION_UNKNOWN_PARAM), whose ``write_file`` takes ``tags`` as a
  ``string[]`` and refuses a plain string, and whose file names must be unique (a second
  ``write_file`` of the same path is CONFLICT_EXISTS). Conformant apart from that order, which
  the spec does not fix: a capture must blame it for nothing.
- ``guesswork``: ``files``, but an operation name it does not know runs the closest it has.
- ``flagged-success``: ``files``, but list_files answers ``success: true`` in a result flagged
  ``isError: true``.
- ``flat-update``: ``files`` with an UPDATE that takes its fields flat in params, no `input`.
- ``nested-read``: ``files``, whose read_file answers under ``data.structured_content``.
- ``no-credentials``: ``files`` without a token for its upstream: every operation call is refused
  the same way.
- ``write-only``: ``files`` whose write_file takes an ``owner_key`` it never gives back.
- ``partial-details``: ``files`` whose operation details hold only name, endpoint, description.
- ``two-kinds``: notes and labels: add_note answers an `id`, and the only read takes a label's id.
- ``execute-only``: the same operations, every one EXECUTE, served (introspect too) by the one
  tool mcp_aql_execute.

Every tools/call is logged to $PROBE_LOG when it is set (one JSON line: tool, operation, params).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

JsonObject = dict[str, Any]
TOOLS = ("mcp_aql_read", "mcp_aql_create")


def _parameter(name: str, kind: str = "string", required: bool = False, **extra: Any) -> JsonObject:
    return {"name": name, "type": kind, "required": required, "description": f"The {name}.", **extra}


READ = {"readOnly": True, "destructive": False}
ADDS = {"readOnly": False, "destructive": False}
RETURNS = {"name": "File", "kind": "object", "description": "The file, or the list of files."}
PROTOCOL = {  # every kind serves CRUDE tools
    "version": "1.0.0-draft",
    "conformance": "level-1",
    "mode": "semantic",
    "limits": {"max_nesting_depth": 32},
}
TOO_DEEP = {
    "success": False,
    "error": {"code": "VALIDATION_PAYLOAD_TOO_LARGE", "message": "Nesting exceeds max_nesting_depth 32"},
}
TYPES = [
    {"name": "File", "kind": "object", "description": "A file.",
     "fields": [_parameter("path"), _parameter("content"), _parameter("tags", "string[]")]},
    {"name": "SemanticCategory", "kind": "enum", "description": "A category.",
     "values": ["CREATE", "READ", "UPDATE", "DELETE", "EXECUTE"]},
    {"name": "OperationResult", "kind": "union", "description": "A result.", "members": ["Success", "Failure"]},
]  # fmt: skip
INTROSPECT = {
    "name": "introspect", "semantic_category": "READ", "endpoint": "read", "mcpTool": "mcp_aql_read",
    "description": "Discover the operations and types.", "permissions": READ, "returns": RETURNS,
    "parameters": [_parameter("query", required=True, enum=["operations", "types"]), _parameter("name")],
}  # fmt: skip


FILES_OPERATIONS = [
    {
        "name": "read_file",
        "semantic_category": "READ",
        "endpoint": "read",
        "mcpTool": "mcp_aql_read",
        "description": "Read one file.",
        "permissions": READ,
        "returns": RETURNS,
        "parameters": [_parameter("path", required=True, description="The file, e.g. '<path>'.")],
        "examples": [{"request": {"operation": "read_file", "params": {"path": "<path>"}}}],
    },
    {
        "name": "list_files",
        "semantic_category": "READ",
        "endpoint": "read",
        "mcpTool": "mcp_aql_read",
        "description": "List the files (no filter, sort, paging or fields: all of them, in full).",
        "permissions": READ,
        "returns": RETURNS,
        "parameters": [],
    },
    {
        "name": "write_file",
        "semantic_category": "CREATE",
        "endpoint": "create",
        "mcpTool": "mcp_aql_create",
        "description": "Write a new file.",
        "permissions": ADDS,
        "returns": RETURNS,
        "parameters": [
            _parameter("path", required=True),
            _parameter("content", required=True),
            _parameter("tags", "string[]", required=True),
        ],
        "examples": [{"request": {"operation": "write_file", "params": {"path": "<path>", "content": "<text>"}}}],
    },
]


class Files:
    """The ``files`` server's store and answers."""

    flagged: tuple[str, ...] = ()  # operations whose answers go out flagged isError
    tools: tuple[str, ...] = TOOLS  # the MCP tools it lists
    operations: ClassVar[list[JsonObject]] = FILES_OPERATIONS  # what introspection lists

    def __init__(self) -> None:
        self.files: dict[str, JsonObject] = {
            "notes/readme.txt": {"path": "notes/readme.txt", "content": "hi", "tags": []}
        }

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if operation == "introspect":
            if tool != "mcp_aql_read":
                return _refuse("VALIDATION_WRONG_ENDPOINT", "Operation 'introspect' is served by mcp_aql_read.")
            return _introspect(FILES_OPERATIONS, params)
        declared = next((op for op in FILES_OPERATIONS if op["name"] == operation), None)
        if declared is None:
            return _refuse("NOT_FOUND_OPERATION", f"Unknown operation: '{operation}'")
        if declared["mcpTool"] != tool:
            return _refuse("VALIDATION_WRONG_ENDPOINT", f"Operation '{operation}' is served by {declared['mcpTool']}.")
        path = params.get("path")
        if operation == "read_file" and isinstance(path, str) and path not in self.files:
            return _refuse("NOT_FOUND_RESOURCE", f"ENOENT: no such file or directory, open '{path}'")
        if operation == "write_file" and isinstance(path, str) and path in self.files:
            return _refuse("CONFLICT_EXISTS", f"File '{path}' already exists.")
        problem = _validate(declared, params)
        if problem is not None:
            return problem
        if operation == "read_file":
            return {"success": True, "data": self.files[params["path"]]}
        if operation == "list_files":
            return {"success": True, "data": {"files": list(self.files)}}  # bare names: no `path` to reuse
        if not isinstance(params["tags"], list) or not all(isinstance(t, str) for t in params["tags"]):
            return _refuse("VALIDATION_INVALID_TYPE", "Parameter 'tags' must be an array of strings.")
        record = {"path": params["path"], "content": params["content"], "tags": params["tags"]}
        self.files[params["path"]] = record
        return {"success": True, "data": record}


def _validate(declared: JsonObject, params: JsonObject) -> JsonObject | None:
    names = [p["name"] for p in declared["parameters"]]
    for name in params:
        if name not in names:
            return _refuse("VALIDATION_UNKNOWN_PARAM", f"Unknown parameter: '{name}'")
    for p in declared["parameters"]:
        if p["required"] and p["name"] not in params:
            return _refuse("VALIDATION_MISSING_PARAM", f"Missing required parameter: '{p['name']}'")
    return None


def _introspect(operations: list[JsonObject], params: JsonObject) -> JsonObject:
    unknown = [name for name in params if name not in ("query", "name")]
    if unknown:
        return _refuse("VALIDATION_UNKNOWN_PARAM", f"Unknown parameter(s): {', '.join(map(repr, unknown))}")
    if "\x00" in str(params.get("name", "")):  # core §4.7.1
        return _refuse("VALIDATION_INVALID_ENCODING", "Parameter 'name' holds a null byte (U+0000).")
    query = params.get("query")
    if query == "types":
        if "name" in params:
            return {"success": True, "data": {"type": next((t for t in TYPES if t["name"] == params["name"]), None)}}
        listed = [{k: t[k] for k in ("name", "kind", "description")} for t in TYPES]
        return {"success": True, "data": {"_protocol": PROTOCOL, "types": listed}}
    if query != "operations":
        return _refuse("VALIDATION_MISSING_PARAM", "Missing required parameter: 'query'")
    if "name" in params:
        detail = next((op for op in [INTROSPECT, *operations] if op["name"] == params["name"]), None)
        return {"success": True, "data": {"operation": detail}}
    listed = [{k: op[k] for k in ("name", "semantic_category", "endpoint", "description")} for op in operations]
    listed = [
        {k: op[k] for k in ("name", "semantic_category", "endpoint", "description")} for op in [INTROSPECT, *operations]
    ]
    return {"success": True, "data": {"_protocol": PROTOCOL, "operations": listed}}


def _refuse(code: str, message: str) -> JsonObject:
    return {"success": False, "error": {"code": code, "message": message}}


class Guesswork(Files):
    """``guesswork``: the file store, routing an operation name it does not know to the closest
    one it has (endpoint-modes §5.5 asks for a structured error instead)."""

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if operation != "introspect" and not any(op["name"] == operation for op in FILES_OPERATIONS):
            return super().answer(tool, "list_files", {})
        return super().answer(tool, operation, params)


class FlaggedSuccess(Files):
    """``flagged-success``: the file store, but every answer of list_files, a success, goes out
    in an MCP result flagged ``isError: true``."""

    flagged = ("list_files",)


EXECUTE_OPERATIONS = [
    {**op, "semantic_category": "EXECUTE", "endpoint": "execute", "mcpTool": "mcp_aql_execute",
     "permissions": {"readOnly": False, "destructive": True}}
    for op in FILES_OPERATIONS
]  # fmt: skip


class ExecuteOnly(Files):
    """``execute-only``: one tool, mcp_aql_execute, serving every operation, introspect included
    (no READ endpoint: introspection says so; every operation is declared EXECUTE)."""

    tools = ("mcp_aql_execute",)
    operations = EXECUTE_OPERATIONS

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if tool != "mcp_aql_execute":
            return _refuse("VALIDATION_WRONG_ENDPOINT", "Every operation is served by mcp_aql_execute.")
        if operation == "introspect":
            return _introspect(EXECUTE_OPERATIONS, params)
        declared = next((op for op in EXECUTE_OPERATIONS if op["name"] == operation), None)
        if declared is None:
            return _refuse("NOT_FOUND_OPERATION", f"Unknown operation: '{operation}'")
        return _validate(declared, params) or {"success": True, "data": {"ran": operation}}


class FlatUpdate(Files):
    """``flat-update``: the file store with ``update_file``, an UPDATE that takes the fields it
    changes flat in params, beside the path, instead of in the nested `input` of core §4.5."""

    operations: ClassVar[list[JsonObject]] = [
        *FILES_OPERATIONS,
        {
            "name": "update_file", "semantic_category": "UPDATE", "endpoint": "update", "mcpTool": "mcp_aql_update",
            "description": "Change a file.", "permissions": {"readOnly": False, "destructive": True},
            "returns": RETURNS, "parameters": [_parameter("path", required=True), _parameter("content")],
        },
    ]  # fmt: skip
    tools = (*TOOLS, "mcp_aql_update")

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if operation == "introspect" and tool == "mcp_aql_read":
            return _introspect(self.operations, params)
        if operation != "update_file":
            return super().answer(tool, operation, params)
        if tool != "mcp_aql_update":
            return _refuse("VALIDATION_WRONG_ENDPOINT", "Operation 'update_file' is served by mcp_aql_update.")
        problem = _validate(self.operations[-1], params)
        if problem is not None:
            return problem
        record = self.files.get(params["path"])
        if record is None:
            return _refuse("NOT_FOUND_RESOURCE", f"No file '{params['path']}'.")
        record.update({k: v for k, v in params.items() if k != "path"})
        return {"success": True, "data": record}


class NestedRead(Files):
    """``nested-read``: the file store, whose read_file answers the file under
    ``data.structured_content`` (as servers wrapping an upstream MCP tool do)."""

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        result = super().answer(tool, operation, params)
        if operation == "read_file" and result.get("success") is True:
            return {"success": True, "data": {"structured_content": result["data"]}}
        return result


class NoCredentials(Files):
    """``no-credentials``: the file store in front of an upstream it has no token for: every call
    of an operation is refused the same way, whatever it asks (introspect still answers)."""

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if operation == "introspect" or not any(op["name"] == operation for op in FILES_OPERATIONS):
            return super().answer(tool, operation, params)
        return _refuse(
            "AUTH_REQUIRED", "Upstream refused the request: no access token is configured (set FILES_TOKEN)."
        )


class PartialDetails(Files):
    """``partial-details``: the file store, whose operation details hold only name, endpoint and
    description (partial, but real)."""

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        result = super().answer(tool, operation, params)
        detail = result.get("data", {}).get("operation") if operation == "introspect" else None
        if isinstance(detail, dict):
            return {"success": True, "data": {"operation": {k: detail[k] for k in ("name", "endpoint", "description")}}}
        return result


class TwoKinds(Files):
    """``two-kinds``: notes and labels; add_note answers the note with its `id`, and the only read
    is get_label, which takes a label's id: a note's id is no label's."""

    operations: ClassVar[list[JsonObject]] = [
        {"name": "add_note", "semantic_category": "CREATE", "endpoint": "create", "mcpTool": "mcp_aql_create",
         "description": "Add a note.", "permissions": ADDS, "returns": RETURNS,
         "parameters": [_parameter("title", required=True)]},
        {"name": "get_label", "semantic_category": "READ", "endpoint": "read", "mcpTool": "mcp_aql_read",
         "description": "Read one label.", "permissions": READ, "returns": RETURNS,
         "parameters": [_parameter("label_id", required=True)]},
    ]  # fmt: skip

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if operation == "introspect":
            return (
                _introspect(self.operations, params)
                if tool == "mcp_aql_read"
                else super().answer(tool, operation, params)
            )
        declared = next((op for op in self.operations if op["name"] == operation), None)
        if declared is None:
            return _refuse("NOT_FOUND_OPERATION", f"Unknown operation: '{operation}'")
        if declared["mcpTool"] != tool:
            return _refuse("VALIDATION_WRONG_ENDPOINT", f"Operation '{operation}' is served by {declared['mcpTool']}.")
        problem = _validate(declared, params)
        if problem is not None:
            return problem
        if operation == "add_note":
            return {"success": True, "data": {"id": f"note-{len(self.files)}", "title": params["title"]}}
        if params["label_id"] != "label-1":
            return _refuse("NOT_FOUND_RESOURCE", f"No label '{params['label_id']}'.")
        return {"success": True, "data": {"id": "label-1", "name": "urgent"}}


class NoDetails(Files):
    """``no-details``: the file store, whose introspect lists the operations but refuses to
    detail any (``{query: operations, name}`` answers an error)."""

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if operation == "introspect" and params.get("query") == "operations" and "name" in params:
            return _refuse("NOT_FOUND_OPERATION", "Operation details are not available.")
        return super().answer(tool, operation, params)


OWNER_KEY = _parameter("owner_key", description="Stored hashed, never returned.")


class WriteOnly(Files):
    """``write-only``: the file store, whose write_file also takes ``owner_key``, documented as
    stored hashed and never returned (a read gives the file without it)."""

    operations: ClassVar[list[JsonObject]] = [
        op if op["name"] != "write_file" else {**op, "parameters": [*op["parameters"], OWNER_KEY]}
        for op in FILES_OPERATIONS
    ]

    def answer(self, tool: str, operation: Any, params: JsonObject) -> JsonObject:
        if operation == "introspect" and tool == "mcp_aql_read":
            return _introspect(self.operations, params)
        if operation == "write_file" and "owner_key" in params:
            params = {k: v for k, v in params.items() if k != "owner_key"}  # kept aside, hashed: never answered
        return super().answer(tool, operation, params)


KINDS = {
    "files": Files,
    "guesswork": Guesswork,
    "flagged-success": FlaggedSuccess,
    "execute-only": ExecuteOnly,
    "flat-update": FlatUpdate,
    "nested-read": NestedRead,
    "no-credentials": NoCredentials,
    "write-only": WriteOnly,
    "partial-details": PartialDetails,
    "no-details": NoDetails,
    "two-kinds": TwoKinds,
}


def tool_description(tool: str, operations: list[JsonObject]) -> str:
    """A description with the parts of its template (mcp-integration §2.1.1): purpose, operations, a call."""
    served = [op["name"] for op in operations if op.get("mcpTool", "mcp_aql_read") == tool] or ["introspect"]
    return (
        f"{tool.removeprefix('mcp_aql_').upper()} operations of this probe server.\n\nSupported operations: "
        f'{", ".join(served)}\n\nQuick start example:\n{{ operation: "{served[-1]}", params: {{}} }}\n\n'
        "introspect (query operations) on mcp_aql_read lists them."
    )


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))  # run as a script: its neighbour servers.py
    from servers import nesting, rpc_reply, serve_stdio, text_result

    store = KINDS[sys.argv[1]]()
    schema = {
        "type": "object",
        "properties": {"operation": {"type": "string"}, "params": {"type": "object"}},
        "required": ["operation"],
    }
    tools = [
        {
            "name": name,
            "description": tool_description(name, [INTROSPECT, *store.operations]),
            "inputSchema": schema,
            "annotations": {"readOnlyHint": name == "mcp_aql_read", "destructiveHint": name != "mcp_aql_read"},
        }
        for name in store.tools
    ]

    def call(tool: str, arguments: JsonObject) -> JsonObject:
        if nesting(arguments) > 32:  # core §4.7.5, before anything else reads the request
            return text_result(TOO_DEEP)
        params = arguments.get("params")
        operation = arguments.get("operation")
        result = text_result(store.answer(tool, operation, params if isinstance(params, dict) else {}))
        return {**result, "isError": operation in store.flagged}

    def reply(message: JsonObject) -> JsonObject | None:
        log = os.environ.get("PROBE_LOG")
        tool = str((message.get("params") or {}).get("name"))
        if message.get("method") == "tools/call" and log:
            arguments = message["params"].get("arguments") or {}
            with open(log, "a", encoding="utf-8") as sink:
                sink.write(json.dumps({"tool": tool, **arguments}) + "\n")
        return rpc_reply(message, "probe-" + sys.argv[1], lambda arguments: call(tool, arguments), tools)

    serve_stdio(reply)


if __name__ == "__main__":
    sys.exit(main())
