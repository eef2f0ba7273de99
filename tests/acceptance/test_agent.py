"""Agent runs through the real CLI: scenarios against the demo server, a scripted model on
loopback speaking the OpenAI and Anthropic APIs, the judge, the destructive guard, errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import DEMO, ROOT, run_cli, warm
from tests.fake_llm import FakeLLM, Request

SCENARIOS = ROOT / "scenarios"
SERVERS = Path(__file__).with_name("servers.py")


def agent(tmp_path: Path, *args: str, server: tuple[str, ...] | None = None, env: dict[str, str] | None = None) -> Any:
    """An agent run of ``server`` (by default the demo, started warm: conftest.warm)."""
    server = server or warm(*DEMO)
    bundle, transcripts = tmp_path / "agent.json", tmp_path / "transcripts"
    command = ["agent", "--bundle", str(bundle), "--transcripts", str(transcripts), "--timeout", "15", *args]
    return run_cli(*command, "--", *server, env=env)


def judged(bundle: Path, *args: str) -> dict[str, Any]:
    result = run_cli("test", str(bundle), "--level", "2", "-c", "semantic", "-f", "json", *args)
    assert result.returncode in (0, 1, 2), result.stderr
    return {t["name"]: t for c in json.loads(result.stdout)["categories"] for t in c["tests"]}


# --- scenarios: no model ----------------------------------------------------------------------


def test_the_shipped_scenarios_pass_against_the_demo_server(tmp_path):
    scenarios = [
        "--scenario",
        str(SCENARIOS / "demo-notes.yaml"),
        "--scenario",
        str(SCENARIOS / "demo-rate-limit.yaml"),
    ]
    result = agent(tmp_path, *scenarios, "--allow-writes")  # the note is created; the delete is refused
    assert result.returncode == 0, result.stderr
    assert "agent: Write a note and read it back run 1/1: 5 turn(s), 4 call(s), answered" in result.stderr
    tests = judged(tmp_path / "agent.json")
    assert {name: test["result"] for name, test in tests.items()} == {
        "Write a note and read it back": "PASS",
        "Retry after a rate limit": "PASS",
    }
    bundle = json.loads((tmp_path / "agent.json").read_text())
    calls = bundle["agent_tests"][0]["runs"][0]["tool_calls"]
    assert [(c["operation"], c["outcome"], c["succeeded"]) for c in calls] == [
        ("introspect", "sent", True),
        ("create_note", "sent", True),
        ("get_note", "sent", True),
        ("delete_note", "refused", False),  # the runner's guard: --allow-writes, not --allow-destructive
    ]
    assert calls[2]["params"]["note_id"] == calls[1]["response"]["data"]["note_id"]  # ${create_note.data.note_id}
    transcripts = sorted((tmp_path / "transcripts").rglob("*.jsonl"))
    assert [p.name for p in transcripts] == [
        "Retry_after_a_rate_limit-1.jsonl",
        "Write_a_note_and_read_it_back-1.jsonl",
    ]
    events = [json.loads(line)["event"] for line in transcripts[1].read_text().splitlines()]
    assert events == ["user", "model", "tool", "model", "tool", "model", "tool", "model", "tool", "model", "end"]


def write_scenario(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    return path


def test_a_scenario_whose_expectations_do_not_hold_fails_saying_which(tmp_path):
    scenario = write_scenario(
        tmp_path,
        """name: Wrong expectations
events:
  - type: llm_response
    tool_calls: [{name: mcp_aql_read, input: {operation: get_note, params: {note_id: nope}}}]
expect:
  outcome: completed
  completed: [get_note]
  error_node: list_notes
""",
    )
    assert agent(tmp_path, "--scenario", str(scenario)).returncode == 0
    test = judged(tmp_path / "agent.json")["Wrong expectations"]
    assert test["result"] == "FAIL"
    assert test["detail"].startswith(
        "outcome error (NOT_FOUND_RESOURCE: No note with note_id 'nope'.), expected completed; "
    )
    assert "get_note did not complete; the error came from 'get_note', expected 'list_notes'" in test["detail"]


def test_an_llm_error_ends_the_scenario_with_that_error(tmp_path):
    scenario = write_scenario(
        tmp_path,
        """name: Model fails
events:
  - type: user_input
    text: hello
  - type: llm_error
    output: {error: {message: rate limit exceeded}}
expect: {outcome: error, error_contains: RATE LIMIT, error_node: llm, not_reached: [list_notes]}
""",
    )
    assert agent(tmp_path, "--scenario", str(scenario)).returncode == 0
    assert judged(tmp_path / "agent.json")["Model fails"]["result"] == "PASS"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: x\nevents: [{type: llm_reponse}]\n", "$.events[0].type: must be one of"),
        (
            "name: x\nevents: [{type: tool_result, tool: mcp_aql_read}]\n",
            "$.events[0]: a tool_result for 'mcp_aql_read'",
        ),
        ("name: x\nevent: []\n", "$: unknown key 'event' (did you mean 'events'?)"),
        ("name: x\nevents: [{type: user_input, text: &a hi}, {type: user_input, text: *a}]\n", "aliases (*name)"),
    ],
)
def test_a_bad_scenario_file_is_one_line_naming_the_place(tmp_path, text, message):
    result = agent(tmp_path, "--scenario", str(write_scenario(tmp_path, text)))
    assert result.returncode == 3 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "agent.json").exists()


# --- a scripted model -------------------------------------------------------------------------


def _names(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return []
    return [op["name"] for op in data.get("data", {}).get("operations", [])]


def competent(request: Request) -> dict[str, Any]:
    """Does each built-in task the way a good model would, in as few turns."""
    task, results = request.user_text(), request.tool_results()
    read = "mcp_aql_read"
    if not results:
        if task.startswith("Create a new note"):
            return {
                "tool_calls": [
                    {"name": "mcp_aql_create", "arguments": {"operation": "create_note", "params": {"title": "Milk"}}}
                ]
            }
        if "list_notes" in task and "fields" not in task and "few fields" not in task:
            return {
                "tool_calls": [{"name": read, "arguments": {"operation": "list_notes", "params": {"limit": "five"}}}]
            }
        if "list_notes" in task:
            params = {"fields": ["title"]}
            return {"tool_calls": [{"name": read, "arguments": {"operation": "list_notes", "params": params}}]}
        return {
            "tool_calls": [{"name": read, "arguments": {"operation": "introspect", "params": {"query": "operations"}}}]
        }
    if "VALIDATION_INVALID_PARAMS" in results[-1]:
        return {"tool_calls": [{"name": read, "arguments": {"operation": "list_notes", "params": {"limit": 5}}}]}
    if task.startswith("Which operations"):
        return {"text": "The operations: " + ", ".join(_names(results[0])), "usage": [100, 20]}
    return {"text": "Done: I asked for the title field.", "usage": [80, 10]}


def model_args(fake: FakeLLM, *extra: str, provider: str = "openai") -> list[str]:
    base = fake.url + ("/v1" if provider == "openai" else "")
    return ["--model", f"{provider}:scripted", "--base-url", base, "--runs", "2", *extra]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_model_runs_the_builtin_tasks_and_they_are_judged(tmp_path, provider):
    with FakeLLM(replies=[competent] * 40) as fake:
        result = agent(tmp_path, *model_args(fake, provider=provider), "--allow-writes")  # the create task
    assert result.returncode == 0, result.stderr
    tests = judged(tmp_path / "agent.json", "--tier", "1")
    assert set(tests) == {
        "Discover the operations",
        "Select fields with list_notes",
        "Recover from an error answer of list_notes",
        "Create a note",
    }
    assert {test["result"] for test in tests.values()} == {"PASS"}, tests
    assert tests["Discover the operations"]["detail"] == (
        "Tier 1: 2/2 run(s) passed (100%, 95% CI 34-100%), at least 80% needed"
    )
    first = fake.requests[0]
    tools = first.body["tools"]
    names = [tool["function"]["name"] if provider == "openai" else tool["name"] for tool in tools]
    assert names == ["mcp_aql_create", "mcp_aql_read", "mcp_aql_update", "mcp_aql_delete", "mcp_aql_execute", "mcp_aql"]
    markdown = run_cli("test", str(tmp_path / "agent.json"), "--level", "2", "-c", "semantic", "-f", "markdown").stdout
    assert (
        "| Model | Task | Runs | Passed (Tier 1) | Judged pass (Tier 2) | First call succeeded | Introspections first"
        " | Turns | Turns to success | Calls to success | Invalid calls | Recovered from invalid"
        " | Tokens per answered run | Recovered | Seconds per run | Wall seconds | Tokens in | Tokens out"
        " | Judge tokens | Cost |"
    ) in markdown
    row = (
        f"| {provider}:scripted | Recover from an error answer of list\\_notes | 2 | 2/2 (100%, 95% CI 34-100%)"
        " | \\- | 100% | 0 | 3 | 3 | 2 | 0 | \\- | "
    )
    assert row in markdown
    assert f"- {provider}:scripted (target): 4/4 task(s) reached their pass rate; first call succeeded" in markdown
    junit = run_cli("test", str(tmp_path / "agent.json"), "--level", "2", "-f", "junit").stdout
    name = f"agent.{provider}:scripted.Recover from an error answer of list_notes.Recovered"
    assert f'<property name="{name}" value="100%"/>' in junit
    html = run_cli("test", str(tmp_path / "agent.json"), "--level", "2", "-f", "html").stdout
    assert '<th data-numeric="1"><button type="button">First call succeeded</button></th>' in html
    assert (
        'data-value="Recover from an error answer of list_notes">Recover from an error answer of list_notes</td>'
        in html
    )


def test_without_a_judge_tier_2_is_not_run_and_with_one_its_verdicts_decide(tmp_path):
    with FakeLLM(replies=[competent] * 40) as fake:
        assert agent(tmp_path, *model_args(fake, "--no-builtin", "--tasks", str(tasks_file(tmp_path)))).returncode == 0
    assert judged(tmp_path / "agent.json")["List the notes"]["result"] == "WARN"  # tier both, no Tier 2 evidence
    verdicts = [
        {"text": '{"verdict": "pass", "reason": "It listed them."}'},
        {"text": "not json"},
        {"text": "still not"},
    ]
    with FakeLLM(replies=[competent] * 4) as fake, FakeLLM(replies=verdicts) as judge:
        args = model_args(fake, "--no-builtin", "--tasks", str(tasks_file(tmp_path)), "--judge", "openai:grader")
        args += ["--concurrency", "1"]  # the verdicts are scripted in the order of the runs
        assert agent(tmp_path, *args, "--judge-base-url", judge.url + "/v1").returncode == 0
    entry = json.loads((tmp_path / "agent.json").read_text())["agent_tests"][0]
    assert [run["judge"]["verdict"] for run in entry["runs"]] == ["pass", "invalid"]
    test = judged(tmp_path / "agent.json")["List the notes"]
    assert test["result"] == "PASS" and "Tier 2: 1/1 judged pass" in test["detail"]


def tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.yaml"
    path.write_text(
        "tasks:\n"
        "  - _description: List the notes\n"
        "    input: Use the list_notes operation and tell me briefly what it returned.\n"
        "    expectedTools: [read/list_notes]\n"
        "    intent: The model lists the notes.\n"
    )
    return path


def test_a_task_file_with_a_typo_is_refused_with_a_did_you_mean(tmp_path):
    path = tmp_path / "tasks.yaml"
    path.write_text("tasks:\n  - _description: t\n    input: i\n    expectedTool: [x]\n")
    result = agent(tmp_path, "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--tasks", str(path))
    assert result.returncode == 3
    assert result.stderr == f"error: {path}: $.tasks[0]: unknown key 'expectedTool' (did you mean 'expectedTools'?)\n"


def test_the_guard_keeps_every_destructive_call_from_the_server(tmp_path):
    log = tmp_path / "evil.log"
    deleting = [
        {
            "tool_calls": [
                {"name": "mcp_aql_delete", "arguments": {"operation": "wipe_note", "params": {"note_id": "1"}}}
            ]
        },
        {
            "tool_calls": [
                {"name": "mcp_aql_read", "arguments": {"operation": "sneaky_delete", "params": {"item_id": "1"}}}
            ]
        },
        {"tool_calls": [{"name": "mcp_aql_read", "arguments": {"operation": "secret_purge", "params": {}}}]},
        {"tool_calls": [{"name": "mcp_aql_read", "arguments": {"operations": [{"operation": "twin"}]}}]},
        {"text": "I could not delete anything."},
    ]
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"tasks": [{"_description": "Delete", "input": "Delete everything.", "runs": 1}]}))
    with FakeLLM(replies=deleting) as fake:
        args = ["--model", "openai:m", "--base-url", fake.url + "/v1", "--no-builtin", "--tasks", str(tasks)]
        result = agent(tmp_path, *args, server=warm(sys.executable, str(SERVERS), "evil"), env={"EVIL_LOG": str(log)})
    assert result.returncode == 0, result.stderr
    sent = [json.loads(line)["operation"] for line in log.read_text().splitlines()]
    assert sent and set(sent) == {"introspect"}  # discovery only: no call the model made reached the server
    calls = json.loads((tmp_path / "agent.json").read_text())["agent_tests"][0]["runs"][0]["tool_calls"]
    assert [c["outcome"] for c in calls] == ["refused"] * 4
    reasons = [c["response"]["error"]["message"] for c in calls]
    assert "mcp_aql_delete is the DELETE endpoint" in reasons[0]
    assert "sneaky_delete: declared DELETE" in reasons[1]
    assert "secret_purge is not an operation introspection lists" in reasons[2]
    assert "twin: declared DELETE" in reasons[3]
    assert all("only with --allow-destructive, against a disposable instance" in reason for reason in reasons)


# --- the model cannot be used -----------------------------------------------------------------


def test_model_failures_are_one_line_with_exit_3(tmp_path):
    tasks = ["--no-builtin", "--tasks", str(tasks_file(tmp_path)), "--concurrency", "1"]  # requests counted per run
    with FakeLLM(failures=[(429, {"retry-after-ms": "1"})] * 10) as fake:
        result = agent(tmp_path, *model_args(fake, *tasks))
    assert result.returncode == 3 and "is still rate-limited after 4 retries" in result.stderr
    assert len(fake.requests) == 5  # the first try and four retries
    with FakeLLM(failures=[(500, {"retry-after-ms": "1"})] * 2, replies=[competent] * 10) as fake:
        assert agent(tmp_path, *model_args(fake, *tasks)).returncode == 0  # server errors are retried
    with FakeLLM(delay=3, replies=[competent] * 10) as fake:
        result = agent(tmp_path, *model_args(fake, *tasks, "--model-timeout", "0.5"))
        # a slow reply ends its run (recorded, not retried); the other runs go on
        assert result.returncode == 0, result.stderr
        assert len(fake.requests) == 2
    slow = f"the model openai:scripted at {fake.url}/v1 did not answer within 0.5 s"
    assert f"agent: List the notes run 2/2: 0 turn(s), 0 call(s), no answer ({slow})" in result.stderr
    runs = json.loads((tmp_path / "agent.json").read_text())["agent_tests"][0]["runs"]
    assert [run["error"] for run in runs] == [{"node": "llm", "message": slow}] * 2
    assert all(run["model_seconds"] >= 0.5 for run in runs)  # the wait counts in the latency
    assert judged(tmp_path / "agent.json")["List the notes"]["detail"].startswith(
        f"Tier 1: 0/2 run(s) passed (0%, 95% CI 0-66%), at least 80% needed; run 1: no final answer ({slow})"
    )
    result = agent(tmp_path, "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1", *tasks)
    assert result.returncode == 3 and result.stderr.endswith(  # the preflight: before the server starts
        "error: the model openai:m at http://127.0.0.1:9/v1 cannot be reached (Connection error.): check --base-url,"
        " and that its server is running\n"
    )


def test_a_remote_model_needs_its_key_from_the_environment_and_the_key_is_never_written(tmp_path):
    result = agent(tmp_path, "--model", "anthropic:claude", "--no-builtin", "--tasks", str(tasks_file(tmp_path)))
    assert result.returncode == 3
    assert result.stderr == (
        "error: set $ANTHROPIC_API_KEY to the anthropic API key (or name another with --api-key-env)\n"
    )
    key = "sk-test-9f8e7d6c5b4a"
    with FakeLLM(replies=[competent] * 10) as fake:
        args = model_args(fake, "--no-builtin", "--tasks", str(tasks_file(tmp_path)), "--api-key-env", "MY_KEY")
        assert agent(tmp_path, *args, env={"MY_KEY": key}).returncode == 0
    assert fake.requests[0].headers["authorization"] == f"Bearer {key}"
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not any(key in text for text in written)


def test_agent_needs_a_model_or_a_scenario(tmp_path):
    result = agent(tmp_path)
    assert result.returncode == 3
    assert (
        result.stderr
        == "error: give --model PROVIDER:MODEL to run tasks with a model, or --scenario FILE to play one\n"
    )


# --- check --agent ----------------------------------------------------------------------------


def test_check_with_agent_captures_runs_and_judges_level_2_in_one_go(tmp_path):
    args = ["check", "--agent", "--scenario", str(SCENARIOS / "demo-notes.yaml"), "--allow-destructive"]
    args += ["--plan", str(ROOT / "evidence" / "plans" / "demo-notes.json")]
    args += ["--capture-dir", str(tmp_path / "r"), "--transcripts", str(tmp_path / "t"), "--level", "2", "-f", "json"]
    result = run_cli(*args, "--", *warm(*DEMO), env={"DEMO_NOTES_PASSPHRASE": "plan-secret"})
    report = json.loads(result.stdout)
    semantic = next(c for c in report["categories"] if c["name"] == "Semantic Evaluation")
    assert [t["result"] for t in semantic["tests"]] == ["PASS"]
    assert result.returncode == report["exitCode"] == 0, result.stderr
    assert report["agentRuns"]["summary"].startswith("1 scenario(s), no model; 6 tool(s) shown to the model")
    assert "agent: 1 run(s) recorded; transcripts: " in result.stderr  # the scratch bundle is not named


def test_check_refuses_agent_options_without_agent(tmp_path):
    result = run_cli("check", "--scenario", "x.yaml", "--", *DEMO)
    assert result.returncode == 3 and "--scenario: only with --agent" in result.stderr
    several = run_cli("check", "--prices", "p.yaml", "--target-model", "openai:a", "--", *DEMO)
    assert several.returncode == 3 and "--target-model, --prices: only with --agent" in several.stderr


# --- schemas and YAML ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bundle", "plan", "tasks", "scenario", "prices", "baseline", "report"])
def test_every_hand_written_or_written_kind_has_a_published_schema(kind):
    result = run_cli("schema", kind)
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    assert schema["$id"] == f"urn:mcpaql-conformance:schema:{kind}"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_shipped_yaml_files_match_their_published_schemas():
    import jsonschema

    from mcpaql_conformance.files.configio import load_config_file

    for path, kind in [
        (SCENARIOS / "demo-notes.yaml", "scenario"),
        (SCENARIOS / "demo-rate-limit.yaml", "scenario"),
        (ROOT / "evidence" / "tasks" / "demo-notes.yaml", "tasks"),
    ]:
        jsonschema.validate(load_config_file(path, kind), json.loads(run_cli("schema", kind).stdout))


def test_a_capture_plan_may_be_yaml(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "implementation: mcpaql-demo-notes\n"
        "values: {create_note.title: Groceries, limit: 5}\n"
        "examples:\n  - {operation: list_notes, _description: first page, params: {limit: 5}}\n"
    )
    bundle = tmp_path / "b.json"
    args = ["capture", "--plan", str(plan), "--bundle", str(bundle), "--capture-dir", str(tmp_path / "r")]
    result = run_cli(*args, "--", *warm(*DEMO))
    assert result.returncode == 0, result.stderr
    sent = json.loads(bundle.read_text())["valid_requests"]
    assert [(r["operation"], r["params"]) for r in sent if r["_description"] == "first page"] == [
        ("list_notes", {"limit": 5})
    ]
    plan.write_text("implementation: x\nvalues: &v {a: 1}\nmore: *v\n")
    result = run_cli(*args, "--", *warm(*DEMO))
    assert result.returncode == 3
    assert result.stderr == f"error: {plan}:3:7: invalid YAML: aliases (*name) are not supported\n"
