"""Several models side by side in one agent run (issue 38): every model runs the same tasks and
runs, each run names its model, a model that cannot be used is said in one line and skipped
while the others go on, the target models decide Semantic Evaluation and the others are
reported beside them, and a signal keeps every finished run of every model for `--resume`.
Against loopback fake model APIs (tests/fake_llm.py), one per model."""

from __future__ import annotations

import json
import signal
import socket
from collections import Counter
from pathlib import Path
from typing import Any

from tests.acceptance.conftest import DEMO, run_cli, stopped_when, warm
from tests.acceptance.test_agent_resume import TASKS, started, tasks_file, two_turns
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
