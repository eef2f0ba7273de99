"""MCP answers read leniently: what a server sends in a shape the MCP SDK's models refuse (a
tool result whose ``content`` is an object, a text block whose ``text`` is JSON, a tool without
an ``inputSchema``, a ``serverInfo.version`` that is a number, a protocol version no client
speaks) would end the capture with the SDK's validation error. Between the transport and the
session, ``tolerant`` repairs each such answer to the nearest shape the SDK takes, keeping what
the server said, and records the deviation (``McpDeviations``: the bundle's ``mcp_deviations``),
which the test that owns it judges, quoting it. Both transports pass through it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import orjson

from mcpaql_conformance.sanitize import plain

JsonObject = dict[str, Any]
KEPT = 20  # deviations kept as evidence (the rest are counted)
SHOWN = 200  # characters of a value the server sent, quoted


class McpDeviations:
    """Answers the server sent in a shape MCP does not define, each as read: the first KEPT, and
    how many in all."""

    def __init__(self) -> None:
        self.kept: list[JsonObject] = []
        self.count = 0

    def add(self, method: str, what: str) -> None:
        self.count += 1
        if len(self.kept) < KEPT and not any(entry["deviation"] == what for entry in self.kept):
            self.kept.append({"method": method, "deviation": what})

    def evidence(self) -> JsonObject | None:
        """The bundle's ``mcp_deviations`` (None when there were none)."""
        return {"count": self.count, "deviations": self.kept} if self.count else None


@contextlib.asynccontextmanager
async def tolerant(streams: tuple[Any, Any], deviations: McpDeviations) -> AsyncIterator[tuple[Any, Any]]:
    """(read, write) streams like ``streams``, whose answers to initialize, tools/list and
    tools/call are repaired where MCP's shapes are broken (each repair recorded)."""
    from mcp.shared.message import SessionMessage
    from mcp_types.jsonrpc import JSONRPCRequest, JSONRPCResponse

    read, write = streams
    to_session, session_reads = anyio.create_memory_object_stream[Any](0)
    session_writes, from_session = anyio.create_memory_object_stream[Any](0)
    asked: dict[Any, tuple[str, Any]] = {}  # request id -> (method, params)

    async def up() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            async with from_session:
                async for item in from_session:
                    message = getattr(item, "message", None)
                    if isinstance(message, JSONRPCRequest):
                        asked[message.id] = (message.method, message.params)
                    await write.send(item)

    async def down() -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            async with to_session:
                async for item in read:
                    message = getattr(item, "message", None)
                    if isinstance(message, JSONRPCResponse) and message.id in asked:
                        method, params = asked.pop(message.id)
                        result = repaired(method, params, message.result, deviations)
                        if result is not message.result:
                            item = SessionMessage(
                                JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result), item.metadata
                            )
                    await to_session.send(item)

    async with anyio.create_task_group() as group:
        group.start_soon(up)
        group.start_soon(down)
        try:
            yield session_reads, session_writes
        finally:
            group.cancel_scope.cancel()


def repaired(method: str, params: Any, result: JsonObject, deviations: McpDeviations) -> JsonObject:
    """The result in a shape the SDK takes (the same object when nothing was wrong)."""
    fix = {"initialize": _initialize, "tools/list": _tools, "tools/call": _call}.get(method)
    if fix is None:
        return result
    found: list[str] = []
    fixed = fix(result, params if isinstance(params, dict) else {}, found)
    for what in found:
        deviations.add(method, what)
    return fixed if found else result


def _initialize(result: JsonObject, params: JsonObject, found: list[str]) -> JsonObject:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    fixed = dict(result)
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        found.append(f"serverInfo is {_said(info)}, not an object with name and version")
        info = {}
    info = dict(info)
    for key in ("name", "version"):
        if not isinstance(info.get(key), str):
            found.append(f"serverInfo.{key} is {_said(info.get(key))}, not a string")
            info[key] = "" if info.get(key) is None else plain(str(info.get(key)), max_len=SHOWN)
    fixed["serverInfo"] = info
    version, asked = result.get("protocolVersion"), params.get("protocolVersion")
    if version not in HANDSHAKE_PROTOCOL_VERSIONS and isinstance(asked, str):
        found.append(
            f"protocolVersion is {_said(version)}, no MCP protocol version: read as the one asked for, {asked}"
        )
        fixed["protocolVersion"] = asked
    if not isinstance(result.get("capabilities"), dict):
        found.append(f"capabilities is {_said(result.get('capabilities'))}, not an object")
        fixed["capabilities"] = {}
    return fixed


def _tools(result: JsonObject, params: JsonObject, found: list[str]) -> JsonObject:
    tools = result.get("tools")
    if not isinstance(tools, list):
        found.append(f"tools is {_said(tools)}, not a list")
        return {**result, "tools": []}
    kept = []
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            found.append(f"a tool without a name: {_said(tool)}")
            continue
        name = plain(tool["name"], max_len=100)
        if not isinstance(tool.get("inputSchema"), dict):
            found.append(f"tool {name} has no inputSchema object ({_said(tool.get('inputSchema'))})")
            tool = {**tool, "inputSchema": {"type": "object"}}
        if "description" in tool and not isinstance(tool["description"], str | None):
            found.append(f"tool {name}: description is {_said(tool['description'])}, not a string")
            tool = {**tool, "description": str(tool["description"])}
        kept.append(tool)
    return {**result, "tools": kept}


def _call(result: JsonObject, params: JsonObject, found: list[str]) -> JsonObject:
    tool = plain(str(params.get("name")), max_len=100)
    content = result.get("content")
    fixed = dict(result)
    if isinstance(content, dict):
        found.append(f"{tool}: content is an object, not a list of content blocks")
        content = [content]
    elif not isinstance(content, list):
        found.append(f"{tool}: content is {_kind(content)}, not a list of content blocks")
        content = [] if content is None else [{"type": "text", "text": _text(content)}]
    blocks = []
    for block in content:
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            found.append(f"{tool}: a content block without a type ({_kind(block)})")
            block = {"type": "text", "text": _text(block)}
        elif block["type"] == "text" and not isinstance(block.get("text"), str):
            found.append(f"{tool}: a text block whose text is {_kind(block.get('text'))}, not a string")
            block = {**block, "text": _text(block.get("text"))}
        blocks.append(block)
    fixed["content"] = blocks
    if "isError" in result and not isinstance(result["isError"], bool | None):
        found.append(f"{tool}: isError is {_kind(result['isError'])}, not a boolean")
        fixed["isError"] = bool(result["isError"])
    return fixed


def _text(value: Any) -> str:
    """A value the server sent where text belongs, as the text of it (JSON for JSON)."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)


def _kind(value: Any) -> str:
    """A value's JSON type, with its article ("an object", "missing" for nothing)."""
    from mcpaql_conformance.files.values import json_type

    if value is None:
        return "missing"
    kind = json_type(value)
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _said(value: Any) -> str:
    """What the server sent, as JSON, cut short ("missing" for nothing)."""
    return "missing" if value is None else plain(_text(value), max_len=60)
