"""How the command-line process ends: quickly, without tearing down a large bundle.

Freeing the Python objects of a parsed 100 MB bundle one by one takes about a third of
a second, and the operating system reclaims the memory at once anyway. So the console
entry point keeps the last large document alive and, once every output is flushed,
ends with ``os._exit`` (as mypy does). Library callers and tests never enable this.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, NoReturn

LARGE_DOCUMENT_BYTES = 8_000_000

_kept: list[Any] = []
_enabled = False
_heavy = False


def heavy_process() -> None:
    """This process loaded large libraries (the MCP SDK): end it without tearing them down."""
    global _heavy
    _heavy = True


def enable_fast_exit() -> None:
    global _enabled
    _enabled = True


def keep_until_exit(document: Any, size: int) -> None:
    """Keep a large parsed document for the fast exit (only the latest one: bounded memory)."""
    if _enabled and size >= LARGE_DOCUMENT_BYTES:
        _kept[:] = [document]


def finish(code: Any) -> NoReturn:
    """End the process with ``code`` (a ``SystemExit`` code): at once when a large document
    is kept, else through the normal interpreter shutdown."""
    if not _kept and not (_enabled and _heavy):
        sys.exit(code)
    status = code if isinstance(code, int) else (0 if code is None else 1)
    if not isinstance(code, int | None):
        print(code, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say there
            stream.flush()
    os._exit(status)
