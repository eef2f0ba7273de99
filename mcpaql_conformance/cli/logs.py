"""Terminal hygiene: what the libraries say reaches the terminal as one sanitised line, never raw.

The MCP SDK, httpx and httpcore, the model SDKs, asyncio and Python's ``warnings`` log through
the standard ``logging`` module; without a handler, Python prints their warnings raw, with full
tracebacks: server text (an SSE ``event:`` name, a ``Content-Type`` full of escape sequences)
would reach the terminal as it was sent. ``install`` (called once, when the command line starts)
puts one handler on the root logger that writes each message as one line through
``sanitize.plain`` (secrets masked, escapes removed, cut at MAX_LEN), without its traceback; a
line already shown is not repeated, and after MAX_LINES lines one more says the rest is not
shown. A failure in a background thread or in a finaliser is one such line too. With
``MCPAQL_CONFORMANCE_DEBUG`` set, everything is shown, debug messages and tracebacks included
(each line sanitised all the same).

A command that runs no library that logs (``install(libraries=False)``: judging saved files)
does without ``logging`` altogether (it is slow to import): Python's warnings and the failures
are written as the same one line each, directly.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Any

from mcpaql_conformance.sanitize import plain

if TYPE_CHECKING:
    import logging

DEBUG_VARIABLE = "MCPAQL_CONFORMANCE_DEBUG"
MAX_LEN = 300  # characters of one message
MAX_LINES = 20  # library lines per run; the rest is counted, not shown
_SOURCES = (  # logger name prefix -> who said it
    ("mcp", "MCP SDK"),
    ("client", "MCP SDK"),  # the SDK's client session logs under this name
    ("httpx", "HTTP client"),
    ("httpx2", "HTTP client"),
    ("httpcore", "HTTP client"),
    ("httpcore2", "HTTP client"),
    ("openai", "OpenAI SDK"),
    ("anthropic", "Anthropic SDK"),
    ("py.warnings", "Python"),
)
_LOGGER = "mcpaql_conformance"


def debugging() -> bool:
    return bool(os.environ.get(DEBUG_VARIABLE))


def _handler(debug: bool) -> logging.Handler:
    """The one handler (``logging`` imported here: only commands whose libraries log pay for it)."""
    import logging

    class TerminalHandler(logging.Handler):
        """Each message as one sanitised line on stderr (see the module's docstring)."""

        def __init__(self, debug: bool = False) -> None:
            super().__init__(logging.DEBUG if debug else logging.WARNING)
            self.debug = debug
            self.seen: set[str] = set()
            self.shown = 0
            self.lock_lines = threading.Lock()

        def line(self, record: logging.LogRecord) -> str:
            try:
                message = record.getMessage()
            except Exception:  # a library's own malformed format string: its text as it is
                message = str(record.msg)
            source = next((said for prefix, said in _SOURCES if _under(record.name, prefix)), record.name)
            if record.name == _LOGGER:
                return f"warning: {plain(message, max_len=MAX_LEN)}"
            return f"warning: {plain(source)}: {plain(message, max_len=MAX_LEN)}"

        def emit(self, record: logging.LogRecord) -> None:
            text = self.line(record)
            if self.debug:
                text = "\n".join([text, *_traceback_lines(record)])
            else:
                with self.lock_lines:
                    if text in self.seen or self.shown > MAX_LINES:
                        return
                    self.seen.add(text)
                    self.shown += 1
                    if self.shown > MAX_LINES:
                        text = "warning: more messages of the libraries are not shown"
                        text += f" (set {DEBUG_VARIABLE}=1 to see them)"
            try:
                stream = sys.stderr
                stream.write(text + "\n")
                stream.flush()
            except (OSError, ValueError):  # a closed stderr: nothing more to say there
                pass

    return TerminalHandler(debug)


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _traceback_lines(record: logging.LogRecord) -> list[str]:
    if not record.exc_info:
        return []
    import traceback

    text = "".join(traceback.format_exception(*record.exc_info))
    return ["  " + plain(line, max_len=MAX_LEN * 4) for line in text.splitlines()]


_installed: list[Any] = []


def install(libraries: bool = True) -> None:
    """The one handler on the root logger, Python's warnings routed through it, and failures in
    threads and finalisers told in one line (idempotent); ``libraries=False``: no handler, the
    warnings and failures written directly (a command that runs no library that logs). In a
    process that runs commands again, a later one may ask for more, or for another debug setting."""
    debug = debugging()
    installed: Any = _installed[0] if _installed else False  # False: nothing yet; None: no handler
    if installed is not False and (not libraries or (installed is not None and installed.debug == debug)):
        return
    if libraries:
        import logging

        handler = _handler(debug)
        _installed[:] = [handler]
        root = logging.getLogger()
        if installed:
            root.removeHandler(installed)
        root.addHandler(handler)
        root.setLevel(logging.DEBUG if debug else logging.WARNING)
        logging.raiseExceptions = debug  # a failing handler prints no traceback of its own
        logging.captureWarnings(True)
    else:
        _installed[:] = [None]
        import warnings

        warnings.showwarning = _warned
    if not debug:
        threading.excepthook = _thread_failed
        sys.unraisablehook = _unraisable
        sys.excepthook = _uncaught


def _uncaught(kind: type[BaseException], value: BaseException, trace: Any) -> None:
    """What escaped every handler (outside the command's own error mapping): one line."""
    if issubclass(kind, KeyboardInterrupt):
        line = "aborted"
    else:
        line = f"error: internal error ({kind.__name__}): {plain(str(value), max_len=MAX_LEN)}; please report it"
        line += f" (set {DEBUG_VARIABLE}=1 for the traceback)"
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def new_run() -> None:
    """A new run of a command: the library lines an earlier one showed may be shown again."""
    handler = _installed[0] if _installed else None
    if handler is not None:
        handler.seen.clear()
        handler.shown = 0


def _warned(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None
) -> None:
    """A Python warning, where no handler routes it: one sanitised line."""
    _said(f"warning: Python: {category.__name__}: {plain(str(message), max_len=MAX_LEN)}")


def _said(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed stderr: nothing more to say there
        pass


def _library_line(text: str) -> None:
    """A line of ours about a failure elsewhere: through the handler where there is one."""
    if _installed and _installed[0] is not None:
        import logging

        logging.getLogger(_LOGGER).warning("%s", text)
    else:
        _said(f"warning: {plain(text, max_len=MAX_LEN)}")


def _thread_failed(args: Any) -> None:
    if args.exc_type is SystemExit:
        return
    where = getattr(args.thread, "name", "a thread")
    _library_line(f"{where} failed: {args.exc_type.__name__}: {args.exc_value}")


def _unraisable(unraisable: Any) -> None:
    kind = type(unraisable.exc_value).__name__ if unraisable.exc_value is not None else "error"
    what = unraisable.err_msg or "Exception ignored"
    _library_line(f"{what}: {kind}: {unraisable.exc_value}")
