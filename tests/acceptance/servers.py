"""Misbehaving MCP servers for capture tests: python servers.py no-aql|no-introspect|odd|exit|hang."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from mcp.server.mcpserver import MCPServer

DETAIL = {
    "name": "get_thing",
    "semantic_category": "READ",
    "endpoint": "read",
    "mcpTool": "mcp_aql_read",
    "description": "Read a thing.",
    "permissions": {"readOnly": True, "destructive": False},
    "parameters": [{"name": "thing_id", "type": "string", "required": True}],
    "returns": {"name": "Thing", "kind": "object"},
}


def odd_read(operation: str, params: dict[str, Any] | None = None) -> str:
    """Introspection works; everything else answers like a sloppy server."""
    params = params or {}
    if operation == "introspect" and params.get("query") == "operations" and "name" in params:
        return json.dumps({"success": True, "data": {"operation": DETAIL}})
    if operation == "introspect" and params.get("query") == "operations":
        summary = {k: DETAIL[k] for k in ("name", "semantic_category", "endpoint", "description")}
        return json.dumps({"success": True, "data": {"operations": [summary]}})
    if operation == "introspect":
        return json.dumps({"ok": True, "typeList": []})  # odd field names
    if "thing_id" not in params:
        return "error: thing_id missing"  # an error as a plain string
    return json.dumps({"success": True, "data": {"error": "no such thing"}})  # a success wrapping an error


def main(kind: str) -> None:
    if kind == "exit":
        sys.exit(3)
    if kind == "hang":
        time.sleep(3600)
    server = MCPServer("misbehaving", version="0.0.1")
    if kind == "no-aql":
        server.tool(name="hello", description="Say hello.")(lambda name: f"hello {name}")
    elif kind == "no-introspect":
        server.tool(name="mcp_aql_read", description="Broken.")(lambda operation, params=None: "not json at all")
    elif kind == "odd":
        server.tool(name="mcp_aql_read", description="READ operations.", structured_output=False)(odd_read)
    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1])
