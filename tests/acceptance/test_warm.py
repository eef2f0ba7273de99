"""The warm start (warm.py) is the server's own start as its caller sees it: the streams, the
environment, the directory and the exit status pass through; a signal to the launcher reaches
the server; a launcher killed outright takes the server with it; without a zygote the command
runs by itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.acceptance.conftest import ROOT, WARM, warm, warm_path

SCRIPT = """
import os, sys, time
print("pid", os.getpid(), flush=True)
line = sys.stdin.readline().strip()
print("read", line, os.environ.get("WARM_PROBE"), os.getcwd(), sys.argv[1:], flush=True)
print("to stderr", file=sys.stderr, flush=True)
if sys.argv[1] == "wait":
    time.sleep(60)
sys.exit(int(sys.argv[2]))
"""


def server(tmp_path: Path) -> Path:
    path = tmp_path / "echo_server.py"
    path.write_text(SCRIPT)
    return path


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def started(command: tuple[str, ...], tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        env={**os.environ, "WARM_PROBE": "seen"},
    )  # fmt: skip
    assert process.stdout is not None
    first = process.stdout.readline().split()
    assert first[0] == "pid", first
    return process, int(first[1])


def test_streams_environment_directory_and_exit_status_pass_through(tmp_path: Path) -> None:
    process, _ = started(warm(sys.executable, str(server(tmp_path)), "exit", "3"), tmp_path)
    out, err = process.communicate("hello\n", timeout=30)
    assert out == f"read hello seen {tmp_path} ['exit', '3']\n"
    assert err == "to stderr\n"
    assert process.returncode == 3


def test_a_signal_to_the_launcher_reaches_the_server(tmp_path: Path) -> None:
    process, pid = started(warm(sys.executable, str(server(tmp_path)), "wait", "0"), tmp_path)
    assert pid != process.pid and alive(pid)  # the server is the zygote's child, not the launcher
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == -signal.SIGTERM  # the server's end, told as the launcher's
    time.sleep(0.2)
    assert not alive(pid)


def test_a_launcher_killed_outright_takes_the_server_with_it(tmp_path: Path) -> None:
    process, pid = started(warm(sys.executable, str(server(tmp_path)), "wait", "0"), tmp_path)
    process.kill()
    process.wait(timeout=30)
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid)


def test_without_a_zygote_the_command_runs_by_itself(tmp_path: Path) -> None:
    command = (sys.executable, str(WARM), str(tmp_path / "no-socket"), sys.executable, str(server(tmp_path)))
    process, pid = started((*command, "exit", "4"), tmp_path)
    assert pid == process.pid  # exec'd in place
    out, _ = process.communicate("again\n", timeout=30)
    assert out.startswith("read again seen") and process.returncode == 4


def test_the_shims_run_the_command_line_as_the_console_script_does(tmp_path: Path) -> None:
    # warm_path: what the documented commands and the CI recipes run; the same answers as the
    # venv's own console script and interpreter, started from the zygote
    venv_bin = ROOT / ".venv" / "bin"
    if not (venv_bin / "python").exists() or not os.path.samefile(venv_bin / "python", sys.executable):
        pytest.skip("the tests do not run in the checkout's .venv: warm_path leaves PATH as it is")
    shims = Path(warm_path(venv_bin).split(os.pathsep)[0])
    assert shims != venv_bin and str(WARM) in (shims / "mcpaql-conformance").read_text()
    bundle = ROOT.parent / "shared" / "reference-fixtures" / "reference-level1.json"
    commands = [
        "mcpaql-conformance --help",
        "mcpaql-conformance nope",
        f"mcpaql-conformance test {bundle if bundle.exists() else 'missing.json'} -f json",
        f"mcpaql-conformance test {bundle if bundle.exists() else 'missing.json'} --tier 3",
        "python -m mcpaql_conformance version",
        "python3 -c 'import sys; print(sys.executable, sys.argv[1:])' a b",
    ]
    for command in commands:
        runs = []
        for path in (warm_path(venv_bin), str(venv_bin)):
            env = {**os.environ, "PATH": f"{path}{os.pathsep}{os.environ['PATH']}"}
            env.pop("COLUMNS", None)
            done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
            runs.append((done.returncode, done.stdout, done.stderr))
        assert runs[0] == runs[1], command
    assert runs[0][1] == f"{venv_bin / 'python3'} ['a', 'b']\n"
