"""A server whose every operation says, in one of the ways real servers do, what calling it may
do: a read, an additive write, a change, a deletion, a runtime job, nothing at all, a READ
declared not read-only, READs named or described for what they change, a READ with safety
switches. Every tools/call is logged to $LEVELS_LOG (one JSON line: tool, operation, params), so
a test can prove which operations each permission level lets a run reach.

python tests/acceptance/level_server.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

JsonObject = dict[str, Any]
TOOLS = ("mcp_aql_read", "mcp_aql_create", "mcp_aql_update", "mcp_aql_delete", "mcp_aql_execute", "mcp_aql")


def _parameter(name: str, kind: str = "string", required: bool = False, **extra: Any) -> JsonObject:
    return {"name": name, "type": kind, "required": required, "description": f"The {name}.", **extra}


def _operation(name: str, category: str | None, description: str, *parameters: JsonObject, **extra: Any) -> JsonObject:
    declared: JsonObject = {"name": name, "description": description, "parameters": list(parameters), **extra}
    if category is not None:
        family = category.lower()
        declared |= {"semantic_category": category, "endpoint": family, "mcpTool": f"mcp_aql_{family}"}
    else:
        declared |= {"mcpTool": "mcp_aql"}
    return declared


READ_PERMISSIONS = {"permissions": {"readOnly": True, "destructive": False}}
OPERATIONS = [
    _operation("get_item", "READ", "Read one item.", _parameter("item_id", required=True), **READ_PERMISSIONS),
    _operation("list_items", "READ", "List items.", _parameter("limit", "integer", default=10, minimum=1)),
    _operation("create_item", "CREATE", "Add an item.", _parameter("title", required=True), _parameter("body")),
    # Declared READ and additive by its permissions: not read-only, not destructive.
    _operation("warm_cache", "READ", "The cache.", permissions={"readOnly": False, "destructive": False}),
    # The list says READ, the detail CREATE (see LIST below): contested, the stricter counts.
    _operation("fetch_feed", "CREATE", "Fetch a feed into the store.", _parameter("url")),
    # UPDATE that declares nothing else, and one that declares itself destructive: the same level.
    _operation(
        "update_item",
        "UPDATE",
        "Change an item.",
        _parameter("item_id", required=True),
        _parameter("input", "object", required=True),
    ),
    _operation(
        "update_declared",
        "UPDATE",
        "Change an item.",
        _parameter("item_id", required=True),
        permissions={"readOnly": False, "destructive": True},
    ),
    _operation("delete_item", "DELETE", "Remove an item.", _parameter("item_id", required=True)),
    _operation("export_items", "EXECUTE", "Export the items.", _parameter("format", enum=["json", "csv"])),
    _operation("mystery", None, "Does a thing."),  # no category anywhere
    # READs named or described for what they change.
    _operation("set_status", "READ", "The status.", _parameter("status"), **READ_PERMISSIONS),
    _operation("publish_draft", "READ", "A draft.", _parameter("draft_id"), **READ_PERMISSIONS),
    _operation("block_agent", "READ", "Wait for a human.", _parameter("agent_id"), **READ_PERMISSIONS),
    _operation("snapshot_report", "READ", "Stores a snapshot of the report.", **READ_PERMISSIONS),
    # A READ with safety switches, like a portfolio sync: its values must be the harmless ones.
    _operation(
        "sync_portfolio",
        "READ",
        "Portfolio.",
        _parameter("direction", required=True, enum=["push", "pull"]),
        _parameter("dry_run", "boolean"),
        _parameter("force", "boolean"),
        _parameter("confirm_deletions", "boolean"),
        **READ_PERMISSIONS,
    ),
]
LIST = [{k: op[k] for k in ("name", "semantic_category", "endpoint", "description") if k in op} for op in OPERATIONS]
LIST[[entry["name"] for entry in LIST].index("fetch_feed")] |= {"semantic_category": "READ", "endpoint": "read"}

# What each operation truly does (the ground truth the tests count against, not our reading).
READ_ONLY = frozenset({"introspect", "get_item", "list_items"})
WRITES = frozenset({"create_item", "warm_cache", "fetch_feed"})
DESTRUCTIVE = frozenset(op["name"] for op in OPERATIONS) - READ_ONLY - WRITES


class Store:
    def __init__(self) -> None:
        self.items: dict[str, JsonObject] = {}
        self.made = 0

    def answer(self, operation: Any, params: JsonObject) -> JsonObject:
        if operation == "introspect":
            return self.introspect(params)
        declared = next((op for op in OPERATIONS if op["name"] == operation), None)
        if declared is None:
            return _refuse("NOT_FOUND_OPERATION", f"Unknown operation: {operation}")
        names = [p["name"] for p in declared["parameters"]]
        for name in params:
            if name not in names:
                return _refuse("VALIDATION_UNKNOWN_PARAM", f"Unknown parameter: {name}")
        for p in declared["parameters"]:
            if p["required"] and p["name"] not in params:
                return _refuse("VALIDATION_MISSING_PARAM", f"Missing required parameter: {p['name']}")
        if operation == "create_item":
            self.made += 1
            item = {"item_id": f"item_{self.made}", "title": params["title"], "body": params.get("body", "")}
            self.items[item["item_id"]] = item
            return {"success": True, "data": item}
        if operation in ("get_item", "delete_item"):
            item = self.items.get(params["item_id"])
            if item is None:
                return _refuse("NOT_FOUND", f"No item {params['item_id']}")
            if operation == "delete_item":
                del self.items[params["item_id"]]
            return {"success": True, "data": item}
        if operation == "list_items":
            return {"success": True, "data": {"items": list(self.items.values())[: params.get("limit", 10)]}}
        return {"success": True, "data": {"ran": operation}}

    def introspect(self, params: JsonObject) -> JsonObject:
        if params.get("query") == "types":
            return {"success": True, "data": {"types": []}}
        if params.get("query") != "operations":
            return _refuse("VALIDATION_MISSING_PARAM", "Missing required parameter: query")
        if "name" in params:
            detail = next((op for op in OPERATIONS if op["name"] == params["name"]), None)
            return {"success": True, "data": {"operation": detail}}
        return {"success": True, "data": {"operations": LIST}}


def _refuse(code: str, message: str) -> JsonObject:
    return {"success": False, "error": {"code": code, "message": message}}


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))  # run as a script: its neighbour servers.py
    from servers import rpc_reply, serve_stdio, text_result

    store = Store()
    schema = {"type": "object", "properties": {"operation": {"type": "string"}, "params": {"type": "object"}}}
    tools = [{"name": name, "description": "MCP-AQL operations.", "inputSchema": schema} for name in TOOLS]

    def call(arguments: JsonObject) -> JsonObject:
        batch = arguments.get("operations")
        if isinstance(batch, list):
            results = [store.answer(item.get("operation"), item.get("params") or {}) for item in batch]
            return text_result({"success": True, "results": results, "summary": {"total": len(results)}})
        params = arguments.get("params")
        return text_result(store.answer(arguments.get("operation"), params if isinstance(params, dict) else {}))

    def reply(message: JsonObject) -> JsonObject | None:
        if message.get("method") == "tools/call":
            arguments = message["params"].get("arguments") or {}
            with open(os.environ["LEVELS_LOG"], "a", encoding="utf-8") as log:
                log.write(json.dumps({"tool": message["params"].get("name"), **arguments}) + "\n")
        return rpc_reply(message, "levels", call, tools)

    serve_stdio(reply)


if __name__ == "__main__":
    sys.exit(main())
