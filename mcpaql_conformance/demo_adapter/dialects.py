"""Dialects: the ways real MCP-AQL servers deviate from the spec, each emulated on the demo.

A dialect changes how the demo speaks, never what it does: the notes store, the
validation and the routing stay conformant, so a capture of a dialect shows that
lenient reading keeps probing, and `test` fails the one deviation while judging the
rest on evidence. Each names the test that owns its deviation.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from mcpaql_conformance.demo_adapter import strict
from mcpaql_conformance.demo_adapter.speech import Dialect, JsonObject, Wire, speak

__all__ = ["DIALECTS", "Dialect", "JsonObject", "Wire", "dialect", "speak"]

DIALECTS = {
    "element-name": "introspection carries every name under `element_name` (operations-query, operation-details)",
    "endpoint-category": "the category is only an upper-case CRUDE word in `endpoint`, no `semantic_category` "
    "(operations-query, operation-details)",
    "detail-ignores-name": "introspect {query: operations, name} answers the whole list (operation-details)",
    "detail-fails": "introspect {query: operations|types, name} is refused (operation-details, types-query)",
    "no-query": "introspect refuses the `query` parameter and answers only without it (operations-query, types-query)",
    "other-shape": "introspect answers bare arrays and unwrapped details (operations-query, types-query, "
    "operation-details)",
    "mcpaql-names": "the tools are named mcpaql_read, mcpaql_create, ... (operation-details)",
    "dashed-names": "the tools are named mcp-aql-read, mcp-aql-create, ... (operation-details)",
    "upper-names": "the tools are named MCP_AQL_READ, MCP_AQL_CREATE, ... (operation-details)",
    "renamed-single": "one tool, `notes_api`, serves every operation (operation-details)",
    "string-errors": 'errors are plain strings: {success: false, error: "..."} (discriminated-union)',
    "is-error-text": "errors are MCP error results (isError) in plain text (discriminated-union)",
    "jsonrpc-errors": "errors are JSON-RPC errors instead of tool results (discriminated-union)",
    "prose-success": "successes carry prose instead of data (create-read, update-preservation)",
    "described-values": "valid values only in parameter descriptions (no `enum`), bad values refused quoting them; "
    'introspect refuses an unknown query with a plain string: "Unknown query type: probe" (discriminated-union)',
    "error-extras": "failures add a `stack` beside the error and a `trace_id` inside it (discriminated-union, "
    "no-leakage)",
    "unlisted-types": "the types list names only the protocol types, none an operation returns (types-query)",
    "unknown-name-error": "a detail query for a name that does not exist is refused instead of answering null "
    "(operation-details, types-query)",
    "loose-dates": "created_at and updated_at are written 01/01/2026 00:00:05, not in ISO 8601 (completeness)",
    "metadata": "every answer carries `_meta`, every error a `_trace_id`, details computed fields and example "
    "objects: all the spec allows, so nothing fails",
    "strict": "follows every rule the checks judge, the stricter way: note_id documented and enforced with a "
    "pattern, list_notes paged by first/after or last/before (never together, cursors opaque, pageInfo), "
    "`_protocol.capabilities.batch` in every mode with batches on each endpoint family, only registry and spec "
    "codes: nothing fails and no plan is needed",
}


class ElementName(Dialect):
    name = "element-name"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        return _renamed(result) if operation == "introspect" else result


def _renamed(value: Any) -> Any:
    if isinstance(value, dict):
        return {("element_name" if key == "name" else key): _renamed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item) for item in value]
    return value


class EndpointCategory(Dialect):
    name = "endpoint-category"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        if operation != "introspect" or not isinstance(result.get("data"), dict):
            return result
        result = copy.deepcopy(result)
        data = result["data"]
        entries = list(data.get("operations") or [])
        if isinstance(data.get("operation"), dict):
            entries.append(data["operation"])
        for entry in entries:
            entry["endpoint"] = entry.pop("semantic_category", entry.get("endpoint", "")).upper()
        return result


class DetailIgnoresName(Dialect):
    name = "detail-ignores-name"

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        if params.get("query") == "operations" and "name" in params:
            return answer({"query": "operations"})  # type: ignore[no-any-return]
        return None


class DetailFails(Dialect):
    name = "detail-fails"

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        if "name" in params:  # operation and type details alike
            return {"success": False, "error": {"code": "NOT_IMPLEMENTED", "message": "Details are not available."}}
        return None


class NoQuery(Dialect):
    name = "no-query"

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        unknown = sorted(key for key in params if key != "name")
        if unknown:
            return {
                "success": False,
                "error": {"code": "VALIDATION_UNKNOWN_PARAM", "message": f"unknown parameter: {unknown[0]}"},
            }
        if "name" in params:
            detail: JsonObject = answer({"query": "operations", "name": params["name"]})
            operation = detail["data"]["operation"]
            if isinstance(operation, dict) and operation["name"] == "introspect":  # it takes no `query`
                operation["parameters"] = [p for p in operation["parameters"] if p["name"] != "query"]
            return detail
        operations, types = answer({"query": "operations"}), answer({"query": "types"})
        return {"success": True, "data": {**operations["data"], **types["data"]}}


class OtherShape(Dialect):
    name = "other-shape"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        data = result.get("data")
        payload = {k: v for k, v in data.items() if k != "_protocol"} if isinstance(data, dict) else None
        if operation != "introspect" or payload is None or len(payload) != 1:
            return result
        (inner,) = payload.values()  # the list or the detail, bare (and `_protocol` lost with its wrapper)
        return {"success": True, "data": inner} if isinstance(inner, list | dict) else result


class ToolNames(Dialect):
    """Tools named ``{prefix}{separator}{family}``, maybe in upper case."""

    def __init__(self, name: str, prefix: str, separator: str, upper: bool = False) -> None:
        self.name = name
        self.prefix, self.separator, self.upper = prefix, separator, upper

    def tool_name(self, family: str) -> str:
        tool = self.prefix + (f"{self.separator}{family}" if family else "")
        return tool.upper() if self.upper else tool


class RenamedSingle(Dialect):
    name = "renamed-single"

    def tool_name(self, family: str) -> str:
        return "notes_api"

    def single_only(self) -> bool:
        return True


class ErrorExtras(Dialect):
    name = "error-extras"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        if result.get("success") is not False or not isinstance(result.get("error"), dict):
            return result
        result = copy.deepcopy(result)
        result["error"]["trace_id"] = "req-7f3a"
        result["stack"] = "at validate (/srv/notes/src/handlers.ts:42:7)"
        return result


PROTOCOL_TYPES = ("SemanticCategory", "OperationResult", "OperationSuccess", "OperationFailure")


class UnlistedTypes(Dialect):
    name = "unlisted-types"

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        if params.get("query") != "types" or "name" in params:
            return None
        listed: JsonObject = answer(params)
        types = [entry for entry in listed["data"]["types"] if entry["name"] in PROTOCOL_TYPES]
        return {"success": True, "data": {"types": types}}


class UnknownNameError(Dialect):
    name = "unknown-name-error"

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        if "name" not in params:
            return None
        result: JsonObject = answer(params)
        data = result.get("data")
        for key in ("operation", "type"):
            if isinstance(data, dict) and key in data and data[key] is None:
                message = f"No {key} named '{params['name']}'."
                return {"success": False, "error": {"code": f"NOT_FOUND_{key.upper()}", "message": message}}
        return result


class LooseDates(Dialect):
    name = "loose-dates"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        return _loose(result) if operation != "introspect" else result


def _loose(value: Any) -> Any:
    """``2026-01-01T00:00:05Z`` as ``01/01/2026 00:00:05`` in every created_at and updated_at."""
    if isinstance(value, list):
        return [_loose(item) for item in value]
    if not isinstance(value, dict):
        return value
    found = {key: _loose(item) for key, item in value.items()}
    for key in ("created_at", "updated_at"):
        stamp = found.get(key)
        if isinstance(stamp, str) and len(stamp) == 20 and stamp[10] == "T":
            found[key] = f"{stamp[5:7]}/{stamp[8:10]}/{stamp[:4]} {stamp[11:19]}"
    return found


class Metadata(Dialect):
    name = "metadata"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        result = copy.deepcopy(result)
        result["_meta"] = {"request_id": "req-1", "duration_ms": 3}
        if isinstance(result.get("error"), dict):
            result["error"]["_trace_id"] = "t-1"
        detail = result.get("data", {}).get("operation") if isinstance(result.get("data"), dict) else None
        if operation == "introspect" and isinstance(detail, dict):
            detail["computed_fields"] = [{"name": "age_days", "type": "integer", "sortable": True}]
            detail["examples"] = [{"description": "Call it", "request": {"operation": detail["name"], "params": {}}}]
        return result


class StringErrors(Dialect):
    name = "string-errors"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        if result.get("success") is False:
            return {"success": False, "error": result["error"]["message"]}
        return result


class IsErrorText(Dialect):
    name = "is-error-text"

    def wire(self, result: JsonObject) -> Wire:
        if result.get("success") is False:
            return Wire(result["error"]["message"], is_error=True)
        return super().wire(result)


class JsonRpcErrors(Dialect):
    name = "jsonrpc-errors"

    def wire(self, result: JsonObject) -> Wire:
        if result.get("success") is False:
            code = -32602 if str(result["error"]["code"]).startswith("VALIDATION_") else -32603
            return Wire(result["error"]["message"], rpc_code=code)
        return super().wire(result)


class ProseSuccess(Dialect):
    name = "prose-success"

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        if operation == "introspect" or result.get("success") is not True:
            return result
        return {"success": True, "data": _prose(result.get("data"))}


def _prose(data: Any) -> str:
    """A sentence saying what the data says."""
    if isinstance(data, dict) and "note_id" in data:
        return f"Note {data['note_id']} '{data.get('title', '')}' is saved."
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return f"Found {len(data['items'])} note(s)."
    return "Done."


# operation -> parameter -> its description in the described-values dialect (the values in prose only)
DESCRIBED: dict[str, dict[str, str]] = {
    "introspect": {"query": "Query type: 'operations' or 'types'", "name": "Operation or type name, e.g. get_note"},
    "export_notes": {"format": "Export format, one of: text, markdown"},
    "reindex_notes": {"scope": 'What to reindex: "titles" (titles only) or "all" (titles and bodies)'},
    "get_note": {"note_id": "Note id (e.g. note_1)"},
    "duplicate_note": {"note_id": "Id of the note to copy, e.g. note_1"},
    "update_note": {"note_id": "Identifier of the note, as returned by create_note or list_notes"},
    "tag_note": {"note_id": "Identifier of the note, as returned by create_note or list_notes"},
    "delete_note": {"note_id": "ID of the note to delete (see list_notes)"},
}
# Example invocations the described-values dialect adds to operation details (valid values again).
EXAMPLES: dict[str, list[Any]] = {
    "introspect": ['{"operation": "introspect", "params": {"query": "types"}}'],
    "export_notes": [
        {
            "description": "Export every note as Markdown",
            "request": {"operation": "export_notes", "params": {"format": "markdown"}},
        }
    ],
}
QUERY_TYPES = ("operations", "types")
# (operation, parameter) -> (its valid values, the refusal quoting a refused value)
REFUSALS: dict[tuple[str, str], tuple[tuple[str, ...], Callable[[str], str]]] = {
    ("export_notes", "format"): (
        ("text", "markdown"),
        lambda v: f"Invalid format '{v}': expected one of text, markdown",
    ),
    ("reindex_notes", "scope"): (("titles", "all"), lambda v: f"scope must be 'titles' or 'all', got '{v}'"),
}


class DescribedValues(Dialect):
    """Valid values are stated only in prose and a refusal quotes the refused value. An unknown
    introspect query is refused first, whatever else was sent, as a plain string. Unknown note ids
    are refused by the store already, quoting the id. With valid values nothing changes."""

    name = "described-values"

    def respond(self, tool: str, arguments: JsonObject, result: JsonObject) -> JsonObject:
        if tool == "mcp_aql" and "operations" in arguments:
            if not isinstance(result.get("results"), list):
                return result
            items = arguments["operations"]
            result = copy.deepcopy(result)
            for entry in result["results"]:
                item = items[entry["index"]]
                entry["result"] = self.respond(tool, item if isinstance(item, dict) else {}, entry["result"])
            return result
        params = arguments.get("params") or {}
        if not isinstance(params, dict):
            return result
        operation = arguments.get("operation")
        if operation == "introspect" and tool in ("mcp_aql", "mcp_aql_read"):
            return self._introspect(params, result)
        for (name, param), (valid, refusal) in REFUSALS.items():
            value = params.get(param)
            if name == operation and isinstance(value, str) and value not in valid and result.get("success") is False:
                result = copy.deepcopy(result)
                conformant = f"Parameter '{param}' must be one of: {', '.join(valid)}."
                result["error"]["message"] = result["error"]["message"].replace(conformant, refusal(value))
        return result

    def _introspect(self, params: JsonObject, result: JsonObject) -> JsonObject:
        # introspect has no side effect: refusing its answer is refusing before it was computed
        if "query" in params and params["query"] not in QUERY_TYPES:
            query = params["query"]
            return {
                "success": False,
                "error": f"Unknown query type: {query if isinstance(query, str) else json.dumps(query)}",
            }
        data = result.get("data")
        if (
            result.get("success") is not True
            or not isinstance(data, dict)
            or not isinstance(data.get("operation"), dict)
        ):
            return result
        result = copy.deepcopy(result)
        detail = result["data"]["operation"]
        described = DESCRIBED.get(detail["name"], {})
        for parameter in detail["parameters"]:
            parameter.pop("enum", None)
            if parameter["name"] in described:
                parameter["description"] = described[parameter["name"]]
        if detail["name"] in EXAMPLES:
            detail["examples"] = copy.deepcopy(EXAMPLES[detail["name"]])
        return result


def dialect(name: str | None) -> Dialect:
    """The dialect called ``name`` (None: conformant)."""
    if name is None:
        return Dialect()
    if name not in DIALECTS:
        raise ValueError(f"unknown dialect {name!r}; valid dialects: {', '.join(DIALECTS)}")
    kinds: dict[str, Dialect] = {
        "element-name": ElementName(),
        "endpoint-category": EndpointCategory(),
        "detail-ignores-name": DetailIgnoresName(),
        "detail-fails": DetailFails(),
        "no-query": NoQuery(),
        "other-shape": OtherShape(),
        "mcpaql-names": ToolNames("mcpaql-names", "mcpaql", "_"),
        "dashed-names": ToolNames("dashed-names", "mcp-aql", "-"),
        "upper-names": ToolNames("upper-names", "mcp_aql", "_", upper=True),
        "renamed-single": RenamedSingle(),
        "string-errors": StringErrors(),
        "is-error-text": IsErrorText(),
        "jsonrpc-errors": JsonRpcErrors(),
        "prose-success": ProseSuccess(),
        "described-values": DescribedValues(),
        "error-extras": ErrorExtras(),
        "unlisted-types": UnlistedTypes(),
        "unknown-name-error": UnknownNameError(),
        "loose-dates": LooseDates(),
        "metadata": Metadata(),
        "strict": strict.Strict(),
    }
    return kinds[name]
