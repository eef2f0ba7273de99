"""Answers nested too deep or too wide to keep. JSON readers and writers stop at a few
hundred levels (the MCP SDK's at 200, orjson's at 255), and no real answer comes near: what
lies deeper than MAX_DEPTH is recorded as the DEEPER marker, so that the answer is still
captured. An answer of more than MAX_VALUES values keeps the first of them, and the WIDER
marker where the rest was (``cut_wide``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcpaql_conformance.regex import lazy

MAX_DEPTH = 100
DEEPER = f"[not recorded: nested more than {MAX_DEPTH} levels deep]"
# A JSON string (escapes included) or one bracket: everything else is copied as it stands.
_TOKEN = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def cut_deep_text(text: str, max_depth: int = MAX_DEPTH) -> str:
    """JSON text with every container opened deeper than ``max_depth`` replaced by the
    DEEPER marker (a JSON string), in one pass and without recursion. Text that is not
    JSON comes back changed only inside unbalanced brackets: the reader then rejects it."""
    parts: list[str] = []
    depth = 0
    kept = 0  # where the text not yet copied starts
    skipping_from: int | None = None  # the depth at which the container being cut opened
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if skipping_from is None and depth > max_depth:
                parts.append(text[kept : match.start()])
                skipping_from = depth
        else:
            if skipping_from is not None and depth == skipping_from:
                parts.append(f'"{DEEPER}"')
                kept = match.end()
                skipping_from = None
            depth -= 1
    parts.append(text[kept:] if skipping_from is None else "")
    return "".join(parts)


class DeepTolerantReader:
    """Reads JSON-RPC messages as the MCP SDK's adapter does; a message nested deeper than
    the SDK can read is read again with its deepest part cut, so that a valid answer is
    captured, not taken for garbage (stdio) or lost to a parse error (HTTP)."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter

    def validate_json(self, data: str | bytes | bytearray, **options: Any) -> Any:
        try:
            return self.adapter.validate_json(data, **options)
        except ValueError as exc:  # pydantic's ValidationError included
            if "recursion limit" not in str(exc):
                raise
        text = data if isinstance(data, str) else bytes(data).decode("utf-8", errors="replace")
        return self.adapter.validate_json(cut_deep_text(text), **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.adapter, name)


def tolerate_deep_http_answers() -> None:
    """Let the SDK's streamable-HTTP client read deep answers too (it reads each message with
    the module-level adapter that this wraps; idempotent)."""
    from mcp.client import streamable_http

    adapter = getattr(streamable_http, "jsonrpc_message_adapter", None)
    if adapter is not None and not isinstance(adapter, DeepTolerantReader):
        setattr(streamable_http, "jsonrpc_message_adapter", DeepTolerantReader(adapter))  # noqa: B010


# Answers too wide to keep: a server can put millions of small values in one answer (a
# million ``{}`` fit in 3 MB), and every copy, check and record of it costs time and memory
# per value. An answer keeps its first MAX_VALUES values in document order (each item, each
# dict entry and each nested value counts one); every container left unfinished then ends
# with the WIDER marker: a last item, or the entry WIDER_KEY.
MAX_VALUES = 100_000
# A list query (``introspect`` without a ``name``) answers as wide as the server is: 100,000
# operations of a dozen values each are 1.2 million values. It keeps this many.
MAX_LIST_VALUES = 2_000_000
WIDER_KEY = "[not recorded]"


def wider(max_values: int = MAX_VALUES) -> str:
    return f"[not recorded: more than {max_values} values in one answer]"


WIDER = wider()


def too_wide(value: Any, max_values: int = MAX_VALUES) -> bool:
    """Whether ``value`` holds more than ``max_values`` values (counting stops past the limit)."""
    count = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict | list):
            continue
        count += len(node)
        if count > max_values:
            return True
        stack.extend(
            item for item in (node.values() if isinstance(node, dict) else node) if isinstance(item, dict | list)
        )
    return False


_END = object()


def cut_wide(value: Any, max_values: int = MAX_VALUES) -> Any:
    """``value`` itself when it holds at most ``max_values`` values; else a copy of its first
    ``max_values`` values in document order, each container left unfinished closed by the
    WIDER marker. Iterative: an answer both wide and deep costs no recursion."""
    if not too_wide(value, max_values):
        return value
    budget = max_values
    root, entries = _open(value)
    stack: list[tuple[Any, Iterator[Any]]] = [(root, entries)]
    while stack:
        copy, entries = stack[-1]
        entry: Any = next(entries, _END)
        if entry is _END:
            stack.pop()
            continue
        if budget <= 0:
            _close(copy, wider(max_values))
            for outer, rest in stack[:-1]:
                if next(rest, _END) is not _END:
                    _close(outer, wider(max_values))
            break
        budget -= 1
        key, item = entry if isinstance(copy, dict) else (None, entry)  # (key, value) or an item
        if isinstance(item, dict | list):
            item, inner = _open(item)
            stack.append((item, inner))
        if isinstance(copy, dict):
            copy[key] = item
        else:
            copy.append(item)
    return root


def _open(container: dict[Any, Any] | list[Any]) -> tuple[Any, Iterator[Any]]:
    if isinstance(container, dict):
        return {}, iter(container.items())
    return [], iter(container)


def _close(copy: Any, marker: str) -> None:
    if isinstance(copy, dict):
        copy[WIDER_KEY] = marker
    else:
        copy.append(marker)
