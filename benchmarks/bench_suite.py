"""Time the whole test suite in one process and with pytest-xdist (`-n auto`), one after the
other in one run, and print the ratio (issue 18: at most 0.6 on two cores).

Usage: python benchmarks/bench_suite.py [pytest arguments...]

Run it on an otherwise idle machine: the suite is CPU-bound (about 1.6 of 2 cores busy in
parallel), so another load on the machine moves the ratio. Measured on the 2-core development
machine: 491 s in one process, 293 s with -n auto, 0.60.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.6


def seconds(*arguments: str) -> float:
    started = time.perf_counter()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments]
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
    if result.returncode != 0:
        raise SystemExit(f"pytest {' '.join(arguments)} exited {result.returncode}: fix the suite first")
    return time.perf_counter() - started


def main() -> int:
    extra = sys.argv[1:]
    serial = seconds(*extra)
    parallel = seconds("-n", "auto", *extra)
    ratio = parallel / serial
    print(f"one process {serial:.0f} s, -n auto {parallel:.0f} s: ratio {ratio:.2f} (target at most {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
