"""Time `registry` on 1,000 saved reports of 20 tests (50 implementations, 20 runs each) and
on 250 of them, and measure the memory it holds.

Usage: python benchmarks/bench_registry.py [--reports 1000] [--repeat 3]

Prints the best wall time of the whole command (target: under 3 s for 1,000 reports on this
machine), the ratio of the two times (about 4: linear in the reports), and the peak of
Python's own allocations while building (tracemalloc) for 250 and for 1,000 reports: held one
report at a time, the peak grows with the registry's summary (a few hundred bytes a run), not
with the reports' text. Timings on shared machines are noisy: read the ratios, measured in one
run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import CLI, OUT, best_time

TESTS = 20
PER_IMPLEMENTATION = 20


def report(implementation: int, run: int) -> dict[str, object]:
    """A report of 20 tests; every third run fails one test, so verdicts change between runs."""
    failing = run % 3 == 0
    tests = [
        {
            "id": f"L1.bench.test-{index}",
            "name": f"Test {index}",
            "result": "FAIL" if failing and index == 7 else "PASS",
            "detail": f"finding {index} of run {run}: " + "x" * 200,
        }
        for index in range(TESTS)
    ]
    failed = sum(1 for test in tests if test["result"] == "FAIL")
    return {
        "implementation": f"adapter-{implementation:03d}",
        "version": f"1.{run}.0",
        "specVersion": "1.0.0-draft",
        "requestedLevel": 1,
        "conformanceLevel": 0 if failing else 1,
        "summary": {"total": TESTS, "passed": TESTS - failed, "warned": 0, "failed": failed, "skipped": 0},
        "categories": [
            {"name": "Error Quality", "required": True, "result": "FAIL" if failing else "PASS", "tests": tests}
        ],
        "exitCode": 1 if failing else 0,
        "capturedAt": f"2026-{1 + run // 28:02d}-{1 + run % 28:02d}T10:00:00+00:00",
        "tool": "mcpaql-conformance",
        "toolVersion": "0.1.0",
    }


def reports(count: int) -> Path:
    folder = OUT / f"registry-reports-{count}"
    if not folder.exists():
        folder.mkdir(parents=True)
        for number in range(count):
            path = folder / f"{number:05d}.json"
            path.write_text(json.dumps(report(number // PER_IMPLEMENTATION, number % PER_IMPLEMENTATION)))
    return folder


def peak(folder: Path) -> int:
    from mcpaql_conformance.registry.collect import build

    tracemalloc.start()
    build([folder])
    _, high = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return high


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reports", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    small, large = reports(args.reports // 4), reports(args.reports)
    times = {}
    for folder in (small, large):
        site = OUT / f"registry-site-{folder.name}"
        times[folder] = best_time([*CLI, "registry", str(folder), "-o", str(site)], args.repeat, 0)
    print(f"registry of {args.reports // 4} reports: {times[small]:.2f} s")
    print(f"registry of {args.reports} reports: {times[large]:.2f} s (target: under 3 s)")
    print(f"ratio: {times[large] / times[small]:.1f} for {4:.0f} times the reports (linear: about 4)")
    small_peak, large_peak = peak(small), peak(large)
    size = sum(path.stat().st_size for path in large.iterdir())
    print(f"peak memory building: {small_peak / 1e6:.1f} MB for {args.reports // 4}, {large_peak / 1e6:.1f} MB for "
          f"{args.reports} reports ({size / 1e6:.1f} MB of reports)")  # fmt: skip


if __name__ == "__main__":
    main()
