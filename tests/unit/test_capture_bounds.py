"""The bounded pieces of the transport: stdout split into lines, wide answers cut, the server's
stderr kept head and tail, the warden's view of a process tree."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from mcpaql_conformance.files.depth import WIDER_KEY, cut_wide, too_wide, wider
from mcpaql_conformance.live.process import LineSplitter, StdoutError
from mcpaql_conformance.live.stderr import ServerLog
from mcpaql_conformance.live.warden import descendants


def test_lines_are_split_across_chunks_and_a_line_past_the_limit_is_refused():
    splitter = LineSplitter(limit=10)
    assert splitter.feed(b"ab") == []
    assert splitter.feed(b"c\nde\n\nf") == [b"abc", b"de", b""]
    assert splitter.feed(b"gh\n") == [b"fgh"]
    assert splitter.feed(b"0123456789\n") == [b"0123456789"]
    splitter.feed(b"01234")
    with pytest.raises(StdoutError, match="longer than"):
        splitter.feed(b"567890")


def test_a_small_answer_is_kept_as_it_is():
    answer = {"success": True, "data": [{"a": 1}, [2, 3]]}
    assert not too_wide(answer, 7) and cut_wide(answer, 7) is answer  # 2 entries, 2 items, 3 inside them
    assert too_wide(answer, 6)


def test_a_wide_answer_keeps_its_first_values_in_document_order_and_closes_what_it_cut():
    marker = wider(5)
    assert cut_wide({"success": True, "data": [{}, {}, {}, {}, {}]}, 5) == {
        "success": True,
        "data": [{}, {}, {}, marker],
    }
    assert cut_wide([[1, 2], [3, 4], [5, 6]], 5) == [[1, 2], [3, marker], marker]
    assert cut_wide({"a": [1, 2, 3], "b": {"x": 1}}, 4) == {"a": [1, 2, 3], WIDER_KEY: wider(4)}


def test_an_answer_both_wide_and_deep_is_cut_without_recursion():
    deep: object = []
    for _ in range(100_000):
        deep = [deep, 0]
    cut = cut_wide(deep, 1000)
    depth = 0
    while isinstance(cut, list) and cut:
        cut, depth = cut[0], depth + 1
    assert depth <= 1001  # the outermost list, and a thousand values


def test_the_server_log_keeps_the_first_and_last_bytes_and_says_what_it_left_out():
    with ServerLog(keep=1000) as log:
        write = log.pipe()
        writer = subprocess.Popen(
            [sys.executable, "-c", "import os; os.write(2, b'<' * 999 + b'\\n' + b'.' * 50000 + b'\\n' + b'>' * 999)"],
            stderr=write,
        )
        os.close(write)
        writer.wait(timeout=30)
        text = log.text()
    assert text == "<" * 999 + "\n[... 50001 bytes of the server's stderr not kept ...]\n" + ">" * 999


def test_the_server_log_is_cut_between_lines_never_inside_one():
    with ServerLog(keep=100) as log:
        write = log.pipe()
        os.write(write, b"first line\n" + b"token=sk-" + b"s" * 300 + b"\nlast line\n")
        os.close(write)
        text = log.text()
    assert text == "first line\n[... 310 bytes of the server's stderr not kept ...]\nlast line\n"


def test_the_server_log_waits_for_what_was_just_written():
    with ServerLog() as log:
        write = log.pipe()
        os.write(write, b"ModuleNotFoundError: No module named 'x'\n")
        assert log.text() == "ModuleNotFoundError: No module named 'x'\n"
        os.close(write)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_the_warden_finds_grandchildren():
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import time; time.sleep(30)'])",
        ]
    )
    try:
        deadline = time.monotonic() + 10
        found: list[int] = []
        while len(found) < 2 and time.monotonic() < deadline:
            found = descendants(os.getpid()) or []
            time.sleep(0.05)
        assert child.pid in found and len(found) >= 2
    finally:
        for pid in reversed(descendants(child.pid) or []):
            os.kill(pid, 9)
        child.kill()
        child.wait()


def test_an_operations_list_keeps_a_hundred_thousand_operations_while_other_answers_are_cut():
    import anyio

    from mcpaql_conformance.live.connection import Connection

    listed = {
        "success": True,
        "data": {"operations": [{"name": f"op_{i}", "endpoint": "read"} for i in range(100_000)]},
    }

    class Session:
        async def call_tool(self, tool: str, arguments: dict[str, object]) -> object:
            from mcp import types

            return types.CallToolResult(content=[types.TextContent(type="text", text=__import__("json").dumps(listed))])

    connection = Connection(Session(), 30, {})
    connection.guard.learn_tools(["mcp_aql_read"])  # introspect is read-only wherever the guard knows the tool

    async def ask(params: dict[str, object]) -> object:
        return (await connection.call("mcp_aql_read", {"operation": "introspect", "params": params})).response

    whole = anyio.run(ask, {"query": "operations"})
    assert len(whole["data"]["operations"]) == 100_000 and whole == listed  # 300,000 values, kept
    described = anyio.run(ask, {"query": "operations", "name": "op_1"})  # a detail query: the usual cap
    assert described["data"]["operations"][-1] == wider()
