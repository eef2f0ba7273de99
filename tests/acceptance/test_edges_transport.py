"""Bounded resources and processes at the edge of the transport (issue 17, points 4 and 6):
servers of our own (servers.py's edge kinds) that send too much, too wide, log without end
or leave daemons behind, each met through the real command line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpaql_conformance.files.depth import MAX_VALUES, WIDER
from tests.acceptance.conftest import ROOT, http_server, processes

SERVERS = Path(__file__).with_name("servers.py")
CLI = [sys.executable, "-m", "mcpaql_conformance"]
# Runs a command and prints the peak memory of its process tree (KB) on the last stderr line.
MEASURED = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run(*args: str, timeout: float = 180) -> tuple[subprocess.CompletedProcess[str], int]:
    """The command line's result, and the peak resident memory (KB) of the tool."""
    result = subprocess.run(
        [sys.executable, "-c", MEASURED, *CLI, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        check=False,
        timeout=timeout,
    )
    *lines, peak = result.stderr.rstrip("\n").split("\n")
    result.stderr = "\n".join(lines) + "\n" if lines else ""
    return result, int(peak)


def capture(tmp_path: Path, *server: str, extra: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess[str], int]:
    bundle, records = tmp_path / "bundle.json", tmp_path / "records"
    return run("capture", "--bundle", str(bundle), "--capture-dir", str(records), *extra, "--", *server)


def one_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def running(marker: str) -> list[str]:
    """This test's processes (not zombies) whose full command line holds ``marker``."""
    return [line for line in processes(marker, "pid,stat,args") if " Z" not in line]


def gone(marker: str, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not running(marker)


# Stdio: linear reading, the 64 MB limit, wide answers, stderr.


def test_an_answer_just_under_64_mb_is_read_within_the_default_timeout(tmp_path):
    result, _ = capture(tmp_path, sys.executable, str(SERVERS), "huge", str(63 * 2**20))
    assert result.returncode == 0, result.stderr
    biggest = max((tmp_path / "records").rglob("*.json"), key=lambda path: path.stat().st_size)
    assert biggest.stat().st_size > 63 * 2**20


def test_a_stdout_line_over_64_mb_is_one_capture_error(tmp_path):
    result, peak = capture(tmp_path, sys.executable, str(SERVERS), "huge", str(80 * 2**20))
    assert one_error(result).startswith("error: the server wrote a stdout line longer than 64 MB")
    assert peak < 600_000  # KB: the line is refused once past the limit, never held whole


def test_a_wide_answer_keeps_its_first_values_and_a_marker_in_bounded_records(tmp_path):
    result, peak = capture(tmp_path, sys.executable, str(SERVERS), "wide", "1000000")  # a million {} per answer
    assert result.returncode == 0, result.stderr
    records = [path for path in (tmp_path / "records").rglob("get_thing-*.json")]
    assert records
    for path in records:
        response = json.loads(path.read_text())["response"]
        items = response["data"]
        assert len(items) == MAX_VALUES - 1 and items[-1] == WIDER  # "success" and "data" count too
        assert path.stat().st_size < 2_000_000
    assert sum(path.stat().st_size for path in (tmp_path / "records").rglob("*")) < 40_000_000
    assert WIDER in (tmp_path / "bundle.json").read_text()
    assert peak < 1_000_000  # KB


def test_a_server_that_floods_stderr_leaves_its_first_and_last_megabyte(tmp_path):
    result, peak = capture(tmp_path, sys.executable, str(SERVERS), "stderr-flood")
    assert result.returncode == 0, result.stderr
    log = next((tmp_path / "records").rglob("server-stderr.log"))
    text = log.read_text()
    assert text.startswith("flooding stderr, line after line\n")
    assert text.endswith("flooding stderr, line after line\n")  # whole lines only
    assert "bytes of the server's stderr not kept ...]" in text
    assert log.stat().st_size <= 2 * 2**20 + 200
    assert peak < 400_000  # KB


# Streamable HTTP: the same limits.


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("http-huge", "the server sent an HTTP answer larger than 64 MB (answers are capped at 64 MB, as over stdio)"),
        (
            "http-bomb",
            "the server sent an HTTP answer larger than 64 MB once decompressed (answers are capped at 64 MB, as over"
            " stdio)",
        ),
        (
            "http-sse-huge",
            "the server sent an HTTP answer larger than 64 MB (answers are capped at 64 MB, as over stdio)",
        ),
        ("http-header", "the server sent HTTP headers larger than 100 KB"),
    ],
)
def test_an_http_answer_past_the_limits_is_one_capture_error_in_bounded_memory(tmp_path, kind, message):
    with http_server(kind, tmp_path) as url:
        result, peak = capture(tmp_path, extra=("--url", url))
    line = one_error(result)
    assert message in line, line
    assert peak < 600_000  # KB: 600 MB sent, or 1 GB once inflated, never held


# Processes: nothing of the server outlives the tool.


def test_a_detached_daemon_of_the_server_does_not_outlive_the_capture(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    result, _ = capture(tmp_path, sys.executable, str(SERVERS), "daemon", str(pid_file))
    assert result.returncode == 0, result.stderr
    daemon = pid_file.read_text()
    assert daemon.isdigit()  # it ran, in a session of its own
    warning = (
        f"warning: the server left 1 detached process(es) running outside its process group (PID {daemon}): stopped"
    )
    assert result.stderr.splitlines().count(warning) == 1, result.stderr
    assert gone("daemon-of-the-server")
    assert gone(f"{SERVERS} daemon")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal and subreaper: Linux")
def test_sigkill_of_the_tool_stops_the_server_and_its_detached_daemon(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    command = [*CLI, "capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "r")]
    tool = subprocess.Popen(
        [*command, "--", sys.executable, str(SERVERS), "daemon", str(pid_file)],
        cwd=ROOT,
        env={**os.environ, "DAEMON_SLOW": "1"},  # a capture still running when the tool is killed
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        daemon = int(pid_file.read_text())
        assert Path(f"/proc/{daemon}").exists()
        assert running(f"{SERVERS} daemon") and running("daemon-of-the-server")
        tool.send_signal(signal.SIGKILL)
        tool.wait(timeout=10)
        assert gone("daemon-of-the-server"), running("daemon-of-the-server")
        assert gone(f"{SERVERS} daemon"), running(f"{SERVERS} daemon")  # the server, and the warden too
    finally:
        if tool.poll() is None:
            tool.kill()
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
