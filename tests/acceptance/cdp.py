"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
commands on fd 3, answers and events on fd 4, each a JSON message ended by NUL): enough to open a
page, run a script in it, wait for what it does, and collect its console errors and uncaught
exceptions, with nothing beyond the standard library."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import tempfile
import time
from types import TracebackType
from typing import Any

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
    "--remote-debugging-pipe", "--window-size=1280,900",
]  # fmt: skip


class Browser:
    """One browser, one page; ``errors`` holds every console error and uncaught exception seen."""

    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.next_id = 0
        self.buffer = b""

    def __enter__(self) -> Browser:
        self.profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        to_browser, self.write_fd = os.pipe()
        self.read_fd, from_browser = os.pipe()

        def wire() -> None:  # in the child: its fd 3 reads our commands, its fd 4 writes back
            reading, writing = os.dup(to_browser), os.dup(from_browser)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        command = [self.executable, *FLAGS, f"--user-data-dir={self.profile.name}", "about:blank"]
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=wire,  # fds 3 and 4 made in the child (pass_fds would close them after)
            start_new_session=True,  # its renderers and helpers in its process group, stopped with it
        )  # fmt: skip
        os.close(to_browser)
        os.close(from_browser)
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # the browser and every helper it started
        self.process.wait(timeout=30)
        os.close(self.write_fd)
        os.close(self.read_fd)
        self.profile.cleanup()

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        """Send one command and wait for its answer (events meanwhile are kept)."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read(30)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result

    def open(self, url: str) -> None:
        """Navigate the page and wait for its load event."""
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for(lambda event: event.get("method") == "Page.loadEventFired", 30)

    def evaluate(self, expression: str) -> Any:
        """The value of a script run in the page (awaited when it is a promise)."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        result = self.call("Runtime.evaluate", params, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def until(self, expression: str, seconds: float = 15) -> Any:
        """The first truthy value of ``expression``, tried until ``seconds`` pass (else None)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        return None

    def screenshot(self) -> bytes:
        """The page as it is shown, a PNG."""
        import base64

        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"])

    def wait_for(self, predicate: Any, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not any(predicate(event) for event in self.events):
            if time.monotonic() > deadline:
                raise TimeoutError("the page did not load in time")
            self._read(max(0.0, deadline - time.monotonic()))

    def _read(self, seconds: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.read_fd], [], [], seconds)
            if not ready:
                raise TimeoutError("no answer from the browser")
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser ended")
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        self._note(message)
        return message

    def _note(self, message: dict[str, Any]) -> None:
        if "method" not in message:
            return
        self.events.append(message)
        params = message.get("params", {})
        if message["method"] == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(str(details.get("exception", {}).get("description") or details.get("text")))
        elif message["method"] == "Runtime.consoleAPICalled" and params.get("type") == "error":
            said = [str(arg.get("value", arg.get("description"))) for arg in params.get("args", [])]
            self.errors.append(" ".join(said))
        elif message["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"{entry.get('text')} ({entry.get('url', '')})")
