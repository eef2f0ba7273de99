"""One agent run: the model's turns, its tool calls and what each was answered, up to a number
of turns. Every call goes through the ``ToolCaller``: an induced error where a task asks for
one, else the live server through the connection's guard (a call the run's level does not
allow is answered to the model as refused, and never sent)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpaql_conformance.agent.endpoints import ModelTurnFailed
from mcpaql_conformance.agent.guard import REFUSED_CODE, refused_answer
from mcpaql_conformance.agent.providers import Conversation, ToolCall
from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.files.values import json_safe, writable_text
from mcpaql_conformance.files.vocabulary import ToolCallOutcome
from mcpaql_conformance.live.connection import CaptureError, Connection
from mcpaql_conformance.live.guard import Withheld, operations_named
from mcpaql_conformance.sanitize import plain

SYSTEM = (
    "You are an assistant connected to an MCP server. Use its tools to do what the user asks; the server"
    " describes its own operations (ask it with introspect when you need to). When you are done, answer the"
    " user briefly in plain text."
)

# How a call was answered: by the server ("sent"), by the runner instead of the server.
SENT: ToolCallOutcome = "sent"
REFUSED: ToolCallOutcome = "refused"
INDUCED: ToolCallOutcome = "induced"
SIMULATED: ToolCallOutcome = "simulated"
INVALID: ToolCallOutcome = "invalid"
NO_ANSWER: ToolCallOutcome = "no-answer"


@dataclass
class CallRecord:
    turn: int
    tool: str
    arguments: Any
    outcome: ToolCallOutcome
    response: Any
    succeeded: bool
    seconds: float

    @property
    def operations(self) -> list[str]:
        return operations_named(self.arguments)

    def evidence(self) -> dict[str, Any]:
        arguments = self.arguments if isinstance(self.arguments, dict) else {"_raw": self.arguments}
        params = arguments.get("params")
        entry: dict[str, Any] = {
            "turn": self.turn,
            "tool": self.tool,
            "operation": (self.operations or [""])[0],
            "params": params if isinstance(params, dict) else {},
            "arguments": arguments,
            "outcome": self.outcome,
            "succeeded": self.succeeded,
            "response": self.response,
            "seconds": round(self.seconds, 3),
        }
        return entry


@dataclass
class TurnRecord:
    turn: int
    text: str
    tool_calls: int
    input_tokens: int | None
    output_tokens: int | None
    seconds: float


@dataclass
class RunRecord:
    task: str
    run: int
    input: str
    turns: list[TurnRecord] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    final_text: str = ""
    completed: bool = False  # the model gave its final answer within the turns allowed
    error: dict[str, str] | None = None  # {"node": "llm" or an operation, "message"}
    judge: dict[str, Any] | None = None
    users: list[str] = field(default_factory=list)  # user messages after the first
    failed_seconds: float = 0.0  # waiting for a reply that failed (a timeout)
    model: str = ""  # the model that made the run, as --model names it ("": a scenario's, none)
    endpoint: str | None = None  # where that model was asked (credentials masked)
    started: float | None = None  # when the run started (seconds since the epoch)
    wall_seconds: float | None = None  # how long it took, judge included


class ToolCaller:
    """Calls the server for the model (or answers instead of it), and records every call."""

    def __init__(self, connection: Connection, aql_tools: list[str]) -> None:
        self.connection = connection
        self.aql_tools = aql_tools

    async def call(
        self, turn: int, tool: Any, arguments: Any, instead: Any = None, how: ToolCallOutcome = SIMULATED
    ) -> CallRecord:
        """One call; ``instead``: the answer to give without calling the server (``how`` says why).
        What the model sent is made writable first (see ``json_safe``); a name that is not text
        (null, a number, an object, none at all) is recorded as the JSON it was and never sent."""
        started = time.perf_counter()
        arguments = json_safe(arguments)
        if not isinstance(tool, str):
            shown = tool_text(tool)
            return self._record(turn, shown, arguments, REFUSED, self._unnamed(shown), started)
        tool = tool_text(tool)
        if instead is not None:
            return self._record(turn, tool, arguments, how, instead, started)
        if not isinstance(arguments, dict):
            invalid = {
                "success": False,
                "error": {"code": "VALIDATION_ERROR", "message": "The arguments are not an object."},
            }
            return self._record(turn, tool, arguments, INVALID, invalid, started)
        try:
            answer = await self.connection.call(tool, arguments)
        except Withheld as exc:  # the guard refused it: never sent
            return self._record(turn, tool, arguments, REFUSED, refused_answer(exc.need), started)
        except CaptureError as exc:  # no answer in time: the model is told so, the run goes on
            return self._record(turn, tool, arguments, NO_ANSWER, {"_timeout": str(exc)}, started)
        return self._record(turn, tool, arguments, SENT, json_safe(answer.response), started)

    def _unnamed(self, shown: str) -> dict[str, Any]:
        """What the model is told of a call whose tool name is not text (it cannot be sent)."""
        message = (
            f"Not sent to the server: the tool name {plain(shown, max_len=200)} is not text, so it is not an MCP-AQL"
            f" tool. Call one of the server's tools by its name: {', '.join(self.aql_tools) or 'none is listed'}."
        )
        return {"success": False, "error": {"code": REFUSED_CODE, "message": message}}

    def _record(
        self, turn: int, tool: str, arguments: Any, outcome: ToolCallOutcome, response: Any, started: float
    ) -> CallRecord:
        succeeded = outcome in (SENT, SIMULATED) and classify(response).succeeded
        return CallRecord(turn, tool, arguments, outcome, response, succeeded, time.perf_counter() - started)


def _count(tokens: Any) -> int | None:
    """A token count as the API reported it (None: none, or not a count)."""
    return tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and 0 <= tokens < 2**63 else None


def tool_text(name: Any) -> str:
    """A tool name as text: itself when it is text, else the JSON the model sent (``null``, ``5``)."""
    if isinstance(name, str):
        return writable_text(name)
    return orjson.dumps(json_safe(name)).decode()


def answer_text(response: Any) -> str:
    """What the model is shown of an answer: the server's text as it came, or the JSON result."""
    if isinstance(response, dict):
        if "_raw_text" in response:
            return str(response["_raw_text"])
        if "_mcp_error" in response:
            error = response["_mcp_error"]
            return f"Error {error.get('code')}: {error.get('message')}"
        if "_timeout" in response:
            return f"Error: {response['_timeout']}"
    return orjson.dumps(response).decode()


def induced_error(operation: str) -> dict[str, Any]:
    """The bad-argument answer an error-recovery task gives to the operation's first call."""
    message = (
        f"Invalid parameters for {operation}: the request does not match the operation's parameters."
        " Check them with introspect and call the operation again."
    )
    return {"success": False, "error": {"code": "VALIDATION_INVALID_PARAMS", "message": message}}


async def run_model(
    conversation: Conversation, caller: ToolCaller, record: RunRecord, max_turns: int, induce_on: str | None
) -> RunRecord:
    """Model -> tool calls -> server -> model, until a final answer or ``max_turns`` turns."""
    induced = False
    for turn in range(1, max_turns + 1):
        asked = time.perf_counter()
        try:
            reply = await conversation.reply()
        except ModelTurnFailed as exc:  # this run ends here; the others go on
            record.error = {"node": "llm", "message": str(exc)}
            record.failed_seconds = time.perf_counter() - asked  # the wait counts in the run's latency
            return record
        text = writable_text(reply.text) if isinstance(reply.text, str) else ""
        record.turns.append(
            TurnRecord(
                turn,
                text,
                len(reply.tool_calls),
                _count(reply.input_tokens),
                _count(reply.output_tokens),
                reply.seconds,
            )
        )
        if not reply.tool_calls:
            record.final_text, record.completed = text, True
            return record
        results: list[tuple[ToolCall, str]] = []
        for call in reply.tool_calls:
            instead = None
            named = isinstance(call.name, str) and induce_on in operations_named(call.arguments)
            if induce_on is not None and not induced and named:
                instead, induced = induced_error(induce_on), True
            done = await caller.call(turn, call.name, call.arguments, instead, INDUCED)
            record.calls.append(done)
            results.append((call, answer_text(done.response)))
        conversation.add_tool_results(results)
    record.error = {"node": "llm", "message": f"no final answer within {max_turns} turns"}
    return record
