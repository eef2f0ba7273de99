"""Every JSON report `test` and `check` write is read back as a report, whatever additive keys it
carries (provenance, capture notes and readings, agent metrics, a baseline): each writer x each
reader (`report` in every format, `badge` in every format, and the commands that name a file's
kind when it is given to the wrong one)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.files.kinds import BUNDLE, REPORT, SUITE_REPORT, kind_of
from mcpaql_conformance.report import FORMATS
from tests.acceptance.conftest import DEMO, ROOT, run_cli, warm

# One worker under pytest-xdist (--dist loadgroup): the writers' reports are made once, not per worker.
pytestmark = pytest.mark.xdist_group("report-kinds")
FIXTURES = ROOT / "fixtures"
PASSPHRASE = {"DEMO_NOTES_PASSPHRASE": "change-me"}
# writer -> the additive keys its report must carry (so the matrix covers what it claims to)
WRITERS = {
    "test-plain": (),
    "test-failing": (),
    "test-captured": ("provenance",),
    "test-check-bundle": ("provenance", "captureNotes"),
    "test-agent": ("provenance", "agentRuns"),
    "test-baseline": ("baseline",),
    "test-baseline-stale": ("baseline",),
    "check": ("provenance", "captureNotes"),
    "check-agent": ("provenance", "agentRuns"),
    "test-suite": (),
    "test-folder": (),
}
BADGE_FORMATS = ("svg", "json", "markdown")


def _written(result: Any, path: Path) -> Path:
    assert result.returncode in (0, 1, 2), (result.stdout, result.stderr)
    assert path.is_file(), result.stderr
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One JSON report from each writer (the live ones against the demo server)."""
    folder = tmp_path_factory.mktemp("writers")
    out: dict[str, Path] = {}

    def write(name: str, command: str, *args: str, env: dict[str, str] | None = None) -> None:
        path = folder / f"{name}.json"
        result = run_cli(command, "-f", "json", "-o", str(path), *args, cwd=folder, env=env, timeout=300)
        out[name] = _written(result, path)

    conformant, failing = FIXTURES / "l1-conformant-notes.json", FIXTURES / "diff-02-leak-stack-frame-notes.json"
    write("test-plain", "test", str(conformant))
    write("test-failing", "test", str(failing))
    write("test-captured", "test", str(ROOT / "evidence" / "demo-notes.json"))
    baseline = folder / "baseline.json"
    baseline.write_text(json.dumps({"entries": [{"id": "L1.errors.no-leakage", "reason": "tracked"}]}))
    write("test-baseline", "test", str(failing), "--baseline", str(baseline))
    write("test-baseline-stale", "test", str(conformant), "--baseline", str(baseline))
    capture = ("--allow-destructive", "--capture-dir", str(folder / "capture"))
    write("check", "check", *capture, "--bundle", str(folder / "captured.json"), "--", *warm(*DEMO))
    write("test-check-bundle", "test", str(folder / "captured.json"))
    agent = ("--agent", "--scenario", str(ROOT / "scenarios" / "demo-notes.yaml"), "--level", "2")
    agent += ("--plan", str(ROOT / "evidence" / "plans" / "demo-notes.json"))
    agent += ("--bundle", str(folder / "agent.json"))
    write("check-agent", "check", *capture, *agent, "--", *warm(*DEMO), env=PASSPHRASE)
    write("test-agent", "test", str(folder / "agent.json"), "--level", "2")
    write("test-suite", "test", str(conformant), str(FIXTURES / "l2-conformant-bookmarks.json"))
    members = folder / "members"
    members.mkdir()
    for source in (conformant, failing):
        shutil.copy(source, members / source.name)
    write("test-folder", "test", str(members))
    return out


def _data(reports: dict[str, Path], writer: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(reports[writer].read_text())
    return data


def _kind(writer: str) -> str:
    return SUITE_REPORT if writer in ("test-suite", "test-folder") else REPORT


@pytest.mark.parametrize("writer", WRITERS)
def test_every_written_report_is_known_as_a_report_with_its_additive_keys(reports, writer):
    data = _data(reports, writer)
    for key in WRITERS[writer]:
        assert key in data, f"{writer} wrote no {key}: the matrix would not cover it"
    assert kind_of(data) == _kind(writer)


NAMING_COMMANDS = {
    "test": ("test", "{report}"),
    "validate": ("validate", "{report}"),
    "test --baseline": ("test", "{bundle}", "--baseline", "{report}"),
    "capture --plan": ("capture", "--bundle", "{tmp}/b.json", "--plan", "{report}", "--", "python", "-c", "pass"),
    "check --plan": ("check", "--plan", "{report}", "--", "python", "-c", "pass"),
    "agent --scenario": ("agent", "--scenario", "{report}", "--", "python", "-c", "pass"),
    "schemas": ("schemas", "{report}"),
    "diff": ("diff", "{bundle}", "{report}"),
}
# The readers run in one process per writer (click's runner: the real command line, its exit
# codes and streams), not one each: 16 commands x 11 writers would cost a minute of start-ups.
_DRIVER = """
import json, sys
from click.testing import CliRunner
from mcpaql_conformance.cli import cli
results = []
for args in json.load(sys.stdin):
    result = CliRunner().invoke(cli, args)
    results.append([result.exit_code, result.stdout, result.stderr])
json.dump(results, sys.stdout)
"""


def run_readers(commands: dict[str, list[str]], cwd: Path) -> dict[str, tuple[int, str]]:
    """Each reader's (exit code, stdout + stderr)."""
    ran = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        input=json.dumps(list(commands.values())),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={k: v for k, v in os.environ.items() if k not in ("GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR")},
    )
    results = json.loads(ran.stdout)
    return {name: (code, out + err) for name, (code, out, err) in zip(commands, results, strict=True)}


@pytest.mark.parametrize("writer", WRITERS)
def test_every_reader_takes_the_report_of(writer, reports, tmp_path):
    report, data = reports[writer], _data(reports, writer)
    bundle = FIXTURES / "l1-conformant-notes.json"
    commands = {f"report -f {fmt}": ["report", str(report), "-f", fmt, "-o", f"out.{fmt}"] for fmt in FORMATS}
    commands |= {f"badge -f {fmt}": ["badge", str(report), "-f", fmt, "-o", f"badge.{fmt}"] for fmt in BADGE_FORMATS}
    for name, command in NAMING_COMMANDS.items():
        commands[name] = [part.format(report=report, bundle=bundle, tmp=tmp_path) for part in command]
    results = run_readers(commands, tmp_path)

    for fmt in FORMATS:  # the report's own exit code, recomputed from its tests
        code, log = results[f"report -f {fmt}"]
        assert code == data["exitCode"] and "error" not in log, (fmt, code, log)
        assert (tmp_path / f"out.{fmt}").stat().st_size > 0, fmt
    assert kind_of(json.loads((tmp_path / "out.json").read_text())) == _kind(writer)  # still a report

    for fmt in BADGE_FORMATS:
        code, log = results[f"badge -f {fmt}"]
        assert code == 0, (fmt, log)
        text = (tmp_path / f"badge.{fmt}").read_text()
        assert "MCP-AQL" in text
        # the implementation's verdict, not the run's: a baselined failure stays red, a stale
        # baseline fails the run but not the adapter
        red = "red" in text or "#e05d44" in text
        assert red == (writer in ("test-failing", "test-baseline", "test-folder")), (fmt, text)

    for name in NAMING_COMMANDS:
        code, log = results[name]
        assert code == 3, (name, log)
        assert f"{report} is {_kind(writer)}, not " in log, (name, log)
        assert f"show it with: mcpaql-conformance report {report}" in log, (name, log)
    assert not (tmp_path / "b.json").exists()


def test_the_headline_case_in_real_processes(reports, tmp_path):
    """The issue's report: `check -f json -o r.json`, then `report r.json -f junit` and `badge r.json`."""
    junit, badge = tmp_path / "junit.xml", tmp_path / "badge.svg"
    assert run_cli("report", str(reports["check"]), "-f", "junit", "-o", str(junit)).returncode == 0
    assert run_cli("badge", str(reports["check"]), "-o", str(badge)).returncode == 0
    assert "<testsuites" in junit.read_text() and "Level 1 conformant" in badge.read_text()


def test_a_report_with_every_additive_key_at_once_is_still_a_report(reports):
    merged = _data(reports, "test-plain")
    for writer in WRITERS:
        if _kind(writer) == REPORT:
            merged = _data(reports, writer) | merged
    merged["captureReadings"] = ["a reading"]
    # the bundle's own spellings too, should a future report copy one verbatim
    merged |= {"capture_notes": [], "capture_readings": [], "agent_runs": [], "expected_level": 1}
    assert kind_of(merged) == REPORT


def test_bundles_stay_bundles_whatever_report_keys_they_carry():
    bundle = json.loads((ROOT / "evidence" / "demo-notes.json").read_text())
    assert kind_of(bundle) == BUNDLE
    # evidence and a report's structure together: evidence wins, a bundle never becomes a report
    assert kind_of(bundle | {"summary": {}, "exitCode": 0, "categories": [{"name": "x", "tests": []}]}) == BUNDLE
    # a bundle's metadata alone, without a report's structure, is still a bundle
    assert kind_of({"provenance": {"tool": "x"}, "categories": []}) == BUNDLE
    assert kind_of({"provenance": {}, "summary": {}, "categories": ["not a category"]}) == BUNDLE
