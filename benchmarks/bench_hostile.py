"""Time `mcpaql-conformance test` on small bundles built to be slow: each must be judged in
well under a second (linear time, whatever the bundle's shape).

Usage: python benchmarks/bench_hostile.py [--repeat 3]

Cases (each was quadratic once, and took over a minute):
- phrases: a 300 KB answer checked for 10,000 required patterns;
- mentions: a 300 KB error message checked for 10,000 must_mention entries;
- same-names: 60,000 semantic tests with one name (unique test ids);
- baseline: 20,000 baseline entries against 10,000 tests.
Prints the best wall time of each, the whole command included.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

SCRIPT = Path(sys.executable).parent / "mcpaql-conformance"
CLI = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "mcpaql_conformance"]
TARGET = 1.0


def semantic(name: str, text: str, patterns: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "response_text": text,
        "tool_calls": [],
        "structural": {"required_patterns": patterns},
        "semantic": {"phrase_groups": [[patterns[0] if patterns else "x"]]},
    }


def cases(folder: Path) -> dict[str, list[str]]:
    """Each case's `test` arguments (files written into ``folder``)."""
    built: dict[str, list[str]] = {}
    text = "a b " * 75_000  # 300 KB of two words: every pattern's words occur, the sequences do not
    patterns = [" ".join(["a"] * (1 + i % 50) + ["a", "a"]) + f" b{i}" for i in range(10_000)]
    phrases = folder / "phrases.json"
    phrases.write_bytes(orjson.dumps({"semantic_tests": [semantic("discover", text, patterns)]}))
    built["phrases"] = [str(phrases), "--level", "2"]
    message = "x_a" * 100_000  # "a" occurs 100,000 times, never as a whole identifier
    failure = {"success": False, "error": {"code": "VALIDATION_X", "message": message}}
    mentions = folder / "mentions.json"
    mentions.write_bytes(
        orjson.dumps({"error_tests": [{"name": "e", "must_mention": ["a"] * 10_000, "response": failure}]})
    )
    built["mentions"] = [str(mentions)]
    same = folder / "same-names.json"
    same.write_bytes(orjson.dumps({"semantic_tests": [semantic("same", "hello", ["hello"])] * 60_000}))
    built["same-names"] = [str(same), "--level", "2"]
    many = folder / "baseline-bundle.json"
    many.write_bytes(orjson.dumps({"semantic_tests": [semantic(f"t{i}", "hello", ["absent"]) for i in range(10_000)]}))
    baseline = folder / "baseline.json"
    entries = [{"id": f"L2.semantic.t{i}", "reason": "known"} for i in range(10_000)]
    entries += [{"category": "Semantic Evaluation", "reason": "known"} for _ in range(10_000)]
    baseline.write_bytes(orjson.dumps({"entries": entries}))
    built["baseline"] = [str(many), "--level", "2", "--baseline", str(baseline)]
    return built


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    run = subprocess.run([*CLI, "test", *args, "-f", "json"], capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if run.returncode == 3:
        raise SystemExit(f"test {' '.join(args)} failed: {run.stderr.decode().strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, arguments in cases(Path(tmp)).items():
            best = min(timed(arguments) for _ in range(args.repeat))
            verdict = "meets" if best < TARGET else "misses"
            print(f"{name:>10}: {best:5.2f} s ({verdict} the target < {TARGET:g} s)")


if __name__ == "__main__":
    main()
