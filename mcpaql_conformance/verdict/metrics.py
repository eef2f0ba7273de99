"""What recorded agent runs show, read from a bundle's ``agent_tests`` (no model needed): the
facts the Semantic Evaluation verdicts stand on, and the metrics every report shows
(first-call success, turns and tokens to completion, recovery after induced errors, the size
of the tool list, latency)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.files.values import json_equal

RECOVERY_TURNS = 2  # an induced error must be recovered from within this many turns
RUNNER = "runner"  # a judge entry's model when the runner failed a run without an answer, unjudged
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def wilson(passed: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (95%) of a pass rate of ``passed`` out of ``total`` runs."""
    if total <= 0:
        return 0.0, 1.0
    passed = min(max(passed, 0), total)
    rate, square = passed / total, z * z
    centre = (rate + square / (2 * total)) / (1 + square / total)
    half = z * math.sqrt(rate * (1 - rate) / total + square / (4 * total * total)) / (1 + square / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_text(passed: int, total: int) -> str:
    """``67%, 95% CI 21-94%``: the pass rate and its Wilson interval, in whole percent."""
    low, high = wilson(passed, total)
    return f"{min(passed, total) / total:.0%}, 95% CI {low * 100:.0f}-{high * 100:.0f}%" if total else "no runs"


def tokens_of(value: Any) -> int | None:
    """A token count as recorded (None: not reported)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _sum(values: list[int | None]) -> int | None:
    known = [value for value in values if value is not None]
    return sum(known) if known else None


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
    induced = next(
        (c for c in calls if c.get("outcome") == "induced" and json_equal(c.get("operation"), operation)), None
    )
    if induced is None:
        return None
    turn = int(induced.get("turn") or 0)  # a call in the same turn was made before the error was seen
    return any(
        json_equal(c.get("operation"), operation) and c.get("outcome") == "sent" and c.get("succeeded") is True
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
    passed: int | None = None  # runs that passed Tier 1 (None: not judged, e.g. a report of old)
    judged: int = 0  # runs with a Tier 2 verdict (the judge's, or the runner's for a run without an answer)
    judged_passed: int = 0
    input_tokens: int | None = None  # summed over every run (as the API reported them): what was paid
    output_tokens: int | None = None
    judge_tokens: int | None = None  # the judge's, in and out, summed

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "task": self.task,
            "runs": self.runs,
            "firstCallSuccess": self.first_call_success,
            "turns": self.turns,
            "tokens": self.tokens,
            "recovery": self.recovery,
            "seconds": self.seconds,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "judgeTokens": self.judge_tokens,
        }
        if self.passed is not None:
            data["tier1"] = _rate_dict(self.passed, self.runs)
        if self.judged:
            data["tier2"] = _rate_dict(self.judged_passed, self.judged)
        return data


def _rate_dict(passed: int, total: int) -> dict[str, Any]:
    low, high = wilson(passed, total)
    rate = round(passed / total, 3) if total else None
    return {"passed": passed, "runs": total, "rate": rate, "ci95": [round(low, 3), round(high, 3)]}


# Per task entry: each run's Tier 1 verdict, and the Tier 2 verdicts (given by the semantic checks).
Verdicts = Callable[[dict[str, Any]], tuple[list[bool], list[bool]]]


def _share(values: list[bool | None]) -> float | None:
    known = [value for value in values if value is not None]
    return round(sum(known) / len(known), 3) if known else None


def _mean(values: list[float]) -> float | None:
    from statistics import mean  # (imported when there are runs to measure: it is slow to import)

    return round(mean(values), 2) if values else None


def metrics_of(name: str, entries: list[dict[str, Any]], verdicts: Verdicts | None = None) -> AgentMetrics:
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
    tier1: list[bool] = []
    tier2: list[bool] = []
    for entry in entries if verdicts is not None else []:
        first, second = verdicts(entry)  # type: ignore[misc]  # not None here
        tier1 += first
        tier2 += second
    judges = [run["judge"] for run in runs if isinstance(run.get("judge"), dict)]
    return AgentMetrics(
        task=name,
        runs=len(runs),
        first_call_success=_share([first_call_succeeded(run) for run in runs]),
        turns=_mean([float(run.get("turns") or 0) for run in completed]),
        tokens=_mean(tokens),
        recovery=_share(recoveries),
        seconds=_mean([float(run.get("model_seconds") or 0) + float(run.get("tool_seconds") or 0) for run in runs]),
        passed=sum(tier1) if verdicts is not None else None,
        judged=len(tier2),
        judged_passed=sum(tier2),
        input_tokens=_sum([tokens_of(run.get("input_tokens")) for run in runs]),
        output_tokens=_sum([tokens_of(run.get("output_tokens")) for run in runs]),
        judge_tokens=_sum([tokens_of(j.get(key)) for j in judges for key in ("input_tokens", "output_tokens")]),
    )


def agent_metrics(agent_tests: list[Any], verdicts: Verdicts | None = None) -> tuple[AgentMetrics, ...]:
    """A row per task that a model ran (scenarios have no model), then one for all of them
    (token totals summed; pass counts pooled). ``verdicts``: each run's Tier 1 and Tier 2
    verdicts, as the semantic checks judge them (without it, no pass counts)."""
    model_runs = [
        entry
        for entry in agent_tests
        if isinstance(entry, dict) and isinstance(entry.get("runs"), list) and entry.get("kind") != "scenario"
    ]
    if not model_runs:
        return ()
    rows = [metrics_of(str(entry.get("_description")), [entry], verdicts) for entry in model_runs]
    return (*rows, metrics_of("all", model_runs, verdicts)) if len(rows) > 1 else tuple(rows)
