"""The server as a child process: started first (so it boots while the MCP SDK is imported),
in its own process group under the warden (warden.py: on Linux a subreaper with a parent-death
signal, so that neither the server nor a daemon it detaches outlives this process, even killed
with SIGKILL), spoken to over stdin/stdout, and stopped as a whole group at the end,
grandchildren and detached daemons included. Its stdout is read in linear time, one message
at most MAX_LINE bytes; its stderr goes to a bounded buffer (stderr.py).

Its stdout must carry JSON-RPC only. One line of other text before the first message (a
banner) is tolerated with one warning; any other line ends the capture at once with one
error naming it, instead of a timeout and a flood of parse errors.
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
from mcpaql_conformance.live.stderr import ServerLog
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import server_environment

GRACE = 0.2  # seconds a server may take to exit once its stdin is closed, before SIGTERM
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to the process group
MAX_LINE = 64 * 1024 * 1024  # one JSON-RPC message, at most (a hostile server cannot make us buffer more)


class StdoutError(ConfigError):
    """The server wrote something that is not JSON-RPC to stdout."""


WARDEN = Path(__file__).with_name("warden.py")
_launches: dict[int, int] = {}  # warden pid -> the read end of the pipe it reports an exec failure on
_reports: dict[int, int] = {}  # warden pid -> the read end of the pipe it names detached processes on


async def spawn(command: tuple[str, ...], errlog: Any) -> Process:
    """Start the server in a new session (its own process group), with this process's environment
    less the model key variables (``secrecy.server_environment``), under the warden (warden.py),
    which stops every process the server leaves, also when this process is killed. Whether the
    command could be executed is learnt later, with ``launched`` (off POSIX: at once, no warden).
    ``errlog`` is a ServerLog (its pipe is the server's stderr) or what ``stderr=`` accepts."""
    stderr = errlog.pipe() if isinstance(errlog, ServerLog) else errlog
    try:
        if sys.platform == "win32":  # pragma: no cover
            argv = list(command)
            return await anyio.open_process(
                argv, stdin=-1, stdout=-1, stderr=stderr, env=server_environment(), start_new_session=True
            )
        report, told = os.pipe()
        detached, named = os.pipe()
        try:
            argv = [sys.executable, "-I", "-S", str(WARDEN), str(os.getpid()), str(told), str(named), "--", *command]
            process = await anyio.open_process(
                argv, stdin=-1, stdout=-1, stderr=stderr, env=server_environment(), start_new_session=True,
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
async def stdio_streams(process: Process, warn: Any) -> AsyncIterator[tuple[Any, Any]]:
    """(read, write) streams of SessionMessages over the process's stdout and stdin."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    adapter = DeepTolerantReader(types.jsonrpc_message_adapter)
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)

    async def reader() -> None:
        assert process.stdout is not None
        lines = _Lines(warn)
        splitter = LineSplitter(MAX_LINE)
        async with read_writer:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in process.stdout:
                    for raw in splitter.feed(chunk):
                        message = lines.read(raw, adapter)
                        if message is not None:
                            await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        assert process.stdin is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with write_reader:
                async for session_message in write_reader:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode("utf-8"))
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


class _Lines:
    """Stdout, line by line: JSON-RPC messages; one banner line before the first is tolerated."""

    def __init__(self, warn: Any) -> None:
        self.warn = warn
        self.spoken = self.banner = False

    def read(self, raw: bytes, adapter: Any) -> Any:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            return None
        try:
            message = adapter.validate_json(line, by_name=False)
        except ValueError:
            shown = plain(line, max_len=200)
            if self.spoken or self.banner:
                raise StdoutError(
                    f"the server wrote text that is not JSON-RPC to stdout: {shown!r}"
                    " (stdout is the protocol channel; log to stderr)"
                ) from None
            self.banner = True
            self.warn(f"the server printed a banner before speaking JSON-RPC: {shown!r}")
            return None
        self.spoken = True
        return message


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
