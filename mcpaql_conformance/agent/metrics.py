"""What recorded agent runs show, read from a bundle's ``agent_tests`` (no model needed): the
facts the Semantic Evaluation verdicts stand on, and the metrics every report shows
(first-call success, turns and tokens to completion, recovery after induced errors, the size
of the tool list, latency)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean
from typing import Any

RECOVERY_TURNS = 2  # an induced error must be recovered from within this many turns


def calls_of(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [call for call in run.get("tool_calls") or [] if isinstance(call, dict)]


def operation_ids(call: dict[str, Any]) -> set[str]:
    """How a call may be named in ``expectedTools``: ``get_note``, ``read/get_note``, ``mcp_aql_read/get_note``."""
    operation = str(call.get("operation") or "")
    tool = str(call.get("tool") or call.get("endpoint") or "")
    family = tool.removeprefix("mcp_aql_") if tool.startswith("mcp_aql_") else tool
    return {operation, f"{family}/{operation}", f"{tool}/{operation}"} if operation else set()


def recovered(run: dict[str, Any], operation: str) -> bool | None:
    """Whether, after the induced error on ``operation``, the server answered a later call of it
    with success within RECOVERY_TURNS turns (None: no error was induced in this run)."""
    calls = calls_of(run)
    induced = next((c for c in calls if c.get("outcome") == "induced" and c.get("operation") == operation), None)
    if induced is None:
        return None
    turn = int(induced.get("turn") or 0)  # a call in the same turn was made before the error was seen
    return any(
        c.get("operation") == operation and c.get("outcome") == "sent" and c.get("succeeded") is True
        for c in calls
        if turn < int(c.get("turn") or 0) <= turn + RECOVERY_TURNS
    )


MODEL_MADE = ("sent", "refused", "invalid")  # not: induced or simulated answers, calls that got no answer


def first_call_succeeded(run: dict[str, Any]) -> bool | None:
    """Whether the model's first call was answered by the server with success (None: it made
    none that was judged). A call the runner withheld (unknown or destructive) or could not
    send (arguments that are no object) did not succeed."""
    made = [c for c in calls_of(run) if c.get("outcome") in MODEL_MADE]
    return bool(made[0].get("outcome") == "sent" and made[0].get("succeeded")) if made else None


@dataclass(frozen=True)
class AgentMetrics:
    """One row of the agent metrics: a task, or every task ("all")."""

    task: str
    runs: int
    first_call_success: float | None  # share of runs whose first sent call succeeded
    turns: float | None  # mean turns of the runs that ended with an answer
    tokens: float | None  # mean tokens (in + out, as the API reported them) of those runs
    recovery: float | None  # share of runs with an induced error that recovered
    seconds: float | None  # mean seconds per run (model and tools)

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "runs": self.runs,
            "firstCallSuccess": self.first_call_success,
            "turns": self.turns,
            "tokens": self.tokens,
            "recovery": self.recovery,
            "seconds": self.seconds,
        }


def _share(values: list[bool | None]) -> float | None:
    known = [value for value in values if value is not None]
    return round(sum(known) / len(known), 3) if known else None


def _mean(values: list[float]) -> float | None:
    return round(mean(values), 2) if values else None


def metrics_of(name: str, entries: list[dict[str, Any]]) -> AgentMetrics:
    runs = [run for entry in entries for run in entry.get("runs") or [] if isinstance(run, dict)]
    completed = [run for run in runs if run.get("completed") is True]
    tokens = [
        float(run["input_tokens"] + run["output_tokens"])
        for run in completed
        if isinstance(run.get("input_tokens"), int) and isinstance(run.get("output_tokens"), int)
    ]
    recoveries = [
        recovered(run, entry["induceErrorOn"])
        for entry in entries
        if isinstance(entry.get("induceErrorOn"), str)
        for run in entry.get("runs") or []
    ]
    return AgentMetrics(
        task=name,
        runs=len(runs),
        first_call_success=_share([first_call_succeeded(run) for run in runs]),
        turns=_mean([float(run.get("turns") or 0) for run in completed]),
        tokens=_mean(tokens),
        recovery=_share(recoveries),
        seconds=_mean([float(run.get("model_seconds") or 0) + float(run.get("tool_seconds") or 0) for run in runs]),
    )


def agent_metrics(agent_tests: list[Any]) -> tuple[AgentMetrics, ...]:
    """A row per task that a model ran (scenarios have no model), then one for all of them."""
    model_runs = [
        entry
        for entry in agent_tests
        if isinstance(entry, dict) and isinstance(entry.get("runs"), list) and entry.get("kind") != "scenario"
    ]
    if not model_runs:
        return ()
    rows = [metrics_of(str(entry.get("_description")), [entry]) for entry in model_runs]
    return (*rows, metrics_of("all", model_runs)) if len(rows) > 1 else tuple(rows)
