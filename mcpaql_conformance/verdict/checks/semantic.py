"""Semantic Evaluation (SHOULD): an LLM can discover and use the API, judged in two tiers."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

import orjson

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import CROSS_CUTTING
from mcpaql_conformance.files.values import MISSING, json_equal, resolve_path
from mcpaql_conformance.files.vocabulary import ScenarioOutcome
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import CONFORMANCE, Category, no_evidence
from mcpaql_conformance.verdict.metrics import (
    INTROSPECT,
    MODEL_MADE,
    RECOVERY_TURNS,
    RUNNER,
    UNKNOWN_OPERATION,
    UNKNOWN_PARAMETER,
    UNKNOWN_TOOL,
    WRONG_ENDPOINT,
    calls_of,
    model_of,
    operation_ids,
    rate_text,
    recovered,
)
from mcpaql_conformance.verdict.model import Requirement, Result, TestResult
from mcpaql_conformance.verdict.textmatch import normalize_words, phrases_in

SPEC_REF = f"{CONFORMANCE} §5.1-5.4"
SEMANTIC_EVALUATION = "conformance:2.2:semantic-evaluation"  # an LLM using only introspection finds the operations
SHOULD = Requirement.SHOULD


def _tier1(case: JsonObject, present: set[str]) -> tuple[bool | None, list[str]]:
    """(passed, missed patterns); passed is None when there are no Tier 1 criteria."""
    patterns = (case.get("structural") or {}).get("required_patterns") or []
    missed = [p for p in patterns if p not in present]
    return (None if not patterns else not missed), missed


def _tier2(case: JsonObject, present: set[str]) -> tuple[bool | None, list[str]]:
    judged = _judge_verdict(case.get("judge"))
    if judged is not None:  # a judge model's recorded verdict decides Tier 2
        return judged
    criteria = case.get("semantic") or {}
    groups = criteria.get("phrase_groups") or []
    operations = criteria.get("expected_operations") or []
    parameters = criteria.get("expected_parameters") or []
    if not (groups or operations or parameters):
        return None, []
    calls = [call for call in case.get("tool_calls") or [] if isinstance(call, dict)]
    called = {call.get("operation") for call in calls}
    keys = {key for call in calls for key in _keys(call.get("params"))}
    missed = [f"phrase group [{' | '.join(g)}]" for g in groups if not any(p in present for p in g)]
    missed += [f"call to {op}" for op in operations if op not in called]
    missed += [f"parameter {p}" for p in parameters if p not in keys and p not in present]
    return not missed, missed


def _judge_verdict(judge: Any) -> tuple[bool, list[str]] | None:
    """Tier 2 from a recorded judge verdict (``{"verdict": "pass"|"fail", "reason"}``), if any."""
    if not isinstance(judge, dict) or judge.get("verdict") not in ("pass", "fail"):
        return None
    passed = judge["verdict"] == "pass"
    return passed, [] if passed else [f"the judge's verdict ({judge.get('reason') or 'no reason given'})"]


def _phrases_found(case: JsonObject) -> set[str]:
    """Every pattern, phrase and parameter name of a case that its answer contains (one pass)."""
    criteria = case.get("semantic") or {}
    phrases = list((case.get("structural") or {}).get("required_patterns") or [])
    phrases += [phrase for group in criteria.get("phrase_groups") or [] for phrase in group]
    phrases += list(criteria.get("expected_parameters") or [])
    return phrases_in(normalize_words(case.get("response_text") or ""), phrases)


def _keys(value: Any, depth: int = 0) -> Iterator[str]:
    if isinstance(value, dict) and depth < 16:
        for key, item in value.items():
            yield key
            yield from _keys(item, depth + 1)


def _verdict(tier: str, t1: bool | None, t2: bool | None, missed1: list[str], missed2: list[str]) -> tuple[Result, str]:
    if tier == "1":
        if t1 is None:
            return Result.WARN, "Tier 1 only: no structural patterns to check; inconclusive without Tier 2."
        if t1:
            return Result.PASS, "Tier 1 only: every structural pattern was found (Tier 2 not run)."
        return Result.WARN, f"Tier 1 only: missed {', '.join(missed1)}; inconclusive without Tier 2."
    if t2 is None:
        return Result.WARN, "no evidence: no Tier 2 criteria (phrase groups, expected operations or parameters)."
    if not t2:
        return Result.FAIL, f"Tier 2 failed: missed {', '.join(missed2)}."
    if tier == "2":
        return Result.PASS, "Tier 2 confirmed the expected discovery behaviour."
    if t1 is None:
        return Result.WARN, "Tier 2 passed, but there are no Tier 1 patterns to confirm it quickly."
    if not t1:
        return Result.WARN, f"Tier 2 passed but Tier 1 missed {', '.join(missed1)}: update the structural patterns."
    return Result.PASS, "Tier 1 and Tier 2 both confirmed the expected discovery behaviour."


@functools.lru_cache(maxsize=4096)
def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "unnamed"


class _Ids:
    """Unique test ids: ``base``, then ``base-2``, ``base-3``... Each base remembers its last
    number, so that 60,000 tests of one name cost 60,000 steps, not 60,000 squared."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.last: dict[str, int] = {}

    def new(self, base: str) -> str:
        candidate, n = base, self.last.get(base, 1)
        while candidate in self.used:
            n += 1
            candidate = f"{base}-{n}"
        self.last[base] = n
        self.used.add(candidate)
        return candidate


def evaluate(ctx: Context) -> list[TestResult]:
    cases = ctx.bundle.cases("semantic_tests")
    agents = ctx.bundle.cases("agent_tests")
    if not cases and not agents:
        outcome = no_evidence(SHOULD, "no semantic_tests or agent_tests")
        name = "Semantic evidence is present"
        return [TestResult("L2.semantic.evidence", name, outcome.result, outcome.detail, SPEC_REF)]
    results: list[TestResult] = []
    ids = _Ids()
    verdicts: dict[bytes, tuple[Result, str]] = {}  # cases repeated verbatim are judged once
    for case in cases:
        signature = orjson.dumps({k: v for k, v in case.items() if k != "name"}, option=orjson.OPT_SORT_KEYS)
        known = verdicts.get(signature)
        if known is None:
            known = verdicts[signature] = _judge_case(ctx.tier, case)
        result, detail = known
        test_id = ids.new(f"L2.semantic.{_slug(case['name'])}")
        results.append(TestResult(test_id, case["name"], result, detail, SPEC_REF, tier=ctx.tier))
    for agent in agents:
        result, detail = _agent_verdict(ctx, agent)
        test_id = ids.new(f"L2.semantic.agent-{_slug(agent['_description'])}")
        # what a model did that falls short of its task is the finding semantic evaluation is about (a
        # pinned scenario drives no model)
        said = result is not Result.PASS and agent.get("kind") != "scenario"
        said = said and not detail.startswith(("no evidence", "no expectations"))
        findings, cited = ((detail,), (SEMANTIC_EVALUATION,)) if said else ((), ())
        results.append(TestResult(test_id, agent["_description"], result, detail, SPEC_REF, findings, cited=cited))
    return results


def _judge_case(tier: str, case: JsonObject) -> tuple[Result, str]:
    present = _phrases_found(case)
    t1, missed1 = _tier1(case, present)
    t2, missed2 = _tier2(case, present)
    return _verdict(tier, t1, t2, missed1, missed2)


def tool_id(ctx: Context, call: JsonObject) -> str:
    """``endpoint/operation`` of an observed call (endpoint from the call, else introspection)."""
    operation = str(call.get("operation", ""))
    endpoint = str(call.get("endpoint") or "").removeprefix("mcp_aql_")
    if endpoint in ("", "mcp_aql"):
        detail = ctx.details_by_name.get(operation) or ctx.listed_operations.get(operation) or {}
        endpoint = str(detail.get("endpoint", "?"))
    return f"{endpoint}/{operation}"


def _agent_verdict(ctx: Context, agent: JsonObject) -> tuple[Result, str]:
    """Recorded runs (a model's, or a scenario's) or a single hand-written transcript."""
    if isinstance(agent.get("runs"), list):
        if agent.get("kind") == "scenario":
            return _scenario_verdict(agent)
        return _runs_verdict(ctx, agent)
    return _transcript_verdict(ctx, agent)


def _transcript_verdict(ctx: Context, agent: JsonObject) -> tuple[Result, str]:
    """Tool usage is checked deterministically; the answer's content is an assertion."""
    expected = agent.get("expectedTools") or []
    if not expected:
        return Result.WARN, "no evidence: no expectedTools to check the agent's tool use against"
    used = {tool_id(ctx, call) for call in agent.get("tool_calls") or [] if isinstance(call, dict)}
    missing_tools = [tool for tool in expected if tool not in used]
    answer = (agent.get("response_text") or "").casefold()
    missing_content = [text for text in agent.get("expectedContent") or [] if text.casefold() not in answer]
    problems = [f"did not call {', '.join(missing_tools)}"] * bool(missing_tools)
    problems += [f"answer lacks {', '.join(repr(t) for t in missing_content)}"] * bool(missing_content)
    if problems:
        return Result.FAIL, "; ".join(problems) + f" (called: {', '.join(sorted(used)) or 'nothing'})"
    return Result.PASS, f"Called {', '.join(expected)} and answered with the expected content."


def _run_misses(ctx: Context, agent: JsonObject, run: JsonObject) -> list[str]:
    """What one recorded run lacks for Tier 1 (nothing: it passed)."""
    calls = calls_of(run)
    misses = [] if run.get("completed") is True else [f"no final answer ({(run.get('error') or {}).get('message')})"]
    used = {name for call in calls for name in operation_ids(call)} | {tool_id(ctx, call) for call in calls}
    misses += [f"did not call {tool}" for tool in agent.get("expectedTools") or [] if tool not in used]
    answer = str(run.get("response_text") or "").casefold()
    missing = [text for text in agent.get("expectedContent") or [] if text.casefold() not in answer]
    misses += [f"answer lacks {', '.join(repr(t) for t in missing)}"] * bool(missing)
    for operation, names in (agent.get("expectedParams") or {}).items():
        sent = {
            key for call in calls if call.get("operation") == operation for key in _keys(call.get("params"))
        }  # json: operation is an object key (a string)
        misses += [f"no {operation} call with {name}" for name in names if name not in sent]
    for operation in agent.get("mustSucceed") or []:
        if not any(json_equal(c.get("operation"), operation) and c.get("succeeded") is True for c in calls):
            misses.append(f"no {operation} call answered with success")
    induced = agent.get("induceErrorOn")
    if isinstance(induced, str) and recovered(run, induced) is False:
        misses.append(f"did not recover from the error answer within {RECOVERY_TURNS} turns")
    return misses


WORST = {Result.PASS: 0, Result.SKIP: 1, Result.WARN: 2, Result.FAIL: 3}


def runs_by_model(runs: list[JsonObject]) -> dict[str, list[JsonObject]]:
    """A task's runs, by the model that made them (in the order they come; "" for runs that name
    none: a bundle of one model, written before runs named it)."""
    groups: dict[str, list[JsonObject]] = {}
    for run in runs:
        groups.setdefault(model_of(run), []).append(run)
    return groups


def _runs_verdict(ctx: Context, agent: JsonObject) -> tuple[Result, str]:
    """A task that models ran several times. Of one model, as ``_model_verdict`` judges it; of
    several, each model is judged alone and the target models (``targetModels``; none listed:
    every model) decide the result, the worst of theirs. The others are reported beside them,
    never folded in: a model nobody targets cannot fail the server."""
    runs = [run for run in agent["runs"] if isinstance(run, dict)]
    if not runs:
        return Result.WARN, "no evidence: the task has no recorded run"
    groups = runs_by_model(runs)
    listed = [str(name) for name in agent.get("targetModels") or []]
    if len(groups) == 1 and (not listed or next(iter(groups)) in listed):
        return _model_verdict(ctx, agent, runs)
    targets = [model for model in groups if model in listed] if listed else list(groups)
    verdicts = {model: _model_verdict(ctx, agent, group) for model, group in groups.items()}
    said = [
        f"{plain(model or 'unnamed model')}{'' if model in targets else ' (reported, not a target)'}: {detail}"
        for model, (_, detail) in verdicts.items()
    ]
    if not targets:  # the target models have no run of this task: the others cannot stand in for them
        missing = ", ".join(plain(name) for name in listed)
        return Result.WARN, " | ".join([f"no evidence: no run of the target model(s) {missing}", *said])
    result = max((verdicts[model][0] for model in targets), key=WORST.__getitem__)
    return result, " | ".join(said)


def _model_verdict(ctx: Context, agent: JsonObject, runs: list[JsonObject]) -> tuple[Result, str]:
    """A task one model ran several times: Tier 1 from each run's calls and answer, Tier 2 from
    the judge's verdicts; each passes when its pass rate reaches the task's minimum. Each pass
    rate is shown with its 95% Wilson interval: 2 of 3 runs and 40 of 60 do not weigh the same."""
    minimum = float(agent.get("minPassRate", 0.8))
    misses = [(run.get("run", index + 1), _run_misses(ctx, agent, run)) for index, run in enumerate(runs)]
    failed = [f"run {number}: {'; '.join(miss)}" for number, miss in misses if miss]
    t1 = (len(runs) - len(failed)) / len(runs) >= minimum
    judged = [verdict for verdict in (_run_tier2(index, run) for index, run in enumerate(runs)) if verdict is not None]
    passes = sum(1 for verdict in judged if verdict[0])
    t2 = passes / len(judged) >= minimum if judged else None
    reasons = [reason for verdict in judged for reason in verdict[1]]
    passed = len(runs) - len(failed)
    rates = f"Tier 1: {passed}/{len(runs)} run(s) passed ({rate_text(passed, len(runs))})"
    rates += f"; Tier 2: {passes}/{len(judged)} judged pass ({rate_text(passes, len(judged))})" if judged else ""
    rates += f", at least {minimum:.0%} needed"
    result, _ = _verdict(ctx.tier, t1, t2, failed[:1], reasons[:1])
    said = [*failed[:1], *(reasons[:1] if t2 is False else [])]
    if t2 is None and ctx.tier != "1":
        said.append(_no_tier2(runs))
    return result, "; ".join([rates, *said])


def _run_tier2(index: int, run: JsonObject) -> tuple[bool, list[str]] | None:
    """A run's Tier 2 verdict (None: not judged). A run that ended without a final answer
    cannot have achieved its task: once the task is judged at all, it fails Tier 2 whatever
    its judge entry says (`agent` does not send it to the judge; older bundles may have)."""
    judge = run.get("judge")
    number = run.get("run", index + 1)
    if isinstance(judge, dict) and run.get("completed") is not True:
        message = (run.get("error") or {}).get("message") if isinstance(run.get("error"), dict) else None
        reason = f"the run ended without a final answer ({message or 'no answer'})"
        return False, [f"run {number}: {reason}, a Tier 2 fail without judging"]
    verdict = _judge_verdict(judge)
    return None if verdict is None else (verdict[0], [f"run {number}: {reason}" for reason in verdict[1]])


def run_verdict(ctx: Context, agent: JsonObject, run: JsonObject) -> tuple[bool, bool | None]:
    """A recorded run's Tier 1 verdict and its Tier 2 verdict (None: not judged), as
    ``_model_verdict`` counts them (for the discoverability table every report shows)."""
    tier2 = _run_tier2(int(run.get("run") or 1) - 1, run)
    return not _run_misses(ctx, agent, run), None if tier2 is None else tier2[0]


UNKNOWN_OPERATION_CODES = frozenset({"NOT_FOUND_OPERATION", "VALIDATION_UNKNOWN_OPERATION", "UNKNOWN_OPERATION"})
UNKNOWN_PARAMETER_CODES = frozenset({"VALIDATION_UNKNOWN_PARAM", "UNKNOWN_PARAM", "VALIDATION_UNKNOWN_PARAMETER"})
WRONG_ENDPOINT_CODES = frozenset({"VALIDATION_WRONG_ENDPOINT", "VALIDATION_ENDPOINT_MISMATCH"})


class InvalidCalls:
    """The kind of invalid call a model made (None: a valid one, or one it did not make): an
    operation the server does not list, a parameter the operation does not document, an
    operation sent to another endpoint than its own, or a tool the server does not have. Read
    from the bundle's introspection where it has one, else from the server's error code. What
    the server lists is gathered once, at the first call judged (a run without agent runs pays
    nothing)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @functools.cached_property
    def known(self) -> dict[str, JsonObject]:
        """The operations the server lists or details, by name."""
        return {**self.ctx.listed_operations, **self.ctx.details_by_name}

    @functools.cached_property
    def tools(self) -> set[str]:
        """The server's MCP tools by name (none when the bundle has no tool list)."""
        return {str(item.get("name")) for item in self.ctx.bundle.mcp_tools or [] if isinstance(item, dict)}

    def __call__(self, call: JsonObject) -> str | None:
        if call.get("outcome") not in MODEL_MADE:
            return None
        response = call.get("response")
        error = response.get("error") if isinstance(response, dict) else None
        code = str(error.get("code") or "") if isinstance(error, dict) else ""
        operation, tool = str(call.get("operation") or ""), str(call.get("tool") or "")
        if (self.tools and tool not in self.tools) or _refused_as_unknown_tool(response):
            return UNKNOWN_TOOL
        known = self.known
        if code in UNKNOWN_OPERATION_CODES or (
            known and operation and operation != INTROSPECT and operation not in known
        ):
            return UNKNOWN_OPERATION
        details = self.ctx.details_by_name
        documented = {str(p["name"]) for p in self.ctx.parameters_of(operation)} if operation in details else None
        params = call.get("params")
        sent: JsonObject = params if isinstance(params, dict) else {}
        extra = [str(key) for key in sent if key not in CROSS_CUTTING]  # json: object keys, strings
        undocumented = documented is not None and any(k not in documented for k in extra)  # json: names, strings
        if code in UNKNOWN_PARAMETER_CODES or undocumented:
            return UNKNOWN_PARAMETER
        endpoint = str((known.get(operation) or {}).get("endpoint") or "").lower()
        family = tool.removeprefix(self.ctx.tool_prefix).removeprefix("mcp_aql_") if "mcp_aql_" in tool else ""
        if code in WRONG_ENDPOINT_CODES or (endpoint and family and family != endpoint):
            return WRONG_ENDPOINT
        return None


def _refused_as_unknown_tool(response: Any) -> bool:
    """An MCP error refusing the call's tool as unknown."""
    refused = response.get("_mcp_error") if isinstance(response, dict) else None
    message = str(refused.get("message") or "").casefold() if isinstance(refused, dict) else ""
    return "unknown tool" in message or ("tool" in message and "not found" in message)


def _no_tier2(runs: list[JsonObject]) -> str:
    """Why a task has no Tier 2 verdict, and how to get one."""
    judges = [run["judge"] for run in runs if isinstance(run.get("judge"), dict)]
    invalid = [judge for judge in judges if judge.get("model") != RUNNER]
    if invalid:
        model = str(invalid[0].get("model") or "the judge")
        reason = str(invalid[0].get("reason") or "")
        return (
            f"no Tier 2 verdicts: {plain(model)} answered {len(invalid)} run(s) without a valid verdict"
            f" ({plain(reason, max_len=160)}); try another --judge model, or judge Tier 1 alone with --tier 1"
        )
    return "no Tier 2 verdicts: run `agent --judge PROVIDER:MODEL`, or judge Tier 1 alone with --tier 1"


def _scenario_verdict(agent: JsonObject) -> tuple[Result, str]:
    """A pinned scenario: every expectation holds on what the run recorded."""
    run = next((run for run in agent["runs"] if isinstance(run, dict)), None)
    expect = agent.get("expect") or {}
    if run is None:
        return Result.WARN, "no evidence: the scenario has no recorded run"
    if not expect:
        return Result.WARN, "no expectations: the scenario's `expect` says nothing to check"
    calls = calls_of(run)
    reached = {str(c.get("operation")) for c in calls}
    completed = {str(c.get("operation")) for c in calls if c.get("succeeded") is True}
    error = run.get("error") or {}
    outcome: ScenarioOutcome = "completed" if run.get("completed") is True else "error"
    problems: list[str] = []
    if "outcome" in expect and expect["outcome"] != outcome:  # json: our outcome word (a string)
        said = f" ({error.get('message')})" if outcome == "error" else ""
        problems.append(f"outcome {outcome}{said}, expected {expect['outcome']}")
    problems += [f"{op} not reached" for op in expect.get("reached") or [] if op not in reached]
    problems += [f"{op} reached" for op in expect.get("not_reached") or [] if op in reached]
    problems += [f"{op} did not complete" for op in expect.get("completed") or [] if op not in completed]
    if (
        "error_contains" in expect
        and str(expect["error_contains"]).casefold() not in str(error.get("message") or "").casefold()
    ):
        problems.append(f"the error does not contain {expect['error_contains']!r} (error: {error.get('message')!r})")
    if "error_node" in expect and not json_equal(expect["error_node"], error.get("node")):
        problems.append(f"the error came from {error.get('node')!r}, expected {expect['error_node']!r}")
    for operation, fields in (expect.get("node_outputs") or {}).items():
        problems += _output_problems(calls, operation, fields)
    if problems:
        return Result.FAIL, "; ".join(problems)
    return Result.PASS, f"The scenario ran as expected ({len(calls)} call(s), outcome {outcome})."


def _output_problems(calls: list[JsonObject], operation: str, fields: JsonObject) -> list[str]:
    answered = [c for c in calls if json_equal(c.get("operation"), operation) and c.get("succeeded") is True]
    if not answered:
        return [f"no successful {operation} answer to compare"]
    data = (answered[-1].get("response") or {}).get("data") if isinstance(answered[-1].get("response"), dict) else None
    problems = []
    for path, expected in fields.items():
        found = resolve_path(data, path)
        if found is MISSING or not json_equal(found, expected):
            shown = "missing" if found is MISSING else orjson.dumps(found).decode()[:80]
            problems.append(f"{operation} {path} is {shown}, expected {orjson.dumps(expected).decode()[:80]}")
    return problems


SEMANTIC = Category("Semantic Evaluation", required=False, level=2, expand=evaluate)
