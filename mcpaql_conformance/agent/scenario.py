"""Scenarios: a pinned agent interaction that replaces the model, for deterministic runs.

Events are played in order. ``llm_response`` is the model's turn: its text and tool calls;
a call is answered by the next event when that is a ``tool_result`` / ``tool_error`` for
its tool (the server is not called), else by the live server, through the destructive
guard. ``user_input`` adds a user message; ``llm_error`` makes the model fail. A string
``"${operation.path}"`` in a call's input is replaced by that dotted path of the
operation's last answer (an id the server made up, for example). ``expect`` is judged by
``test``, from what the run recorded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpaql_conformance.agent.endpoints import AgentError
from mcpaql_conformance.agent.loop import SIMULATED, CallRecord, RunRecord, ToolCaller, TurnRecord
from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.files.configio import load_checked
from mcpaql_conformance.files.kinds import SCENARIO
from mcpaql_conformance.files.values import MISSING, resolve_path
from mcpaql_conformance.files.vocabulary import ScenarioEvent
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain

_REFERENCE = lazy(r"^\$\{([A-Za-z0-9_-]+)\.([A-Za-z0-9_.-]+)\}$")
ANSWERS: tuple[ScenarioEvent, ...] = ("tool_result", "tool_error")


@dataclass(frozen=True)
class Scenario:
    name: str
    events: list[dict[str, Any]]
    description: str = ""
    input: str = ""
    expect: dict[str, Any] = field(default_factory=dict)
    source: str = "<scenario>"


def load_scenario(path: Path) -> Scenario:
    """A scenario file, checked strictly against ``schemas/scenario.schema.json``; every
    simulated answer must answer a call of the turn before it."""
    source = plain(str(path))
    data = load_checked(path, "scenario", SCENARIO, "scenario")
    scenario = Scenario(
        name=data["name"],
        events=data["events"],
        description=data.get("description", ""),
        input=data.get("input", ""),
        expect=data.get("expect") or {},
        source=source,
    )
    _check_answers(scenario)
    return scenario


def _check_answers(scenario: Scenario) -> None:
    pending: list[str] = []
    for index, event in enumerate(scenario.events):
        kind = event["type"]
        if kind == "llm_response":
            pending = [call["name"] for call in event.get("tool_calls") or []]
        elif kind in ANSWERS:
            tool = event.get("tool")
            if not isinstance(tool, str):
                raise AgentError(
                    f"{scenario.source}: $.events[{index}]: a {kind} needs `tool`: the tool whose call it answers"
                )
            if tool not in pending:
                calls = ", ".join(pending) or "no tool"
                raise AgentError(
                    f"{scenario.source}: $.events[{index}]: a {kind} for {plain(tool)!r} must follow an"
                    f" llm_response that calls it, in the order of the calls (calls still unanswered: {calls})"
                )
            # answers go to the calls in order; the calls skipped before this one go to the server
            pending = pending[pending.index(tool) + 1 :]
        else:
            pending = []


def substitute(value: Any, answers: dict[str, Any]) -> Any:
    """``"${operation.path}"`` strings replaced by values from that operation's last answer."""
    if isinstance(value, str):
        match = _REFERENCE.match(value)
        if match is None or match.group(1) not in answers:
            return value
        found = resolve_path(answers[match.group(1)], match.group(2))
        return None if found is MISSING else found
    if isinstance(value, dict):
        return {key: substitute(item, answers) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, answers) for item in value]
    return value


async def run_scenario(scenario: Scenario, caller: ToolCaller) -> RunRecord:
    """Play the events; what happened is the run's record (judged later by ``test``)."""
    record = RunRecord(task=scenario.name, run=1, input=scenario.input)
    events = deque(scenario.events)
    answers: dict[str, Any] = {}
    turn = 0
    while events:
        event = events.popleft()
        kind = event["type"]
        if kind == "user_input":
            record.users.append(event.get("text", ""))
            continue
        if kind == "llm_error":
            error = (event.get("output") or {}).get("error") or {}
            record.error = {"node": "llm", "message": str(error.get("message") or "the model failed")}
            record.completed = False
            return record
        turn += 1
        calls = event.get("tool_calls") or []
        record.turns.append(TurnRecord(turn, event.get("text", ""), len(calls), None, None, 0.0))
        if not calls:
            record.final_text, record.completed = event.get("text", ""), True
            continue
        record.completed = False
        for call in calls:
            arguments = substitute(call.get("input") or {}, answers)
            instead = None
            if events and events[0]["type"] in ANSWERS and events[0].get("tool") == call["name"]:
                answer = events.popleft()
                instead = answer.get("tool_output")
                if instead is None:
                    instead = {"success": answer["type"] == "tool_result", "data": None}
            done = await caller.call(turn, call["name"], arguments, instead, SIMULATED)
            record.calls.append(done)
            for operation in done.operations:
                answers[operation] = done.response
    if not record.completed:
        record.error = _last_failure(record.calls)
    return record


def _last_failure(calls: list[CallRecord]) -> dict[str, str]:
    """The error of a run that ended after tool calls, without a final answer."""
    if calls and not calls[-1].succeeded:
        last = calls[-1]
        node = (last.operations or [last.tool])[0]
        return {"node": node, "message": classify(last.response).describe()}
    return {"node": "llm", "message": "the scenario ended without a final answer"}
