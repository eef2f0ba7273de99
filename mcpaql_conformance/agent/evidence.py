"""What agent runs leave behind: ``agent_tests`` entries and an ``agent_runs`` entry in the
bundle (a new one, or merged into an existing bundle), and one JSONL transcript per run. All
of it goes through the redactor: no key or secret is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from mcpaql_conformance import SPEC_VERSION
from mcpaql_conformance.agent.loop import RunRecord
from mcpaql_conformance.agent.providers import AgentError
from mcpaql_conformance.agent.scenario import Scenario
from mcpaql_conformance.agent.tasks import Task
from mcpaql_conformance.bundle import bundle_from_data
from mcpaql_conformance.capture.records import safe_name
from mcpaql_conformance.capture.redact import Redactor
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.jsonio import dumps, load_json_file, write_atomic
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.values import json_safe

SCENARIO_KIND = "scenario"


def run_entry(run: RunRecord, transcript: str | None) -> dict[str, Any]:
    """One run as evidence: the calls and their answers, the final answer, turns, tokens, time."""
    inputs = [t.input_tokens for t in run.turns if t.input_tokens is not None]
    outputs = [t.output_tokens for t in run.turns if t.output_tokens is not None]
    entry: dict[str, Any] = {
        "run": run.run,
        "tool_calls": [call.evidence() for call in run.calls],
        "response_text": run.final_text,
        "completed": run.completed,
        "turns": len(run.turns),
        "input_tokens": sum(inputs) if inputs else None,
        "output_tokens": sum(outputs) if outputs else None,
        "model_seconds": round(sum(t.seconds for t in run.turns) + run.failed_seconds, 3),
        "tool_seconds": round(sum(c.seconds for c in run.calls), 3),
    }
    if run.error is not None:
        entry["error"] = run.error
    if run.judge is not None:
        entry["judge"] = run.judge
    if transcript is not None:
        entry["transcript"] = transcript
    return entry


def task_entry(task: Task, runs: list[dict[str, Any]], min_pass_rate: float) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "_description": task.name,
        "input": task.input,
        "kind": task.kind,
        "expectedTools": list(task.expected_tools),
        "expectedContent": list(task.expected_content),
        "minPassRate": task.min_pass_rate if task.min_pass_rate is not None else min_pass_rate,
        "runs": runs,
    }
    if task.expected_params:
        entry["expectedParams"] = {op: list(names) for op, names in task.expected_params.items()}
    if task.must_succeed:
        entry["mustSucceed"] = list(task.must_succeed)
    if task.induce_error_on is not None:
        entry["induceErrorOn"] = task.induce_error_on
    if task.intent is not None:
        entry["intent"] = task.intent
    return entry


def scenario_entry(scenario: Scenario, run: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "_description": scenario.name,
        "input": scenario.input,
        "kind": SCENARIO_KIND,
        "expect": scenario.expect,
        "runs": [run],
    }
    if scenario.description:
        entry["description"] = scenario.description
    return entry


class Transcripts:
    """``DIR/{timestamp}/{implementation}/{task}-{run}.jsonl``, one per run (None: not kept)."""

    def __init__(self, root: Path | None, stamp: str, implementation: str, redactor: Redactor) -> None:
        self.folder = root / safe_name(stamp) / safe_name(redactor.text(implementation)) if root else None
        self.redactor = redactor
        self._names: dict[str, int] = {}
        self.written = 0  # transcripts written so far

    def write(self, run: RunRecord) -> str | None:
        if self.folder is None:
            return None
        base = f"{safe_name(run.task)}-{run.run}"
        self._names[base] = self._names.get(base, 0) + 1
        name = base if self._names[base] == 1 else f"{base}.{self._names[base]}"
        path = self.folder / f"{name}.jsonl"
        lines = [dumps(self.redactor.value(json_safe(event)), indent=False) for event in _events(run)]
        write_atomic(path, "".join(lines), durable=False)
        self.written += 1
        return str(path)


def _events(run: RunRecord) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"event": "user", "text": run.input}]
    events += [{"event": "user", "text": text} for text in run.users]
    calls = list(run.calls)
    for turn in run.turns:
        events.append(
            {
                "event": "model",
                "turn": turn.turn,
                "text": turn.text,
                "tool_calls": turn.tool_calls,
                "input_tokens": turn.input_tokens,
                "output_tokens": turn.output_tokens,
                "seconds": round(turn.seconds, 3),
            }
        )
        while calls and calls[0].turn == turn.turn:
            call = calls.pop(0)
            events.append({"event": "tool", **call.evidence()})
    if run.judge is not None:
        events.append({"event": "judge", **run.judge})
    end: dict[str, Any] = {"event": "end", "completed": run.completed, "response_text": run.final_text}
    if run.error is not None:
        end["error"] = run.error
    events.append(end)
    return events


def write_bundle(
    path: Path,
    entries: list[dict[str, Any]],
    run_info: dict[str, Any],
    server: dict[str, Any],
    redactor: Redactor,
) -> dict[str, Any]:
    """Merge the agent evidence into the bundle at ``path`` (an agent test of the same name is
    replaced), or start a new bundle there; written atomically."""
    source = plain(str(path))
    if path.exists():
        data = existing_bundle(path)
    else:
        data = {
            "implementation": str(server.get("name") or "server"),
            "version": str(server.get("version") or ""),
            "spec_version": SPEC_VERSION,
            "description": "Agent runs only: capture the server into this bundle too to judge Level 1.",
        }
    names = {entry["_description"] for entry in entries}
    kept = [entry for entry in data.get("agent_tests") or [] if entry.get("_description") not in names]
    data["agent_tests"] = kept + entries
    data["agent_runs"] = [*(data.get("agent_runs") or []), run_info]
    bundle: dict[str, Any] = redactor.value(data)
    write_atomic(path, readable_text(bundle, source))
    return bundle


def existing_bundle(path: Path) -> dict[str, Any]:
    """The bundle the agent evidence joins, read as `test` reads it: one that `test` would
    refuse is refused here (exit 3, naming why), before the runs rather than after them."""
    return bundle_from_data(load_json_file(path, "bundle"), plain(str(path))).data


def readable_text(bundle: dict[str, Any], source: str) -> str:
    """The bundle as the text to write, once it is known that `test` reads it back and judges
    its agent evidence (the Semantic Evaluation category, at Level 2). Evidence `test` would
    refuse is never written: it is an error of ours, said as one (exit 3)."""
    from mcpaql_conformance.runner import evaluate

    try:
        text = dumps(bundle)
        evaluate(bundle_from_data(orjson.loads(text), source), 2, "both", "semantic")
    except (orjson.JSONEncodeError, orjson.JSONDecodeError, ConfigError) as exc:
        reason = plain(str(exc).removeprefix(f"{source}: "), max_len=300)
    except Exception as exc:  # a check that cannot read it: `test` would fail the same way
        reason = plain(f"{type(exc).__name__}: {exc}", max_len=300)
    else:
        return text
    raise AgentError(
        f"internal error: the agent evidence is not a bundle `test` can read ({reason}); {source} was not"
        " written (the transcripts were); please report it"
    )
