"""Expose the demo adapter over MCP with the SDK's MCPServer (stdio or streamable HTTP)."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer

from mcpaql_conformance import __version__
from mcpaql_conformance.demo_adapter.adapter import CRUDE, NotesAdapter

MODES = ("crude", "single", "both")
ENDPOINT_PURPOSE = {
    "create": "CREATE operations: add new notes.",
    "read": "READ operations: introspect, read and list notes (no side effects).",
    "update": "UPDATE operations: change existing notes (input object).",
    "delete": "DELETE operations: remove notes permanently.",
    "execute": "EXECUTE operations: runtime jobs.",
}


def build_server(mode: str = "both", fault: str | None = None) -> MCPServer:
    """An MCPServer whose tools are the MCP-AQL endpoints of ``mode``."""
    adapter = NotesAdapter(mode=mode, fault=fault)
    server = MCPServer("mcpaql-demo-notes", version=__version__, instructions="Call introspect first.")
    if mode in ("crude", "both"):
        for endpoint in CRUDE:
            _add_endpoint(server, adapter, endpoint)
    if mode in ("single", "both"):
        _add_single(server, adapter)
    return server


def _add_endpoint(server: MCPServer, adapter: NotesAdapter, endpoint: str) -> None:
    tool = f"mcp_aql_{endpoint}"

    def call(operation: str, params: dict[str, Any] | None = None) -> str:
        return json.dumps(adapter.handle(tool, {"operation": operation, "params": params or {}}))

    description = f"{ENDPOINT_PURPOSE[endpoint]} Use introspect (on mcp_aql_read) to discover operations."
    server.tool(name=tool, description=description, structured_output=False)(call)


def _add_single(server: MCPServer, adapter: NotesAdapter) -> None:
    def call(
        operation: str | None = None,
        params: dict[str, Any] | None = None,
        operations: list[dict[str, Any]] | None = None,
    ) -> str:
        arguments: dict[str, Any] = {"operation": operation, "params": params or {}}
        if operations is not None:
            arguments = {"operations": operations}
        return json.dumps(adapter.handle("mcp_aql", arguments))

    description = "All MCP-AQL operations through one tool; send {operations: [...]} for a batch."
    server.tool(name="mcp_aql", description=description, structured_output=False)(call)
