"""What agent runs leave behind: ``agent_tests`` entries and an ``agent_runs`` entry in the
bundle (a new one, or merged into an existing bundle), and one JSONL transcript per run. All
of it goes through the redactor: no key or secret is written.

The bundle is rewritten (atomically) after every finished run (``BundleWriter``), its
``agent_runs`` entry marked ``incomplete`` (with what is missing and why) until the last run
is in: an interrupted invocation leaves a bundle that `test` judges and `agent --resume`
completes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcpaql_conformance import SPEC_VERSION
from mcpaql_conformance.agent.loop import RunRecord
from mcpaql_conformance.agent.scenario import Scenario
from mcpaql_conformance.agent.tasks import Task
from mcpaql_conformance.errors import ConfigError, InternalError
from mcpaql_conformance.evidence.bundle import bundle_from_data, incomplete_invocation
from mcpaql_conformance.files.jsonio import dumps, load_json_file, write_atomic
from mcpaql_conformance.files.values import json_safe
from mcpaql_conformance.files.vocabulary import AgentTestKind
from mcpaql_conformance.live.records import safe_name
from mcpaql_conformance.live.redact import Redactor
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.metrics import model_of

SCENARIO_KIND: AgentTestKind = "scenario"


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
    if run.model:
        entry["model"] = run.model
        entry["endpoint"] = run.endpoint
    if run.started is not None and run.wall_seconds is not None:
        entry["started"], entry["wall_seconds"] = round(run.started, 3), round(run.wall_seconds, 3)
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

    def __init__(
        self, root: Path | None, stamp: str, implementation: str, redactor: Redactor, by_model: bool = False
    ) -> None:
        self.folder = root / safe_name(stamp) / safe_name(redactor.text(implementation)) if root else None
        self.redactor = redactor
        self.by_model = by_model  # several models: each name says whose run it is
        self._names: dict[str, int] = {}
        self._reserved: dict[tuple[str, str, int], str] = {}
        self.written = 0  # transcripts written so far

    def reserve(self, task: str, run: int, model: str = "") -> None:
        """Name a run's transcript before any run starts, so that runs finishing in any order
        (``--concurrency``) get the names they would get one after another."""
        self._reserved[(task, model, run)] = self._name(task, run, model)

    def _name(self, task: str, run: int, model: str = "") -> str:
        whose = f"{safe_name(model)}-" if model and self.by_model else ""
        base = f"{safe_name(task)}-{whose}{run}"
        self._names[base] = self._names.get(base, 0) + 1
        return base if self._names[base] == 1 else f"{base}.{self._names[base]}"

    def write(self, run: RunRecord) -> str | None:
        if self.folder is None:
            return None
        name = self._reserved.pop((run.task, run.model, run.run), None) or self._name(run.task, run.run, run.model)
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
    base = existing_bundle(path) if path.exists() else new_bundle(server)
    return _write(path, _merged(base, entries, run_info), redactor)


def new_bundle(server: dict[str, Any]) -> dict[str, Any]:
    """The bundle agent evidence starts when ``--bundle`` does not exist yet."""
    return {
        "implementation": str(server.get("name") or "server"),
        "version": str(server.get("version") or ""),
        "spec_version": SPEC_VERSION,
        "description": "Agent runs only: capture the server into this bundle too to judge Level 1.",
    }


def _merged(base: dict[str, Any], entries: list[dict[str, Any]], run_info: dict[str, Any]) -> dict[str, Any]:
    data = dict(base)
    names = {entry["_description"] for entry in entries}
    kept = [entry for entry in data.get("agent_tests") or [] if entry.get("_description") not in names]
    data["agent_tests"] = kept + entries
    data["agent_runs"] = [*(data.get("agent_runs") or []), run_info]
    return data


def _write(path: Path, data: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    bundle: dict[str, Any] = redactor.value(data)
    write_atomic(path, readable_text(bundle, plain(str(path))))
    return bundle


NO_MODEL = ""  # the "model" of a scenario's run (it drives none), and of runs recorded before models were named

# A run's key in an agent test: the model that made it and its number (1..count for each model).
RunKey = tuple[str, int]


@dataclass
class Planned:
    """One agent test of this invocation: a task (runs ``1..count`` of each model) or a scenario
    (one run, no model)."""

    name: str
    count: int
    entry: Callable[[list[dict[str, Any]]], dict[str, Any]]  # the agent_tests entry for the runs finished
    runs: dict[RunKey, dict[str, Any]] = field(default_factory=dict)  # finished: (model, index) -> run entry
    models: tuple[str, ...] = (NO_MODEL,)  # the models that run it, in the order given

    @property
    def missing(self) -> list[RunKey]:
        """The runs not finished, run by run and model by model within each (so that runs started
        in this order keep every model busy)."""
        keys = [(model, index) for index in range(1, self.count + 1) for model in self.models]
        return [key for key in keys if key not in self.runs]

    def finished_in_order(self) -> list[dict[str, Any]]:
        """The finished runs, model by model in the order given, each model's by number."""
        order = {model: place for place, model in enumerate(self.models)}
        return [self.runs[key] for key in sorted(self.runs, key=lambda key: (order.get(key[0], len(order)), key[1]))]


class BundleWriter:
    """This invocation's agent evidence, written into the bundle after every finished run.

    ``base`` is the bundle as it was before (a captured bundle, an earlier agent bundle, or a
    new one): its agent tests of the same names are replaced, its ``agent_runs`` kept, and this
    invocation's entry appended, marked ``incomplete`` (``reason``, ``finished_runs``,
    ``planned_runs``, ``missing``) while a planned run is missing. Nothing is written before
    the first run finishes."""

    RUNNING = "the agent runs were still going when this was written"

    def __init__(self, path: Path, base: dict[str, Any], run_info: dict[str, Any], redactor: Redactor) -> None:
        self.path, self.base, self.run_info, self.redactor = path, base, run_info, redactor
        self.planned: list[Planned] = []
        self.written: dict[str, Any] | None = None  # the bundle as last written
        self.recorded = 0  # runs finished by this invocation (not resumed ones)
        self.changes: Callable[[], list[dict[str, Any]]] | None = None  # what the runs may have changed

    def plan(self, planned: Planned) -> None:
        self.planned.append(planned)

    def finished(self, name: str, key: RunKey, run: dict[str, Any]) -> None:
        next(test for test in self.planned if test.name == name).runs[key] = run
        self.recorded += 1

    @property
    def finished_runs(self) -> int:
        return sum(len(test.runs) for test in self.planned)

    @property
    def planned_runs(self) -> int:
        return sum(test.count * len(test.models) for test in self.planned)

    @property
    def complete(self) -> bool:
        return not any(test.missing for test in self.planned)

    def write(self, reason: str | None = None) -> dict[str, Any]:
        """The bundle with every run finished so far; incomplete (saying ``reason``, by default
        that the runs are still going) while any planned run is missing."""
        entries = [test.entry(test.finished_in_order()) for test in self.planned if test.runs]
        info = dict(self.run_info)
        if not self.complete:
            info["incomplete"] = True
            info["reason"] = reason or self.RUNNING
            info["finished_runs"], info["planned_runs"] = self.finished_runs, self.planned_runs
            info["missing"] = [missing for test in self.planned for missing in _missing(test)]
        planned = {test.name for test in self.planned}  # replaced even before one of its runs is in
        data = dict(self.base)
        kept = [entry for entry in data.get("agent_tests") or [] if entry.get("_description") not in planned]
        data["agent_tests"] = kept + entries
        data["agent_runs"] = [*(data.get("agent_runs") or []), info]
        if self.changes is not None:
            data["changes"] = [*(data.get("changes") or []), *self.changes()]
        self.written = _write(self.path, data, self.redactor)
        return self.written


def _missing(test: Planned) -> list[dict[str, Any]]:
    """What a test still lacks, per model (``model`` named where the runs have one)."""
    said, missing = [], test.missing
    for model in test.models:
        runs = [index for name, index in missing if name == model]
        if runs:
            said.append({"test": test.name, **({"model": model} if model else {}), "runs": runs})
    return said


def resumable(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """An incomplete agent invocation to resume in a bundle: (its ``agent_runs`` entry, the
    bundle without it), or None when the latest invocation is complete (or there is none)."""
    latest = incomplete_invocation(data.get("agent_runs"))
    if latest is None:
        return None
    return latest, {**data, "agent_runs": data["agent_runs"][:-1]}


def finished_runs(data: dict[str, Any], name: str, default: str = NO_MODEL) -> dict[RunKey, dict[str, Any]]:
    """The runs a bundle holds for the agent test ``name``, by model and run number (a run that
    names no model is ``default``'s: one recorded before runs named their model)."""
    for entry in data.get("agent_tests") or []:
        if isinstance(entry, dict) and entry.get("_description") == name:
            runs = [run for run in entry.get("runs") or [] if isinstance(run, dict) and isinstance(run.get("run"), int)]
            return {(model_of(run, default), run["run"]): _named(run, default) for run in runs}
    return {}


def _named(run: dict[str, Any], default: str) -> dict[str, Any]:
    """A finished run naming its model: one recorded before runs named it is ``default``'s."""
    return run if run.get("model") or not default else {**run, "model": default}


def existing_bundle(path: Path) -> dict[str, Any]:
    """The bundle the agent evidence joins, read as `test` reads it: one that `test` would
    refuse is refused here (exit 3, naming why), before the runs rather than after them."""
    return bundle_from_data(load_json_file(path, "bundle"), plain(str(path))).data


def readable_text(bundle: dict[str, Any], source: str) -> str:
    """The bundle as the text to write, once it is known that `test` reads it back and judges
    its agent evidence (the Semantic Evaluation category, at Level 2). Evidence `test` would
    refuse is never written: it is an error of ours, said as one (exit 70)."""
    from mcpaql_conformance.verdict.runner import evaluate

    try:
        text = dumps(bundle)
        evaluate(bundle_from_data(orjson.loads(text), source), 2, "both", "semantic")
    except (orjson.JSONEncodeError, orjson.JSONDecodeError, ConfigError) as exc:
        reason = plain(str(exc).removeprefix(f"{source}: "), max_len=300)
    except Exception as exc:  # a check that cannot read it: `test` would fail the same way
        reason = plain(f"{type(exc).__name__}: {exc}", max_len=300)
    else:
        return text
    raise InternalError(
        f"internal error: the agent evidence is not a bundle `test` can read ({reason}); {source} was not"
        " written (the transcripts were); please report it"
    )
