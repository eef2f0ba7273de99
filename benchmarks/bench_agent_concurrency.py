"""Time agent runs one at a time and several at once: the loopback fake model API answers every
reply after 500 ms, three tasks of five runs each (two replies a run: a list_notes call, then
the answer) drive the demo server, with the default --concurrency and with 1.

Usage: python benchmarks/bench_agent_concurrency.py [--repeat 2] [--delay 0.5]

Two measurements, both in one run of the benchmark, settings interleaved (the best counts):

- the agent runs: the library's ``run_agent`` against the demo served over streamable HTTP,
  started once beforehand (connect, discovery, the endpoint checked, every run recorded and
  the bundle rewritten after each). This is what concurrency can change; the target is that
  the default takes at most 0.35 of the one-at-a-time time. One at a time, 15 runs of two
  replies wait 15 s for the model; four at a time, four waves of runs.
- the whole ``agent`` command over stdio, once each, for information: it adds what no
  concurrency shortens (starting Python, importing the SDKs, starting the server).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcpaql_conformance.agent.endpoints import Endpoint, ModelSpec  # noqa: E402
from mcpaql_conformance.agent.run import DEFAULT_CONCURRENCY, AgentOptions, run_agent  # noqa: E402
from mcpaql_conformance.live.connection import Target  # noqa: E402
from tests.acceptance.conftest import DEMO, demo_over_http  # noqa: E402
from tests.fake_llm import FakeLLM, Request  # noqa: E402

TARGET = 0.35
TASKS, RUNS = 3, 5


def two_turns(request: Request) -> dict[str, Any]:
    if not request.tool_results():
        return {"tool_calls": [{"name": "mcp_aql_read", "arguments": {"operation": "list_notes", "params": {}}}]}
    return {"text": "Done: I listed the notes."}


def tasks_file(folder: Path, count: int = TASKS) -> Path:
    tasks = folder / "tasks.json"
    listed = [
        {"_description": f"Task {n}", "input": f"Task {n}: use list_notes.", "expectedTools": ["list_notes"]}
        for n in range(1, count + 1)
    ]
    tasks.write_text(json.dumps({"tasks": listed}))
    return tasks


def in_process(url: str, concurrency: int, delay: float, folder: Path) -> float:
    """Seconds of ``run_agent`` against the running demo."""
    bundle = folder / f"agent-{concurrency}-{time.monotonic_ns()}.json"
    with FakeLLM(replies=[two_turns] * (TASKS * RUNS * 2), delay=delay) as fake:
        options = AgentOptions(
            target=Target(url=url),
            bundle=bundle,
            models=(Endpoint(ModelSpec("openai", "scripted"), base_url=fake.url + "/v1"),),
            tasks=tasks_file(folder),
            builtin=False,
            runs=RUNS,
            transcripts=folder / "transcripts",
            concurrency=concurrency,
        )
        start = time.perf_counter()
        result = run_agent(options)
        seconds = time.perf_counter() - start
    assert result.runs == TASKS * RUNS and result.incomplete is None, result
    assert "incomplete" not in result.bundle["agent_runs"][-1]
    return seconds


def whole_command(concurrency: int, delay: float, folder: Path) -> float:
    """Seconds of the ``agent`` command over stdio, Python's and the server's start-up included."""
    with FakeLLM(replies=[two_turns] * (TASKS * RUNS * 2), delay=delay) as fake:
        command = [
            sys.executable,
            "-m",
            "mcpaql_conformance",
            "agent",
            "--bundle",
            str(folder / f"cli-{concurrency}.json"),
        ]
        command += ["--transcripts", str(folder / "transcripts"), "--model", "openai:scripted", "--no-builtin"]
        command += ["--base-url", fake.url + "/v1", "--tasks", str(tasks_file(folder)), "--runs", str(RUNS)]
        command += ["--concurrency", str(concurrency), "--", *DEMO]
        start = time.perf_counter()
        run = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
        seconds = time.perf_counter() - start
    if run.returncode != 0:
        raise SystemExit(f"agent failed ({run.returncode}): {run.stderr.strip()}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds before each reply of the fake model API")
    args = parser.parse_args()
    settings = (DEFAULT_CONCURRENCY, 1)
    runs: dict[int, list[float]] = {concurrency: [] for concurrency in settings}
    commands: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as scratch, demo_over_http() as url:
        for _ in range(args.repeat):
            for concurrency in settings:  # interleaved: the machine's noise hits both
                runs[concurrency].append(in_process(url, concurrency, args.delay, Path(scratch)))
        for concurrency in settings:
            commands[concurrency] = whole_command(concurrency, args.delay, Path(scratch))
    print(f"{TASKS} tasks x {RUNS} runs, two replies a run, {args.delay:g} s per reply")
    best = {concurrency: min(times) for concurrency, times in runs.items()}
    print(f"the agent runs (library, streamable HTTP, best of {args.repeat}):")
    for concurrency in settings:
        every = ", ".join(f"{seconds:.2f}" for seconds in runs[concurrency])
        print(f"  --concurrency {concurrency}: {best[concurrency]:6.2f} s  (each: {every})")
    print("the whole command (stdio, start-up included, one run):")
    for concurrency in settings:
        print(f"  --concurrency {concurrency}: {commands[concurrency]:6.2f} s")
    ratio = best[DEFAULT_CONCURRENCY] / best[1]
    whole = commands[DEFAULT_CONCURRENCY] / commands[1]
    verdict = "meets" if ratio <= TARGET else "misses"
    print(
        f"ratio, the default (--concurrency {DEFAULT_CONCURRENCY}) to one at a time: the agent runs {ratio:.2f}"
        f" ({verdict} the target <= {TARGET}); the whole command: {whole:.2f}"
    )


if __name__ == "__main__":
    main()
