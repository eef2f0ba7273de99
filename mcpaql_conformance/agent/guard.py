"""The destructive guard, applied to the model's calls. Without ``--allow-destructive`` a call
that could reach a destructive operation is answered to the model as refused by the runner
and recorded; no request goes out. What introspection does not describe (another tool, an
operation it does not list) is unknown, so it is refused too: the runner cannot tell it safe.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcpaql_conformance.live.safety import RESERVED_READS, name_is_destructive, tool_is_destructive
from mcpaql_conformance.sanitize import plain

REFUSED_CODE = "REFUSED_BY_CONFORMANCE_RUNNER"


def operations_named(arguments: Any) -> list[str]:
    """The operations a tool call names: ``operation``, or each one of a batch's ``operations``."""
    if not isinstance(arguments, dict):
        return []
    names = [arguments["operation"]] if isinstance(arguments.get("operation"), str) else []
    batch = arguments.get("operations")
    if isinstance(batch, list):
        names += [
            item["operation"] for item in batch if isinstance(item, dict) and isinstance(item.get("operation"), str)
        ]
    return names


def refusal(
    tool: str, arguments: Any, aql_tools: Iterable[str], destructive: dict[str, bool], allow_destructive: bool
) -> str | None:
    """Why a call must not go out (None: it may). ``destructive``: every listed operation and
    whether any of its declarations says destructive."""
    if allow_destructive:
        return None
    if tool not in set(aql_tools):
        return f"{plain(tool)} is not an MCP-AQL tool of this server, so what it does is unknown"
    if tool_is_destructive(tool):
        return f"{plain(tool)} is a destructive endpoint"
    unnamed = _unnamed(arguments)
    if unnamed is not None:
        return f"{unnamed} names no operation, so what the server would do with it is unknown"
    for operation in operations_named(arguments):
        if operation in RESERVED_READS:
            continue
        if operation not in destructive:
            return (
                f"{plain(operation)} is not an operation introspection lists, so whether it is destructive is unknown"
            )
        if destructive[operation] or name_is_destructive(operation):
            return f"{plain(operation)} is a destructive operation"
    return None


def _unnamed(arguments: Any) -> str | None:
    """What part of a call names no operation (None: every part names one). A server that reads
    the operation under another key could still run it, so such a call is unknown, not safe."""
    if not isinstance(arguments, dict):
        return "the call"
    batch = arguments.get("operations")
    if isinstance(batch, list):
        for index, item in enumerate(batch):
            if not isinstance(item, dict) or not isinstance(item.get("operation"), str):
                return f"item {index} of the batch"
        return None if batch or isinstance(arguments.get("operation"), str) else "the empty batch"
    return None if isinstance(arguments.get("operation"), str) else "the call"


def refused_answer(reason: str) -> dict[str, Any]:
    """What the model is told instead of the server's answer."""
    message = (
        f"Not sent to the server: {reason}. The conformance runner withholds such calls; it sends them"
        " only with --allow-destructive, against a disposable instance."
    )
    return {"success": False, "error": {"code": REFUSED_CODE, "message": message}}
