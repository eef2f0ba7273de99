"""Acceptance tests run the real command line in a subprocess: real exit codes, real streams."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.cli.group import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_FIXTURES = ROOT.parent / "shared" / "reference-fixtures"

# Every process a test starts inherits this variable, with a value of that test's own: the tests
# that look for servers left running (``processes``) see their own processes, never those of a
# test running at the same time in another pytest-xdist worker.
TEST_MARK = "MCPAQL_TEST_MARK"


# Under pytest-xdist (-n, with --dist loadgroup from pyproject.toml), the tests marked so run in
# one worker, in order: the documented commands, which write into the checkout (out/, and
# reports/ when they regenerate it) and read what an earlier one wrote, and the tests that read
# what those commands rewrite.
IN_THE_CHECKOUT = pytest.mark.xdist_group("checkout")
# Tests that take a worker for a minute or more: under xdist they start first, so that no worker
# is left with one of them while the other has finished.
LONG_RUNNING = ("tests/acceptance/test_agent_llm.py::",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist (-n), the long units first (the groups and LONG_RUNNING), each in its own
    order; a run in one process keeps the collection order. Each worker collects and sorts alike
    (the controller collects nothing): the scheduler takes the workers' order."""
    if not hasattr(config, "workerinput"):
        return

    def long_first(item: pytest.Item) -> int:
        return 0 if item.get_closest_marker("xdist_group") or item.nodeid.startswith(LONG_RUNNING) else 1

    items.sort(key=long_first)


@pytest.fixture(autouse=True)
def _mark_the_tests_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_MARK, f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{uuid.uuid4().hex}")


def _started_by_this_test(pid: str) -> bool:
    """Whether the process's environment carries this test's mark (everywhere without /proc)."""
    if not os.path.isdir("/proc"):
        return True
    try:
        with open(f"/proc/{pid}/environ", "rb") as block:
            variables = block.read().split(b"\0")
    except OSError:  # gone meanwhile, or not ours to read
        return False
    return f"{TEST_MARK}={os.environ[TEST_MARK]}".encode() in variables


def processes(marker: str, columns: str = "pid,args") -> list[str]:
    """``ps`` lines (full command lines: -ww, never cut at $COLUMNS) of the processes this test
    started, directly or not, whose command line holds ``marker``."""
    out = subprocess.run(["ps", "-ww", "-eo", columns], capture_output=True, text=True, check=False).stdout
    lines = [line for line in out.splitlines()[1:] if marker in line and "ps -ww" not in line]
    return [line for line in lines if _started_by_this_test(line.split()[0])]


# Unset for every run of the command line: colour is the command's own choice, and text reports
# wrap at COLUMNS (under pytest-xdist the workers have it set).
_UNSET = ("NO_COLOR", "FORCE_COLOR", "COLUMNS")


def run_cli(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 120, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """The command line run with ``args``: in this process (click's runner: the same code, exit
    code and streams, without paying a start-up each time), or with ``process=True`` as its own
    process (``python -m mcpaql_conformance``), where the process boundary is what the test is about
    (signals, closed pipes, a time limit on the whole run, the real streams)."""
    if not process:
        return _in_process(args, cwd, env or {})
    environment = {k: v for k, v in os.environ.items() if k not in _UNSET}
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "mcpaql_conformance", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        check=False,
        timeout=timeout,
    )


def _in_process(args: tuple[str, ...], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    from click.testing import CliRunner

    from mcpaql_conformance.cli import cli

    environment: dict[str, str | None] = {name: None for name in _UNSET}
    environment.update(env)
    with contextlib.chdir(cwd):
        result = CliRunner(env=environment).invoke(cli, list(args), prog_name="mcpaql-conformance")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_cli


def types_with(name: str) -> list[dict[str, Any]]:
    """A types list naming ``name`` and the two protocol types core §9.1 defines."""
    return [
        {"name": name, "kind": "object"},
        {"name": "SemanticCategory", "kind": "enum"},
        {"name": "OperationResult", "kind": "union"},
    ]


def minimal_conformant_bundle() -> dict[str, Any]:
    """A small Level 1 bundle (a bookmarks adapter) on which every Level 1 test passes."""

    def failure(code: str, message: str) -> dict[str, Any]:
        return {"success": False, "error": {"code": code, "message": message}}

    operations = [
        ("introspect", "READ", "read", (True, False), [("query", True)]),
        ("create_bookmark", "CREATE", "create", (False, False), [("url", True), ("title", False)]),
        ("get_bookmark", "READ", "read", (True, False), [("bookmark_id", True)]),
        ("list_bookmarks", "READ", "read", (True, False), [("limit", False)]),
        ("update_bookmark", "UPDATE", "update", (False, True), [("bookmark_id", True), ("input", True)]),
    ]
    details = [
        {
            "name": name,
            "semantic_category": category,
            "endpoint": endpoint,
            "mcpTool": f"mcp_aql_{endpoint}",
            "description": f"{name} operation."
            + (
                " No filter, sort or fields: every bookmark in full." if name.startswith("list_") else ""
            ),  # collection-querying §3
            "permissions": {"readOnly": perms[0], "destructive": perms[1]},
            "parameters": [{"name": p, "type": "string", "required": r} for p, r in params],
            "returns": {"name": "Bookmark", "kind": "object"},
        }
        for name, category, endpoint, perms, params in operations
    ]
    details[3]["parameters"][0].update(type="integer", default=10)
    details[4]["parameters"][1].update(type="object")  # an UPDATE's `input` object (core §4.5)
    missing = [
        {
            "operation": d["name"],
            "parameter": p["name"],
            "response": failure("VALIDATION_MISSING_PARAM", f"Missing required parameter '{p['name']}'."),
        }
        for d in details
        for p in d["parameters"]
        if p["required"]
    ]
    return {
        "implementation": "bookmarks-adapter",
        "version": "2.1.0",
        "spec_version": "1.0.0-draft",
        "endpoint_modes": ["crude"],
        "introspection": {
            "operations_list": {
                "success": True,
                "data": {
                    "_protocol": {
                        "version": "1.0.0-draft",
                        "conformance": "level-1",
                        "mode": "semantic",
                        "limits": {"max_nesting_depth": 32},
                    },
                    "operations": [
                        {k: d[k] for k in ("name", "semantic_category", "endpoint", "description")} for d in details
                    ],
                },
            },
            "types_list": {"success": True, "data": {"types": types_with("Bookmark")}},
            "operation_details": details,
        },
        "accepted_parameters": {d["name"]: [p["name"] for p in d["parameters"]] for d in details},
        "parameter_tests": {
            "missing_required": missing,
            "unknown_parameter": [
                {
                    "operation": d["name"],
                    "parameter": "colour",
                    "response": failure("VALIDATION_UNKNOWN_PARAM", "Unknown parameter 'colour'."),
                }
                for d in details
            ],
            "optional_defaults": [
                {
                    "operation": "list_bookmarks",
                    "parameter": "limit",
                    "expected_value_path": "data.page.limit",
                    "expected_value": 10.0,
                    "response": {"success": True, "data": {"items": [], "page": {"limit": 10}}},
                }
            ],
        },
        "error_tests": [
            {"name": "missing-url", "must_mention": ["url"], "response": missing[1]["response"]},
        ],
        "round_trip_tests": [
            {
                "name": "bookmark-create-read",
                "operation": "create_bookmark",
                "expected_fields": {"data.url": "https://example.org/a", "data.tags.0": "read-later"},
                "read_response": {"success": True, "data": {"url": "https://example.org/a", "tags": ["read-later"]}},
            }
        ],
        "update_preservation_tests": [
            {
                "name": "rename-keeps-url",
                "operation": "update_bookmark",
                "preserved_fields": {"data.url": "https://example.org/a"},
                "read_response": {"success": True, "data": {"url": "https://example.org/a", "title": "New"}},
            }
        ],
    }


@pytest.fixture
def write_bundle(tmp_path: Path) -> Callable[..., Path]:
    def write(data: Any, name: str = "bundle.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return write


DEMO = (sys.executable, "-m", "mcpaql_conformance.demo_adapter")

WARM = Path(__file__).with_name("warm.py")
# What the test servers and the command line import, imported once per worker by the zygote
# (warm.py): the demo, the MCP SDK's server, and every command's module (cli.group.COMMANDS).
_WARM_MODULES = (
    "mcpaql_conformance.demo_adapter.server",
    "mcp.server.mcpserver",
    "mcp.server.stdio",
    "uvicorn",
    *sorted({f"mcpaql_conformance.cli.{module}" for module, _ in COMMANDS.values()}),
)
_zygote: list[tuple[subprocess.Popen[bytes], str]] = []


def warm(*command: str) -> tuple[str, ...]:
    """``command`` (``python -m module ...`` or ``python script.py ...``, a test server over stdio)
    started from this worker's zygote (tests/acceptance/warm.py): the same server on the same
    streams, without importing the MCP SDK again. For tests whose point is not the process itself."""
    if not _zygote:
        import atexit
        import shutil
        import tempfile

        path = os.path.join(tempfile.mkdtemp(prefix="mcpaql-warm-"), "socket")
        environment = {k: v for k, v in os.environ.items() if k != TEST_MARK}  # no test's own: it outlives them
        zygote = subprocess.Popen(
            [sys.executable, str(WARM), "--serve", path, *_WARM_MODULES],
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            env=environment,
        )
        atexit.register(shutil.rmtree, os.path.dirname(path), ignore_errors=True)
        atexit.register(zygote.kill)  # (run first: the last registered)
        deadline = time.monotonic() + 60
        while not os.path.exists(path) and zygote.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        _zygote.append((zygote, path))
    return (sys.executable, str(WARM), _zygote[0][1], *command)


# The interpreters warm_path stands in for, and its shim for each: the real one for everything
# but ``-m mcpaql_conformance[.module]``, which starts warm.
PYTHONS = ("python", "python3")
_PYTHON_SHIM = """#!/bin/sh
case "$1" in -m) case "$2" in mcpaql_conformance|mcpaql_conformance.*) exec {launch} {real} "$@";; esac;; esac
exec {real} "$@"
"""


def warm_path(venv_bin: Path) -> str:
    """What to put first on PATH instead of ``venv_bin`` for shell commands (the documented ones,
    the CI recipes, the action's steps): ``mcpaql-conformance``, and ``python``/``python3`` running
    ``-m mcpaql_conformance...`` (the command line, the demo server), start warm from this
    worker's zygote (``warm``: the same entry point, arguments, streams, environment and exit
    status, the program name the console script gives); anything else ``python`` runs is the
    venv's own. What a library says while it is imported is said once, by the zygote: not for
    tests about import-time messages. ``venv_bin`` alone where its interpreter is not the one
    running the tests."""
    python = venv_bin / "python"
    if not python.exists() or not os.path.samefile(python, sys.executable):
        return str(venv_bin)
    launcher = warm(str(python))[:3]  # (python, warm.py, socket)
    shims = Path(launcher[2]).with_name("bin")
    if not shims.exists():
        shims.mkdir()
        launch = " ".join(shlex.quote(part) for part in (launcher[0], "-I", "-S", *launcher[1:]))
        script = shlex.quote(str(venv_bin / "mcpaql-conformance"))
        texts = {name: _PYTHON_SHIM.format(launch=launch, real=shlex.quote(str(venv_bin / name))) for name in PYTHONS}
        texts["mcpaql-conformance"] = f'#!/bin/sh\nexec {launch} {shlex.quote(str(python))} {script} "$@"\n'
        for name, text in texts.items():
            (shims / name).write_text(text)
            (shims / name).chmod(0o755)
    return f"{shims}{os.pathsep}{venv_bin}"


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def demo_over_http(*args: str) -> Iterator[str]:
    """The demo server on a free loopback port (a warm start: ``warm``); yields its streamable-HTTP URL."""
    import socket
    import time

    port = free_port()
    command = warm(*DEMO, "--http", str(port), *args)
    server = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextlib.contextmanager
def http_server(kind: str, folder: Path) -> Iterator[str]:
    """One of tests/acceptance/servers.py's HTTP servers on a loopback port: its MCP URL."""
    port_file = folder / f"{kind}.port"
    servers = Path(__file__).with_name("servers.py")
    server = subprocess.Popen([sys.executable, str(servers), kind, str(port_file)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60  # the gzip bomb is made at start
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text()}/mcp"
    finally:
        server.kill()
        server.wait(timeout=10)


def stopped_when(command: list[str], ready: Callable[[], bool], settle: float = 0.0) -> tuple[int, str]:
    """Run the CLI; SIGTERM it once ``ready()`` (and ``settle`` seconds more); its exit code and stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpaql_conformance", *command],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert process.poll() is None, "it ended before it could be stopped"
        time.sleep(settle)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stderr


def reference_report() -> dict[str, Any]:
    """A report in the shape the specification's reference runner writes (no test ids, no tool)."""
    return {
        "implementation": "some-adapter",
        "version": "0.9.0",
        "specVersion": "1.0.0-draft",
        "requestedLevel": 1,
        "conformanceLevel": 0,
        "summary": {"total": 2, "passed": 1, "warned": 0, "failed": 1, "skipped": 0},
        "categories": [
            {
                "name": "Error Quality",
                "required": True,
                "result": "FAIL",
                "tests": [
                    {"name": "Leak check", "result": "FAIL", "detail": "Leak in: error-1"},
                    {"name": "Schema check", "result": "PASS", "detail": "ok"},
                ],
            }
        ],
        "exitCode": 1,
    }
