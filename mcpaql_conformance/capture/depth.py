"""Answers nested too deep to keep: JSON readers and writers stop at a few hundred levels
(the MCP SDK's at 200, orjson's at 255), and no real answer comes near. What lies deeper
than MAX_DEPTH is recorded as the DEEPER marker, so that the answer is still captured."""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 100
DEEPER = f"[not recorded: nested more than {MAX_DEPTH} levels deep]"
# A JSON string (escapes included) or one bracket: everything else is copied as it stands.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


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
