"""Time `verify-fixtures` over 1,000 generated bundles, serially and in parallel.

Usage: python benchmarks/bench_verify.py [--bundles 1000] [--operations 20] [--jobs N]
Prints bundles per second for --jobs 1 and --jobs N (default: the number of cores) and the
speed-up. Timings on shared machines are noisy: read the ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_bundle

OUT = Path(__file__).resolve().parent / "out"
SCRIPT = Path(sys.executable).parent / "mcpaql-conformance"
CLI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "mcpaql_conformance"]


def bundles(count: int, operations: int) -> Path:
    folder = OUT / f"verify-{count}x{operations}"
    if len(list(folder.glob("*.json"))) != count:
        folder.mkdir(parents=True, exist_ok=True)
        data = orjson.dumps(make_bundle(operations))
        for index in range(count):
            (folder / f"bundle-{index:04d}.json").write_bytes(data)
    return folder


def timed(folder: Path, jobs: int) -> float:
    start = time.perf_counter()
    run = subprocess.run([*CLI, "verify-fixtures", str(folder), "--jobs", str(jobs)], capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"verify-fixtures --jobs {jobs} exited {run.returncode}: {run.stdout.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundles", type=int, default=1000)
    parser.add_argument("--operations", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    folder = bundles(args.bundles, args.operations)
    serial = timed(folder, 1)
    parallel = timed(folder, args.jobs)
    print(f"{args.bundles} bundles of {args.operations} operations")
    print(f"--jobs 1: {serial:.2f} s, {args.bundles / serial:.0f} bundles/s")
    print(f"--jobs {args.jobs}: {parallel:.2f} s, {args.bundles / parallel:.0f} bundles/s")
    print(f"speed-up: {serial / parallel:.2f}x")


if __name__ == "__main__":
    main()
