"""What every dialect of the demo shares: how an answer leaves the server (``Wire``), the
conformant dialect every deviation overrides one part of (``Dialect``), and ``speak``, which
answers a call as a dialect does."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Wire:
    """How an answer leaves the server: JSON text, plain text (maybe isError), or a JSON-RPC error."""

    text: str
    is_error: bool = False
    rpc_code: int | None = None


class Dialect:
    """The conformant dialect; each deviation overrides one part."""

    name = "conformant"

    def tool_name(self, family: str) -> str:
        """The MCP tool name of an endpoint family ("" for the single tool)."""
        return f"mcp_aql_{family}" if family else "mcp_aql"

    def single_only(self) -> bool:
        return False

    def introspect(self, params: JsonObject, answer: Any) -> JsonObject | None:
        """A different answer to an introspect call, or None to ask the store. ``answer(params)``
        gives the conformant answer."""
        return None

    def reshape(self, operation: str, result: JsonObject) -> JsonObject:
        """The result as this dialect shapes it."""
        return result

    def respond(self, tool: str, arguments: JsonObject, result: JsonObject) -> JsonObject:
        """The result as this dialect shapes it, knowing the whole call (by default: ``reshape``)."""
        return self.reshape(str(arguments.get("operation")), result)

    def wire(self, result: JsonObject) -> Wire:
        return Wire(json.dumps(result))

    def answer(self, tool: str, arguments: JsonObject, handle: Callable[[str, JsonObject], JsonObject]) -> Any:
        """An answer of the dialect's own to a call, or None to let the store answer it."""
        return None

    def family_batches(self) -> bool:
        """Whether the endpoint family tools take batches too (operations §7.4)."""
        return False


def speak(
    speech: Dialect, handle: Callable[[str, JsonObject], JsonObject], tool: str, arguments: JsonObject
) -> JsonObject:
    """The answer of a server speaking ``speech`` to one tool call, before the wire (``speech.wire``);
    ``handle`` answers conformantly (``NotesAdapter.handle``)."""
    operation = arguments.get("operation")
    result = speech.answer(tool, arguments, handle)
    if (
        result is None
        and operation == "introspect"
        and tool in ("mcp_aql", "mcp_aql_read")
        and isinstance(arguments.get("params"), dict)
    ):
        result = speech.introspect(arguments["params"], lambda params: handle(tool, {**arguments, "params": params}))
    if result is None:
        result = handle(tool, arguments)
    return speech.respond(tool, arguments, result)
