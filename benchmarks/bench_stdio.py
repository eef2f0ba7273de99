"""Time how long the stdio reader takes to read one large answer: 5, 20 and 64 MB (just under
the 64 MB limit of one message), each a single JSON-RPC line from a child process.

Usage: python benchmarks/bench_stdio.py [--sizes 5,20,64] [--repeat 3]

The child writes the line as fast as the pipe takes it; the time runs from its start until the
message comes out of ``stdio_streams`` (read, split into lines, validated as JSON-RPC by the
MCP SDK's adapter). Reading is linear: the seconds per MB stay about the same from 5 to 64 MB
(the reader once copied and rescanned its buffer on every 64 KB chunk: 5 MB took 0.12 s, 20 MB
1.5 s, 64 MB 22 s). The target: 64 MB read in under 5 s, a quarter of the default --timeout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcpaql_conformance.live.process import MAX_LINE, launched, spawn, stdio_streams, stop  # noqa: E402
from mcpaql_conformance.live.stderr import ServerLog  # noqa: E402

TARGET = 5.0
# One JSON-RPC answer of SIZE bytes on one line (a text of "x"), then the child waits to be stopped.
CHILD = """import json, sys, time
size = int(sys.argv[1])
head = '{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "'
tail = '"}], "isError": false}}'
sys.stdout.write(head + "x" * (size - len(head) - len(tail) - 1) + tail + "\\n")
sys.stdout.flush()
time.sleep(60)
"""


async def read_one(size: int) -> float:
    with ServerLog() as log:
        start = time.perf_counter()
        process = await spawn((sys.executable, "-c", CHILD, str(size)), log)
        await launched(process)
        try:
            warnings: list[str] = []
            async with stdio_streams(process, warnings.append) as (read, _write):
                message: Any = await read.receive()
                elapsed = time.perf_counter() - start
            text = message.message.result["content"][0]["text"]
            assert len(text) > size - 200, len(text)
        finally:
            await stop(process)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5,20,64", help="answer sizes in MB (64: just under the limit)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results: dict[int, float] = {}
    for megabytes in (int(size) for size in args.sizes.split(",")):
        size = min(megabytes * 2**20, MAX_LINE - 1)
        results[megabytes] = min(anyio.run(read_one, size) for _ in range(args.repeat))
        seconds = results[megabytes]
        print(f"{megabytes:>4} MB: {seconds:6.2f} s  ({seconds / megabytes * 1000:6.1f} ms per MB)")
    largest = max(results)
    verdict = "ok" if results[largest] < TARGET else "SLOW"
    print(f"{largest} MB in {results[largest]:.2f} s, target under {TARGET:g} s: {verdict}")


if __name__ == "__main__":
    main()
