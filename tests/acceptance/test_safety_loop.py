"""Capture drives the execution safety loop of a live server (capture/safety.py; core §8.4, §8.6-8.8):
only with --allow-destructive (its scenarios start executions), every scenario recorded in
``execution_tests``, and each rule it judges shown per requirement in the report (PASS where the
scenario drew what the rule is about, SKIP naming what was missing otherwise)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.acceptance.conftest import run_cli, warm

SERVER = Path(__file__).with_name("reading_server.py")


def server() -> tuple[str, ...]:
    return warm(sys.executable, str(SERVER), "--mode", "all")


def test_a_read_only_dry_run_withholds_the_drive_and_a_destructive_one_lists_it(tmp_path: Path) -> None:
    quiet = run_cli("capture", "--dry-run", "--capture-dir", str(tmp_path / "a"), "--", *server())
    assert quiet.returncode == 0, quiet.stderr
    assert "execute_agent (execution 9): the execution safety loop's scenarios (they start executions): declared " \
           "EXECUTE: not called in a read-only run" in quiet.stdout  # fmt: skip
    loud = run_cli("capture", "--dry-run", "--allow-destructive", "--capture-dir", str(tmp_path / "b"), "--", *server())
    assert "execute_agent via mcp_aql_execute: the execution safety loop, one execution each: lifecycle, cancel, " \
           "failure, step_limit, approval, verify, expiry, deny, session (up to 100 calls); then a second " \
           "connection, once the first closed: the blocked agent's new execution, a step of the one left running" \
           in loud.stdout  # fmt: skip


def test_the_drive_is_recorded_and_judged_per_requirement(tmp_path: Path) -> None:
    bundle = tmp_path / "reading.json"
    captured = run_cli("capture", "--allow-destructive", "--bundle", str(bundle), "--capture-dir",
                       str(tmp_path / "capture"), "--", *server())  # fmt: skip
    assert captured.returncode == 0, captured.stderr
    cases = json.loads(bundle.read_text())["execution_tests"]
    assert {case["scenario"] for case in cases} == {"lifecycle", "cancel", "failure", "step_limit", "approval",
                                                    "verify", "expiry", "deny", "session"}  # fmt: skip
    assert [(case["call"], case.get("restarted")) for case in cases if case["scenario"] == "session"] == [
        ("start", None),
        ("step", None),
        ("restart_blocked", True),
        ("old_execution", True),
        ("old_execution_claimed", True),
    ]
    assert [case["call"] for case in cases if case["scenario"] == "deny"] == [
        "start_bystander",
        "start",
        "denied",
        "bystander_step",
        "after_block",
        "new_execution",
        "complete_execution",
    ]
    assert all(case["agent"].startswith("zz-conformance-agent-") for case in cases if case["agent"])
    report_file = tmp_path / "report.json"
    judged = run_cli("test", str(bundle), "--level", "2", "-f", "json", "-o", str(report_file))
    assert judged.returncode in (0, 2), judged.stderr
    results = {entry["rule"]: entry["result"] for entry in json.loads(report_file.read_text())["requirements"]}
    for rule in (
        "core:8.8.1:hard-block-stopped",
        "core:8.8.1:hard-block-broadcast",
        "core:8.7.2:step-limit-pause",
        "core:8.8.5:ten-per-minute",
        "core:8.8.2:challenge-expiry",
        "core:8.4.2:terminal-final",
        "core:8.7.3:self-approval-prevented",
        "core:8.6.1:support-documented",
        "core:8.8.3:block-persists",
        "core:2.3.3:session-state-ends",
        "core:2.3.3:executions-end",
        "core:2.3.5:meta-not-identity",
    ):
        assert results[rule] == "PASS", rule
    assert results["core:8.6.4:monitoring-never-stops"] == "SKIP"  # the loop declares itself enforcing
    said = run_cli("rules", "--report", str(report_file))
    assert "core:8.6.4:monitoring-never-stops" in said.stdout
    assert "directive of a loop declared monitoring" in said.stdout
