"""Time `mcpaql-conformance test` on synthetic bundles of 1k, 16k and 64k operations.

Usage: python benchmarks/bench_scale.py [--sizes 1000,16000,64000] [--repeat 5]
       [--reference "node /path/to/run-conformance-tests.mjs"] [--against DIR]

Prints the best wall time of each size and of a small shipped bundle, the
time(64k)/time(16k) ratio (linear scaling means about 4; the target is <= 4.5),
the `version` start-up time, where the time of the largest bundle goes (parse,
bundle check, checks; in-process, best of the runs), and, when --reference is
given, our time as a fraction of the reference runner's (targets: <= 0.5 small,
<= 0.1 at 64k). With --against DIR (another checkout of this tool, for example
`git worktree add ../before HEAD~1`), each size and `version` are also timed with
that checkout's package, in the same run, and ours/before is printed (a change that
only moves code should stay near 1.0).
Run it from a regular install for start-up numbers: an editable install's
import hook adds about 20 ms to every start.
Timings on shared machines are noisy: read the ratios, not single numbers.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_bundle

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
SCRIPT = Path(sys.executable).parent / "mcpaql-conformance"
CLI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "mcpaql_conformance"]


def best_time(command: list[str], repeat: int, expect: int | None, env: dict[str, str] | None = None) -> float:
    """Best wall time of ``repeat`` runs; ``expect`` checks our exit code (None: any)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=env)
        elapsed = time.perf_counter() - start
        if expect is not None and completed.returncode != expect:
            error = completed.stderr.decode()[:500]
            sys.exit(f"{shlex.join(command)} exited {completed.returncode}, expected {expect}: {error}")
        best = min(best, elapsed)
    return best


def bundle_file(size: int) -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / f"synthetic-{size}.json"
    if not path.exists():
        path.write_bytes(orjson.dumps(make_bundle(size)))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,16000,64000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference", help="command prefix of the reference runner (optional)")
    parser.add_argument("--against", type=Path, help="another checkout of this tool, timed in the same run")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    times: dict[int, float] = {}
    before = None if args.against is None else {**os.environ, "PYTHONPATH": str(args.against.resolve())}
    module = [sys.executable, "-m", "mcpaql_conformance"]
    header = f"{'operations':>10} {'MB':>7} {'ours s':>8}" + (
        f" {'ref s':>8} {'ours/ref':>8}" if args.reference else ""
    )
    print(header + (f" {'before s':>8} {'ours/before':>11}" if before else ""))
    for size in sizes:
        path = bundle_file(size)
        times[size] = best_time([*CLI, "test", str(path), "--format", "json"], args.repeat, 0)
        line = f"{size:>10} {path.stat().st_size / 1e6:>7.1f} {times[size]:>8.2f}"
        if before is not None:
            ours = best_time([*module, "test", str(path), "--format", "json"], args.repeat, 0)
            old = best_time([*module, "test", str(path), "--format", "json"], args.repeat, 0, before)
            line += f" {old:>8.2f} {ours / old:>11.2f}"
        if args.reference:
            ref = best_time([*shlex.split(args.reference), "test", str(path), "--format", "json"], 1, None)
            line += f" {ref:>8.2f} {times[size] / ref:>8.2f}"
        print(line, flush=True)
    small = HERE.parent / "fixtures" / "l1-conformant-notes.json"
    ours = best_time([*CLI, "test", str(small)], 5, 0)
    line = f"small bundle ({small.name}): ours {ours:.3f} s"
    if args.reference:
        ref = best_time([*shlex.split(args.reference), "test", str(small)], 5, None)
        line += f", reference {ref:.3f} s, ours/ref {ours / ref:.2f} (target <= 0.5)"
    print(line)
    if 16000 in times and 64000 in times:
        ratio = times[64000] / times[16000]
        print(f"scaling time(64k)/time(16k) = {ratio:.2f} (linear ~4.0; target <= 4.5)")
    startup = best_time([*CLI, "version"], 5, 0)
    print(f"version start-up: {startup * 1000:.0f} ms (target < 150 ms)")
    if before is not None:
        ours, old = best_time([*module, "version"], 10, 0), best_time([*module, "version"], 10, 0, before)
        shown = f"ours {ours * 1000:.0f} ms, before {old * 1000:.0f} ms, ours/before {ours / old:.2f}"
        print(f"version via python -m: {shown}")
    largest = max(sizes)
    phases = best_phases(bundle_file(largest), args.repeat)
    shown = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in phases.items())
    print(f"{largest} operations, in-process: {shown}")


# Times the phases of `test` in a fresh process (cold, like the command itself).
_PHASES = """
import sys, time, json
from pathlib import Path
from mcpaql_conformance.files.jsonio import load_json_file
from mcpaql_conformance.evidence.bundle import bundle_from_data
from mcpaql_conformance.verdict.runner import evaluate
marks = [time.perf_counter()]
data = load_json_file(Path(sys.argv[1]), "bundle"); marks.append(time.perf_counter())
bundle = bundle_from_data(data); marks.append(time.perf_counter())
evaluate(bundle); marks.append(time.perf_counter())
print(json.dumps([b - a for a, b in zip(marks, marks[1:])]))
"""


def best_phases(path: Path, repeat: int) -> dict[str, float]:
    """Best time of each phase over ``repeat`` fresh processes."""
    best = [float("inf")] * 3
    for _ in range(repeat):
        run = subprocess.run([sys.executable, "-c", _PHASES, str(path)], capture_output=True, check=True)
        best = [min(old, new) for old, new in zip(best, orjson.loads(run.stdout), strict=True)]
    return dict(zip(("parse", "bundle check", "checks"), best, strict=True))


if __name__ == "__main__":
    main()
