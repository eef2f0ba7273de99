"""Time `schemas` and `diff` on two synthetic 16,000-operation bundles against `test` on one.

Usage: python benchmarks/bench_drift.py [--size 16000] [--repeat 3]

The second bundle is the first with drift: every 50th operation loses a parameter, and
every 40th answers a field as a string instead of an object. Prints the best wall time of
each command and the ratios schemas/test and diff/test (targets: within 3 times test; diff
reads two bundles and judges both). `schemas -o DIR` writes one file per operation, 16,000
atomic writes: its time is the file system's and is printed apart. Timings on shared machines are noisy: read the
ratios, measured in one run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import CLI, OUT, best_time, bundle_file


def drifted(path: Path) -> Path:
    """The bundle with drift in parameters and answers (written once next to it)."""
    target = path.with_name(path.stem + "-drifted.json")
    if target.exists():
        return target
    data = orjson.loads(path.read_bytes())
    for index, detail in enumerate(data["introspection"]["operation_details"]):
        if index % 50 == 0 and detail.get("parameters"):
            detail["parameters"] = detail["parameters"][1:]
    for index, case in enumerate(data["parameter_tests"]["optional_defaults"]):
        answer = case["response"].get("data")
        if index % 40 == 0 and isinstance(answer, dict) and "applied" in answer:
            answer["applied"] = "limit 20"
    target.write_bytes(orjson.dumps(data))
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=16000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    old = bundle_file(args.size)
    new = drifted(old)
    test = best_time([*CLI, "test", str(old)], args.repeat, None)
    schemas = best_time([*CLI, "schemas", str(old)], args.repeat, 0)
    files = best_time([*CLI, "schemas", str(old), "-o", str(OUT / "schemas")], args.repeat, 0)
    diff = best_time([*CLI, "diff", str(old), str(new)], args.repeat, 1)
    print(f"{args.size} operations: test {test:.2f} s, schemas {schemas:.2f} s (one file per operation:")
    print(f"  {files:.2f} s), diff {diff:.2f} s")
    print(f"schemas/test {schemas / test:.2f}, diff/test {diff / test:.2f} (targets: <= 3)")


if __name__ == "__main__":
    main()
