"""One MCP session with the server under test (stdio child process or streamable HTTP)."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio
import orjson
from anyio.abc import Process

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.depth import MAX_LIST_VALUES, MAX_VALUES, cut_wide, tolerate_deep_http_answers
from mcpaql_conformance.files.vocabulary import Transport
from mcpaql_conformance.live.encoding import Utf8Watch
from mcpaql_conformance.live.guard import Guard
from mcpaql_conformance.live.lenient import McpDeviations, tolerant
from mcpaql_conformance.live.process import StdoutNoise, launched, spawn, stdio_streams, stop
from mcpaql_conformance.live.stderr import HEAD, ServerLog
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import mask_urls, masked_url

JsonObject = dict[str, Any]


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
    # variables a started server gets otherwise than ours: (name, value), a None value removing it
    environment: tuple[tuple[str, str | None], ...] = ()

    @property
    def transport(self) -> Transport:
        return "streamable-http" if self.url else "stdio"

    def describe(self) -> str:
        """The URL or command as shown and written: credentials and query values masked."""
        return plain(masked_url(self.url)) if self.url else plain(mask_urls(" ".join(self.command)))


@dataclass(frozen=True)
class Answer:
    response: Any
    outcome: str  # answered | error
    milliseconds: float


MAX_TOOL_PAGES = 20  # a server cannot page tools/list forever


class Connection:
    """A live ClientSession with per-call time limits, and the run's guard on every call."""

    def __init__(
        self,
        session: Any,
        timeout: float,
        server: dict[str, Any],
        faults: list[str] | None = None,
        guard: Guard | None = None,
    ) -> None:
        self.session = session
        self.timeout = timeout
        self.server = server
        self.tools: list[str] = []
        self.faults = faults if faults is not None else []  # a limit the server broke: the capture ends
        self.guard = guard if guard is not None else Guard()  # none given: read-only, nothing known yet
        self.noise = StdoutNoise()  # what a stdio server wrote to stdout that is not JSON-RPC
        self.encoding = Utf8Watch("stdio")  # how many of its messages were not UTF-8
        self.deviations = McpDeviations()  # MCP answers in shapes MCP does not define, as read

    def stream_evidence(self) -> dict[str, Any]:
        """What the stream itself showed, as the bundle's stdout_noise, mcp_deviations and
        answer_encoding (those with anything to say)."""
        said: dict[str, StdoutNoise | McpDeviations | Utf8Watch] = {
            "stdout_noise": self.noise, "mcp_deviations": self.deviations, "answer_encoding": self.encoding
        }  # fmt: skip
        return {key: kept for key, found in said.items() if (kept := found.evidence()) is not None}

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool as tools/list gives it: {name, description, inputSchema, annotations} (None:
        it gave no annotations)."""
        from mcp import types

        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            with _deadline(self.timeout, "tools/list", self.faults):
                result = await self.session.list_tools(params=params)
            for tool in result.tools:
                schema = tool.input_schema if isinstance(getattr(tool, "input_schema", None), dict) else {}
                hints = getattr(tool, "annotations", None)
                annotations = hints.model_dump(by_alias=True, exclude_none=True, mode="json") if hints else None
                tools.append(
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "inputSchema": schema,
                        "annotations": annotations,
                    }
                )
            cursor = getattr(result, "next_cursor", None)
            if not cursor:
                break
        self.tools = [tool["name"] for tool in tools]
        return tools

    async def call(self, tool: str, arguments: dict[str, Any], progress: list[JsonObject] | None = None) -> Answer:
        """Call a tool, once the guard allows it (``guard.Withheld`` otherwise: nothing is sent);
        MCP-level errors are answers too (recorded, judged later). A hang is fatal. An answer of
        more than MAX_VALUES values (MAX_LIST_VALUES for a list query) keeps the first of them
        (depth.cut_wide). With ``progress``, the call carries a progress token and each
        notifications/progress the server sends for it is appended (at most MAX_PROGRESS)."""
        need = self.guard.check(tool, arguments)
        try:
            answer = await self._call(tool, arguments, progress)
        except CaptureError as exc:  # no answer in time: it may have run all the same
            self.guard.answered(tool, arguments, need, {"_timeout": str(exc)})
            raise
        self.guard.answered(tool, arguments, need, answer.response)
        return answer

    async def _call(self, tool: str, arguments: dict[str, Any], progress: list[JsonObject] | None = None) -> Answer:
        from mcp.shared.exceptions import MCPError
        from pydantic import ValidationError

        start = time.perf_counter()
        operation = arguments.get("operation")
        what = f"tools/call {plain(tool)}" + (f" (operation {plain(operation)})" if isinstance(operation, str) else "")
        try:
            with _deadline(self.timeout, what, self.faults):
                extra = {} if progress is None else {"progress_callback": _recorder(progress)}
                result = await self.session.call_tool(tool, arguments, **extra)
        except MCPError as exc:
            if "connection closed" in exc.error.message.lower():
                raise CaptureError(f"the server closed the connection during {what}") from None
            error: dict[str, Any] = {"code": exc.error.code, "message": exc.error.message}
            if exc.error.data is not None:
                error["data"] = exc.error.data
            return Answer(cut_wide({"_mcp_error": error}), "error", _ms(start))
        except ValidationError as exc:  # a shape tolerant() does not repair: the answer is that it had none
            said = plain(str(exc.errors()[0].get("msg", "")) if exc.errors() else str(exc), max_len=200)
            self.deviations.add("tools/call", f"{plain(tool)}: an answer in no shape of a tool result ({said})")
            return Answer({"_raw_text": f"(an answer in no shape of an MCP tool result: {said})", "_is_error": True},
                          "error", _ms(start))  # fmt: skip
        return Answer(cut_wide(tool_result_json(result), _budget(arguments)), "answered", _ms(start))


MAX_PROGRESS = 100  # notifications/progress kept of one call


def _recorder(progress: list[JsonObject]) -> Any:
    """The progress callback appending each notification's values to ``progress``."""

    async def record(value: float, total: float | None, message: str | None) -> None:
        if len(progress) < MAX_PROGRESS:
            said = {"progress": value, "total": total, "message": plain(message, max_len=200) if message else None}
            progress.append({key: shown for key, shown in said.items() if shown is not None})

    return record


def _budget(arguments: dict[str, Any]) -> int:
    """How many values an answer keeps: a list query's answer is as wide as the server."""
    params = arguments.get("params")
    listing = arguments.get("operation") == "introspect" and not (isinstance(params, dict) and "name" in params)
    return MAX_LIST_VALUES if listing else MAX_VALUES


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
def _deadline(seconds: float, what: str, faults: list[str] | None = None) -> Any:
    """A time limit on one request; a limit the server broke meanwhile (``faults``) ends the capture,
    however the SDK reported the answer that broke it (an error answer, a closed stream)."""
    try:
        with anyio.fail_after(seconds):
            yield
    except TimeoutError:
        if faults:
            raise CaptureError(faults[0]) from None
        raise CaptureError(f"the server did not answer {what} within {seconds:g} s") from None
    except Exception:
        if faults:
            raise CaptureError(faults[0]) from None
        raise
    if faults:
        raise CaptureError(faults[0])


def server_log() -> ServerLog:
    """What collects the server's stderr (read back for errors and the records): its first and
    last megabyte (stderr.py), never an unbounded file."""
    return ServerLog()


@contextlib.asynccontextmanager
async def connect(
    target: Target, timeout: float, errlog: Any, warnings: list[str], guard: Guard
) -> AsyncIterator[Connection]:
    """Open the transport and an initialised session, every call of which passes ``guard``;
    every failure becomes a CaptureError. A server command is started first, so that it boots
    while the MCP SDK is imported."""
    process = await _start(target, errlog) if not target.url else None
    in_body = False
    faults: list[str] = []
    noise = StdoutNoise()
    watch = Utf8Watch(target.transport)
    deviations = McpDeviations()
    try:
        from mcp.client.session import ClientSession

        if process is not None:
            await _start(target, errlog, process)
        streams = _transport(target, process, warnings, faults, noise, watch)
        async with streams as raw, tolerant(raw, deviations) as (read, write), ClientSession(read, write) as session:
            with _deadline(timeout, "initialize", faults):
                init = await session.initialize()
            info = init.server_info
            in_body = True
            connection = Connection(session, timeout, {"name": info.name, "version": info.version}, faults, guard)
            connection.noise, connection.deviations, connection.encoding = noise, deviations, watch
            yield connection
    except CaptureError:
        raise
    except Exception as exc:  # the SDK wraps transport faults in exception groups
        leaf = _leaf(exc)
        if faults:
            raise CaptureError(faults[0]) from None
        if isinstance(leaf, ConfigError):
            raise CaptureError(str(leaf)) from None
        if in_body and not isinstance(leaf, OSError | EOFError | anyio.BrokenResourceError) and not _http(leaf):
            raise leaf from None  # the capture's own error, not the transport's
        raise CaptureError(_explain(target, exc, telling_lines(read_log(errlog)))) from None
    finally:
        if process is not None:
            left = await stop(process)
            if left:
                shown = ", ".join(str(pid) for pid in left[:20]) + (", ..." if len(left) > 20 else "")
                warnings.append(
                    f"the server left {len(left)} detached process(es) running outside its process group"
                    f" (PID {shown}): stopped"
                )


async def _start(target: Target, errlog: Any, process: Process | None = None) -> Process:
    """Start the server (or, given its process, learn whether its command could be executed)."""
    try:
        if process is not None:
            await launched(process)
            return process
        return await spawn(target.command, errlog, target.environment)
    except FileNotFoundError:
        raise CaptureError(f"cannot start the server: command not found: {plain(target.command[0])}") from None
    except PermissionError:
        raise CaptureError(f"cannot start the server: permission denied: {plain(target.command[0])}") from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CaptureError(f"cannot start the server {plain(target.command[0])}: {plain(reason)}") from None


@contextlib.asynccontextmanager
async def _transport(
    target: Target,
    process: Process | None,
    warnings: list[str],
    faults: list[str],
    noise: StdoutNoise,
    watch: Utf8Watch,
) -> AsyncIterator[Any]:
    if process is not None:
        async with stdio_streams(process, warnings.append, noise, faults, watch) as streams:
            yield streams
        return
    from mcp.client.streamable_http import streamable_http_client

    from mcpaql_conformance.live.http import HttpLimits

    tolerate_deep_http_answers()
    limits = HttpLimits(faults, watch=watch)
    async with (
        limits.client() as client,
        streamable_http_client(str(target.url), http_client=client, max_sse_event_size=limits.limit) as streams,
    ):
        yield streams


def _http(error: BaseException) -> bool:
    """Whether ``error`` is the HTTP client's (the transport failed, not the capture)."""
    return type(error).__module__.split(".")[0] in ("httpx2", "httpcore2", "h11")


def read_log(errlog: Any) -> str:
    """What the server wrote to stderr so far (its first and last megabyte, see stderr.py)."""
    if isinstance(errlog, ServerLog):
        return errlog.text()
    with contextlib.suppress(OSError, ValueError):  # a file given by a library caller
        errlog.flush()
        errlog.seek(0)
        text: str = errlog.read(2 * HEAD)
        errlog.seek(0, 2)
        return text
    return ""


_EXCEPTION = lazy(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Fault|Panic)\b\S*(?::|$)")
_TELLING = lazy(r"error|exception|fatal|failed|cannot|can't|not found|denied|refused|invalid|panic", re.I)
_TRIVIAL = lazy(r"[\W_]*")


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
    if target.url and _http(leaf) and "buffer too long" in str(leaf):  # h11's words for what it will not hold
        from mcpaql_conformance.live.http import MAX_HEADERS_KB

        return f"cannot talk to {target.describe()}: the server sent HTTP headers larger than {MAX_HEADERS_KB} KB"
    if target.url:
        return f"cannot talk to {target.describe()}: {plain(type(leaf).__name__)}: {plain(str(leaf))}"
    return f"the server closed the connection before the capture could run{said}: {plain(str(leaf))}"


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
