"""Several models side by side in one agent run (issue 38): every model runs the same tasks and
runs, each run names its model, a model that cannot be used is said in one line and skipped
while the others go on, the target models decide Semantic Evaluation and the others are
reported beside them, and a signal keeps every finished run of every model for `--resume`.
Against loopback fake model APIs (tests/fake_llm.py), one per model."""

from __future__ import annotations

import json
import re
import signal
import socket
from collections import Counter
from pathlib import Path
from typing import Any

from mcpaql_conformance.report.common import GLANCE, METRIC_HEADINGS
from tests.acceptance.cdp import Browser
from tests.acceptance.conftest import DEMO, ROOT, run_cli, stopped_when, warm
from tests.acceptance.test_agent_resume import TASKS, started, tasks_file, two_turns
from tests.acceptance.test_ci_reports import NEEDS_CHROMIUM, chromium
from tests.fake_llm import FakeLLM, Request


def lazy(request: Request) -> dict[str, Any]:
    """A model that answers at once, calling nothing: it never does the task."""
    return {"text": "I cannot see any notes.", "usage": [9, 4]}


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command(tmp_path: Path, models: list[str], *extra: str) -> list[str]:
    bundle, transcripts = tmp_path / "agent.json", tmp_path / "transcripts"
    line = ["agent", "--bundle", str(bundle), "--transcripts", str(transcripts), "--no-builtin"]
    line += [item for model in models for item in ("--model", model)]
    return [*line, "--tasks", str(tasks_file(tmp_path)), "--timeout", "15", *extra, "--", *warm(*DEMO)]


def keyed(bundle: dict[str, Any]) -> dict[tuple[str, str, int], dict[str, Any]]:
    """Every run of a bundle by (task, model, number)."""
    return {(t["_description"], r["model"], r["run"]): r for t in bundle["agent_tests"] for r in t["runs"]}


def semantic(bundle: Path, *args: str) -> tuple[int, dict[str, dict[str, Any]]]:
    result = run_cli("test", str(bundle), "--level", "2", "--tier", "1", "-c", "semantic", "-f", "json", *args)
    assert result.returncode in (0, 1, 2), result.stderr
    tests = {t["name"]: t for c in json.loads(result.stdout)["categories"] for t in c["tests"]}
    return result.returncode, tests


def test_three_models_one_unreachable_run_side_by_side_and_the_targets_decide(tmp_path):
    gone = f"openai:gone@http://127.0.0.1:{closed_port()}/v1"
    with FakeLLM(replies=[two_turns] * 20) as good, FakeLLM(replies=[lazy] * 20) as poor:
        models = [f"openai:good@{good.url}/v1", f"openai:poor@{poor.url}/v1", gone]
        result = run_cli(*command(tmp_path, models))
    assert result.returncode == 0, result.stderr
    assert f"agent: model {gone} cannot be used, its runs are skipped: " in result.stderr
    table = [line.strip() for line in result.stdout.splitlines()]
    assert re.split(r"\s{2,}", table[1]) == list(GLANCE)
    cells = [re.split(r"\s{2,}", line) for line in table[2:]]
    rows = {(line[0], line[1]) for line in cells if len(line) == 11}
    assert {(model, name) for model in models[:2] for name in [*TASKS, "all"]} <= rows
    good_line = f"{models[0]} (target): 3/3 task(s) reached their pass rate; first call succeeded in 100% of runs;"
    assert any(line.startswith(good_line) for line in table), table
    assert any(line.startswith(f"{models[1]} (target): 0/3 task(s) reached their pass rate") for line in table)
    assert any(line.startswith(f"{gone}: not used, the model openai:gone at ") for line in table)
    assert started(good) == started(poor) == Counter({name: 2 for name in TASKS})  # the same tasks and runs
    bundle = json.loads((tmp_path / "agent.json").read_text())
    (entry,) = bundle["agent_runs"]
    assert [model["model"] for model in entry["models"]] == models[:2]
    assert [model["endpoint"] for model in entry["models"]] == [f"{good.url}/v1", f"{poor.url}/v1"]
    assert all(model["target"] for model in entry["models"]) and entry["model"] is None
    assert [gone_model["model"] for gone_model in entry["unusable"]] == [gone]
    for test in bundle["agent_tests"]:  # model by model, each run naming its model and endpoint
        assert [(run["model"], run["run"]) for run in test["runs"]] == [(m, i) for m in models[:2] for i in (1, 2)]
        assert {run["endpoint"] for run in test["runs"]} == {f"{good.url}/v1", f"{poor.url}/v1"}
    names = sorted(path.name for path in (tmp_path / "transcripts").rglob("*.jsonl"))
    assert len(names) == 12 and any("openai_poor" in name for name in names)

    code, tests = semantic(tmp_path / "agent.json")  # every model is a target: the poor one decides
    detail = tests["List the notes"]["detail"]
    assert code == 2 and tests["List the notes"]["result"] == "WARN", detail  # Tier 1 alone: WARN, not FAIL
    assert detail.startswith(f"{models[0]}: Tier 1: 2/2 run(s) passed")
    assert f" | {models[1]}: Tier 1: 0/2 run(s) passed" in detail and "did not call list_notes" in detail


def test_a_target_model_decides_and_the_others_are_reported_never_folded_in(tmp_path):
    with FakeLLM(replies=[two_turns] * 20) as good, FakeLLM(replies=[lazy] * 20) as poor:
        models = [f"openai:good@{good.url}/v1", f"openai:poor@{poor.url}/v1"]
        result = run_cli(*command(tmp_path, models, "--target-model", models[0]))
    assert result.returncode == 0, result.stderr
    bundle = json.loads((tmp_path / "agent.json").read_text())
    assert [model["target"] for model in bundle["agent_runs"][0]["models"]] == [True, False]
    assert all(test["targetModels"] == [models[0]] for test in bundle["agent_tests"])
    code, tests = semantic(tmp_path / "agent.json")
    assert code == 0 and {test["result"] for test in tests.values()} == {"PASS"}, tests
    detail = tests["Count the notes"]["detail"]
    assert f" | {models[1]} (reported, not a target): Tier 1: 0/2 run(s) passed" in detail


def test_when_no_model_can_be_used_the_agent_stops_with_exit_3(tmp_path):
    models = [f"openai:a@http://127.0.0.1:{closed_port()}/v1", f"openai:b@http://127.0.0.1:{closed_port()}/v1"]
    result = run_cli(*command(tmp_path, models))
    assert result.returncode == 3, result.stderr
    assert "error: none of the 2 models can be used (openai:a@http://127.0.0.1:" in result.stderr
    assert not (tmp_path / "agent.json").exists()


def test_models_given_twice_or_an_unknown_target_are_usage_errors(tmp_path):
    twice = run_cli(*command(tmp_path, ["openai:m@http://127.0.0.1:9/v1", "openai:m@http://127.0.0.1:9/v1"]))
    assert twice.returncode == 3 and "--model openai:m@http://127.0.0.1:9/v1 is given twice" in twice.stderr
    unknown = run_cli(*command(tmp_path, ["openai:m@http://127.0.0.1:9/v1"], "--target-model", "openai:x"))
    assert unknown.returncode == 3
    assert "--target-model openai:x is none of the models: openai:m@http://127.0.0.1:9/v1" in unknown.stderr


def test_the_tasks_file_may_name_the_models_and_the_targets(tmp_path):
    with FakeLLM(replies=[two_turns] * 20) as good, FakeLLM(replies=[lazy] * 20) as poor:
        models = [f"openai:good@{good.url}/v1", f"openai:poor@{poor.url}/v1"]
        tasks = json.loads(tasks_file(tmp_path).read_text())
        (tmp_path / "tasks.json").write_text(json.dumps({"models": models, "targetModels": models[:1], **tasks}))
        line = ["agent", "--bundle", str(tmp_path / "agent.json"), "--transcripts", str(tmp_path / "t")]
        line += ["--no-builtin", "--tasks", str(tmp_path / "tasks.json"), "--", *warm(*DEMO)]
        result = run_cli(*line)
    assert result.returncode == 0, result.stderr
    assert started(good) == started(poor) == Counter({name: 2 for name in TASKS})
    entry = json.loads((tmp_path / "agent.json").read_text())["agent_runs"][0]
    assert [model["target"] for model in entry["models"]] == [True, False]


def test_sigterm_keeps_every_finished_run_of_every_model_and_resume_runs_only_the_rest(tmp_path):
    bundle = tmp_path / "agent.json"
    models = ["openai:a", "openai:b"]  # two models behind one endpoint (--base-url), as a gateway serves them
    with FakeLLM(replies=[two_turns] * 40, delay=0.5) as fake:
        line = command(tmp_path, models, "--base-url", fake.url + "/v1")
        code, stderr = stopped_when(line, bundle.exists)
    assert code == 128 + signal.SIGTERM, stderr
    written = json.loads(bundle.read_text())
    (entry,) = written["agent_runs"]
    assert entry["incomplete"] is True and entry["planned_runs"] == 12
    kept = set(keyed(written))
    missing = {(item["test"], item["model"], index) for item in entry["missing"] for index in item["runs"]}
    planned = {(name, model, index) for name in TASKS for model in models for index in (1, 2)}
    assert kept and not kept & missing and kept | missing == planned, (kept, missing)

    with FakeLLM(replies=[two_turns] * 40) as fake:
        resumed = run_cli(*command(tmp_path, models, "--base-url", fake.url + "/v1", "--resume"))
    assert resumed.returncode == 0, resumed.stderr
    asked = Counter(r.body["model"] for r in fake.requests if not r.tool_results())
    assert asked == Counter(model.split(":")[1] for _, model, _ in missing)  # only the missing runs, per model
    complete = json.loads(bundle.read_text())
    done = set(keyed(complete))
    assert done == planned and "incomplete" not in complete["agent_runs"][0]
    before, after = keyed(written), keyed(complete)
    assert all(before[key] == after[key] for key in kept)  # the finished runs are kept as they were

    other = run_cli(*command(tmp_path, ["openai:a"], "--base-url", fake.url + "/v1", "--resume"))
    assert other.returncode == 0  # complete: nothing to resume, whatever the models


def table_bundle() -> dict[str, Any]:
    """Two models' runs of two tasks, as `agent` writes them: a passes both, b one of two."""

    def run(model: str, number: int, calls: list[str], answer: str, tokens: int) -> dict[str, Any]:
        made = [
            {"turn": turn, "tool": "mcp_aql_read", "operation": name, "params": {}, "outcome": "sent",
             "succeeded": True, "response": {"success": True, "data": {}}}
            for turn, name in enumerate(calls, 1)
        ]  # fmt: skip
        return {"run": number, "model": model, "endpoint": "http://127.0.0.1:9/v1", "tool_calls": made,
                "response_text": answer, "completed": True, "turns": len(calls) + 1, "input_tokens": tokens,
                "output_tokens": tokens // 10, "model_seconds": 0.5, "tool_seconds": 0.1}  # fmt: skip

    tasks = []
    for name in ("List the notes", "Count the notes"):
        runs = [run("openai:a", i, ["list_notes"], "Done", 100 * i) for i in (1, 2)]
        b_calls = ["introspect", "list_notes"] if name == "List the notes" else ["introspect"]
        runs += [run("openai:b", i, b_calls, "Done", 300) for i in (1, 2)]
        tasks.append({"_description": name, "input": name, "kind": "user", "expectedTools": ["list_notes"],
                      "expectedContent": [], "minPassRate": 0.8, "runs": runs})  # fmt: skip
    models = [
        {"model": name, "provider": "openai", "name": name[7:], "endpoint": "http://127.0.0.1:9/v1", "target": True}
        for name in ("openai:a", "openai:b")
    ]
    info = {"date": "2026-11-30T00:00:00+00:00", "model": None, "models": models, "runs": 2, "max_turns": 8}
    return {"implementation": "notes", "version": "1", "agent_tests": tasks, "agent_runs": [info]}


def test_the_table_in_json_is_schema_d_and_read_back_by_report(tmp_path):
    bundle = tmp_path / "b.json"
    bundle.write_text(json.dumps(table_bundle()))
    written = run_cli("test", str(bundle), "--level", "2", "--tier", "1", "-f", "json", "-o", str(tmp_path / "r.json"))
    assert written.returncode == 1, written.stderr  # Level 1 has no evidence here: only the agent runs
    report = json.loads((tmp_path / "r.json").read_text())
    from mcpaql_conformance.files.schemas import compiled_schema

    assert compiled_schema("report").shape_error(report) is None
    rows = {(row["model"], row["task"]): row for row in report["agentRuns"]["metrics"]}
    assert (
        rows["openai:b", "Count the notes"]["tier1"]["passed"] == 0 and rows["openai:b", "all"]["introspections"] == 1
    )
    assert report["agentRuns"]["models"][1].startswith("openai:b (target): 1/2 task(s) reached their pass rate")
    again = run_cli("report", str(tmp_path / "r.json"), "-f", "markdown")
    assert "| openai:b | Count the notes | 2 | 0/2 (0%, 95% CI 0-66%) |" in again.stdout
    assert "- openai:b (target): 1/2 task(s) reached their pass rate" in again.stdout


@NEEDS_CHROMIUM
def test_the_html_table_sorts_by_a_column_in_a_real_browser(tmp_path):
    bundle, page = tmp_path / "b.json", tmp_path / "report.html"
    bundle.write_text(json.dumps(table_bundle()))
    assert run_cli("test", str(bundle), "--level", "2", "--tier", "1", "-f", "html", "-o", str(page)).returncode == 1
    chromium_path = chromium()
    assert chromium_path is not None
    rows = "[...document.querySelectorAll('#agent-metrics tbody tr')]"
    order = f"{rows}.map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent)"
    click = "document.querySelectorAll('#agent-metrics th button')[{}].click()"
    with Browser(chromium_path) as browser:
        browser.open(page.as_uri())
        assert browser.evaluate(order)[0] == "openai:a List the notes"  # as written: model by model
        tokens = list(METRIC_HEADINGS).index("Tokens in")
        browser.evaluate(click.format(tokens))
        shown = browser.evaluate(order)
        assert shown[:2] == ["openai:a List the notes", "openai:a Count the notes"]  # 300 tokens each, the fewest
        assert (
            browser.evaluate(f"document.querySelectorAll('#agent-metrics th')[{tokens}].getAttribute('aria-sort')")
            == "ascending"
        )
        browser.evaluate(click.format(tokens))
        assert browser.evaluate(order)[:2] == ["openai:b all", "openai:a all"]  # descending: 1200 and 600 tokens
        browser.evaluate("document.getElementById('agent-metrics').scrollIntoView()")
        (tmp_path / "table.png").write_bytes(browser.screenshot())
        assert browser.errors == []


def test_a_prices_file_gives_each_model_its_cost_and_none_is_made_up(tmp_path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("currency: EUR\nmodels:\n  openai:a: {input: 2.5, output: 10}\n")
    with FakeLLM(replies=[two_turns] * 40) as fake:
        line = command(tmp_path, ["openai:a", "openai:b"], "--base-url", fake.url + "/v1", "--prices", str(prices))
        result = run_cli(*line)
    assert result.returncode == 0, result.stderr
    models = json.loads((tmp_path / "agent.json").read_text())["agent_runs"][0]["models"]
    assert models[0]["price"] == {"input_per_million": 2.5, "output_per_million": 10, "currency": "EUR"}
    assert "price" not in models[1]
    # each model: 3 tasks x 2 runs x 2 requests of 11 tokens in and 7 out
    cost = round((132 * 2.5 + 84 * 10) / 1_000_000, 4)
    summary = [line.strip() for line in result.stdout.splitlines() if line.strip().startswith("openai:")]
    assert any(line.startswith("openai:a (target): 3/3") and f"cost {cost:.4f} EUR" in line for line in summary)
    assert not any(line.startswith("openai:b") and "cost" in line for line in summary)

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"models": {"openai:a": {"input": -1, "output": 1}}}))
    refused = run_cli(*command(tmp_path, ["openai:a"], "--base-url", fake.url + "/v1", "--prices", str(bad)))
    assert refused.returncode == 3 and refused.stderr.count("\n") == 1 and "bad.json" in refused.stderr
    as_json = tmp_path / "prices.json"
    as_json.write_text(json.dumps({"models": {"openai:a": {"input": 2.5, "output": 10}}}))
    wrong = run_cli("test", str(as_json))
    assert wrong.returncode == 3 and "is a prices file, not an evidence bundle" in wrong.stderr


def rated_bundle(passes: dict[str, int], runs: int = 10) -> dict[str, Any]:
    """One task run ``runs`` times by each model, ``passes[model]`` of them calling list_notes."""
    tests = []
    all_runs = []
    for model, passed in passes.items():
        for number in range(1, runs + 1):
            calls = ["list_notes"] if number <= passed else []
            made = [{"turn": 1, "tool": "mcp_aql_read", "operation": name, "params": {}, "outcome": "sent",
                     "succeeded": True, "response": {"success": True, "data": {}}} for name in calls]  # fmt: skip
            all_runs.append({"run": number, "model": model, "tool_calls": made, "response_text": "Done",
                             "completed": True, "turns": 2})  # fmt: skip
    tests.append({"_description": "List the notes", "input": "List them.", "kind": "user",
                  "expectedTools": ["list_notes"], "minPassRate": 0.8, "runs": all_runs})  # fmt: skip
    return {"implementation": "notes", "version": "1", "agent_tests": tests}


def test_diff_names_the_model_a_server_change_hurt_and_fails_the_release(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(rated_bundle({"openai:a": 10, "openai:b": 10})))
    new.write_text(json.dumps(rated_bundle({"openai:a": 10, "openai:b": 2})))
    result = run_cli("diff", str(old), str(new), "--level", "2")
    assert result.returncode == 1, result.stdout
    assert "Agent pass rates:" in result.stdout
    said = (
        "BREAKING openai:b: List the notes (Tier 1): pass rate 10/10 (100%, 95% CI 72-100%) -> 2/10 (20%, 95% CI 6-51%)"
    )
    assert said in result.stdout
    assert "openai:a: List the notes" not in result.stdout  # unchanged for the other model
    better = run_cli("diff", str(new), str(old), "--level", "2", "-f", "json")
    changes = [c for c in json.loads(better.stdout)["changes"] if c["kind"] == "agent"]
    assert [(c["subject"], c["breaking"]) for c in changes] == [("openai:b: List the notes (Tier 1)", False)]
    close = tmp_path / "close.json"
    close.write_text(json.dumps(rated_bundle({"openai:a": 10, "openai:b": 8})))
    within = run_cli("diff", str(old), str(close), "--level", "2", "-f", "json")
    assert not [c for c in json.loads(within.stdout)["changes"] if c["kind"] == "agent"]  # within the intervals


def test_the_prices_file_the_docs_show_is_one_agent_takes():
    import yaml

    from mcpaql_conformance.files.configio import check_document

    page = (ROOT / "docs" / "agent-runs.md").read_text(encoding="utf-8")
    [shown] = [block for block in re.findall(r"^```yaml\n(.*?)^```$", page, re.M | re.S) if "models:" in block]
    check_document(yaml.safe_load(shown), "prices", "docs/agent-runs.md")


def test_check_with_agent_takes_several_models_and_its_report_has_a_line_for_each(tmp_path):
    gone = f"openai:gone@http://127.0.0.1:{closed_port()}/v1"
    with FakeLLM(replies=[two_turns] * 20) as fake:
        args = ["check", "--agent", "--model", f"openai:a@{fake.url}/v1", "--model", gone, "--no-builtin"]
        args += ["--tasks", str(tasks_file(tmp_path, runs=1)), "--level", "2", "--tier", "1", "-f", "json"]
        args += ["--capture-dir", str(tmp_path / "capture"), "--transcripts", str(tmp_path / "t")]
        result = run_cli(*args, "--", *warm(*DEMO))
    assert result.returncode in (0, 2), result.stderr
    assert f"agent: model {gone} cannot be used, its runs are skipped: " in result.stderr
    lines = json.loads(result.stdout)["agentRuns"]["models"]
    assert lines[0].startswith(f"openai:a@{fake.url}/v1 (target): 3/3 task(s) reached their pass rate")
    assert lines[1].startswith(f"{gone}: not used, ")


def test_a_model_that_stops_answering_mid_run_leaves_the_others_going(tmp_path):
    refused = [(401, {})] * 40  # the preflight passes (its probe is answered), every run is refused
    with FakeLLM(replies=[two_turns] * 20) as good, FakeLLM(failures=refused) as broken:
        models = [f"openai:good@{good.url}/v1", f"openai:broken@{broken.url}/v1"]
        result = run_cli(*command(tmp_path, models))
    assert result.returncode == 0, result.stderr
    assert started(good) == Counter({name: 2 for name in TASKS})  # every run of the other model
    entry = json.loads((tmp_path / "agent.json").read_text())["agent_runs"][0]
    assert entry["incomplete"] is True and entry["reason"].startswith(f"{models[1]} could not go on (")
    assert {item["model"] for item in entry["missing"]} == {models[1]}
    assert f"agent: stopped: {models[1]} could not go on (" in result.stderr
    assert "agent --resume --bundle" in result.stderr


# --- what a review found --------------------------------------------------------------------


def test_a_bundle_of_one_model_from_before_runs_named_it_resumes_as_that_one_model(tmp_path):
    bundle = tmp_path / "agent.json"
    old_run = {"run": 1, "tool_calls": [], "response_text": "Done", "completed": True, "turns": 1}
    tests = [{"_description": name, "input": text, "kind": "user", "expectedTools": ["list_notes"],
              "minPassRate": 0.8, "runs": [dict(old_run)]} for name, text in TASKS.items()]  # fmt: skip
    entry = {"date": "2026-01-01T00:00:00+00:00", "model": "openai:scripted", "judge": None, "runs": 3,
             "max_turns": 8, "incomplete": True, "reason": "stopped by SIGTERM", "finished_runs": 3,
             "planned_runs": 6, "missing": [{"test": name, "runs": [2]} for name in TASKS]}  # fmt: skip
    bundle.write_text(
        json.dumps({"implementation": "notes", "version": "1", "agent_tests": tests, "agent_runs": [entry]})
    )
    with FakeLLM(replies=[two_turns] * 20) as fake:
        result = run_cli(*command(tmp_path, ["openai:scripted"], "--base-url", fake.url + "/v1", "--resume"))
    assert result.returncode == 0, result.stderr
    written = json.loads(bundle.read_text())
    assert {run["model"] for test in written["agent_tests"] for run in test["runs"]} == {"openai:scripted"}
    _, judged = semantic(bundle)
    assert " | " not in judged["List the notes"]["detail"]  # one model, not "unnamed model" beside it


def test_a_target_model_with_no_run_of_a_task_leaves_it_unjudged_the_others_never_stand_in(tmp_path):
    data = table_bundle()
    for test in data["agent_tests"]:
        test["targetModels"] = ["openai:c"]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data))
    _, judged = semantic(path)
    detail = judged["List the notes"]["detail"]
    assert judged["List the notes"]["result"] == "WARN"
    assert detail.startswith("no evidence: no run of the target model(s) openai:c | openai:a (reported, not a target)")


def test_resume_keeps_the_runs_of_a_model_that_cannot_be_used_this_time(tmp_path):
    bundle = tmp_path / "agent.json"
    gone = f"openai:b@http://127.0.0.1:{closed_port()}/v1"
    with FakeLLM(replies=[two_turns] * 20) as fake:
        here = f"openai:a@{fake.url}/v1"
        run = {"tool_calls": [], "response_text": "Done", "completed": True, "turns": 1}
        tests = [{"_description": name, "input": text, "kind": "user", "expectedTools": ["list_notes"],
                  "minPassRate": 0.8, "runs": [{**run, "run": 1, "model": here}, {**run, "run": 1, "model": gone}]}
                 for name, text in TASKS.items()]  # fmt: skip
        models = [{"model": name, "provider": "openai", "name": name[7:8], "endpoint": "x", "target": True}
                  for name in (here, gone)]  # fmt: skip
        entry = {"date": "2026-01-01T00:00:00+00:00", "model": None, "models": models, "judge": None, "runs": 3,
                 "max_turns": 8, "incomplete": True, "reason": "stopped by SIGTERM", "finished_runs": 6,
                 "planned_runs": 12, "missing": []}  # fmt: skip
        bundle.write_text(
            json.dumps({"implementation": "n", "version": "1", "agent_tests": tests, "agent_runs": [entry]})
        )
        result = run_cli(*command(tmp_path, [here, gone], "--resume"))
    assert result.returncode == 0, result.stderr
    written = json.loads(bundle.read_text())
    kept = {(test["_description"], r["model"], r["run"]) for test in written["agent_tests"] for r in test["runs"]}
    assert {(name, gone, 1) for name in TASKS} <= kept  # its finished runs are kept
    assert {(name, here, 2) for name in TASKS} <= kept  # the usable model's missing runs ran
    (after,) = written["agent_runs"]
    assert after["incomplete"] is True and after["reason"].startswith(f"{gone} could not go on (")
    assert [(item["model"], item["runs"]) for item in after["missing"]] == [(gone, [2])] * 3


def test_the_judge_goes_where_base_url_goes_never_to_a_model_s_own_url(tmp_path):
    with FakeLLM(replies=[two_turns] * 20) as fake:
        line = command(tmp_path, [f"openai:a@{fake.url}/v1"], "--judge", "openai:j")
        result = run_cli(*line, env={"OPENAI_API_KEY": ""})
    assert result.returncode == 3 and "set $OPENAI_API_KEY to the openai API key" in result.stderr


def test_a_model_at_its_own_url_takes_the_key_named_for_it_and_never_base_url_s(tmp_path):
    with FakeLLM(replies=[two_turns] * 20) as own, FakeLLM(replies=[two_turns] * 20) as shared:
        a, b = f"openai:a@{own.url}/v1", "openai:b"
        line = command(tmp_path, [a, b], "--base-url", shared.url + "/v1", "--api-key-env", "SHARED_KEY")
        line[line.index("--no-builtin") : line.index("--no-builtin")] = ["--model-key-env", f"{a}=OWN_KEY"]
        result = run_cli(*line, env={"OWN_KEY": "own-key-123456", "SHARED_KEY": "shared-key-654321"})
    assert result.returncode == 0, result.stderr
    assert {r.headers["authorization"] for r in own.requests} == {"Bearer own-key-123456"}
    assert {r.headers["authorization"] for r in shared.requests} == {"Bearer shared-key-654321"}
    written = (tmp_path / "agent.json").read_text()
    assert "own-key-123456" not in written and "shared-key-654321" not in written
    wrong = run_cli(*command(tmp_path, [b], "--model-key-env", "openai:b=X"))
    assert wrong.returncode == 3 and "--model-key-env openai:b: name a model given with its own URL" in wrong.stderr


def test_diff_compares_a_bundle_from_before_runs_named_their_model_with_one_after(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    before = rated_bundle({"openai:x": 10})
    for run in before["agent_tests"][0]["runs"]:
        del run["model"]
    before["agent_runs"] = [{"date": "2026-01-01T00:00:00+00:00", "model": "openai:x", "runs": 10, "max_turns": 8}]
    old.write_text(json.dumps(before))
    new.write_text(json.dumps(rated_bundle({"openai:x": 2})))
    result = run_cli("diff", str(old), str(new), "--level", "2")
    assert result.returncode == 1
    assert "BREAKING openai:x: List the notes (Tier 1): pass rate 10/10" in result.stdout
    assert "side only" not in result.stdout
