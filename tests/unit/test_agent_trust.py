"""Issue 20, points 1, 3 and 5 in parts: the judge's endpoint rule, the preflight (its lines, its
retries, its time), runs without an answer failed unjudged, Wilson intervals, the presets."""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcpaql_conformance.agent.endpoints import AgentError, Endpoint, ModelSpec
from mcpaql_conformance.agent.judge import judge_run
from mcpaql_conformance.agent.loop import RunRecord
from mcpaql_conformance.agent.preflight import (
    Role,
    check_endpoints,
    judge_endpoint,
    ping,
    roles,
    startup_line,
    tool_list_tokens,
)
from mcpaql_conformance.agent.presets import DEFAULT_MIN_PASS_RATE, DEFAULT_RUNS, PRESETS, resolved
from mcpaql_conformance.agent.providers import open_provider
from mcpaql_conformance.agent.tasks import Task
from mcpaql_conformance.evidence.bundle import bundle_from_data
from mcpaql_conformance.report import renderer
from mcpaql_conformance.verdict.metrics import agent_metrics, rate_text, wilson
from mcpaql_conformance.verdict.model import Result
from mcpaql_conformance.verdict.runner import evaluate

if str(ROOT := Path(__file__).resolve().parents[2]) not in sys.path:  # tests/fake_llm.py, as acceptance imports it
    sys.path.insert(0, str(ROOT))
from tests.fake_llm import FakeLLM


def endpoint(spec: str, url: str | None = None, timeout: float = 5.0) -> Endpoint:
    provider, _, model = spec.partition(":")
    return Endpoint(ModelSpec(provider, model), url, None, timeout)


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the judge's endpoint ------------------------------------------------------------------------


def test_a_judge_of_the_models_provider_goes_to_the_models_base_url_with_its_key_variable() -> None:
    url = "http://127.0.0.1:8097/v1"
    assert judge_endpoint("openai:gemma", url, "MY_KEY", "openai:gemma", None, None) == (url, "MY_KEY")
    assert judge_endpoint("openai:gemma", url, None, "openai:judge", None, "J_KEY") == (url, "J_KEY")


@pytest.mark.parametrize(
    ("model", "base_url", "judge", "judge_url", "expected"),
    [
        ("openai:m", "http://127.0.0.1:1/v1", "anthropic:j", None, (None, None)),  # the other provider: its API
        ("openai:m", None, "openai:j", None, (None, None)),  # the model at the provider's API: so is the judge
        ("openai:m", "http://127.0.0.1:1/v1", "openai:j", "http://127.0.0.1:2/v1", ("http://127.0.0.1:2/v1", None)),
        ("openai:m", "http://127.0.0.1:1/v1", None, None, (None, None)),  # no judge
    ],
)
def test_otherwise_the_judge_goes_where_its_own_options_say(
    model: str, base_url: str | None, judge: str | None, judge_url: str | None, expected: tuple[Any, Any]
) -> None:
    assert judge_endpoint(model, base_url, None, judge, judge_url, None) == expected


def test_the_startup_line_says_which_url_each_role_uses_and_where_it_comes_from() -> None:
    model = endpoint("openai:gemma", "http://u:secret-pw@127.0.0.1:8097/v1")
    same = endpoint("openai:judge", model.base_url)
    assert startup_line(model, same) == (
        "the model openai:gemma at http://u:***@127.0.0.1:8097/v1 (--base-url); the judge openai:judge at"
        " http://u:***@127.0.0.1:8097/v1 (the model's endpoint)"
    )
    assert startup_line(endpoint("openai:m"), endpoint("anthropic:j")) == (
        "the model openai:m at https://api.openai.com/v1 (the provider's API); the judge anthropic:j at"
        " https://api.anthropic.com (the provider's API)"
    )
    assert startup_line(None, None) == ""


# --- the preflight ---------------------------------------------------------------------------------


def ping_time(role: Role) -> tuple[float, str]:
    open_provider(role.endpoint)  # the SDK imported first: only the request is timed

    async def main() -> tuple[float, str]:
        started = time.monotonic()
        try:
            await ping(role)
        except AgentError as exc:
            return time.monotonic() - started, str(exc)
        return time.monotonic() - started, ""

    return anyio.run(main)


def test_an_unreachable_endpoint_fails_in_about_a_second_one_line_naming_role_model_url_and_what_to_do() -> None:
    port = closed_port()
    role = Role(
        "judge",
        endpoint("anthropic:j", f"http://127.0.0.1:{port}"),
        "--judge-base-url",
        "--judge-base-url",
        "--judge-api-key-env",
    )
    took, message = ping_time(role)
    assert took < 3  # a refused connection is asked again once, half a second later: no backoff
    assert message == (
        f"the judge anthropic:j at http://127.0.0.1:{port} cannot be reached (Connection error.): check"
        " --judge-base-url, and that its server is running"
    )


def test_a_judge_at_the_providers_api_that_cannot_be_reached_is_told_to_give_its_base_url() -> None:
    from mcpaql_conformance.agent.preflight import failure

    class APIConnectionError(Exception):
        message = "Connection error."

    [_, judge] = roles(endpoint("openai:gemma", "http://127.0.0.1:8097/v1"), endpoint("openai:gemma"))
    assert str(failure(judge, APIConnectionError(), 5)) == (
        "the judge openai:gemma at https://api.openai.com/v1 cannot be reached (Connection error.): give"
        " --judge-base-url, or --judge on the same endpoint as --model"
    )


def test_a_hanging_endpoint_fails_within_the_model_timeout_and_is_not_asked_again() -> None:
    with FakeLLM(probe_delay=5) as fake:
        role = Role(
            "model", endpoint("openai:m", fake.url + "/v1", timeout=0.5), "--base-url", "--base-url", "--api-key-env"
        )
        took, message = ping_time(role)
        assert len(fake.probes) == 1
    assert took < 3 and "did not answer a 1-token request within 0.5 s" in message


def test_a_rate_limited_preflight_waits_as_long_as_retry_after_asks_then_succeeds() -> None:
    with FakeLLM(probe_failures=[(429, {"retry-after": "1"}), (503, {"retry-after-ms": "10"})]) as fake:
        role = Role("model", endpoint("openai:m", fake.url + "/v1"), "--base-url", "--base-url", "--api-key-env")
        took, message = ping_time(role)
        assert message == "" and len(fake.probes) == 3
    assert took >= 1


def test_an_endpoint_that_refuses_only_the_tiny_request_counts_as_reached() -> None:
    with FakeLLM(probe_failures=[(400, {})]) as fake:
        role = Role("model", endpoint("openai:m", fake.url + "/v1"), "--base-url", "--base-url", "--api-key-env")
        assert ping_time(role)[1] == ""


def test_a_judge_that_is_the_model_itself_is_checked_once_and_the_lines_say_so() -> None:
    lines: list[str] = []
    with FakeLLM() as fake:
        url = fake.url + "/v1"
        check_endpoints(endpoint("openai:m", url), endpoint("openai:m", url), lines.append)
        assert len(fake.probes) == 1
    assert lines[0] == f"the model openai:m at {url} (--base-url); the judge openai:m at {url} (the model's endpoint)"
    assert lines[1].startswith("endpoints checked: the model answered in ")
    assert lines[1].endswith(" s (the judge is the same model at the same endpoint)")


def test_the_models_failure_is_said_first_when_both_fail() -> None:
    model, judge = endpoint("openai:m", f"http://127.0.0.1:{closed_port()}/v1"), endpoint("openai:j")
    with pytest.raises(AgentError, match=r"^the model openai:m at .* cannot be reached"):
        check_endpoints(model, judge)


def test_the_tool_list_is_counted_in_tokens_as_the_api_reports_them() -> None:
    tools = [{"name": "mcp_aql_read", "description": "Read things.", "inputSchema": {"type": "object"}}]
    with FakeLLM() as fake:
        provider = open_provider(endpoint("anthropic:m", fake.url))

        async def main() -> int | None:
            try:
                return await tool_list_tokens(provider, tools)
            finally:
                await provider.aclose()

        counted = anyio.run(main)
        with_tools = next(p for p in fake.probes if "tools" in p.body)
        without = next(p for p in fake.probes if "tools" not in p.body)
    # the fake reports a tenth of the JSON's characters as the prompt tokens
    expected = len(json.dumps([with_tools.body["messages"], with_tools.body["tools"]])) // 10
    expected -= len(json.dumps([without.body["messages"], None])) // 10
    assert counted == expected and counted > 0


# --- honest verdicts ----------------------------------------------------------------------------------


class NeverAsked:
    endpoint = Endpoint(ModelSpec("openai", "judge"))

    def conversation(self, *args: Any) -> Any:
        raise AssertionError("a run without a final answer must not be sent to the judge")


def test_a_run_without_a_final_answer_fails_tier_2_without_asking_the_judge() -> None:
    record = RunRecord(task="t", run=1, input="hi", error={"node": "llm", "message": "no final answer within 8 turns"})

    async def main() -> dict[str, Any]:
        return await judge_run(NeverAsked(), Task("t", "hi", intent="it works"), record)  # type: ignore[arg-type]

    assert anyio.run(main) == {
        "verdict": "fail",
        "reason": "the run ended without a final answer (no final answer within 8 turns)",
        "model": "runner",
    }


def agent_bundle(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "implementation": "x",
        "version": "1",
        "spec_version": "1.0.0-draft",
        "agent_tests": [
            {
                "_description": "Task",
                "input": "do it",
                "expectedTools": [],
                "expectedContent": [],
                "minPassRate": 0.5,
                "runs": runs,
            }
        ],
    }


def run(completed: bool, verdict: str | None, **more: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"tool_calls": [], "completed": completed, "response_text": "done" if completed else ""}
    if not completed:
        entry["error"] = {"node": "llm", "message": "the model openai:m did not answer within 5 s"}
    if verdict is not None:
        entry["judge"] = {"verdict": verdict, "reason": "looks right", "model": "openai:j", **more}
    return entry


def test_an_older_bundles_judged_pass_on_a_run_without_an_answer_counts_as_a_tier_2_fail() -> None:
    bundle = agent_bundle([run(True, "pass"), run(False, "pass"), run(False, "invalid")])
    report = evaluate(bundle_from_data(bundle, "b.json"), 2, "2", "semantic")
    test = report.categories[0].tests[0]
    assert test.result is Result.FAIL
    assert "Tier 2: 1/3 judged pass (33%, 95% CI 6-79%), at least 50% needed" in test.detail
    assert (
        "run 2: the run ended without a final answer (the model openai:m did not answer within 5 s), a Tier 2 fail"
        " without judging" in test.detail
    )


def test_a_task_without_a_judge_has_no_tier_2_verdicts_even_with_runs_without_an_answer() -> None:
    bundle = agent_bundle([run(True, None), run(False, None)])
    test = evaluate(bundle_from_data(bundle, "b.json"), 2, "both", "semantic").categories[0].tests[0]
    assert test.result is Result.WARN and "no Tier 2 verdicts: run `agent --judge" in test.detail


# --- pass rates and their intervals ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("passed", "total", "text"),
    [
        (2, 3, "67%, 95% CI 21-94%"),
        (3, 3, "100%, 95% CI 44-100%"),
        (4, 5, "80%, 95% CI 38-96%"),
        (40, 60, "67%, 95% CI 54-77%"),  # as many passing, much narrower: worth more
        (0, 2, "0%, 95% CI 0-66%"),
        (0, 0, "no runs"),
    ],
)
def test_a_pass_rate_comes_with_its_95_percent_wilson_interval(passed: int, total: int, text: str) -> None:
    assert rate_text(passed, total) == text


def test_the_wilson_interval_matches_its_formula_and_stays_within_0_and_1() -> None:
    low, high = wilson(2, 3)
    assert (round(low, 4), round(high, 4)) == (0.2077, 0.9385)
    assert wilson(0, 0) == (0.0, 1.0) and wilson(5, 3) == wilson(3, 3)  # counts beyond the runs are clamped


def test_metrics_carry_pass_counts_and_token_sums_and_every_format_shows_them() -> None:
    runs = [
        run(True, "pass", input_tokens=100, output_tokens=4),
        run(True, "fail", input_tokens=100, output_tokens=4),
        run(False, None),
    ]
    for entry, tokens in zip(runs, [(50, 5), (60, 6), (70, 7)], strict=True):
        entry["input_tokens"], entry["output_tokens"] = tokens
    report = evaluate(bundle_from_data(agent_bundle(runs), "b.json"), 2, "both", "semantic")
    [row] = report.agent_metrics
    assert (row.passed, row.runs, row.judged_passed, row.judged) == (2, 3, 1, 2)
    assert (row.input_tokens, row.output_tokens, row.judge_tokens) == (180, 18, 208)
    for fmt in ("text", "markdown", "html", "junit"):
        shown = renderer(fmt)(report, False)
        assert "2/3 (67%, 95% CI 21-94%)" in shown and "1/2 (50%, 95% CI 9-91%)" in shown, fmt
        assert "180" in shown and "208" in shown, fmt
    [data] = json.loads(renderer("json")(report, False))["agentRuns"]["metrics"]
    assert data["tier1"] == {"passed": 2, "runs": 3, "rate": 0.667, "ci95": [0.208, 0.939]}
    assert data["tier2"] == {"passed": 1, "runs": 2, "rate": 0.5, "ci95": [0.095, 0.905]}
    assert (data["inputTokens"], data["outputTokens"], data["judgeTokens"]) == (180, 18, 208)


def test_rows_without_verdicts_show_no_pass_counts() -> None:
    [row] = agent_metrics(agent_bundle([run(True, None)])["agent_tests"])
    assert row.passed is None and "tier1" not in row.as_dict()


# --- presets ----------------------------------------------------------------------------------------


def test_the_one_shot_preset_is_five_runs_and_four_of_five_and_options_given_win() -> None:
    assert PRESETS["one-shot"].runs == 5 and PRESETS["one-shot"].min_pass_rate == 0.8
    assert resolved("one-shot", None, None) == (5, 0.8)
    assert resolved("one-shot", 2, None) == (2, 0.8)
    assert resolved("one-shot", None, 1.0) == (5, 1.0)
    assert resolved(None, None, None) == (DEFAULT_RUNS, DEFAULT_MIN_PASS_RATE)
