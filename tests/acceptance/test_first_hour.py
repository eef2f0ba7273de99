"""What a new user meets in the first hour: files recognised for what they are, several bundles
at once, consistent exit codes, --version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import ROOT

FIXTURES = ROOT / "fixtures"
CONFORMANT = FIXTURES / "l1-conformant-notes.json"
FAILING = FIXTURES / "diff-02-leak-stack-frame-notes.json"


def one_error_line(result: Any) -> str:
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return str(lines[0])


@pytest.fixture
def files(cli: Any, tmp_path: Path) -> dict[str, Path]:
    """One file of each kind the tool reads."""
    report = tmp_path / "report.json"
    report.write_text(cli("test", str(FAILING), "-f", "json").stdout)
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": "s", "bundles": ["*.json"]}))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"values": {"note_id": "n1"}}))
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"entries": [{"id": "L1.errors.no-leakage", "reason": "known"}]}))
    bundle = tmp_path / "bundle.json"
    shutil.copy(CONFORMANT, bundle)
    return {"report": report, "suite": suite, "plan": plan, "baseline": baseline, "bundle": bundle}


def test_a_report_given_to_test_is_named_with_the_command_that_shows_it(cli, files):
    report = files["report"]
    assert one_error_line(cli("test", str(report))) == (
        f"error: {report} is a conformance report, not an evidence bundle; show it with:"
        f" mcpaql-conformance report {report} (a badge: mcpaql-conformance badge {report})"
    )


@pytest.mark.parametrize(
    ("command", "kind", "given", "advice"),
    [
        (("test",), "a capture plan", "plan", "use it with: mcpaql-conformance capture --plan"),
        (("test",), "a baseline", "baseline", "use it with: mcpaql-conformance test BUNDLE --baseline"),
        (("report",), "an evidence bundle", "bundle", "judge it with: mcpaql-conformance test"),
        (("badge",), "a suite", "suite", "judge its members with: mcpaql-conformance test"),
        (("test", "{bundle}", "--baseline"), "a conformance report", "report", "show it with"),
        (("test", "{bundle}", "--baseline"), "an evidence bundle", "bundle", "judge it with"),
        (("capture", "--bundle", "{tmp}/out.json", "--plan"), "a conformance report", "report", "show it with"),
    ],
)
def test_every_kind_of_file_given_to_the_wrong_command_is_named(cli, files, tmp_path, command, kind, given, advice):
    args = [part.format(bundle=files["bundle"], tmp=tmp_path) for part in command]
    if args[0] == "capture":
        args += [str(files[given]), "--", "python", "-c", "pass"]
    else:
        args.append(str(files[given]))
    line = one_error_line(cli(*args))
    assert line.startswith(f"error: {files[given]} is {kind}, not ") and advice in line
    assert not (tmp_path / "out.json").exists()


def test_a_suite_with_a_misnamed_members_key_is_recognised(cli, tmp_path):
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": "ours", "bundle": ["a.json", "b.json"]}))
    assert one_error_line(cli("test", str(suite))) == (
        f"error: {suite} looks like a suite with its members under 'bundle': a suite lists them under"
        ' "bundles" ({"name": ..., "bundles": ["a.json", "evidence/*.json"]})'
    )


def test_an_empty_object_is_still_judged_as_an_empty_bundle(cli, tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    result = cli("test", str(empty))
    assert result.returncode == 1 and "no evidence" in result.stdout


def test_several_bundles_are_judged_together_like_a_suite(cli, tmp_path):
    result = cli("test", str(CONFORMANT), str(FAILING), "-f", "json")
    data = json.loads(result.stdout)
    assert result.returncode == 1 and data["exitCode"] == 1
    assert data["suite"] == "2 bundles" and data["aggregate"] == "1/2 bundles conformant"
    assert [Path(member["bundle"]).name for member in data["members"]] == [CONFORMANT.name, FAILING.name]


def test_a_folder_stands_for_its_bundles(cli, tmp_path):
    for source in (CONFORMANT, FIXTURES / "l2-conformant-bookmarks.json"):
        shutil.copy(source, tmp_path / source.name)
    result = cli("test", str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().splitlines()[-1] == "2/2 bundles conformant (exit 0)"


def test_several_bundles_refuse_category_and_baseline_and_name_a_missing_one(cli, tmp_path):
    line = one_error_line(cli("test", str(CONFORMANT), str(FAILING), "--category", "Error Quality"))
    assert line == "error: --category, --baseline and --write-baseline apply to one bundle, not to several bundles"
    assert one_error_line(cli("test", str(CONFORMANT), str(tmp_path / "gone.json"))) == (
        f"error: bundle not found: {tmp_path / 'gone.json'}"
    )


def test_validate_takes_folders_and_reports_every_file(cli, tmp_path, files):
    folder = tmp_path / "many"
    folder.mkdir()
    shutil.copy(CONFORMANT, folder / "a.json")
    (folder / "b.json").write_text("[1,")
    shutil.copy(files["report"], folder / "c.json")
    result = cli("validate", str(folder))
    assert result.returncode == 3, result.stdout
    heads = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert heads == [
        f"{folder}/a.json: 0 diagnostic(s)",
        f"{folder}/b.json: 1 diagnostic(s)",
        f"{folder}/c.json: 1 diagnostic(s)",
        "2 error(s), 0 warning(s), 0 info in 3 bundle(s)",
    ]
    assert f"MQA000 error $: {folder}/c.json is a conformance report, not an evidence bundle" in result.stdout


def test_report_exits_with_the_reports_own_code(cli, tmp_path, files):
    assert cli("report", str(files["report"])).returncode == 1
    passing = tmp_path / "passing.json"
    passing.write_text(cli("test", str(CONFORMANT), "-f", "json").stdout)
    assert cli("report", str(passing)).returncode == 0
    warned = tmp_path / "warned.json"
    warned.write_text(cli("test", str(CONFORMANT), "--level", "2", "-f", "json").stdout)
    assert cli("report", str(warned)).returncode == json.loads(warned.read_text())["exitCode"] == 2
    assert cli("badge", str(files["report"])).returncode == 0  # a badge is made whatever it says


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag(cli, flag):
    from mcpaql_conformance import SPEC_VERSION, __version__

    result = cli(flag)
    assert result.returncode == 0
    assert result.stdout == f"mcpaql-conformance {__version__} (MCP-AQL spec {SPEC_VERSION})\n"
