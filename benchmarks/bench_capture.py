"""Time a capture of the demo server with an injected per-call latency, one probe at a time and
with the default concurrency.

Usage: python benchmarks/bench_capture.py [--latency-ms 50] [--concurrency 4] [--runs 3]

Two measurements, both printed with calls per second:

- the capture itself: the library's ``capture()`` against the demo served over streamable
  HTTP, started once beforehand (connect, handshake, every probe and cycle, records and
  bundle). This is what concurrency can change; the target is that the default takes at
  most 0.35 of the one-at-a-time time.
- the whole command over stdio, for information: it adds about 1.5 s that no concurrency
  can shorten (starting Python and importing the MCP SDK, in our process and the server's).

Settings are interleaved run by run, so that machine noise hits both; the best run counts.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcpaql_conformance.capture.run import CaptureOptions, capture  # noqa: E402
from mcpaql_conformance.live.connection import Target  # noqa: E402
from mcpaql_conformance.live.levels import Permission  # noqa: E402
from tests.acceptance.conftest import demo_over_http  # noqa: E402

SCRIPT = Path(sys.executable).parent / "mcpaql-conformance"
CLI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "mcpaql_conformance"]
TARGET = 0.35


def in_process(url: str, concurrency: int, folder: Path) -> tuple[float, int]:
    """(seconds, calls) of one capture() against the running demo."""
    options = CaptureOptions(
        Target(url=url), folder / f"bundle-{concurrency}.json", None, folder / "records", 20.0,
        Permission.DESTRUCTIVE, concurrency,
    )  # fmt: skip
    start = time.perf_counter()
    result = capture(options)
    return time.perf_counter() - start, int(result.metrics["calls"])


def whole_command(latency_ms: float, concurrency: int, folder: Path) -> tuple[float, int]:
    """(seconds, calls) of the capture command over stdio, server start-up included."""
    command = [
        *CLI, "capture", "--bundle", str(folder / "cli.json"), "--capture-dir", str(folder / "records"),
        "--concurrency", str(concurrency), "--allow-destructive",
        "--", sys.executable, "-m", "mcpaql_conformance.demo_adapter", "--latency-ms", f"{latency_ms:g}",
    ]  # fmt: skip
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if run.returncode != 0:
        raise SystemExit(f"capture failed ({run.returncode}): {run.stderr.strip()}")
    calls = re.search(r"captured (\d+) call", run.stderr)
    return elapsed, int(calls.group(1)) if calls else 0


def best(times: dict[int, list[tuple[float, int]]], concurrency: int) -> tuple[float, int]:
    return min(times[concurrency])


def report(title: str, times: dict[int, list[tuple[float, int]]], settings: tuple[int, int]) -> float:
    print(title)
    for concurrency in settings:
        elapsed, calls = best(times, concurrency)
        print(f"  --concurrency {concurrency}: {elapsed:6.2f} s, {calls} calls, {calls / elapsed:6.1f} calls/s")
    return best(times, settings[1])[0] / best(times, settings[0])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=4, help="the default setting to compare with 1")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    settings = (1, args.concurrency)
    captures: dict[int, list[tuple[float, int]]] = {1: [], args.concurrency: []}
    commands: dict[int, list[tuple[float, int]]] = {1: [], args.concurrency: []}
    with tempfile.TemporaryDirectory() as tmp, demo_over_http("--latency-ms", f"{args.latency_ms:g}") as url:
        for _ in range(args.runs):
            for concurrency in settings:
                captures[concurrency].append(in_process(url, concurrency, Path(tmp)))
        for concurrency in settings:
            commands[concurrency].append(whole_command(args.latency_ms, concurrency, Path(tmp)))
    print(f"demo server, {args.latency_ms:g} ms per call")
    ratio = report(f"the capture (library, streamable HTTP, best of {args.runs}):", captures, settings)
    whole = report("the whole command (stdio, server start-up included, one run):", commands, settings)
    verdict = "meets" if ratio <= TARGET else "misses"
    print(f"ratio, the capture: {ratio:.2f} ({verdict} the target <= {TARGET}); the whole command: {whole:.2f}")


if __name__ == "__main__":
    main()
