"""Agent runs that a team can afford to interrupt: the bundle is written after every finished
run and marked incomplete until the end; a signal or the token budget keeps every finished run,
`test` judges that evidence and says it is incomplete in every format, and `agent --resume`
runs only the missing runs. Runs go several at once (``--concurrency``) in a deterministic
order, and one 429 pauses them all. Against the loopback fake model API (tests/fake_llm.py)."""

from __future__ import annotations

import json
import random
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tests.acceptance.conftest import DEMO, run_cli, stopped_when, warm
from tests.fake_llm import FakeLLM, Request

TASKS = {  # the task's name -> its input (the user's message)
    "List the notes": "Use the list_notes operation and tell me what it returned.",
    "Read one note": "Use list_notes, then tell me the title of the first note.",
    "Count the notes": "Use list_notes and tell me how many notes there are.",
}


def tasks_file(tmp_path: Path, runs: int = 2) -> Path:
    path = tmp_path / "tasks.json"
    tasks = [
        {"_description": name, "input": text, "expectedTools": ["list_notes"], "runs": runs}
        for name, text in TASKS.items()
    ]
    path.write_text(json.dumps({"tasks": tasks}))
    return path


def two_turns(request: Request) -> dict[str, Any]:
    """Every run: one list_notes call, then an answer (two requests, 18 tokens each)."""
    if not request.tool_results():
        call = {"name": "mcp_aql_read", "arguments": {"operation": "list_notes", "params": {}}}
        return {"tool_calls": [call], "usage": [11, 7]}
    return {"text": "Done: I listed the notes.", "usage": [11, 7]}


def started(fake: FakeLLM) -> Counter[str]:
    """Runs the fake model API saw start (a request without tool results), by task name."""
    names = {text: name for name, text in TASKS.items()}
    return Counter(names[r.user_text()] for r in fake.requests if not r.tool_results() and r.user_text() in names)


def agent_command(tmp_path: Path, fake: FakeLLM, *extra: str) -> list[str]:
    command = ["agent", "--bundle", str(tmp_path / "agent.json"), "--transcripts", str(tmp_path / "transcripts")]
    command += ["--model", "openai:scripted", "--base-url", fake.url + "/v1", "--no-builtin"]
    return [*command, "--tasks", str(tasks_file(tmp_path)), "--timeout", "15", *extra, "--", *warm(*DEMO)]


def runs_of(bundle: dict[str, Any]) -> dict[str, list[int]]:
    return {test["_description"]: [run["run"] for run in test["runs"]] for test in bundle["agent_tests"]}


def recorded(bundle: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(test["_description"], run["run"]): run for test in bundle["agent_tests"] for run in test["runs"]}


def reports(bundle: Path) -> dict[str, str]:
    """The bundle judged at Level 2 in every format."""
    found = {}
    for fmt in ("text", "markdown", "html", "json", "junit"):
        result = run_cli("test", str(bundle), "--level", "2", "--tier", "1", "-f", fmt)
        assert result.returncode in (0, 1, 2), result.stderr
        found[fmt] = result.stdout
    return found


# --- 2. no run is ever lost ---------------------------------------------------------------------


def test_sigterm_keeps_the_finished_runs_test_says_incomplete_and_resume_runs_only_the_rest(tmp_path):
    bundle = tmp_path / "agent.json"
    with FakeLLM(replies=[two_turns] * 40, delay=1.0) as fake:
        code, stderr = stopped_when(agent_command(tmp_path, fake), bundle.exists)  # the first finished run
    assert code == 128 + signal.SIGTERM, stderr
    written = json.loads(bundle.read_text())
    (entry,) = written["agent_runs"]
    kept = runs_of(written)
    finished = sum(len(runs) for runs in kept.values())
    assert entry["incomplete"] is True and entry["reason"] == "stopped by SIGTERM"
    assert 1 <= finished < 6 and entry["finished_runs"] == finished and entry["planned_runs"] == 6
    missing = {item["test"]: item["runs"] for item in entry["missing"]}
    for name in TASKS:  # every planned run is either kept or missing, never both
        assert sorted(kept.get(name, []) + missing.get(name, [])) == [1, 2], (kept, missing)
    assert list(kept) == [name for name in TASKS if name in kept]  # in plan order
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("error: stopped by SIGTERM during the agent runs: the server was stopped; ")
    assert f"{finished} of 6 agent run(s) had finished: they are in {bundle}, marked incomplete" in last
    assert f"(agent --resume --bundle {bundle} runs the rest)" in last

    line = f"incomplete agent evidence: {finished} of 6 runs finished (stopped by SIGTERM)"
    shown = reports(bundle)
    assert line in " ".join(shown["text"].split()) and line in shown["markdown"] and line in shown["junit"]
    assert 'id="agent-incomplete"' in shown["html"] and line in shown["html"]
    assert json.loads(shown["json"])["agentRuns"]["incomplete"].startswith(line)
    assert f'<property name="agent.incomplete" value="{line}' in shown["junit"]

    with FakeLLM(replies=[two_turns] * 40) as fake:
        resumed = run_cli(*agent_command(tmp_path, fake, "--resume"))
    assert resumed.returncode == 0, resumed.stderr
    assert f"agent: resuming {bundle}: {finished} of 6 run(s) had finished" in resumed.stderr
    assert started(fake) == Counter({name: len(runs) for name, runs in missing.items()})  # only the missing runs
    complete = json.loads(bundle.read_text())
    assert runs_of(complete) == {name: [1, 2] for name in TASKS}
    (entry,) = complete["agent_runs"]  # the incomplete invocation's entry is replaced, not added to
    assert "incomplete" not in entry and entry["resumed_from"] is not None
    before, after = recorded(written), recorded(complete)
    assert all(before[name, index] == after[name, index] for name, runs in kept.items() for index in runs)
    assert "incomplete agent evidence" not in reports(bundle)["text"]

    with FakeLLM() as fake:  # nothing left: no server started, no request sent, exit 0
        again = run_cli(*agent_command(tmp_path, fake, "--resume"))
    assert again.returncode == 0, again.stderr
    assert f"agent: nothing to resume: the agent runs in {bundle} are complete" in again.stderr
    assert not fake.requests and not fake.probes


def test_resume_refuses_other_options_and_starts_afresh_without_a_bundle(tmp_path):
    bundle = tmp_path / "agent.json"
    with FakeLLM(replies=[two_turns] * 40) as fake:
        fresh = run_cli(*agent_command(tmp_path, fake, "--resume", "--max-tokens-total", "40", "--concurrency", "1"))
    assert fresh.returncode == 0, fresh.stderr
    assert f"agent: nothing to resume: {bundle} does not exist yet; every run is run" in fresh.stderr
    assert json.loads(bundle.read_text())["agent_runs"][0]["incomplete"] is True
    before = bundle.read_bytes()
    with FakeLLM(replies=[two_turns] * 40) as fake:
        other = run_cli(*agent_command(tmp_path, fake, "--resume", "--max-turns", "3"))
    assert other.returncode == 3
    assert other.stderr == (
        f"error: --resume: the incomplete agent runs in {bundle} were made with --max-turns 8, not 3: give the"
        " same options, or leave out --resume to run every run again\n"
    )
    assert bundle.read_bytes() == before and not fake.requests


# --- 5. the token budget --------------------------------------------------------------------------


def test_the_token_budget_stops_the_runs_cleanly_and_resume_finishes_them(tmp_path):
    bundle = tmp_path / "agent.json"
    budget = ["--max-tokens-total", "100", "--concurrency", "1"]  # 36 tokens a run: the third run passes 100
    with FakeLLM(replies=[two_turns] * 40) as fake:
        result = run_cli(*agent_command(tmp_path, fake, *budget))
    assert result.returncode == 0, result.stderr  # the evidence is kept and said to be incomplete
    # the third run's last reply passed 100 tokens: the fourth stopped before its first request
    assert started(fake) == Counter({"List the notes": 2, "Read one note": 1}) and len(fake.requests) == 6
    assert (
        "agent: stopped: token budget of 100 reached, 108 tokens used; 3 of 6 agent run(s) had finished: they are"
        f" in {bundle}, marked incomplete (agent --resume --bundle {bundle} runs the rest)"
    ) in result.stderr
    written = json.loads(bundle.read_text())
    assert runs_of(written) == {"List the notes": [1, 2], "Read one note": [1]}
    (entry,) = written["agent_runs"]
    assert entry["incomplete"] is True and entry["reason"] == "token budget of 100 reached, 108 tokens used"
    assert entry["missing"] == [
        {"test": "Read one note", "model": "openai:scripted", "runs": [2]},
        {"test": "Count the notes", "model": "openai:scripted", "runs": [1, 2]},
    ]
    text = " ".join(reports(bundle)["text"].split())  # the text report wraps long lines
    assert "incomplete agent evidence: 3 of 6 runs finished (token budget of 100 reached, 108 tokens used)" in text

    with FakeLLM(replies=[two_turns] * 40) as fake:
        resumed = run_cli(*agent_command(tmp_path, fake, *budget, "--resume"))  # a new budget for the rest
    assert resumed.returncode == 0, resumed.stderr
    assert started(fake) == Counter({"Read one note": 1, "Count the notes": 2})
    complete = json.loads(bundle.read_text())
    assert runs_of(complete) == {name: [1, 2] for name in TASKS}
    assert "incomplete" not in complete["agent_runs"][0]


# --- 4. runs at once ----------------------------------------------------------------------------


def test_runs_go_at_once_and_land_in_plan_order(tmp_path):
    lock, flying, most = threading.Lock(), [0], [0]
    shuffle = random.Random(7)

    def uneven(request: Request) -> dict[str, Any]:  # each reply takes its own time
        with lock:
            flying[0] += 1
            most[0] = max(most[0], flying[0])
        time.sleep(shuffle.uniform(0.05, 0.4))
        with lock:
            flying[0] -= 1
        return two_turns(request)

    with FakeLLM(replies=[uneven] * 40) as fake:
        result = run_cli(*agent_command(tmp_path, fake))  # the default: 4 at once
    assert result.returncode == 0, result.stderr
    assert most[0] > 1  # several replies were being waited for at once
    written = json.loads((tmp_path / "agent.json").read_text())
    assert runs_of(written) == {name: [1, 2] for name in TASKS}
    assert written["agent_runs"][0]["concurrency"] == 4
    transcripts = sorted(p.name for p in (tmp_path / "transcripts").rglob("*.jsonl"))
    assert transcripts == sorted(f"{name.replace(' ', '_')}-{run}.jsonl" for name in TASKS for run in (1, 2))
    for test in written["agent_tests"]:
        for run in test["runs"]:
            assert Path(run["transcript"]).name == f"{test['_description'].replace(' ', '_')}-{run['run']}.jsonl"


def test_one_429_pauses_every_run_for_as_long_as_the_api_asks(tmp_path):
    with FakeLLM(replies=[two_turns] * 40, failures=[(429, {"retry-after": "1"})], delay=0.2) as fake:
        result = run_cli(*agent_command(tmp_path, fake, "--concurrency", "3"))
    assert result.returncode == 0, result.stderr
    first = fake.requests[0].at  # three runs ask at once; one is told to retry after a second (0.2 s later)
    later = [request.at - first for request in fake.requests[1:]]
    # the other two were answered and went on to ask again at once: they waited out that second too
    assert not [delta for delta in later if 0.12 < delta < 1.1], later
    assert len(fake.requests) == 1 + 12  # the retry, and two requests a run
    assert json.loads((tmp_path / "agent.json").read_text())["agent_runs"][0].get("incomplete") is None


def test_check_agent_uses_concurrency_for_the_runs_too(tmp_path):
    with FakeLLM(replies=[two_turns] * 40) as fake:
        args = ["check", "--agent", "--level", "2", "--tier", "1", "--capture-dir", str(tmp_path / "capture")]
        args += ["--bundle", str(tmp_path / "b.json"), "--transcripts", str(tmp_path / "t")]
        args += ["--model", "openai:scripted", "--base-url", fake.url + "/v1", "--no-builtin"]
        args += ["--tasks", str(tasks_file(tmp_path)), "--concurrency", "2", "-f", "json"]
        result = run_cli(*args, "--", *warm(*DEMO))
    assert result.returncode in (0, 1, 2), result.stderr
    written = json.loads((tmp_path / "b.json").read_text())
    assert written["agent_runs"][0]["concurrency"] == 2 and "incomplete" not in written["agent_runs"][0]
    assert "incomplete" not in json.loads(result.stdout)["agentRuns"]


def test_check_agent_stopped_after_a_finished_run_keeps_it_in_the_bundle(tmp_path):
    from tests.acceptance.test_edges_agent import SLOW, scenario

    bundle, transcripts = tmp_path / "kept.json", tmp_path / "t"
    command = ["check", "--agent", "--bundle", str(bundle), "--capture-dir", str(tmp_path / "records")]
    command += ["--scenario", str(scenario(tmp_path, "first", 1)), "--scenario", str(scenario(tmp_path, "second"))]
    command += ["--transcripts", str(transcripts), "--", *SLOW]
    code, stderr = stopped_when(command, lambda: any(transcripts.rglob("*.jsonl")), settle=1.5)
    assert code == 128 + signal.SIGTERM, stderr
    last = stderr.strip().splitlines()[-1]
    assert (
        f"the capture's bundle was written to {bundle}; 1 of 2 agent run(s) had finished: they are in {bundle},"
        f" marked incomplete (agent --resume --bundle {bundle} runs the rest)"
    ) in last
    written = json.loads(bundle.read_text())
    assert written["introspection"] and [test["_description"] for test in written["agent_tests"]] == ["first"]
    assert written["agent_runs"][-1]["reason"] == "stopped by SIGTERM"
    judged = run_cli("test", str(bundle), "--level", "2", "-f", "json")
    assert (
        judged.returncode in (0, 1, 2)
        and "1 of 2 runs finished" in json.loads(judged.stdout)["agentRuns"]["incomplete"]
    )
