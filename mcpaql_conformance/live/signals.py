"""Stopping a live session on SIGINT, SIGTERM or SIGHUP: the session is cancelled (its server's
whole process group is stopped by the connection), what was recorded so far is written
whole, and the caller raises one clear error (exit 128 + the signal's number)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

import anyio

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stop:
    """SIGINT, SIGTERM or SIGHUP during a capture: the capture is cancelled, the server
    stopped (its whole process group), the records so far written whole, no bundle."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self.records_hint = ""

    @contextlib.contextmanager
    def on_signals(self) -> Iterator[None]:
        import asyncio

        scope = anyio.CancelScope()
        loop = asyncio.get_running_loop()
        installed = []
        for number in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
                loop.add_signal_handler(number, self._received, number, scope)
                installed.append(number)
        try:
            with scope:
                yield
        finally:
            for number in installed:
                loop.remove_signal_handler(number)

    def _received(self, number: int, scope: anyio.CancelScope) -> None:
        if self.signal is None:
            self.signal = number
        scope.cancel()
