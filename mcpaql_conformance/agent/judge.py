"""Tier 2: a judge model grades a run's transcript against the task's intent, in strict JSON
(``{"verdict": "pass" | "fail", "reason": "one sentence"}``). The verdict is recorded in the
bundle, so that ``test`` stays offline and deterministic."""

from __future__ import annotations

import re
from typing import Any

import orjson

from mcpaql_conformance.agent.loop import RunRecord, answer_text
from mcpaql_conformance.agent.providers import ModelTurnFailed, Provider
from mcpaql_conformance.agent.tasks import Task
from mcpaql_conformance.sanitize import plain

JUDGE_SYSTEM = (
    "You grade whether an AI assistant achieved a task by using an MCP server's tools. You are given the task's"
    " intent, the user's request, the tool calls the assistant made with the server's answers, and its final answer."
    ' Reply with one JSON object and nothing else: {"verdict": "pass" or "fail", "reason": "one sentence"}.'
)
ATTEMPTS = 2  # a reply that is not the JSON asked for is asked once more
_OBJECT = re.compile(r"\{.*\}", re.S)
SHOWN = 600  # characters of each answer shown to the judge


def transcript_for_judge(task: Task, run: RunRecord) -> str:
    lines = [f"Intent: {task.intent}", f"User request: {task.input}", "Tool calls:"]
    for call in run.calls:
        arguments = orjson.dumps(call.arguments).decode()[:SHOWN]
        lines.append(f"- turn {call.turn}: {call.tool} {arguments} -> {answer_text(call.response)[:SHOWN]}")
    if not run.calls:
        lines.append("- none")
    final = run.final_text if run.completed else f"(none: {run.error['message'] if run.error else 'no answer'})"
    lines.append(f"Final answer: {final[:2000]}")
    return "\n".join(lines)


def read_verdict(text: str) -> dict[str, str] | None:
    """The verdict in a judge's reply, or None when it is not the JSON asked for."""
    found = _OBJECT.search(text)
    if found is None:
        return None
    try:
        data: Any = orjson.loads(found.group())
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("verdict") not in ("pass", "fail"):
        return None
    reason = data.get("reason")
    return {"verdict": data["verdict"], "reason": plain(reason if isinstance(reason, str) else "", max_len=500)}


async def judge_run(judge: Provider, task: Task, run: RunRecord) -> dict[str, Any]:
    """The judge's verdict on one run (``invalid`` when it never answered in the JSON asked for)."""
    model = str(judge.endpoint.spec)
    conversation = judge.conversation(JUDGE_SYSTEM, transcript_for_judge(task, run), [])
    conversation.json_reply = True
    text = ""
    for _ in range(ATTEMPTS):
        try:
            text = (await conversation.reply()).text
        except ModelTurnFailed as exc:
            return {"verdict": "invalid", "reason": plain(str(exc), max_len=300), "model": model}
        verdict = read_verdict(text)
        if verdict is not None:
            return {**verdict, "model": model}
        conversation.add_user('Reply with the JSON object only: {"verdict": "pass" or "fail", "reason": "..."}.')
    return {"verdict": "invalid", "reason": f"no JSON verdict: {plain(text, max_len=200)!r}", "model": model}
