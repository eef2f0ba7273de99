"""Suites and parallel verification, through the real CLI."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import ROOT

FIXTURES = ROOT / "fixtures"


@pytest.fixture
def suite_dir(tmp_path: Path) -> Path:
    members = tmp_path / "members"
    members.mkdir()
    for name in ("l1-conformant-notes.json", "l2-conformant-bookmarks.json", "diff-02-leak-stack-frame-notes.json"):
        shutil.copy(FIXTURES / name, members / name)
    return tmp_path


def write_suite(folder: Path, **fields: object) -> Path:
    suite = {"name": "adapters", "description": "Our adapters", "bundles": ["members/l*-conformant-*.json"], "level": 1}
    suite.update(fields)
    path = folder / "suite.json"
    path.write_text(json.dumps(suite))
    return path


def test_a_suite_judges_every_member_and_aggregates(cli, suite_dir):
    path = write_suite(
        suite_dir, bundles=["members/l*-conformant-*.json", "members/diff-02-leak-stack-frame-notes.json"]
    )
    result = cli("test", str(path))
    assert result.returncode == 1  # the worst member's exit code
    lines = result.stdout.splitlines()
    assert lines[0] == "Suite: adapters: Our adapters"
    assert lines[-1] == "2/3 bundles conformant (exit 1)"
    members = [line for line in lines if line.startswith(("|-- ", "`-- "))]
    assert [m.split()[-3].rsplit("/", 1)[-1] for m in members] == [
        "l1-conformant-notes.json",
        "l2-conformant-bookmarks.json",
        "diff-02-leak-stack-frame-notes.json",
    ]
    assert "FAIL Error Quality [MUST]" in result.stdout


def test_suite_json_markdown_and_junit(cli, suite_dir):
    path = str(write_suite(suite_dir))
    data = json.loads(cli("test", path, "-f", "json").stdout)
    assert data["summary"] == {"bundles": 2, "conformant": 2} and data["exitCode"] == 0
    assert data["aggregate"] == "2/2 bundles conformant"
    assert [m["report"]["implementation"] for m in data["members"]] == ["quill-notes-adapter", "linkshelf-aql"]
    markdown = cli("test", path, "-f", "markdown").stdout
    assert markdown.startswith("# MCP-AQL Conformance Suite: adapters") and "**2/2 bundles conformant**" in markdown
    root = ET.fromstring(cli("test", path, "-f", "junit").stdout)
    assert len(root.findall("testsuite")) == 8  # two members x four Level 1 categories


def test_the_command_line_level_overrides_the_suite_level(cli, suite_dir):
    data = json.loads(cli("test", str(write_suite(suite_dir)), "--level", "2", "-f", "json").stdout)
    assert data["level"] == 2
    assert data["members"][0]["report"]["requestedLevel"] == 2


@pytest.mark.parametrize(
    ("bundles", "message"),
    [
        (["members/nope.json"], "$.bundles[0]: member 'members/nope.json' not found"),
        (["members/*.yaml"], "$.bundles[0]: 'members/*.yaml' matches no file"),
        ([], "$.bundles: expected a non-empty array of paths or globs"),
    ],
)
def test_unresolvable_members_are_configuration_errors(cli, suite_dir, bundles, message):
    result = cli("test", str(write_suite(suite_dir, bundles=bundles)))
    assert result.returncode == 3
    assert message in result.stderr


def test_an_invalid_member_makes_the_suite_exit_3_and_is_reported(cli, suite_dir):
    (suite_dir / "members" / "broken.json").write_text('{"error_tests": 3}')
    result = cli("test", str(write_suite(suite_dir, bundles=["members/*.json"])), "-f", "json")
    data = json.loads(result.stdout)
    assert result.returncode == 3 and data["exitCode"] == 3
    broken = next(m for m in data["members"] if m["bundle"].endswith("broken.json"))
    assert broken["exitCode"] == 3 and "$.error_tests: expected an array, got integer" in broken["error"]


def test_category_and_baseline_do_not_apply_to_suites(cli, suite_dir):
    result = cli("test", str(write_suite(suite_dir)), "--category", "Error Quality")
    assert result.returncode == 3 and "not to a suite" in result.stderr


def test_parallel_and_serial_verification_agree_line_for_line(cli):
    serial = cli("verify-fixtures", "--jobs", "1")
    parallel = cli("verify-fixtures", "--jobs", "2")
    assert serial.returncode == parallel.returncode == 0
    assert serial.stdout == parallel.stdout
    assert parallel.stderr == ""  # no progress bar when not on a terminal


def test_a_progress_bar_is_drawn_on_a_terminal(tmp_path):
    import os
    import pty
    import subprocess
    import sys

    primary, secondary = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")}
    env["COLUMNS"] = "100"
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpaql_conformance", "verify-fixtures", str(FIXTURES), "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=secondary,
        env=env,
        cwd=ROOT,
    )
    os.close(secondary)
    output = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    process.wait(timeout=120)
    os.close(primary)
    assert process.returncode == 0
    assert b"verifying bundles" in output


def test_members_are_deduplicated_and_the_suite_file_is_never_its_own_member(cli, suite_dir):
    path = write_suite(
        suite_dir,
        bundles=[
            "*.json",
            "members/l1-conformant-notes.json",
            "members/../members/l1-conformant-notes.json",
            str(suite_dir / "members" / "l1-conformant-notes.json"),
        ],
    )
    data = json.loads(cli("test", str(path), "-f", "json").stdout)
    assert [Path(m["bundle"]).name for m in data["members"]] == ["l1-conformant-notes.json"]


def test_a_nested_suite_member_is_an_invalid_member(cli, suite_dir):
    (suite_dir / "members" / "inner.json").write_text(json.dumps({"name": "inner", "bundles": ["x.json"]}))
    data = json.loads(cli("test", str(write_suite(suite_dir, bundles=["members/inner.json"])), "-f", "json").stdout)
    assert data["exitCode"] == 3
    assert "is a suite; suites cannot contain suites" in data["members"][0]["error"]


def test_suites_write_the_step_summary(cli, suite_dir):
    summary = suite_dir / "summary.md"
    cli("test", str(write_suite(suite_dir)), env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.read_text().startswith("# MCP-AQL Conformance Suite: adapters")


def mixed_suite(suite_dir: Path) -> Path:
    (suite_dir / "members" / "broken.json").write_text('{"error_tests": 3}')
    return write_suite(suite_dir, bundles=["members/*.json"])


def test_the_suite_tree_lists_failing_tests_with_findings_and_calls_invalid_members_so(cli, suite_dir):
    result = cli("test", str(mixed_suite(suite_dir)))
    assert result.returncode == 3
    lines = result.stdout.splitlines()
    assert lines[2] == f"|-- INVALID {suite_dir}/members/broken.json (exit 3)"
    assert lines[3] == f"|       {suite_dir}/members/broken.json: $.error_tests: expected an array, got integer"
    failing = lines.index(f"|-- NOT CONFORMANT {suite_dir}/members/diff-02-leak-stack-frame-notes.json (exit 1)")
    assert lines[failing + 1 : failing + 9] == [
        "|       Not conformant at Level 1: 1 MUST test(s) failed (badge: red, exit 1)",
        "|       PASS Introspection Fidelity [MUST]",
        "|       PASS Parameter Handling [MUST]",
        "|       FAIL Error Quality [MUST]",
        "|           FAIL Error messages do not leak implementation internals  [L1.errors.no-leakage]",
        "|                1 failure(s):",
        "|                - $.error_tests[0].response.error.message: stack frame 'at handler"
        " (/srv/app/src/notes.ts:41:9)' [introspection §8.1.3 MUST NOT]",
        "|       PASS Round-Trip Integrity [MUST]",
    ]
    assert lines[-1] == "2/4 bundles conformant (exit 3)"
    coloured = cli("test", str(mixed_suite(suite_dir)), env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[1;31mINVALID\x1b[0m" in coloured and "\x1b[1;32mCONFORMANT\x1b[0m" in coloured


def test_suite_markdown_and_html_list_failing_tests_and_invalid_members(cli, suite_dir):
    markdown = cli("test", str(mixed_suite(suite_dir)), "-f", "markdown").stdout
    assert f"| {suite_dir}/members/broken.json | INVALID | | | 3 |" in markdown.replace("\\_", "_")
    assert "## Tests that failed or warned" in markdown
    assert "- **FAIL** Error messages do not leak implementation internals (L1.errors.no-leakage, Error Quality):" in (
        markdown
    )
    page = suite_dir / "suite.html"
    result = cli("test", str(mixed_suite(suite_dir)), "-f", "html", "-o", str(page))
    assert result.returncode == 3
    html = page.read_text()
    assert (
        '<p class="banner red" id="verdict" role="status">2/4 bundles conformant (level 1, tier both, exit 3)</p>'
        in html
    )
    assert '<tr class="member" data-status="INVALID">' in html and "<h2>Tests that failed or warned</h2>" in html
    assert '<span class="tid">L1.errors.no-leakage</span>' in html


def member_names(cli: Any, suite: Path) -> list[str]:
    result = cli("test", str(suite), "-f", "json")
    assert result.returncode in (0, 1, 2), result.stderr
    return [str(Path(member["bundle"]).relative_to(suite.parent)) for member in json.loads(result.stdout)["members"]]


def test_globs_are_relative_to_the_suite_folder_whose_own_name_is_never_a_pattern(cli, tmp_path):
    for folder in ("team[12]", "team1", "team2"):
        (tmp_path / folder / "members").mkdir(parents=True)
        shutil.copy(FIXTURES / "l1-conformant-notes.json", tmp_path / folder / "members" / f"{folder}.json")
    suite = write_suite(tmp_path / "team[12]", bundles=["members/*.json"])
    assert member_names(cli, suite) == ["members/team[12].json"]


def test_double_star_walks_folders_but_not_links_to_folders_so_a_link_loop_ends(cli, suite_dir):
    deep = suite_dir / "members" / "a" / "b"
    deep.mkdir(parents=True)
    shutil.copy(FIXTURES / "l1-conformant-notes.json", deep / "deep.json")
    (deep / "loop").symlink_to(suite_dir / "members", target_is_directory=True)
    (suite_dir / "members" / ".hidden.json").write_text("{}")
    suite = write_suite(suite_dir, bundles=["members/**/*.json"])
    assert member_names(cli, suite) == [
        "members/a/b/deep.json",
        "members/diff-02-leak-stack-frame-notes.json",
        "members/l1-conformant-notes.json",
        "members/l2-conformant-bookmarks.json",
    ]
    assert member_names(cli, write_suite(suite_dir, bundles=["**/deep.json", "members/*/b/*.json"])) == [
        "members/a/b/deep.json"
    ]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("../outside.json", "is outside the suite's folder"),
        ("{outside}", "is outside the suite's folder"),
        ("members/escape.json", "is outside the suite's folder"),
        ("members/*.json", "is outside the suite's folder"),
        ("../*.json", "a glob must stay inside the suite's folder (no '/' or '..')"),
        ("{outside_glob}", "a glob must stay inside the suite's folder (no '/' or '..')"),
    ],
)
def test_members_outside_the_suite_folder_are_refused(cli, tmp_path, entry, message):
    suite_dir = tmp_path / "suite"
    (suite_dir / "members").mkdir(parents=True)
    shutil.copy(FIXTURES / "l1-conformant-notes.json", tmp_path / "outside.json")
    (suite_dir / "members" / "escape.json").symlink_to(tmp_path / "outside.json")
    entry = entry.format(outside=tmp_path / "outside.json", outside_glob=tmp_path / "*.json")
    result = cli("test", str(write_suite(suite_dir, bundles=[entry])))
    assert result.returncode == 3 and message in result.stderr and "$.bundles[0]: " in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
