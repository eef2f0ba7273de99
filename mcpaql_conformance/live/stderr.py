"""The server's stderr, kept in a bounded buffer: its first and its last HEAD bytes.

The server writes to a pipe that a thread reads as fast as it is written (a server that logs
a lot is never slowed down or blocked), keeping the beginning (where a crash at start says
why) and the end (where a crash later says why); what lies between is counted, not kept,
and the cut falls between lines (never inside one, where it could halve a secret). A
server that writes gigabytes costs this process two megabytes, and the records' copy
(``server-stderr.log``) stays as small.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
import time
from types import TracebackType

HEAD = 1024 * 1024  # bytes kept from the start of the server's stderr, and as many from its end
READ = 1024 * 1024  # bytes read at once
SETTLE = 1.0  # seconds ``text`` waits for what the server has just written


class ServerLog:
    """Collects what the server writes to stderr; ``text()`` is what it wrote so far."""

    def __init__(self, keep: int = HEAD) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self._fd: int | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ServerLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def pipe(self) -> int:
        """A new pipe's write end, for the server's stderr (the caller closes it once the server
        has it); its read end is read by a thread until every writer has closed it."""
        read, write = os.pipe()
        if sys.platform != "win32":
            os.set_blocking(read, False)
        with contextlib.suppress(ImportError, AttributeError, OSError):  # Linux: fewer wake-ups for a busy writer
            import fcntl

            fcntl.fcntl(read, fcntl.F_SETPIPE_SZ, READ)
        with self._lock:
            self._fd = read
        self._thread = threading.Thread(target=self._run, name="server-stderr", daemon=True)
        self._thread.start()
        return write

    def _run(self) -> None:
        while True:
            with self._lock:
                fd = self._fd
            if fd is None:
                return
            if sys.platform != "win32":
                with contextlib.suppress(OSError, ValueError):
                    select.select([fd], [], [], 0.2)
            with self._lock:
                if self._fd is None or not self._drain():
                    self._close_fd()
                    return

    def _drain(self) -> bool:
        """Read what is waiting, up to 16 reads (the lock held); False at the end of the pipe."""
        assert self._fd is not None
        for _ in range(16):
            try:
                chunk = os.read(self._fd, READ)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self._add(chunk)
        return True

    def _add(self, chunk: bytes) -> None:
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail += chunk
        if len(self.tail) > 2 * self.keep:  # trimmed now and then: linear however much is written
            cut = len(self.tail) - self.keep
            self.dropped += cut
            del self.tail[:cut]

    def _close_fd(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def text(self) -> str:
        """What the server wrote so far: its first and last ``keep`` bytes (whole lines only, when
        some were left out), with a line saying how many bytes were left out between them. What
        it wrote just before is waited for a moment."""
        deadline = time.monotonic() + SETTLE
        while self._thread is not None and self._thread.is_alive() and time.monotonic() < deadline:
            with self._lock:
                if self._fd is None or not self._drain():
                    self._close_fd()
                    break
                if not _waiting(self._fd):
                    break
        with self._lock:
            head, tail = bytes(self.head), bytes(self.tail[-self.keep :])
            dropped = self.dropped + len(self.tail) - len(tail)
        if not dropped:
            return (head + tail).decode("utf-8", errors="replace")
        # Cut at line ends only: a line cut in two could hold half a secret, which redaction
        # (of whole secrets) would not find.
        kept_head = head[: head.rfind(b"\n") + 1]
        kept_tail = tail[tail.find(b"\n") + 1 :] if b"\n" in tail else b""
        dropped += len(head) - len(kept_head) + len(tail) - len(kept_tail)
        middle = f"[... {dropped} bytes of the server's stderr not kept ...]\n".encode()
        return (kept_head + middle + kept_tail).decode("utf-8", errors="replace")

    def close(self) -> None:
        """Stop reading (the thread closes the pipe; a process still holding it gets SIGPIPE)."""
        with self._lock:
            self._close_fd()


def _waiting(fd: int) -> bool:
    """Whether bytes wait in the pipe (when it cannot be told: no)."""
    try:
        import fcntl
        import termios

        buffer = bytearray(4)
        fcntl.ioctl(fd, termios.FIONREAD, buffer)
        return int.from_bytes(buffer, sys.byteorder) > 0
    except (ImportError, OSError):
        return False
