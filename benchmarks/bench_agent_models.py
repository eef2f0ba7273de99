"""Time several models side by side in one agent run against the same models one after the
other: N loopback fake model APIs (one per model) each answer every reply after 500 ms, and
every model runs the same tasks (two tasks of three runs, two replies a run) against the demo
server, with the default --concurrency.

Usage: python benchmarks/bench_agent_models.py [--models 3] [--repeat 2] [--delay 0.5]

Both through the library's ``run_agent`` against the demo over streamable HTTP, started once
beforehand (connect, discovery, the endpoints checked, every run recorded and the bundle
rewritten after each), settings interleaved (the best counts):

- side by side: one invocation with the N models;
- one after the other: N invocations, one model each, their times summed.

The target: side by side costs at most 1.25/N of one after the other (ideally 1/N: each
model's endpoint is its own, and the demo server is not the bottleneck).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from bench_agent_concurrency import tasks_file, two_turns  # noqa: E402

from mcpaql_conformance.agent.endpoints import Endpoint, ModelSpec  # noqa: E402
from mcpaql_conformance.agent.run import AgentOptions, run_agent  # noqa: E402
from mcpaql_conformance.live.connection import Target  # noqa: E402
from tests.acceptance.conftest import demo_over_http  # noqa: E402
from tests.fake_llm import FakeLLM  # noqa: E402

TASKS, RUNS = 2, 3
SLACK = 1.25  # the target: at most SLACK / N of one after the other


def timed(url: str, urls: list[str], folder: Path) -> float:
    """Seconds of one ``run_agent`` with one model per URL, every run recorded."""
    models = tuple(Endpoint(ModelSpec("openai", f"m{n}"), base_url=at, own_url=True) for n, at in enumerate(urls))
    options = AgentOptions(
        target=Target(url=url),
        bundle=folder / f"agent-{time.monotonic_ns()}.json",
        models=models,
        tasks=tasks_file(folder, TASKS),
        builtin=False,
        runs=RUNS,
        transcripts=None,
    )
    start = time.perf_counter()
    result = run_agent(options)
    seconds = time.perf_counter() - start
    assert result.runs == TASKS * RUNS * len(urls) and result.incomplete is None, result
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds before each reply of the fake model APIs")
    args = parser.parse_args()
    replies = [two_turns] * (TASKS * RUNS * 2 * (args.repeat * 2 + 1))
    side: list[float] = []
    alone: list[float] = []
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-models-") as scratch:
        fakes = [stack.enter_context(FakeLLM(replies=list(replies), delay=args.delay)) for _ in range(args.models)]
        urls = [fake.url + "/v1" for fake in fakes]
        url = stack.enter_context(demo_over_http())
        for _ in range(args.repeat):  # interleaved: the machine's noise hits both
            side.append(timed(url, urls, Path(scratch)))
            alone.append(sum(timed(url, [one], Path(scratch)) for one in urls))
    best_side, best_alone = min(side), min(alone)
    ratio, target = best_side / best_alone, SLACK / args.models
    print(f"{args.models} models, {TASKS} tasks x {RUNS} runs each, two replies a run, {args.delay:g} s per reply")
    print(f"  side by side, one invocation:     {best_side:6.2f} s  (each: {', '.join(f'{s:.2f}' for s in side)})")
    print(f"  one after the other, summed:      {best_alone:6.2f} s  (each: {', '.join(f'{s:.2f}' for s in alone)})")
    verdict = "meets" if ratio <= target else "misses"
    print(f"ratio, side by side to one after the other: {ratio:.2f} ({verdict} the target <= {target:.2f})")


if __name__ == "__main__":
    main()
