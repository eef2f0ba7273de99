"""One MCP session with the server under test (stdio child process or streamable HTTP)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import orjson

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.sanitize import plain


class CaptureError(ConfigError):
    """The server could not be captured (not started, exited, hung, not MCP-AQL): exit 3."""


@dataclass(frozen=True)
class Target:
    """What to connect to: a command to spawn over stdio, or a streamable-HTTP URL."""

    command: tuple[str, ...] = ()
    url: str | None = None

    @property
    def transport(self) -> str:
        return "streamable-http" if self.url else "stdio"

    def describe(self) -> str:
        return plain(self.url) if self.url else plain(" ".join(self.command))


@dataclass(frozen=True)
class Answer:
    response: Any
    outcome: str  # answered | error
    milliseconds: float


class Connection:
    """A live ClientSession with per-call time limits."""

    def __init__(self, session: Any, timeout: float, server: dict[str, Any]) -> None:
        self.session = session
        self.timeout = timeout
        self.server = server
        self.tools: list[str] = []

    async def list_tools(self) -> list[str]:
        with _deadline(self.timeout, "tools/list"):
            result = await self.session.list_tools()
        self.tools = [tool.name for tool in result.tools]
        return self.tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        """Call a tool; MCP-level errors are answers too (recorded, judged later). A hang is fatal."""
        from mcp.shared.exceptions import MCPError

        start = time.perf_counter()
        try:
            with _deadline(self.timeout, f"tools/call {tool}"):
                result = await self.session.call_tool(tool, arguments)
        except MCPError as exc:
            if "connection closed" in exc.error.message.lower():
                raise CaptureError(f"the server closed the connection during tools/call {tool}") from None
            error = {"code": exc.error.code, "message": exc.error.message}
            return Answer({"_mcp_error": error}, "error", _ms(start))
        return Answer(tool_result_json(result), "answered", _ms(start))


def tool_result_json(result: Any) -> Any:
    """The MCP-AQL result inside a tool result, exactly as sent when it is not JSON."""
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    if len(texts) == 1:
        try:
            parsed = orjson.loads(texts[0])
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    structured = getattr(result, "structured_content", None)
    if isinstance(structured, dict) and "success" in structured:
        return structured
    return {"_raw_text": "\n".join(texts), "_is_error": bool(result.is_error)}


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


@contextlib.contextmanager
def _deadline(seconds: float, what: str) -> Any:
    try:
        with anyio.fail_after(seconds):
            yield
    except TimeoutError:
        raise CaptureError(f"the server did not answer {what} within {seconds:g} s") from None


@contextlib.asynccontextmanager
async def connect(target: Target, timeout: float) -> AsyncIterator[Connection]:
    """Open the transport and an initialised session; every failure becomes a CaptureError."""
    from mcp.client.session import ClientSession

    in_body = False
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            async with _transport(target, errlog) as (read, write), ClientSession(read, write) as session:
                with _deadline(timeout, "initialize"):
                    init = await session.initialize()
                info = init.server_info
                in_body = True
                yield Connection(session, timeout, {"name": info.name, "version": info.version})
        except CaptureError:
            raise
        except Exception as exc:  # the SDK wraps transport faults in exception groups
            leaf = _leaf(exc)
            if isinstance(leaf, CaptureError):
                raise leaf from None
            if in_body and not isinstance(leaf, OSError | EOFError | anyio.BrokenResourceError):
                raise leaf from None  # the capture's own error, not the transport's
            raise CaptureError(_explain(target, exc, _tail(errlog))) from None


@contextlib.asynccontextmanager
async def _transport(target: Target, errlog: Any) -> AsyncIterator[Any]:
    if target.url:
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(target.url) as streams:
            yield streams
        return
    from mcp.client.stdio import StdioServerParameters, stdio_client

    # stdio_client passes only a few variables to the child unless env= is given.
    parameters = StdioServerParameters(command=target.command[0], args=list(target.command[1:]), env=dict(os.environ))
    async with stdio_client(parameters, errlog=errlog) as streams:
        yield streams


def _tail(errlog: Any, limit: int = 300) -> str:
    with contextlib.suppress(OSError, ValueError):
        errlog.flush()
        errlog.seek(0)
        lines = [line for line in errlog.read().splitlines() if line.strip()]
        return plain(lines[-1], max_len=limit) if lines else ""
    return ""


def _explain(target: Target, exc: BaseException, stderr: str) -> str:
    leaf = _leaf(exc)
    said = f" (its last stderr line: {stderr})" if stderr else ""
    if isinstance(leaf, FileNotFoundError):
        return f"cannot start the server: command not found: {plain(target.command[0])}"
    if isinstance(leaf, PermissionError):
        return f"cannot start the server: permission denied: {plain(target.command[0])}"
    if target.url:
        return f"cannot talk to {target.describe()}: {plain(type(leaf).__name__)}: {plain(str(leaf))}"
    return f"the server closed the connection before the capture could run{said}: {plain(str(leaf))}"


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
