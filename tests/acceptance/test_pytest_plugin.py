"""The pytest plugin (mcpaql_conformance/pytest_plugin.py), run by pytester against live servers:
each conformance test becomes an item whose outcome is the test's verdict, and without its
options the plugin adds nothing and starts nothing."""

from __future__ import annotations

import json
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mcpaql_conformance.pytest_plugin import Settings, check_command, describe
from tests.acceptance.conftest import DEMO, ROOT, demo_over_http, warm

pytest_plugins = ["pytester"]

# A read-only server that answers sloppily: its report has PASS, FAIL, WARN and SKIP tests.
ODD = (sys.executable, str(ROOT / "tests" / "acceptance" / "servers.py"), "odd")
OWN_TEST = "def test_own():\n    assert True\n"
LEVEL1_TESTS = 13


def test_without_options_the_plugin_adds_and_starts_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own=OWN_TEST)
    collected = pytester.runpytest_subprocess("--collect-only", "-q")
    assert collected.ret == 0
    assert collected.stdout.lines[0] == "test_own.py::test_own"
    assert "mcpaql" not in collected.stdout.str()
    ran = pytester.runpytest_subprocess("-v")
    ran.assert_outcomes(passed=1)
    output = ran.stdout.str()
    assert "mcpaql-conformance-" in output.split("plugins:")[1].splitlines()[0]  # loaded by its entry point
    assert "mcpaql-conformance:" not in output and "mcpaql-conformance::" not in output


def test_each_verdict_is_the_outcome_of_its_item(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own=OWN_TEST)
    report_path = pytester.path / "kept" / "conformance.json"
    result = pytester.runpytest_subprocess(
        "--mcpaql-server",
        shlex.join(warm(*ODD)),  # a warm start (conftest.warm)
        "--mcpaql-report",
        "kept/conformance.json",
        "--junitxml",
        "junit.xml",
        "-p",
        "no:cacheprovider",
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    tests = {t["id"]: (c["name"], t) for c in report["categories"] for t in c["tests"]}
    verdicts = [t["result"] for _, t in tests.values()]
    assert {"PASS", "FAIL", "WARN", "SKIP"} <= set(verdicts)
    result.assert_outcomes(
        passed=1 + verdicts.count("PASS") + verdicts.count("WARN"),
        failed=verdicts.count("FAIL"),
        skipped=verdicts.count("SKIP"),
        warnings=verdicts.count("WARN"),
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    cases = {case.get("name"): case for case in ET.parse(pytester.path / "junit.xml").iter("testcase")}
    assert len(cases) == 1 + LEVEL1_TESTS == 1 + len(tests)
    output = result.stdout.str()
    for test_id, (category, test) in tests.items():
        case = cases[test_id]
        assert case.get("classname") == f"mcpaql-conformance.{category}"
        children = {child.tag: child for child in case}
        if test["result"] in ("PASS", "WARN"):
            assert not children.keys() & {"failure", "skipped", "error"}, test_id
        if test["result"] == "FAIL":
            message = children["failure"].text or ""
            assert message.startswith(f"{test_id}: {test['name']} (FAIL)")
            for finding in test.get("findings") or [test["detail"]]:
                assert finding in message
            assert f"spec: {test['specRef']}" in message
        if test["result"] == "SKIP":
            assert test["detail"] in children["skipped"].get("message", "")
        if test["result"] == "WARN":
            assert f"ConformanceWarning: {test_id}: {test['name']} (WARN)" in output
            assert (test.get("findings") or [test["detail"]])[0] in output
    assert "mcpaql-conformance: Level 1 check of" in output
    assert "conformance level 0 (Level 1 requested; `check` would exit 1)" in output


def test_ini_options_and_a_demo_fault(pytester: pytest.Pytester) -> None:
    """A project sets the server once in its ini file; a broken MUST fails its one test, with the finding."""
    server = shlex.join(warm(*DEMO, "--fault", "leaky-errors"))  # a warm start (conftest.warm)
    pytester.makeini(f"[pytest]\nmcpaql_server = {server}\nmcpaql_allow_destructive = true\nmcpaql_timeout = 30\n")
    pytester.makepyfile(test_own=OWN_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=LEVEL1_TESTS, failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED mcpaql-conformance::Error Quality::L1.errors.no-leakage*",
        ]
    )
    assert "exception class name 'TypeError'" in result.stdout.str()


def test_a_running_server_by_url_at_level_2(pytester: pytest.Pytester) -> None:
    """--mcpaql-url checks a server that is already running; Level 2 adds its categories, and
    Semantic Evaluation (tests made from the evidence) is one item."""
    pytester.makepyfile(test_own=OWN_TEST)
    with demo_over_http() as url:
        result = pytester.runpytest_subprocess(
            "--mcpaql-url", url, "--mcpaql-level", "2", "--mcpaql-allow-destructive", "-v", "-p", "no:cacheprovider"
        )
    output = result.stdout.str()
    assert f"mcpaql-conformance: Level 2 check of {url}" in output
    result.stdout.fnmatch_lines(
        [
            "mcpaql-conformance::Level 2 Features::L2.features.endpoint-modes PASSED*",
            "mcpaql-conformance::Semantic Evaluation::L2.semantic-evaluation PASSED*",
        ]
    )
    assert "ConformanceWarning: L2.semantic.evidence: " in output  # no agent runs: no semantic evidence
    assert "conformance level 2 (Level 2 requested; `check` would exit 2)" in output
    assert result.ret == pytest.ExitCode.OK


def test_a_server_that_cannot_be_captured_is_one_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_own=OWN_TEST)
    server = shlex.join([sys.executable, "-c", "import sys; print('no such database', file=sys.stderr); sys.exit(1)"])
    result = pytester.runpytest_subprocess("--mcpaql-server", server, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1, skipped=LEVEL1_TESTS - 1)
    output = result.stdout.str()
    assert "mcpaql-conformance check could not judge" in output
    assert "(exit 3)" in output
    assert "no such database" in output
    assert "Traceback" not in output and "pytest_plugin.py" not in output.split("short test summary")[0]


def test_collecting_or_deselecting_starts_no_server(pytester: pytest.Pytester, tmp_path: Path) -> None:
    started = tmp_path / "started"
    server = shlex.join([sys.executable, "-c", f"open({str(started)!r}, 'w')"])
    pytester.makepyfile(test_own=OWN_TEST)
    collected = pytester.runpytest_subprocess("--mcpaql-server", server, "--collect-only", "-q")
    assert "mcpaql-conformance::Error Quality::L1.errors.no-leakage" in collected.stdout.lines
    assert f"{1 + LEVEL1_TESTS} tests collected" in collected.stdout.str()
    deselected = pytester.runpytest_subprocess("--mcpaql-server", server, "-m", "not mcpaql", "-p", "no:cacheprovider")
    deselected.assert_outcomes(passed=1, deselected=LEVEL1_TESTS)
    by_keyword = pytester.runpytest_subprocess("--mcpaql-server", server, "-k", "test_own", "-p", "no:cacheprovider")
    by_keyword.assert_outcomes(passed=1, deselected=LEVEL1_TESTS)
    assert not started.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mcpaql-server", "x", "--mcpaql-url", "http://127.0.0.1:1/mcp"], "a server command or a URL, not both"),
        (["--mcpaql-server", "x", "--mcpaql-level", "3"], "the level is 1 or 2, not '3'"),
        (["--mcpaql-server", "x", "--mcpaql-timeout", "soon"], "positive number of seconds, not 'soon'"),
        (["--mcpaql-server", " "], "the server command is empty"),
    ],
)
def test_bad_options_are_usage_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_the_check_command_carries_the_options(tmp_path: Path) -> None:
    settings = Settings(
        server=None,
        url="http://127.0.0.1:9/mcp",
        level="2",
        allow_writes=True,
        allow_destructive=True,
        plan=tmp_path / "plan.yaml",
        baseline=tmp_path / "baseline.json",
        timeout=5.0,
        report=None,
        bundle=tmp_path / "bundle.json",
        cwd=tmp_path,
    )
    args = check_command(settings, tmp_path / "r.json", tmp_path / "capture")
    assert args[:4] == [sys.executable, "-m", "mcpaql_conformance", "check"]
    text = shlex.join(args[4:])
    for expected in (
        f"-f json -o {tmp_path / 'r.json'}",
        "--level 2",
        "--allow-writes",
        "--allow-destructive",
        f"--plan {tmp_path / 'plan.yaml'}",
        f"--baseline {tmp_path / 'baseline.json'}",
        f"--bundle {tmp_path / 'bundle.json'}",
        "--timeout 5.0",
    ):
        assert expected in text
    assert args[-2:] == ["--url", "http://127.0.0.1:9/mcp"]
    server = Settings(**{**settings.__dict__, "url": None, "server": ["python", "my server.py"]})
    assert check_command(server, tmp_path / "r.json", tmp_path / "c")[-3:] == ["--", "python", "my server.py"]


def test_what_the_server_says_reaches_the_terminal_plain(pytester: pytest.Pytester) -> None:
    """Findings quote the server: names full of terminal escapes are shown without them."""
    ansi = shlex.join(warm(sys.executable, str(ROOT / "tests" / "acceptance" / "servers.py"), "ansi"))
    pytester.makepyfile(test_own=OWN_TEST)
    result = pytester.runpytest_subprocess("--mcpaql-server", ansi, "--junitxml", "junit.xml", "-p", "no:cacheprovider")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    assert "mcpaql-conformance: Level 1 check of" in result.stdout.str()
    assert "\x1b" not in result.stdout.str() + (pytester.path / "junit.xml").read_text(encoding="utf-8")


def test_a_message_is_plain_even_from_a_hostile_report() -> None:
    """A report edited by hand (or by a hostile server's author) cannot drive the terminal."""
    test = {
        "id": "L1.errors.no-leakage",
        "name": "Errors \x1b[2Jdo not leak",
        "result": "FAIL",
        "detail": "d",
        "lead": "1 failure(s)\u202e",
        "findings": ["\x1b]0;owned\x07$.error.message: \x1b[31mTypeError\x1b[0m"],
        "specRef": "conformance-testing §3.3",
    }
    assert describe(test) == (
        "L1.errors.no-leakage: Errors do not leak (FAIL)\n1 failure(s)\n"
        "  - $.error.message: TypeError\nspec: conformance-testing §3.3"
    )
