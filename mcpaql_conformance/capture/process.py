"""The server as a child process: started first (so it boots while the MCP SDK is imported),
in its own process group, spoken to over stdin/stdout, and stopped as a whole group at the
end, grandchildren included.

Its stdout must carry JSON-RPC only. One line of other text before the first message (a
banner) is tolerated with one warning; any other line ends the capture at once with one
error naming it, instead of a timeout and a flood of parse errors.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
from anyio.abc import Process

from mcpaql_conformance.capture.depth import DeepTolerantReader
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.sanitize import plain

GRACE = 0.2  # seconds a server may take to exit once its stdin is closed, before SIGTERM
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to the process group
MAX_LINE = 64 * 1024 * 1024  # one JSON-RPC message, at most (a hostile server cannot make us buffer more)


class StdoutError(ConfigError):
    """The server wrote something that is not JSON-RPC to stdout."""


async def spawn(command: tuple[str, ...], errlog: Any) -> Process:
    """Start the server in a new session (its own process group), with this process's environment."""
    return await anyio.open_process(
        list(command), stdin=-1, stdout=-1, stderr=errlog, env=dict(os.environ), start_new_session=True
    )


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
        buffer = b""
        async with read_writer:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in process.stdout:
                    buffer += chunk
                    if len(buffer) > MAX_LINE and b"\n" not in buffer:
                        raise StdoutError(f"the server wrote a stdout line longer than {MAX_LINE // 2**20} MB")
                    *complete, buffer = buffer.split(b"\n")
                    for raw in complete:
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


async def stop(process: Process) -> None:
    """Close stdin, give the server a moment to exit, then stop its whole process group."""
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
