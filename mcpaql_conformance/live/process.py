"""The server as a child process: started first (so it boots while the MCP SDK is imported),
in its own process group under the warden (warden.py: on Linux a subreaper with a parent-death
signal, so that neither the server nor a daemon it detaches outlives this process, even killed
with SIGKILL), spoken to over stdin/stdout, and stopped as a whole group at the end,
grandchildren and detached daemons included. Its stdout is read in linear time, one message
at most MAX_LINE bytes; its stderr goes to a bounded buffer (stderr.py).

Its stdout must carry JSON-RPC only (MCP's stdio transport). A line of other text is read
leniently: kept as evidence (``StdoutNoise``: the first lines, each with the request sent
before it, and how many there were), said once, and the session goes on. Only a stream that
never becomes MCP again ends it: more than MAX_BANNER_LINES lines before the first message
(nothing was captured: one error naming the first), or more than MAX_NOISE_LINES lines or
MAX_NOISE_BYTES bytes in a row after it (``StdoutNoise.lost``: the capture ends with the
bundle of everything seen so far).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.depth import DeepTolerantReader
from mcpaql_conformance.live.encoding import Utf8Watch, on_wire
from mcpaql_conformance.live.stderr import ServerLog
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import server_environment

GRACE = 0.2  # seconds a server may take to exit once its stdin is closed, before SIGTERM
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to the process group
MAX_LINE = 64 * 1024 * 1024  # one JSON-RPC message, at most (a hostile server cannot make us buffer more)
MAX_BANNER_LINES = 20  # lines of other text before the first message (a banner, a logo)
MAX_NOISE_LINES = 1000  # ...and in a row after it: the stream no longer carries MCP
MAX_NOISE_BYTES = 1024 * 1024
KEPT_LINES = 20  # lines of other text kept as evidence (each cut to SHOWN characters)
SHOWN = 300


class StdoutError(ConfigError):
    """The server wrote something that is not JSON-RPC to stdout."""


WARDEN = Path(__file__).with_name("warden.py")
_launches: dict[int, int] = {}  # warden pid -> the read end of the pipe it reports an exec failure on
_reports: dict[int, int] = {}  # warden pid -> the read end of the pipe it names detached processes on


async def spawn(command: tuple[str, ...], errlog: Any, changes: tuple[tuple[str, str | None], ...] = ()) -> Process:
    """Start the server in a new session (its own process group), with this process's environment
    less the model key variables (``secrecy.server_environment``) and with ``changes`` made to it
    (a None value removes the variable: capture --configurations), under the warden (warden.py),
    which stops every process the server leaves, also when this process is killed. Whether the
    command could be executed is learnt later, with ``launched`` (off POSIX: at once, no warden).
    ``errlog`` is a ServerLog (its pipe is the server's stderr) or what ``stderr=`` accepts."""
    stderr = errlog.pipe() if isinstance(errlog, ServerLog) else errlog
    environment = server_environment()
    for name, value in changes:
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    try:
        if sys.platform == "win32":  # pragma: no cover
            argv = list(command)
            return await anyio.open_process(
                argv, stdin=-1, stdout=-1, stderr=stderr, env=environment, start_new_session=True
            )
        report, told = os.pipe()
        detached, named = os.pipe()
        try:
            argv = [sys.executable, "-I", "-S", str(WARDEN), str(os.getpid()), str(told), str(named), "--", *command]
            process = await anyio.open_process(
                argv, stdin=-1, stdout=-1, stderr=stderr, env=environment, start_new_session=True,
                pass_fds=(told, named),
            )  # fmt: skip
        except BaseException:
            os.close(report)
            os.close(detached)
            raise
        finally:
            os.close(told)
            os.close(named)
        _launches[process.pid] = report
        _reports[process.pid] = detached
        return process
    finally:
        if isinstance(errlog, ServerLog):
            os.close(stderr)


async def launched(process: Process) -> None:
    """Wait until the warden has executed the server's command; its failure as the OSError
    that starting it directly would have raised (FileNotFoundError, PermissionError...)."""
    report = _launches.pop(process.pid, None)
    if report is None:
        return
    try:
        said = await anyio.to_thread.run_sync(_read_all, report)
    finally:
        os.close(report)
    if said:
        number = int(said) if said.isdigit() else errno.ENOEXEC
        raise OSError(number, os.strerror(number))


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 64):
        chunks.append(chunk)
    return b"".join(chunks)


@contextlib.asynccontextmanager
async def stdio_streams(
    process: Process,
    warn: Any,
    noise: StdoutNoise | None = None,
    faults: list[str] | None = None,
    watch: Utf8Watch | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """(read, write) streams of SessionMessages over the process's stdout and stdin. Lines of
    other text go to ``noise``; when the stream is lost to them, its reason joins ``faults``
    (the pending request ends with it) and the session sees the end of the stream. Lines that
    are not UTF-8 go to ``watch``; a request holding encoding.MARK goes out with invalid bytes."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    adapter = DeepTolerantReader(types.jsonrpc_message_adapter)
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    noise = noise if noise is not None else StdoutNoise()
    watch = watch if watch is not None else Utf8Watch("stdio")

    async def reader() -> None:
        assert process.stdout is not None
        lines = _Lines(warn, noise, watch)
        splitter = LineSplitter(MAX_LINE)
        async with read_writer:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in process.stdout:
                    for raw in splitter.feed(chunk):
                        message = lines.read(raw, adapter)
                        if message is not None:
                            await read_writer.send(SessionMessage(message))
                    if noise.lost is not None:  # the session sees the end; the pending call, why
                        if faults is not None:
                            faults.append(noise.lost)
                        return

    async def writer() -> None:
        assert process.stdin is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with write_reader:
                async for session_message in write_reader:
                    noise.last_sent = _request_named(session_message.message)
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(on_wire((data + "\n").encode("utf-8")))
        await read_writer.aclose()  # the server stopped reading: the session sees the end

    async with anyio.create_task_group() as group:
        group.start_soon(reader)
        group.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            group.cancel_scope.cancel()


class LineSplitter:
    """Complete lines out of chunks, in linear time: each chunk is searched once for newlines and
    kept as it is until its line ends (never copied onto a growing buffer and rescanned)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        complete: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._keep(chunk[start:end])
            complete.append(b"".join(self.parts))
            self.parts, self.size = [], 0
            start = end + 1
        if start < len(chunk):
            self._keep(chunk[start:])
        return complete

    def _keep(self, piece: bytes) -> None:
        self.size += len(piece)
        if self.size > self.limit:
            raise StdoutError(f"the server wrote a stdout line longer than {self.limit // 2**20} MB")
        self.parts.append(piece)


class StdoutNoise:
    """What the server wrote to stdout that is not JSON-RPC: the first KEPT_LINES lines, each with
    what was sent before it (None: before anything), how many lines in all, and ``lost``: why
    the stream is taken to carry MCP no more (None while it does)."""

    def __init__(self) -> None:
        self.kept: list[dict[str, Any]] = []
        self.count = 0
        self.lost: str | None = None
        self.last_sent: str | None = None

    def add(self, line: str) -> None:
        self.count += 1
        if len(self.kept) < KEPT_LINES:
            self.kept.append({"line": plain(line, max_len=SHOWN), "after": self.last_sent})

    def evidence(self) -> dict[str, Any] | None:
        """The bundle's ``stdout_noise`` (None when there was none)."""
        if not self.count:
            return None
        return {"count": self.count, "lines": self.kept, **({"lost": self.lost} if self.lost else {})}


def _request_named(message: Any) -> str | None:
    """A request as the evidence names it: ``tools/call mcp_aql_read (operation list_notes)``."""
    root = getattr(message, "root", message)
    return named_request(getattr(root, "method", None), getattr(root, "params", None))


def named_request(method: Any, params: Any) -> str | None:
    """A JSON-RPC request by its method and params, as the evidence names it."""
    if not isinstance(method, str):
        return None
    params = params if isinstance(params, dict) else {}
    tool, arguments = params.get("name"), params.get("arguments")
    operation = arguments.get("operation") if isinstance(arguments, dict) else None
    named = method + (f" {tool}" if isinstance(tool, str) else "")
    named += f" (operation {operation})" if isinstance(operation, str) else ""
    return plain(named, max_len=200)


class _Lines:
    """Stdout, line by line: JSON-RPC messages; the other lines go to ``noise``, until there
    are so many that the stream carries MCP no more (see the module's docstring)."""

    def __init__(self, warn: Any, noise: StdoutNoise, watch: Utf8Watch) -> None:
        self.warn = warn
        self.noise = noise
        self.watch = watch
        self.spoken = self.said = False
        self.run_lines = self.run_bytes = 0  # other text since the last message

    def read(self, raw: bytes, adapter: Any) -> Any:
        line = self.watch.decode(raw, self.noise.last_sent).strip() if raw and not raw.isspace() else ""
        if not line:
            return None
        try:
            message = adapter.validate_json(line, by_name=False)
        except ValueError:
            self._other(line, len(raw))
            return None
        self.spoken = True
        self.run_lines = self.run_bytes = 0
        return message

    def _other(self, line: str, size: int) -> None:
        first = self.noise.kept[0]["line"] if self.noise.kept else plain(line, max_len=SHOWN)
        self.noise.add(line)
        self.run_lines += 1
        self.run_bytes += size
        shown = plain(line, max_len=200)
        if not self.spoken:
            if self.run_lines > MAX_BANNER_LINES:
                raise StdoutError(
                    f"the server wrote {self.run_lines} lines of text that is not JSON-RPC to stdout before its"
                    f" first message (the first: {plain(first, max_len=200)!r}); stdout is the protocol channel:"
                    " log to stderr"
                )
            if self.run_lines == 1:
                self.warn(f"the server printed a banner before speaking JSON-RPC: {shown!r}")
            return
        if not self.said:
            self.said = True
            self.warn(
                f"the server wrote text that is not JSON-RPC to stdout, its protocol channel: {shown!r}"
                " (kept as evidence; the capture goes on)"
            )
        if self.noise.lost is None and (self.run_lines > MAX_NOISE_LINES or self.run_bytes > MAX_NOISE_BYTES):
            self.noise.lost = (
                f"the server's stdout stopped carrying MCP: {self.run_lines} lines ({self.run_bytes} bytes) of other"
                f" text in a row, the last {shown!r}"
            )


async def stop(process: Process) -> list[int]:
    """Close stdin, give the server a moment to exit, then stop its whole process group (the
    warden stops the processes that left it). The pids of those detached processes."""
    report = _launches.pop(process.pid, None)
    if report is not None:  # never asked (the capture ended first)
        os.close(report)
    with anyio.CancelScope(shield=True):
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                await process.stdin.aclose()
        await _wait(process, GRACE)
        _signal_group(process, signal.SIGTERM)
        await _wait(process, TERM_GRACE)
        _signal_group(process, signal.SIGKILL)  # also what is left of the group: grandchildren
        with contextlib.suppress(Exception):
            await process.aclose()
    return _detached(process)


def _detached(process: Process) -> list[int]:
    """What the warden, now ended, said it stopped outside the server's process group."""
    fd = _reports.pop(process.pid, None)
    if fd is None:
        return []
    try:
        os.set_blocking(fd, False)
        said = os.read(fd, 65536)
    except OSError:  # nothing said (a warden killed before it could)
        said = b""
    finally:
        os.close(fd)
    return [int(word) for word in said.split() if word.isdigit()]


async def _wait(process: Process, seconds: float) -> None:
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)


def _signal_group(process: Process, number: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        with contextlib.suppress(OSError):
            process.kill()
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, number)
