"""One MCP session with the server under test (stdio child process or streamable HTTP)."""

from __future__ import annotations

import contextlib
import re
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import orjson
from anyio.abc import Process

from mcpaql_conformance.capture.depth import tolerate_deep_http_answers
from mcpaql_conformance.capture.process import spawn, stdio_streams, stop
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.sanitize import plain


class CaptureError(ConfigError):
    """The server could not be captured (not started, exited, hung, not MCP-AQL): exit 3."""


class CaptureStopped(CaptureError):
    """A signal stopped the capture: the server was stopped, no bundle written; exit 128 + N."""

    def __init__(self, number: int, records_hint: str = "") -> None:
        import signal

        name = signal.Signals(number).name
        super().__init__(f"stopped by {name}: the server was stopped and no bundle was written{records_hint}")
        self.exit_code = 128 + number


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


MAX_TOOL_PAGES = 20  # a server cannot page tools/list forever


class Connection:
    """A live ClientSession with per-call time limits."""

    def __init__(self, session: Any, timeout: float, server: dict[str, Any]) -> None:
        self.session = session
        self.timeout = timeout
        self.server = server
        self.tools: list[str] = []

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool as tools/list gives it: {name, description, inputSchema}."""
        from mcp import types

        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            with _deadline(self.timeout, "tools/list"):
                result = await self.session.list_tools(params=params)
            for tool in result.tools:
                schema = tool.input_schema if isinstance(getattr(tool, "input_schema", None), dict) else {}
                tools.append({"name": tool.name, "description": tool.description, "inputSchema": schema})
            cursor = getattr(result, "next_cursor", None)
            if not cursor:
                break
        self.tools = [tool["name"] for tool in tools]
        return tools

    async def call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        """Call a tool; MCP-level errors are answers too (recorded, judged later). A hang is fatal."""
        from mcp.shared.exceptions import MCPError

        start = time.perf_counter()
        operation = arguments.get("operation")
        what = f"tools/call {plain(tool)}" + (f" (operation {plain(operation)})" if isinstance(operation, str) else "")
        try:
            with _deadline(self.timeout, what):
                result = await self.session.call_tool(tool, arguments)
        except MCPError as exc:
            if "connection closed" in exc.error.message.lower():
                raise CaptureError(f"the server closed the connection during {what}") from None
            error: dict[str, Any] = {"code": exc.error.code, "message": exc.error.message}
            if exc.error.data is not None:
                error["data"] = exc.error.data
            return Answer({"_mcp_error": error}, "error", _ms(start))
        return Answer(tool_result_json(result), "answered", _ms(start))


def tool_result_json(result: Any) -> Any:
    """The MCP-AQL result inside a tool result; else the text exactly as sent, with its isError flag
    (also when isError contradicts a result that says it succeeded: that is not one to trust)."""
    blocks = list(result.content or [])
    texts = [block.text for block in blocks if getattr(block, "type", None) == "text"]
    kinds = [getattr(block, "type", "unknown") for block in blocks]
    others = [f"[{kind} content]" for kind in kinds if kind != "text"]
    is_error = bool(result.is_error)
    if len(texts) == 1 and not others:
        try:
            parsed = orjson.loads(texts[0])
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and not (is_error and parsed.get("success") is not False):
            return parsed
    structured = getattr(result, "structured_content", None)
    if isinstance(structured, dict) and "success" in structured and not is_error:
        return structured
    return {"_raw_text": "\n".join(texts + others), "_is_error": is_error}


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


@contextlib.contextmanager
def _deadline(seconds: float, what: str) -> Any:
    try:
        with anyio.fail_after(seconds):
            yield
    except TimeoutError:
        raise CaptureError(f"the server did not answer {what} within {seconds:g} s") from None


def server_log() -> Any:
    """A file that collects the server's stderr (read back for errors and the records)."""
    return tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")


@contextlib.asynccontextmanager
async def connect(target: Target, timeout: float, errlog: Any, warnings: list[str]) -> AsyncIterator[Connection]:
    """Open the transport and an initialised session; every failure becomes a CaptureError.
    A server command is started first, so that it boots while the MCP SDK is imported."""
    process = await _start(target, errlog) if not target.url else None
    in_body = False
    try:
        from mcp.client.session import ClientSession

        async with _transport(target, process, warnings) as (read, write), ClientSession(read, write) as session:
            with _deadline(timeout, "initialize"):
                init = await session.initialize()
            info = init.server_info
            in_body = True
            yield Connection(session, timeout, {"name": info.name, "version": info.version})
    except CaptureError:
        raise
    except Exception as exc:  # the SDK wraps transport faults in exception groups
        leaf = _leaf(exc)
        if isinstance(leaf, ConfigError):
            raise CaptureError(str(leaf)) from None
        if in_body and not isinstance(leaf, OSError | EOFError | anyio.BrokenResourceError):
            raise leaf from None  # the capture's own error, not the transport's
        raise CaptureError(_explain(target, exc, telling_lines(read_log(errlog)))) from None
    finally:
        if process is not None:
            await stop(process)


async def _start(target: Target, errlog: Any) -> Process:
    try:
        return await spawn(target.command, errlog)
    except FileNotFoundError:
        raise CaptureError(f"cannot start the server: command not found: {plain(target.command[0])}") from None
    except PermissionError:
        raise CaptureError(f"cannot start the server: permission denied: {plain(target.command[0])}") from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CaptureError(f"cannot start the server {plain(target.command[0])}: {plain(reason)}") from None


@contextlib.asynccontextmanager
async def _transport(target: Target, process: Process | None, warnings: list[str]) -> AsyncIterator[Any]:
    if process is not None:
        async with stdio_streams(process, warnings.append) as streams:
            yield streams
        return
    from mcp.client.streamable_http import streamable_http_client

    tolerate_deep_http_answers()
    async with streamable_http_client(str(target.url)) as streams:
        yield streams


MAX_LOG = 1_000_000  # characters of the server's stderr kept


def read_log(errlog: Any) -> str:
    """What the server wrote to stderr so far (at most MAX_LOG characters)."""
    with contextlib.suppress(OSError, ValueError):
        errlog.flush()
        errlog.seek(0)
        text: str = errlog.read(MAX_LOG)
        errlog.seek(0, 2)
        return text
    return ""


_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Fault|Panic)\b\S*(?::|$)")
_TELLING = re.compile(r"error|exception|fatal|failed|cannot|can't|not found|denied|refused|invalid|panic", re.I)
_TRIVIAL = re.compile(r"[\W_]*")


def telling_lines(log: str, limit: int = 300) -> str:
    """The most telling stderr line: the first that names an exception (``ModuleNotFoundError:
    ...``), else the first that speaks of an error, else the last line with words in it (never
    a closing brace that happened to come last)."""
    lines = [line.strip() for line in log.splitlines()[:10_000] if not _TRIVIAL.fullmatch(line.strip())]
    if not lines:
        return ""
    chosen = next((line for line in lines if _EXCEPTION.match(line)), None)
    if chosen is None:
        chosen = next((line for line in lines if _TELLING.search(line) and not line.startswith("Traceback")), None)
    return plain(chosen if chosen is not None else lines[-1], max_len=limit)


def _explain(target: Target, exc: BaseException, stderr: str) -> str:
    leaf = _leaf(exc)
    said = f" (its stderr: {stderr})" if stderr else ""
    if target.url:
        return f"cannot talk to {target.describe()}: {plain(type(leaf).__name__)}: {plain(str(leaf))}"
    return f"the server closed the connection before the capture could run{said}: {plain(str(leaf))}"


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
