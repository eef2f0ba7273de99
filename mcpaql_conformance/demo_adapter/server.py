"""Expose the demo adapter over MCP with the SDK's MCPServer (stdio or streamable HTTP).

The adapter answers every call conformantly; a dialect (``--dialect``) changes only how
the answer is put on the wire, and a latency (``--latency-ms``) delays every call, so that
concurrent capture can be measured against a slow server."""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from mcpaql_conformance import __version__
from mcpaql_conformance.demo_adapter.adapter import CRUDE, OPERATIONS, PERMISSIONS, NotesAdapter
from mcpaql_conformance.demo_adapter.dialects import Dialect, Wire, dialect, speak
from mcpaql_conformance.demo_adapter.limits import NOT_UTF8

MODES = ("crude", "single", "both")
# MCP annotations of each endpoint's tool (mcp-integration §2.3): its category's permission flags
# (readOnlyHint, destructiveHint); the single tool ("") reaches destructive operations too.
HINTS = {**{family: PERMISSIONS[family.upper()] for family in CRUDE}, "": (False, True)}
ENDPOINT_PURPOSE = {
    "create": "CREATE operations: add new notes.",
    "read": "READ operations: introspect, read and list notes (no side effects).",
    "update": "UPDATE operations: change existing notes (input object).",
    "delete": "DELETE operations: remove notes permanently.",
    "execute": "EXECUTE operations: runtime jobs.",
}


def build_server(
    mode: str = "both", fault: str | None = None, dialect_name: str | None = None, latency_ms: float = 0.0
) -> MCPServer:
    """An MCPServer whose tools are the MCP-AQL endpoints of ``mode``."""
    speech = dialect(dialect_name)
    mode = "single" if speech.single_only() else mode
    adapter = NotesAdapter(mode=mode, fault=fault)
    server = MCPServer("mcpaql-demo-notes", version=__version__, instructions="Call introspect first.")
    endpoint = _Endpoint(adapter, speech, latency_ms / 1000)
    if mode in ("crude", "both"):
        for family in CRUDE:
            description = family_description(family, bare=fault == "bare-descriptions")
            server.tool(
                name=speech.tool_name(family),
                description=description,
                annotations=None if fault == "no-annotations" else _hints(family),
                structured_output=False,
            )(endpoint.crude(family))
    if mode in ("single", "both"):
        description = SINGLE_DESCRIPTION if fault != "bare-descriptions" else BARE_SINGLE
        server.tool(
            name=speech.tool_name(""),
            description=description,
            annotations=None if fault == "no-annotations" else _hints(""),
            structured_output=False,
        )(endpoint.single())
    return server


def family_description(family: str, bare: bool = False) -> str:
    """An endpoint tool's description as mcp-integration §2.1.1's template for its category has it:
    purpose, operations, a quick-start call, where to discover parameters (``bare``: the purpose and
    a pointer to introspect, no operation and no call: the fault bare-descriptions)."""
    if bare:
        return f"{ENDPOINT_PURPOSE[family]} Use introspect (on mcp_aql_read) to discover operations."
    served = [op for op in OPERATIONS if op.endpoint == family]
    first = next((op for op in served if op.name != "introspect"), served[0])
    params = ", ".join(f'{param.name}: "<{param.name}>"' for param in first.params if param.required)
    return (
        f"{ENDPOINT_PURPOSE[family]}\n\nSupported operations: {', '.join(op.name for op in served)}\n\n"
        f'Quick start example:\n{{ operation: "{first.name}", params: {{ {params} }} }}\n\n'
        "Discover required parameters (on mcp_aql_read):\n"
        f'{{ operation: "introspect", params: {{ query: "operations", name: "{first.name}" }} }}'
    )


SINGLE_DESCRIPTION = (
    "All MCP-AQL operations through one tool, routed by their semantic category (CREATE, READ, UPDATE, DELETE, "
    'EXECUTE).\n\nQuick start:\n{ operation: "introspect", params: { query: "operations" } }\n\n'
    "Use introspect to discover every operation and its parameters; send {operations: [...]} for a batch."
)
BARE_SINGLE = (
    "All MCP-AQL operations through one tool; start with introspect (query operations) to discover them, "
    "and send {operations: [...]} for a batch."
)


def _hints(family: str) -> ToolAnnotations:
    read_only, destructive = HINTS[family]
    return ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive)


class _Endpoint:
    """Turns MCP tool calls into adapter calls, and the adapter's answers into the dialect's wire."""

    def __init__(self, adapter: NotesAdapter, speech: Dialect, latency: float) -> None:
        self.adapter, self.speech, self.latency = adapter, speech, latency

    def crude(self, family: str) -> Any:
        async def call(operation: str, params: dict[str, Any] | None = None) -> Any:
            return await self.answer(f"mcp_aql_{family}", {"operation": operation, "params": params or {}})

        async def batched(
            operation: str | None = None,
            params: dict[str, Any] | None = None,
            operations: list[dict[str, Any]] | None = None,
        ) -> Any:  # a dialect whose endpoint families take batches too (operations §7.4)
            arguments: dict[str, Any] = {"operation": operation, "params": params or {}}
            return await self.answer(
                f"mcp_aql_{family}", arguments if operations is None else {"operations": operations}
            )

        return batched if self.speech.family_batches() else call

    def single(self) -> Any:
        async def call(
            operation: str | None = None,
            params: dict[str, Any] | None = None,
            operations: list[dict[str, Any]] | None = None,
        ) -> Any:
            arguments: dict[str, Any] = {"operation": operation, "params": params or {}}
            if operations is not None:
                arguments = {"operations": operations}
            return await self.answer("mcp_aql", arguments)

        return call

    async def answer(self, tool: str, arguments: dict[str, Any]) -> Any:
        if self.latency:
            await anyio.sleep(self.latency)
        return _send(self.speech.wire(speak(self.speech, self.adapter.handle, tool, arguments)))


def _send(wire: Wire) -> Any:
    if wire.rpc_code is not None:
        from mcp.shared.exceptions import MCPError

        raise MCPError(code=wire.rpc_code, message=wire.text)
    if wire.is_error:
        from mcp.types import CallToolResult, TextContent

        return CallToolResult(content=[TextContent(type="text", text=wire.text)], is_error=True)
    return wire.text


NOT_UTF8_ERRORS = "mcpaql-demo-not-utf8"


def _mark_invalid(error: UnicodeError) -> tuple[str, int]:
    """Each byte that is not UTF-8 read as NOT_UTF8 (the SDK's own reader makes it U+FFFD, which
    a client may send as text: the adapter could not tell them apart)."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return NOT_UTF8 * (error.end - error.start), error.end


async def run_stdio(server: MCPServer) -> None:
    """Serve over stdio like the SDK's MCPServer.run, but with a reader that keeps the bytes of a
    request that are not UTF-8 recognisable (the adapter refuses them, core §4.7.1)."""
    import codecs
    import io
    import sys

    from mcp.server.stdio import stdio_server

    codecs.register_error(NOT_UTF8_ERRORS, _mark_invalid)
    stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors=NOT_UTF8_ERRORS))
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
