"""Dialects: the ways real MCP-AQL servers deviate from the spec, each emulated on the demo.

A dialect changes how the demo speaks, never what it does: the notes store, the
validation and the routing stay conformant, so a capture of a dialect shows that
lenient reading keeps probing, and `test` fails the one deviation while judging the
rest on evidence. Each names the test that owns its deviation.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

JsonObject = dict[str, Any]

DIALECTS = {
    "element-name": "introspection carries every name under `element_name` (operations-query, operation-details)",
    "endpoint-category": "the category is only an upper-case CRUDE word in `endpoint`, no `semantic_category` "
    "(operations-query, operation-details)",
    "detail-ignores-name": "introspect {query: operations, name} answers the whole list (operation-details)",
    "detail-fails": "introspect {query: operations|types, name} is refused (operation-details)",
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
}


@dataclass(frozen=True)
class Wire:
    """How an answer leaves the server: JSON text, plain text (maybe isError), or a JSON-RPC error."""

    text: str
    is_error: bool = False
    rpc_code: int | None = None


class Dialect:
    """The conformant dialect; each deviation overrides one part."""

    name = "conformant"

    def tool_name(self, family: str) -> str:
        """The MCP tool name of an endpoint family ("" for the single tool)."""
        return f"mcp_aql_{family}" if family else "mcp_aql"

    def single_only(self) -> bool:
        return False

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        """A different answer to an introspect call, or None to ask the store. ``answer(params)``
        gives the conformant answer."""
        return None

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        """The result as this dialect shapes it."""
        return result

    def wire(self, result: JsonObject) -> Wire:
        import json

        return Wire(json.dumps(result))


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
        if operation != "introspect" or not isinstance(data, dict) or len(data) != 1:
            return result
        (inner,) = data.values()
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
    }
    return kinds[name]
