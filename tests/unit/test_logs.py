"""logs: the libraries' log lines reach the terminal as one sanitised line each, never a traceback."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import pytest

from mcpaql_conformance import secrecy
from mcpaql_conformance.cli import logs
from mcpaql_conformance.cli.logs import MAX_LINES


@pytest.fixture
def handler(capsys: pytest.CaptureFixture[str]) -> Any:
    """A handler on its own logger tree (the root logger is pytest's)."""
    made = logs._handler(False)
    loggers = [logging.getLogger(name) for name in ("client", "mcp.client.streamable_http", "httpx", "other.lib")]
    for logger in loggers:
        logger.addHandler(made)
        logger.propagate = False
    yield made
    for logger in loggers:
        logger.removeHandler(made)
        logger.propagate = True


def failing() -> Any:
    try:
        raise ValueError("bad \x1b[31mvalue\x1b[0m\nsecond line")
    except ValueError:
        return sys.exc_info()


def test_a_message_with_escapes_and_a_traceback_is_one_clean_line(handler: Any, capsys: Any) -> None:
    logging.getLogger("client").warning("Failed to validate notification: %s", "x\x1b[2J\x9b31m\ny", exc_info=failing())
    err = capsys.readouterr().err
    assert err == "warning: MCP SDK: Failed to validate notification: x y\n"


def test_each_library_is_named_and_debug_and_info_lines_are_not_shown(handler: Any, capsys: Any) -> None:
    logging.getLogger("mcp.client.streamable_http").error("Unexpected content type: text/\x9b2Jhtml")
    logging.getLogger("httpx").info('HTTP Request: POST http://127.0.0.1/mcp "HTTP/1.1 200 OK"')
    logging.getLogger("other.lib").warning("something %s", "odd")
    assert capsys.readouterr().err == (
        "warning: MCP SDK: Unexpected content type: text/html\nwarning: other.lib: something odd\n"
    )


def test_a_line_is_shown_once_and_a_flood_ends_with_one_line_saying_so(handler: Any, capsys: Any) -> None:
    logger = logging.getLogger("client")
    for index in range(3 * MAX_LINES):
        logger.warning("flood %d", index)
        logger.warning("same again")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == MAX_LINES + 1 and lines.count("warning: MCP SDK: same again") == 1
    assert lines[-1].startswith("warning: more messages of the libraries are not shown (set MCPAQL_CONFORMANCE_DEBUG")


def test_a_registered_secret_never_shows_in_a_log_line(handler: Any, capsys: Any) -> None:
    secrecy.register("sk-live-0123456789")
    logging.getLogger("httpx").warning("refused key %s", "sk-live-0123456789")
    assert capsys.readouterr().err == "warning: HTTP client: refused key ***\n"


def test_a_long_message_is_cut(handler: Any, capsys: Any) -> None:
    logging.getLogger("other.lib").warning("x" * 10_000)
    assert len(capsys.readouterr().err) < logs.MAX_LEN + 40


def test_in_debug_mode_the_traceback_is_shown_each_line_sanitised(capsys: Any) -> None:
    made = logs._handler(True)
    made.handle(logging.LogRecord("client", logging.DEBUG, "f", 1, "detail \x1b[31m", None, failing()))
    err = capsys.readouterr().err
    assert err.startswith("warning: MCP SDK: detail \n  Traceback (most recent call last):")
    assert "  ValueError: bad value\n  second line\n" in err and "\x1b" not in err


def test_install_puts_one_handler_on_the_root_and_tells_thread_failures_in_one_line(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(logs.DEBUG_VARIABLE, raising=False)
    monkeypatch.setattr(logs, "_installed", [])
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        logs.install()
        logs.install()
        added = [h for h in root.handlers if h not in before]
        assert len(added) == 1 and type(added[0]).__name__ == "TerminalHandler"

        def boom() -> None:
            raise RuntimeError("thread \x1b[31mfailed")

        thread = threading.Thread(target=boom, name="worker")
        thread.start()
        thread.join()
        err = capsys.readouterr().err
        assert "warning: worker failed: RuntimeError: thread failed\n" in err and "Traceback" not in err
        sys.excepthook(ValueError, ValueError("x\x1b[2Jy"), None)
        assert capsys.readouterr().err.startswith("error: internal error (ValueError): xy; please report it")
    finally:
        for extra in [h for h in root.handlers if h not in before]:
            root.removeHandler(extra)
        logging.captureWarnings(False)


def test_without_libraries_there_is_no_handler_but_warnings_and_failures_are_one_line(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import warnings

    monkeypatch.delenv(logs.DEBUG_VARIABLE, raising=False)
    monkeypatch.setattr(logs, "_installed", [])
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    root = logging.getLogger()
    before = list(root.handlers)
    logs.install(libraries=False)
    assert root.handlers == before
    warnings.showwarning(UserWarning("a \x1b[31mwarning"), UserWarning, "/src/x.py", 3)
    thread = threading.Thread(target=lambda: 1 / 0, name="worker")
    thread.start()
    thread.join()
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "warning: Python: UserWarning: a warning",
        "warning: worker failed: ZeroDivisionError: division by zero",
    ]
