"""Time `shapes.infer_schema` on 1k, 4k and 16k samples of a 20-key object: the time must grow
linearly with the number of samples (one merge per value visited).

Usage: python benchmarks/bench_shapes.py [--repeat 5]

Each sample has 20 keys: strings of each detected format (date-time, uri, email, uuid), plain
strings, integers, numbers, booleans, nulls, a nested object and an array of objects; every
tenth sample lacks two keys, so `required` and the unions are exercised too.
Prints the best wall time of each size and the ratio time(16k) / time(4k), expected about 4.
"""

from __future__ import annotations

import argparse
import time
import uuid
from typing import Any

from mcpaql_conformance.shapes.infer import infer_schema

SIZES = (1_000, 4_000, 16_000)


def sample(index: int) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": str(uuid.UUID(int=index * 7919)),
        "title": f"Record {index}",
        "summary": "x" * (index % 50),
        "created_at": f"2024-{index % 12 + 1:02}-{index % 28 + 1:02}T10:{index % 60:02}:00Z",
        "updated_at": None if index % 3 else f"2025-01-01T00:00:{index % 60:02}+02:00",
        "link": f"https://example.com/records/{index}?view=full",
        "owner_email": f"user{index}@example.com",
        "count": index,
        "score": index / 7,
        "ratio": index % 2 or 0.5,
        "active": index % 2 == 0,
        "archived": False,
        "note": None,
        "status": ("open", "closed", "draft")[index % 3],
        "tags": [f"t{index % 5}", "common"],
        "author": {"name": f"Author {index % 10}", "email": f"a{index % 10}@example.org"},
        "items": [{"sku": f"S{index}-{n}", "qty": n} for n in range(index % 3)],
        "version": index % 4,
        "locale": "en",
        "extra": index if index % 5 else "none",
    }
    if index % 10 == 0:
        del record["note"], record["extra"]
    return record


def best(samples: list[dict[str, Any]], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        infer_schema(samples)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    timings: dict[int, float] = {}
    for size in SIZES:
        samples = [sample(index) for index in range(size)]
        timings[size] = best(samples, args.repeat)
        print(f"{size:>6} samples: {timings[size] * 1000:8.1f} ms ({timings[size] / size * 1e6:5.2f} us per sample)")
    print(f"time(16k) / time(4k): {timings[16_000] / timings[4_000]:.2f} (linear: about 4)")


if __name__ == "__main__":
    main()
