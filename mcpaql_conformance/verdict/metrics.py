"""What recorded agent runs show, read from a bundle's ``agent_tests`` (no model needed): the
facts the Semantic Evaluation verdicts stand on, and the metrics every report shows
(first-call success, turns and tokens to completion, recovery after induced errors, the size
of the tool list, latency)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

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


# The kinds of invalid call a model makes (the discoverability table counts them).
UNKNOWN_OPERATION = "unknown operation"
UNKNOWN_PARAMETER = "unknown parameter"
WRONG_ENDPOINT = "wrong endpoint"
UNKNOWN_TOOL = "unknown tool"
INVALID_KINDS = (UNKNOWN_OPERATION, UNKNOWN_PARAMETER, WRONG_ENDPOINT, UNKNOWN_TOOL)
INTROSPECT = "introspect"


@dataclass(frozen=True)
class Price:
    """What a model's tokens cost: per million input and output tokens, in ``currency`` (from
    the prices file `agent --prices` read; never a built-in number)."""

    input: float
    output: float
    currency: str

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        if input_tokens is None and output_tokens is None:
            return None
        return round(((input_tokens or 0) * self.input + (output_tokens or 0) * self.output) / 1_000_000, 6)


@dataclass(frozen=True)
class AgentMetrics:
    """One row of the discoverability table: a model's runs of a task, or of every task ("all")."""

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
    model: str = ""  # the model whose runs these are ("": runs that name none)
    target: bool | None = None  # whether the model decides the verdict (None: one model, or not said)
    min_pass_rate: float | None = None  # what the task asks (a task's row)
    turns_to_success: float | None = None  # mean turns of the runs that passed Tier 1
    calls_to_success: float | None = None  # mean tool calls of those runs
    introspections: float | None = None  # mean introspect calls before the first other call
    invalid_calls: int | None = None  # calls naming an unknown operation, parameter or tool, or the wrong endpoint
    invalid_kinds: tuple[tuple[str, int], ...] = ()  # how many of each kind
    invalid_recovered: float | None = None  # share of invalid calls followed by a call that succeeded
    cost: float | None = None  # the model's tokens at its price (None: no price given, or no tokens)
    currency: str | None = None
    wall_seconds: float | None = None  # from the first run's start to the last run's end
    every_task: bool = False  # the row of every task of the model ("all"), not of one task named "all"

    @property
    def reached(self) -> bool | None:
        """Whether the model's pass rates reach the task's minimum (None: not judged)."""
        if self.passed is None or not self.runs or self.min_pass_rate is None:
            return None
        tier2 = self.judged_passed / self.judged >= self.min_pass_rate if self.judged else True
        return self.passed / self.runs >= self.min_pass_rate and tier2

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "model": self.model,
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
            "turnsToSuccess": self.turns_to_success,
            "callsToSuccess": self.calls_to_success,
            "introspections": self.introspections,
            "invalidCalls": self.invalid_calls,
            "invalidKinds": dict(self.invalid_kinds),
            "invalidRecovered": self.invalid_recovered,
            "cost": self.cost,
            "currency": self.currency,
            "wallSeconds": self.wall_seconds,
        }
        if self.every_task:
            data["everyTask"] = True
        if self.target is not None:
            data["target"] = self.target
        if self.min_pass_rate is not None:
            data["minPassRate"] = self.min_pass_rate
        if self.passed is not None:
            data["tier1"] = _rate_dict(self.passed, self.runs)
        if self.judged:
            data["tier2"] = _rate_dict(self.judged_passed, self.judged)
        return data


def _rate_dict(passed: int, total: int) -> dict[str, Any]:
    low, high = wilson(passed, total)
    rate = round(passed / total, 3) if total else None
    return {"passed": passed, "runs": total, "rate": rate, "ci95": [round(low, 3), round(high, 3)]}


# A run of an entry -> (its Tier 1 verdict, its Tier 2 verdict or None), as the semantic checks judge it.
Verdicts = Callable[[dict[str, Any], dict[str, Any]], tuple[bool, bool | None]]
# A call -> the kind of invalid call it is (None: a valid one), as the semantic checks read the server.
Invalid = Callable[[dict[str, Any]], str | None]


def _share(values: list[bool | None]) -> float | None:
    known = [value for value in values if value is not None]
    return round(sum(known) / len(known), 3) if known else None


def _mean(values: list[float]) -> float | None:
    from statistics import mean  # (imported when there are runs to measure: it is slow to import)

    return round(mean(values), 2) if values else None


def introspections_first(run: dict[str, Any]) -> int | None:
    """How many introspect calls a run made before its first call of another operation (None:
    it made no other call)."""
    made = [c for c in calls_of(run) if c.get("outcome") in MODEL_MADE]
    return next((index for index, call in enumerate(made) if call.get("operation") != INTROSPECT), None)


def invalid_calls(run: dict[str, Any], invalid: Invalid) -> list[tuple[str, bool]]:
    """Each invalid call of a run: its kind, and whether a later call of the run succeeded."""
    calls = calls_of(run)
    found = []
    for index, call in enumerate(calls):
        kind = invalid(call)
        if kind is not None:
            later = calls[index + 1 :]
            found.append((kind, any(c.get("outcome") == "sent" and c.get("succeeded") is True for c in later)))
    return found


def wall_seconds(runs: list[dict[str, Any]]) -> float | None:
    """From the first run's start to the last run's end (runs that recorded when they ran)."""
    spans = [
        (float(run["started"]), float(run["started"]) + float(run["wall_seconds"]))
        for run in runs
        if _number(run.get("started")) and _number(run.get("wall_seconds"))
    ]
    return round(max(end for _, end in spans) - min(start for start, _ in spans), 3) if spans else None


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def metrics_of(
    name: str,
    entries: list[dict[str, Any]],
    verdicts: Verdicts | None = None,
    model: str | None = None,
    invalid: Invalid | None = None,
    price: Price | None = None,
    default: str = "",
) -> AgentMetrics:
    """The row of ``entries``' runs (of ``model`` alone when given; a run that names none is
    ``default``'s)."""
    pairs = [
        (entry, run)
        for entry in entries
        for run in entry.get("runs") or []
        if isinstance(run, dict) and (model is None or model_of(run, default) == model)
    ]
    runs = [run for _, run in pairs]
    completed = [run for run in runs if run.get("completed") is True]
    tokens = [
        float(run["input_tokens"] + run["output_tokens"])
        for run in completed
        if isinstance(run.get("input_tokens"), int) and isinstance(run.get("output_tokens"), int)
    ]
    recoveries = [
        recovered(run, entry["induceErrorOn"]) for entry, run in pairs if isinstance(entry.get("induceErrorOn"), str)
    ]
    judged = [verdicts(entry, run) for entry, run in pairs] if verdicts is not None else []
    succeeded = [run for run, (tier1, _) in zip(runs, judged, strict=False) if tier1]
    second = [tier2 for _, tier2 in judged if tier2 is not None]
    judges = [run["judge"] for run in runs if isinstance(run.get("judge"), dict)]
    wrong = [found for run in runs for found in invalid_calls(run, invalid)] if invalid is not None else []
    kinds = Counter(kind for kind, _ in wrong)
    first_calls = [found for found in map(introspections_first, runs) if found is not None]
    input_tokens = _sum([tokens_of(run.get("input_tokens")) for run in runs])
    output_tokens = _sum([tokens_of(run.get("output_tokens")) for run in runs])
    minimums = {float(entry.get("minPassRate", 0.8)) for entry in entries}
    return AgentMetrics(
        task=name,
        runs=len(runs),
        first_call_success=_share([first_call_succeeded(run) for run in runs]),
        turns=_mean([float(run.get("turns") or 0) for run in completed]),
        tokens=_mean(tokens),
        recovery=_share(recoveries),
        seconds=_mean([float(run.get("model_seconds") or 0) + float(run.get("tool_seconds") or 0) for run in runs]),
        passed=len(succeeded) if verdicts is not None else None,
        judged=len(second),
        judged_passed=sum(second),
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        judge_tokens=_sum([tokens_of(j.get(key)) for j in judges for key in ("input_tokens", "output_tokens")]),
        model=model or "",
        min_pass_rate=minimums.pop() if len(minimums) == 1 and len(entries) == 1 else None,
        turns_to_success=_mean([float(run.get("turns") or 0) for run in succeeded]),
        calls_to_success=_mean([float(len(calls_of(run))) for run in succeeded]),
        introspections=_mean([float(count) for count in first_calls]),
        invalid_calls=len(wrong) if invalid is not None else None,
        invalid_kinds=tuple((kind, kinds[kind]) for kind in INVALID_KINDS if kinds[kind]),
        invalid_recovered=_share([later for _, later in wrong]),
        cost=price.cost(input_tokens, output_tokens) if price is not None else None,
        currency=price.currency if price is not None else None,
        wall_seconds=wall_seconds(runs),
    )


def model_of(run: dict[str, Any], default: str = "") -> str:
    """The model that made a run: the one it names, else ``default`` (the invocation's one model,
    for runs recorded before runs named their model)."""
    return str(run.get("model") or default)


def models_in(entries: list[dict[str, Any]], default: str = "") -> list[str]:
    """The models whose runs the entries hold, in the order they first come."""
    return list(dict.fromkeys(model_of(run, default) for entry in entries for run in _runs(entry)))


def agent_metrics(
    agent_tests: list[Any],
    verdicts: Verdicts | None = None,
    invalid: Invalid | None = None,
    models: dict[str, dict[str, Any]] | None = None,
    default: str = "",
) -> tuple[AgentMetrics, ...]:
    """The discoverability table: for each model (in the order its runs come), a row per task
    it ran (scenarios have no model), then one for all of them when there are several (token
    totals summed; pass counts pooled). ``verdicts``: each run's Tier 1 and Tier 2 verdicts, as
    the semantic checks judge them (without it, no pass counts); ``invalid``: each call's kind of
    invalid call; ``models``: what the bundle says of each model (its ``target`` flag and
    ``price``), by name; ``default``: the model of runs that name none."""
    model_runs = [
        entry
        for entry in agent_tests
        if isinstance(entry, dict) and isinstance(entry.get("runs"), list) and entry.get("kind") != "scenario"
    ]
    rows: list[AgentMetrics] = []
    for model in models_in(model_runs, default):
        said = (models or {}).get(model) or {}
        price, target = price_of(said.get("price")), said.get("target")
        ran = [entry for entry in model_runs if any(model_of(r, default) == model for r in _runs(entry))]
        mine = [metrics_of(str(e.get("_description")), [e], verdicts, model, invalid, price, default) for e in ran]
        if len(mine) > 1:
            mine.append(replace(metrics_of("all", ran, verdicts, model, invalid, price, default), every_task=True))
        rows += [replace(row, target=target if isinstance(target, bool) else None) for row in mine]
    return tuple(rows)


def _runs(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [run for run in entry.get("runs") or [] if isinstance(run, dict)]


def price_of(value: Any) -> Price | None:
    """A price as a bundle records it (``{input_per_million, output_per_million, currency}``)."""
    if not isinstance(value, dict):
        return None
    cost_in, cost_out = value.get("input_per_million"), value.get("output_per_million")
    if not (_number(cost_in) and _number(cost_out)):
        return None
    return Price(float(cost_in), float(cost_out), str(value.get("currency") or ""))


ROLES = {True: " (target)", False: " (reported, not a target)"}  # a model's role, where the bundle says it


def model_lines(rows: tuple[AgentMetrics, ...]) -> list[str]:
    """One line per model: how many of its tasks reached their pass rate, its first-call
    success, tokens, cost and wall time (the "all" row, or its one task's)."""
    lines = []
    for model in dict.fromkeys(row.model for row in rows):
        mine = [row for row in rows if row.model == model]
        tasks = [row for row in mine if not row.every_task]
        total = next((row for row in mine if row.every_task), mine[0])
        reached = [row.reached for row in tasks if row.reached is not None]
        role = ROLES.get(total.target, "") if total.target is not None else ""
        parts = [f"{sum(reached)}/{len(reached)} task(s) reached their pass rate" if reached else "not judged"]
        if total.first_call_success is not None:
            parts.append(f"first call succeeded in {total.first_call_success:.0%} of runs")
        if total.invalid_calls is not None:
            parts.append(f"{total.invalid_calls} invalid call(s)")
        parts.append(f"{_count_text(total.input_tokens)} tokens in, {_count_text(total.output_tokens)} out")
        if total.cost is not None:
            parts.append(f"cost {total.cost:.4f} {total.currency or ''}".rstrip())
        if total.wall_seconds is not None:
            parts.append(f"{total.wall_seconds:.1f} s")
        lines.append(f"{model or 'the model'}{role}: {'; '.join(parts)}")
    return lines


def _count_text(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"
