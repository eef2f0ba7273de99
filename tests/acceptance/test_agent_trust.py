"""Agent runs a team can trust and afford (issue 20, points 1, 3 and 5), through the real CLI
with the loopback fake model API: every endpoint checked before the first run (failing in
seconds, one line, exit 3), runs without an answer failed without asking the judge, pass rates
with their 95% interval and token sums in every report format, the one-shot preset."""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import run_cli, warm
from tests.fake_llm import FakeLLM, Request

FORMATS = ("text", "markdown", "html", "json", "junit")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def marked_server(tmp_path: Path) -> tuple[str, ...]:
    """The demo server, leaving a mark when it starts (to prove it was not); started warm
    (conftest.warm): the mark, not the process, is what these tests look at."""
    mark = tmp_path / "server-started"
    script = tmp_path / "marked_server.py"
    script.write_text(
        f"open({str(mark)!r}, 'w').close()\nimport runpy\n"
        "runpy.run_module('mcpaql_conformance.demo_adapter', run_name='__main__')\n"
    )
    return warm(sys.executable, str(script))


def tasks_file(tmp_path: Path, runs: int | None = None) -> Path:
    path = tmp_path / "tasks.json"
    task: dict[str, Any] = {
        "_description": "List the notes",
        "input": "Use the list_notes operation and tell me briefly what it returned.",
        "expectedTools": ["read/list_notes"],
        "intent": "The model lists the notes.",
    }
    if runs is not None:
        task["runs"] = runs
    path.write_text(json.dumps({"tasks": [task]}))
    return path


def lister(request: Request) -> dict[str, Any]:
    """Lists the notes, then answers."""
    if not request.tool_results():
        call = {"name": "mcp_aql_read", "arguments": {"operation": "list_notes", "params": {}}}
        return {"tool_calls": [call], "usage": [120, 15]}
    return {"text": "You have some notes.", "usage": [200, 10]}


def looper(request: Request) -> dict[str, Any]:
    """Never answers: calls list_notes turn after turn."""
    call = {"name": "mcp_aql_read", "arguments": {"operation": "list_notes", "params": {}}}
    return {"tool_calls": [call], "usage": [100, 5]}


def agent(tmp_path: Path, *args: str, server: tuple[str, ...] | None = None, command: str = "agent") -> Any:
    out = ["--transcripts", str(tmp_path / "t")]
    if command == "check":
        out += ["--capture-dir", str(tmp_path / "records"), "--bundle", str(tmp_path / "agent.json"), "-f", "json"]
        head = ["check", "--agent", "--level", "2"]
    else:
        out += ["--bundle", str(tmp_path / "agent.json"), "--timeout", "15"]
        head = ["agent"]
    return run_cli(*head, *out, *args, "--", *(server or marked_server(tmp_path)))


def model(fake: FakeLLM, *extra: str) -> list[str]:
    return ["--model", "openai:scripted", "--base-url", fake.url + "/v1", "--no-builtin", *extra]


# --- 1. Fail fast ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["agent", "check"])
def test_an_unreachable_judge_stops_in_seconds_naming_it_before_the_server_starts(tmp_path, command):
    port = closed_port()
    with FakeLLM(replies=[lister] * 10) as fake:
        started = time.monotonic()
        result = agent(
            tmp_path,
            *model(fake, "--tasks", str(tasks_file(tmp_path))),
            "--judge", "anthropic:grader", "--judge-base-url", f"http://user:pw@127.0.0.1:{port}",
            command=command,
        )  # fmt: skip
        took = time.monotonic() - started
    assert result.returncode == 3, result.stderr
    assert took < 60  # no run, no backoff (a busy machine starts slowly); the preflight's own time: tests/unit
    assert result.stderr.splitlines()[-1] == (
        f"error: the judge anthropic:grader at http://user:***@127.0.0.1:{port} cannot be reached (Connection error.):"
        " check --judge-base-url, and that its server is running"
    )
    assert (
        f"agent: the model openai:scripted at {fake.url}/v1 (--base-url); the judge anthropic:grader" in result.stderr
    )
    assert fake.requests == [] and len(fake.probes) == 1  # the model's preflight only: no run was made
    assert not (tmp_path / "server-started").exists() and not (tmp_path / "agent.json").exists()
    assert not (tmp_path / "records").exists()  # check --agent: before the capture


def test_a_judge_of_the_models_provider_goes_where_the_model_goes_and_the_startup_line_says_so(tmp_path):
    verdict = {"text": '{"verdict": "pass", "reason": "It listed them."}'}

    def reply(request: Request) -> dict[str, Any]:  # one endpoint answers both roles
        return (
            verdict if request.body.get("response_format") or "RUN-RECORD" in request.user_text() else lister(request)
        )

    with FakeLLM(replies=[reply] * 10) as fake:
        result = agent(
            tmp_path, *model(fake, "--tasks", str(tasks_file(tmp_path)), "--runs", "1"), "--judge", "openai:grader"
        )
    assert result.returncode == 0, result.stderr
    url = f"{fake.url}/v1"
    assert (
        f"agent: the model openai:scripted at {url} (--base-url); the judge openai:grader at {url} (the model's"
        " endpoint)\n" in result.stderr
    )
    assert "agent: endpoints checked: the model answered in " in result.stderr
    assert [request.body["model"] for request in fake.probes[:2]] in (
        ["scripted", "grader"],
        ["grader", "scripted"],
    )  # one preflight request per role (checked together)
    run = json.loads((tmp_path / "agent.json").read_text())["agent_tests"][0]["runs"][0]
    assert run["judge"]["verdict"] == "pass" and run["judge"]["model"] == "openai:grader"


def test_a_preflight_that_succeeds_costs_one_request_per_role_and_sends_each_key_only_to_its_endpoint(tmp_path):
    verdict = {"text": '{"verdict": "pass", "reason": "It listed them."}', "usage": [300, 12]}
    with FakeLLM(replies=[lister] * 10) as fake, FakeLLM(replies=[verdict] * 3) as judge:
        args = [*model(fake, "--tasks", str(tasks_file(tmp_path)), "--api-key-env", "MODEL_KEY")]
        args += ["--judge", "openai:grader", "--judge-base-url", judge.url + "/v1", "--judge-api-key-env", "JUDGE_KEY"]
        result = run_cli(
            "agent", "--bundle", str(tmp_path / "agent.json"), "--transcripts", str(tmp_path / "t"), *args,
            "--", *marked_server(tmp_path), env={"MODEL_KEY": "model-key-1", "JUDGE_KEY": "judge-key-2"},
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(judge.probes) == 1 and len(judge.requests) == 3  # the preflight, then a verdict per run
    preflights = [probe for probe in fake.probes if "tools" not in probe.body]
    counted = [probe for probe in fake.probes if "tools" in probe.body]
    # The model: its preflight, and the tool list counted once (the same 1-token request without the tools)
    assert len(fake.probes) == 3 and len(preflights) == 2 and len(counted) == 1
    assert {probe.headers["authorization"] for probe in fake.probes} == {"Bearer model-key-1"}
    assert {probe.headers["authorization"] for probe in judge.probes} == {"Bearer judge-key-2"}
    assert sum(fake.paths.values()) == len(fake.probes) + len(fake.requests)


def test_a_rate_limited_preflight_is_retried_as_long_as_retry_after_asks(tmp_path):
    with FakeLLM(replies=[lister] * 10, probe_failures=[(429, {"retry-after": "1"})]) as fake:
        started = time.monotonic()
        result = agent(tmp_path, *model(fake, "--tasks", str(tasks_file(tmp_path)), "--runs", "1"))
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started >= 1  # the wait asked for
    assert fake.probes[0].body["max_tokens"] == fake.probes[1].body["max_tokens"] == 1
    assert "tools" not in fake.probes[1].body  # the preflight again, then the runs
    assert len(fake.requests) == 2


def test_a_preflight_still_rate_limited_stops_the_agent_before_the_server_starts(tmp_path):
    with FakeLLM(probe_failures=[(429, {"retry-after-ms": "1"})] * 10) as fake:
        result = agent(tmp_path, *model(fake, "--tasks", str(tasks_file(tmp_path))))
    assert result.returncode == 3
    assert result.stderr.splitlines()[-1] == (
        f"error: the model openai:scripted at {fake.url}/v1 is still rate-limited after 4 retries: Error code: 429"
        " - scripted 429; try again later"
    )
    assert len(fake.probes) == 5 and not (tmp_path / "server-started").exists()


def test_a_model_that_hangs_fails_the_preflight_within_its_timeout(tmp_path):
    with FakeLLM(probe_delay=10) as fake:
        started = time.monotonic()
        result = agent(tmp_path, *model(fake, "--tasks", str(tasks_file(tmp_path)), "--model-timeout", "1"))
        took = time.monotonic() - started
    assert result.returncode == 3 and took < 30  # 1 s of it the preflight's (the rest: starting up, on a busy machine)
    assert result.stderr.splitlines()[-1].startswith(
        f"error: the model openai:scripted at {fake.url}/v1 did not answer a 1-token request within 1 s: is its server"
        " up and serving scripted?"
    )
    assert len(fake.probes) == 1 and not (tmp_path / "server-started").exists()  # a timeout is not asked again


def test_a_refused_key_at_the_preflight_names_the_option_to_use(tmp_path):
    with FakeLLM(probe_failures=[(401, {})]) as fake:
        result = agent(tmp_path, *model(fake, "--tasks", str(tasks_file(tmp_path))))
    assert result.returncode == 3
    assert result.stderr.splitlines()[-1] == (
        f"error: the model openai:scripted at {fake.url}/v1 refused the key (HTTP 401): Error code: 401 - scripted"
        " 401; name the variable that holds its key with --api-key-env"
    )


# --- 3. Honest verdicts -------------------------------------------------------------------------------


def test_a_run_without_a_final_answer_is_not_judged_and_fails_tier_2_saying_why(tmp_path):
    with (
        FakeLLM(replies=[looper] * 20) as fake,
        FakeLLM(replies=[{"text": '{"verdict": "pass", "reason": "ok"}'}] * 5) as judge,
    ):
        args = model(fake, "--tasks", str(tasks_file(tmp_path)), "--runs", "2", "--max-turns", "2")
        result = agent(tmp_path, *args, "--judge", "openai:grader", "--judge-base-url", judge.url + "/v1")
    assert result.returncode == 0, result.stderr
    assert judge.requests == []  # never asked: only its preflight went out
    runs = json.loads((tmp_path / "agent.json").read_text())["agent_tests"][0]["runs"]
    assert [run["judge"] for run in runs] == [
        {
            "verdict": "fail",
            "reason": "the run ended without a final answer (no final answer within 2 turns)",
            "model": "runner",
        }
    ] * 2
    bundle = str(tmp_path / "agent.json")
    report = json.loads(run_cli("test", bundle, "--level", "2", "-c", "semantic", "-f", "json").stdout)
    test = report["categories"][0]["tests"][0]
    assert test["result"] == "FAIL"
    assert test["detail"] == (
        "Tier 1: 0/2 run(s) passed (0%, 95% CI 0-66%); Tier 2: 0/2 judged pass (0%, 95% CI 0-66%), at least 80%"
        " needed; run 1: no final answer (no final answer within 2 turns); run 1: the run ended without a final"
        " answer (no final answer within 2 turns), a Tier 2 fail without judging"
    )
    for fmt in FORMATS:
        shown = run_cli("test", bundle, "--level", "2", "-c", "semantic", "-f", fmt).stdout
        assert "a Tier 2 fail without judging" in shown, fmt


def test_pass_rates_show_their_95_percent_interval_and_tokens_their_sums_in_every_format(tmp_path):
    verdicts = [{"text": '{"verdict": "pass", "reason": "ok"}', "usage": [300, 12]}] * 3
    with FakeLLM(replies=[lister] * 10) as fake, FakeLLM(replies=verdicts) as judge:
        args = model(fake, "--tasks", str(tasks_file(tmp_path)), "--runs", "3")
        result = agent(tmp_path, *args, "--judge", "openai:grader", "--judge-base-url", judge.url + "/v1")
    assert result.returncode == 0, result.stderr
    bundle = str(tmp_path / "agent.json")
    data = json.loads(run_cli("test", bundle, "--level", "2", "-c", "semantic", "-f", "json").stdout)
    [row] = data["agentRuns"]["metrics"]
    assert row["tier1"] == {"passed": 3, "runs": 3, "rate": 1.0, "ci95": [0.439, 1.0]}
    assert row["tier2"] == {"passed": 3, "runs": 3, "rate": 1.0, "ci95": [0.439, 1.0]}
    assert (row["inputTokens"], row["outputTokens"], row["judgeTokens"]) == (3 * 320, 3 * 25, 3 * 312)
    tool_tokens = json.loads(Path(bundle).read_text())["agent_runs"][-1]["tool_list"]["tokens"]
    assert isinstance(tool_tokens, int) and tool_tokens > 0  # counted with and without the tools
    assert f"characters, {tool_tokens} tokens)" in data["agentRuns"]["summary"]
    detail = data["categories"][0]["tests"][0]["detail"]
    assert detail == (
        "Tier 1: 3/3 run(s) passed (100%, 95% CI 44-100%); Tier 2: 3/3 judged pass (100%, 95% CI 44-100%), at least"
        " 80% needed"
    )
    for fmt in FORMATS:
        shown = run_cli("test", bundle, "--level", "2", "-c", "semantic", "-f", fmt).stdout
        assert "3/3 (100%, 95% CI 44-100%)" in shown or "95% CI 44-100%" in shown, fmt
        assert "960" in shown and "936" in shown, fmt  # tokens in, judge tokens
        assert f"{tool_tokens} tokens" in shown, fmt
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(data))
    again = run_cli("report", str(saved), "-f", "markdown").stdout  # a saved report keeps them
    assert "3/3 (100%, 95% CI 44-100%)" in again and "| 960 | 75 | 936 |" in again


# --- the one-shot preset ------------------------------------------------------------------------------


def test_the_one_shot_preset_runs_each_task_five_times_and_needs_four_of_five(tmp_path):
    with FakeLLM(replies=[lister] * 20) as fake:
        result = agent(tmp_path, *model(fake, "--tasks", str(tasks_file(tmp_path))), "--preset", "one-shot")
    assert result.returncode == 0, result.stderr
    entry = json.loads((tmp_path / "agent.json").read_text())["agent_tests"][0]
    assert len(entry["runs"]) == 5 and entry["minPassRate"] == 0.8
    with FakeLLM(replies=[lister] * 20) as fake:
        args = model(fake, "--tasks", str(tasks_file(tmp_path)), "--runs", "2", "--preset", "one-shot")
        assert agent(tmp_path, *args).returncode == 0
    entry = json.loads((tmp_path / "agent.json").read_text())["agent_tests"][0]
    assert len(entry["runs"]) == 2 and entry["minPassRate"] == 0.8  # an option given wins over the preset


def test_check_with_agent_checks_each_endpoint_once_before_the_capture_and_not_again(tmp_path):
    with FakeLLM(replies=[lister] * 10) as fake:
        args = model(fake, "--tasks", str(tasks_file(tmp_path)), "--runs", "1")
        result = agent(tmp_path, *args, "--allow-destructive", command="check")
    assert result.returncode in (0, 1, 2), result.stderr
    lines = result.stderr.splitlines()
    checked = next(i for i, line in enumerate(lines) if line.startswith("agent: endpoints checked: the model"))
    captured = next(i for i, line in enumerate(lines) if line.startswith("captured "))
    assert checked < captured  # before the capture started the server
    assert len([probe for probe in fake.probes if "tools" not in probe.body]) == 2  # the preflight; the count's half
    assert len([probe for probe in fake.probes if "tools" in probe.body]) == 1
