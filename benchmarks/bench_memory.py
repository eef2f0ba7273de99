"""Peak memory of `test` on synthetic bundles of 4, 16,000 and 64,000 operations, beside the
reference runner's where it is given, measured in the same run.

Usage: python benchmarks/bench_memory.py [--sizes 4,16000,64000]
       [--reference "node /path/to/run-conformance-tests.mjs"]

Peak memory is the largest resident set of the process (``getrusage``'s ``ru_maxrss`` of the
finished child, as `time -v` reports it), in MiB; time is wall seconds. Each figure is the
lowest of ``--repeat`` runs. Target: at 64,000 operations, our peak at most the reference's.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import bundle_file

SCRIPT = Path(sys.executable).parent / "mcpaql-conformance"
CLI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "mcpaql_conformance"]


def measured(command: list[str]) -> tuple[float, float]:
    """(peak resident MiB, wall seconds) of one run of ``command`` in a child of its own."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # a fresh child: its rusage is its own command's alone
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
        os.execvp(command[0], command)
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_maxrss / 1024, time.perf_counter() - start


def best(command: list[str], repeat: int) -> tuple[float, float]:
    runs = [measured(command) for _ in range(repeat)]
    return min(peak for peak, _ in runs), min(seconds for _, seconds in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="4,16000,64000")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--reference", help="command prefix of the reference runner (optional)")
    args = parser.parse_args()
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0  # (a platform that reports it)
    print(f"{'operations':>10} {'MB':>7} {'ours MiB':>9} {'ours s':>7}" + (
        f" {'ref MiB':>8} {'ref s':>7} {'MiB ours/ref':>12}" if args.reference else ""
    ))  # fmt: skip
    for size in (int(text) for text in args.sizes.split(",")):
        path = bundle_file(size)
        peak, seconds = best([*CLI, "test", str(path), "--format", "json"], args.repeat)
        line = f"{size:>10} {path.stat().st_size / 1e6:>7.1f} {peak:>9.0f} {seconds:>7.2f}"
        if args.reference:
            ref_peak, ref_seconds = best([*shlex.split(args.reference), "test", str(path), "--format", "json"], 1)
            line += f" {ref_peak:>8.0f} {ref_seconds:>7.2f} {peak / ref_peak:>12.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
