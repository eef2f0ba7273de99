"""How fast a command starts: `version` against a bare interpreter, `test` on a 4-operation bundle
against the reference runner, and where each command's import time goes.

Usage: python benchmarks/bench_startup.py [--runs 15]
       [--reference "node /path/to/run-conformance-tests.mjs"] [--cli PATH/TO/mcpaql-conformance]

Runs are paired (ours, then the other, in turn) and the ratio of each pair is taken; the median
of the ratios is printed with its range (a shared machine is noisy: read the ratios). Targets:
`version` at most 4x a bare interpreter start, `test` on a small bundle at most 0.5x the
reference runner's wall time. Then, for `version` and `test`, the modules whose imports cost
most (``python -X importtime``: cumulative and self milliseconds).

Measure a regular install (``pip install .``, which compiles the bytecode): an editable install
adds an import hook to every start, and with ``PYTHONDONTWRITEBYTECODE`` set and no compiled
bytecode every start compiles the package from source (about 100 ms).
"""

from __future__ import annotations

import argparse
import re
import shlex
import statistics
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


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def paired(ours: list[str], other: list[str], runs: int) -> tuple[float, float, list[float]]:
    """Median wall seconds of each, and the ratio ours/other of each pair (one warm-up pair first)."""
    wall(ours), wall(other)
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(wall(ours))
        theirs.append(wall(other))
    return statistics.median(mine), statistics.median(theirs), [a / b for a, b in zip(mine, theirs, strict=True)]


def shown(name: str, mine: float, theirs: float, ratios: list[float], target: str) -> str:
    low, middle, high = min(ratios), statistics.median(ratios), max(ratios)
    return (
        f"{name}: ours {mine * 1000:.0f} ms, {theirs * 1000:.0f} ms; ratio median {middle:.2f}"
        f" (range {low:.2f}-{high:.2f}; target {target})"
    )


_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_costs(python: str, command: list[str], top: int = 12) -> list[str]:
    """The modules whose imports cost most in one run of ``command`` by ``python`` (cumulative, self ms)."""
    ran = subprocess.run([python, "-X", "importtime", *command], capture_output=True, text=True, check=False)
    rows = [(int(m.group(2)), int(m.group(1)), m.group(4)) for m in map(_LINE.match, ran.stderr.splitlines()) if m]
    total = sum(own for _, own, _ in rows)
    lines = [f"  all imports: {total / 1000:.0f} ms ({len(rows)} modules)"]
    lines += [f"  {cumulative / 1000:6.1f} {own / 1000:6.1f}  {name}" for cumulative, own, name in sorted(rows)[-top:]]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--reference", help="command prefix of the reference runner (optional)")
    parser.add_argument("--cli", type=Path, default=SCRIPT, help="the mcpaql-conformance script to time")
    args = parser.parse_args()
    cli = [str(args.cli)] if args.cli.exists() else [sys.executable, "-m", "mcpaql_conformance"]
    python = str(args.cli.parent / "python") if args.cli.exists() else sys.executable
    OUT.mkdir(exist_ok=True)
    small = OUT / "synthetic-4.json"
    small.write_bytes(orjson.dumps(make_bundle(4)))
    print(shown("version / bare interpreter", *paired([*cli, "version"], [python, "-c", "pass"], args.runs), "<= 4"))
    if args.reference:
        reference = [*shlex.split(args.reference), "test", str(small)]
        print(
            shown("test, 4 operations / reference", *paired([*cli, "test", str(small)], reference, args.runs), "<= 0.5")
        )
    script = [str(args.cli)] if args.cli.exists() else ["-m", "mcpaql_conformance"]
    for name, command in (("version", [*script, "version"]), ("test", [*script, "test", str(small)])):
        print(f"{name}: where the import time goes (cumulative, self ms)")
        print("\n".join(import_costs(python, command)))


if __name__ == "__main__":
    main()
