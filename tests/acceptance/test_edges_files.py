"""Trust at the edges, files: no output ever replaces one of the command's inputs (links
followed), `schemas -o` never writes two operations to one file, every JSON output escapes
invisible characters the same way, and no human-readable output shows one raw."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.sanitize import UNSEEN
from tests.acceptance.conftest import DEMO, ROOT, minimal_conformant_bundle, run_cli

PLAN = ROOT / "evidence" / "plans" / "demo-notes.json"
TASKS = ROOT / "evidence" / "tasks" / "demo-notes.yaml"
SCENARIO = ROOT / "scenarios" / "demo-notes.yaml"

# Soft hyphen, Hangul filler, function application, a tag character, a variation selector,
# zero-width space, right-to-left override and the one-byte CSI: each invisible, or worse.
HIDDEN = "\u00ad\u3164\u2061\U000e0041\ufe0f\u200b\u202e\x9b"
SPOOFED = f"no{HIDDEN[:3]}tes{HIDDEN[3:]}"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def raw_invisible(text: str, allowed: str = "") -> set[str]:
    return {f"U+{ord(c):04X}" for c in UNSEEN.findall(text) if c not in allowed}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A bundle, its saved JSON report, and other names for the bundle: a symbolic link, a
    hard link, a link to the folder."""
    bundle = tmp_path / "b.json"
    bundle.write_text(json.dumps(minimal_conformant_bundle(), indent=1), encoding="utf-8")
    report = tmp_path / "r.json"
    assert run_cli("test", str(bundle), "-f", "json", "-o", str(report)).returncode == 0
    (tmp_path / "link.json").symlink_to(bundle)
    os.link(bundle, tmp_path / "hard.json")
    (tmp_path / "alias").symlink_to(tmp_path)
    return {"bundle": bundle, "report": report}


OVERWRITES: dict[str, Callable[[Path, Path, Path], tuple[list[str], Path]]] = {
    # name: (bundle, report, folder) -> (arguments, the input they would overwrite)
    "test": lambda b, r, d: (["test", str(b), "-o", str(b)], b),
    "test through a symlink": lambda b, r, d: (["test", str(b), "-o", str(d / "link.json")], b),
    "test through a hard link": lambda b, r, d: (["test", str(b), "-o", str(d / "hard.json")], b),
    "test through a linked folder": lambda b, r, d: (["test", str(b), "-o", str(d / "alias" / "b.json")], b),
    "test a symlinked input": lambda b, r, d: (["test", str(d / "link.json"), "-o", str(b), "-f", "json"], b),
    "test a folder": lambda b, r, d: (["test", str(d), "-o", str(r)], r),
    "test --baseline": lambda b, r, d: (
        ["test", str(b), "--baseline", str(d / "base.json"), "-o", str(d / "base.json")],
        b,
    ),
    "report": lambda b, r, d: (["report", str(r), "-o", str(r), "-f", "json"], r),
    "badge": lambda b, r, d: (["badge", str(r), "-o", str(r)], r),
    "diff, the old side": lambda b, r, d: (["diff", str(b), str(d / "other.json"), "-o", str(b)], b),
    "diff, the new side": lambda b, r, d: (["diff", str(b), str(d / "other.json"), "-o", str(d / "other.json")], b),
}


@pytest.mark.parametrize("case", list(OVERWRITES))
def test_an_output_that_is_an_input_is_a_configuration_error_and_the_input_is_untouched(
    files: dict[str, Path], tmp_path: Path, case: str
) -> None:
    (tmp_path / "other.json").write_bytes(files["bundle"].read_bytes())
    (tmp_path / "base.json").write_text("[]", encoding="utf-8")
    args, _ = OVERWRITES[case](files["bundle"], files["report"], tmp_path)
    before = snapshot(tmp_path)
    result = run_cli(*args)
    assert result.returncode == 3, result.stderr
    output = args[args.index("-o") + 1]
    assert result.stderr.startswith(f"error: -o {output} would overwrite the input ")
    assert result.stderr.endswith(": choose another path\n") and result.stderr.count("\n") == 1
    assert result.stdout == ""
    assert snapshot(tmp_path) == before


def test_a_suite_member_is_an_input_of_the_suite(files: dict[str, Path], tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": "s", "bundles": ["b.json"]}), encoding="utf-8")
    before = snapshot(tmp_path)
    result = run_cli("test", str(suite), "-o", str(tmp_path / "hard.json"))
    assert result.returncode == 3
    assert result.stderr == (
        f"error: -o {tmp_path / 'hard.json'} would overwrite the input {tmp_path / 'b.json'}"
        " (one of the bundles judged): choose another path\n"
    )
    assert snapshot(tmp_path) == before


def test_outputs_that_are_no_input_still_work(files: dict[str, Path], tmp_path: Path) -> None:
    bundle = str(files["bundle"])
    assert run_cli("test", bundle, "-o", "-").returncode == 0
    assert run_cli("test", bundle, "-o", os.devnull).returncode == 0
    result = run_cli("report", str(files["report"]), "-o", str(tmp_path / "r.md"), "-f", "markdown")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("#")


# Live commands: refused before any server starts (the server command would fail if started).
LIVE: dict[str, Callable[[Path], tuple[list[str], str]]] = {
    "capture --bundle = --write-plan": lambda d: (
        ["capture", "--bundle", str(d / "x.json"), "--write-plan", str(d / "x.json")],
        f"--bundle {d / 'x.json'} and --write-plan {d / 'x.json'} are the same file: give each output its own path",
    ),
    "capture --write-plan = --plan": lambda d: (
        ["capture", "--bundle", str(d / "new.json"), "--plan", str(d / "plan.json"), "--write-plan", str(d / "p.json")],
        f"--write-plan {d / 'p.json'} would overwrite the input {d / 'plan.json'} (--plan): choose another path",
    ),
    "capture --bundle = --plan": lambda d: (
        ["capture", "--bundle", str(d / "plan.json"), "--plan", str(d / "plan.json")],
        f"--bundle {d / 'plan.json'} would overwrite the input {d / 'plan.json'} (--plan): choose another path",
    ),
    "check -o = --bundle": lambda d: (
        ["check", "--bundle", str(d / "x.json"), "-o", str(d / "alias" / "x.json")],
        f"-o {d / 'alias' / 'x.json'} and --bundle {d / 'x.json'} are the same file: give each output its own path",
    ),
    "check -o = an existing --bundle": lambda d: (
        ["check", "--bundle", str(d / "old.json"), "-o", str(d / "old-link.json")],
        f"-o {d / 'old-link.json'} and --bundle {d / 'old.json'} are the same file: give each output its own path",
    ),
    "check --bundle = --plan": lambda d: (
        ["check", "--bundle", str(d / "p.json"), "--plan", str(d / "plan.json")],
        f"--bundle {d / 'p.json'} would overwrite the input {d / 'plan.json'} (--plan): choose another path",
    ),
    "check -o = --tasks": lambda d: (
        ["check", "--agent", "--tasks", str(d / "tasks.yaml"), "-o", str(d / "tasks.yaml")],
        f"-o {d / 'tasks.yaml'} would overwrite the input {d / 'tasks.yaml'} (--tasks): choose another path",
    ),
    "agent --bundle = --scenario": lambda d: (
        ["agent", "--scenario", str(d / "scenario.yaml"), "--bundle", str(d / "scenario.yaml")],
        f"--bundle {d / 'scenario.yaml'} would overwrite the input {d / 'scenario.yaml'} (--scenario):"
        " choose another path",
    ),
}


@pytest.mark.parametrize("case", list(LIVE))
def test_live_commands_refuse_an_output_that_is_an_input_before_the_server_starts(tmp_path: Path, case: str) -> None:
    (tmp_path / "plan.json").write_bytes(PLAN.read_bytes())
    (tmp_path / "p.json").symlink_to(tmp_path / "plan.json")
    (tmp_path / "tasks.yaml").write_bytes(TASKS.read_bytes())
    (tmp_path / "scenario.yaml").write_bytes(SCENARIO.read_bytes())
    (tmp_path / "old.json").write_text("{}", encoding="utf-8")
    os.link(tmp_path / "old.json", tmp_path / "old-link.json")
    (tmp_path / "alias").symlink_to(tmp_path)
    args, message = LIVE[case](tmp_path)
    before = snapshot(tmp_path)
    marker = tmp_path / "server-started"
    server = [*DEMO[:1], "-c", f"open({str(marker)!r}, 'w')"]
    result = run_cli(*args, "--", *server, timeout=60)
    assert (result.returncode, result.stderr) == (3, f"error: {message}\n")
    assert not marker.exists()
    assert snapshot(tmp_path) == before


# schemas -o: one file per operation


def write_records(folder: Path, operations: list[str]) -> None:
    folder.mkdir(parents=True)
    for index, operation in enumerate(operations, 1):
        record = {"operation": operation, "probe": "valid", "response": {"success": True, "data": {"id": index}}}
        (folder / f"r{index}.json").write_text(json.dumps(record), encoding="utf-8")


def test_schemas_never_write_two_operations_to_one_file_and_count_what_they_wrote(tmp_path: Path) -> None:
    operations = ["x/y", "x_y", "x_y.2", "X_Y", "x y", "", "..", "unnamed", "note" + HIDDEN, "note"]
    write_records(tmp_path / "capture", operations)
    result = run_cli("schemas", str(tmp_path / "capture"), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    written = sorted((tmp_path / "out").iterdir())
    assert len(written) == len(operations)
    assert len({path.name.casefold() for path in written}) == len(operations)
    assert result.stderr.endswith(f"wrote {len(operations)} schema(s) to {tmp_path / 'out'}\n")
    titles = {json.loads(path.read_text(encoding="utf-8"))["title"] for path in written}
    assert titles == {f"{operation} data" for operation in operations}
    assert (tmp_path / "out" / "note.schema.json").exists() and (tmp_path / "out" / "x_y.2.schema.json").exists()
    again = run_cli("schemas", str(tmp_path / "capture"), "-o", str(tmp_path / "again"))
    assert again.returncode == 0
    assert sorted(p.name for p in written) == sorted(p.name for p in (tmp_path / "again").iterdir())


def test_schemas_never_replace_an_input_in_the_output_folder(files: dict[str, Path], tmp_path: Path) -> None:
    types = tmp_path / "types.json"
    types.write_bytes(files["bundle"].read_bytes())
    before = snapshot(tmp_path)
    result = run_cli("schemas", str(types), "-f", "mcpaql-types", "-o", str(tmp_path))
    assert result.returncode == 3
    assert result.stderr == f"error: -o {types} would overwrite the input {types}: choose another path\n"
    folder = tmp_path / "capture"
    write_records(folder, ["list_bookmarks"])
    (folder / "list_bookmarks.schema.json").write_text("{}", encoding="utf-8")  # read as part of the folder
    before = snapshot(tmp_path)
    result = run_cli("schemas", str(folder), "-o", str(folder))
    assert result.returncode == 3
    assert "would overwrite the input" in result.stderr
    assert snapshot(tmp_path) == before


# JSON outputs: invisible characters as escapes; human-readable outputs: none shown raw


def spoofed_bundle(tmp_path: Path) -> Path:
    data: dict[str, Any] = minimal_conformant_bundle()
    data["implementation"] = SPOOFED
    data["error_tests"][0]["name"] = SPOOFED
    data["error_tests"][0]["must_mention"] = [SPOOFED]  # fails, so the name and the word show in findings
    data["valid_requests"] = [
        {"operation": SPOOFED, "params": {}, "response": {"success": True, "data": {SPOOFED: 1}}},
    ]
    path = tmp_path / "spoofed.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def assert_escaped_json(text: str) -> None:
    assert not raw_invisible(text), text
    assert "\\u00ad" in text and "\\u3164" in text and "\\udb40\\udc41" in text and "\\u009b" in text


def test_every_json_output_escapes_invisible_characters_the_same_way(tmp_path: Path) -> None:
    bundle = spoofed_bundle(tmp_path)
    plain_bundle = tmp_path / "plain.json"
    plain_bundle.write_text(json.dumps(minimal_conformant_bundle()), encoding="utf-8")
    report = run_cli("test", str(bundle), "-f", "json")
    assert report.returncode in (0, 1, 2), report.stderr
    assert_escaped_json(report.stdout)
    assert json.loads(report.stdout)["implementation"] == SPOOFED
    schemas = run_cli("schemas", str(bundle))
    assert schemas.returncode == 0, schemas.stderr
    assert_escaped_json(schemas.stdout)
    assert SPOOFED in json.loads(schemas.stdout)
    types = run_cli("schemas", str(bundle), "-f", "mcpaql-types")
    assert not raw_invisible(types.stdout)
    drift = run_cli("diff", str(bundle), str(plain_bundle), "-f", "json", "--fail-on", "none")
    assert drift.returncode == 0, drift.stderr
    assert_escaped_json(drift.stdout)
    assert json.loads(drift.stdout)["changes"]
    written = run_cli("schemas", str(bundle), "-o", str(tmp_path / "out"))
    assert written.returncode == 0
    for path in (tmp_path / "out").iterdir():
        assert not raw_invisible(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit"])
def test_reports_show_no_invisible_character(tmp_path: Path, fmt: str) -> None:
    result = run_cli("test", str(spoofed_bundle(tmp_path)), "-f", fmt, env={"COLUMNS": "200"})
    assert result.returncode in (0, 1, 2), result.stderr
    # markdown: the word joiner its own escaping puts after "@" (no "@" in this report)
    assert not raw_invisible(result.stdout + result.stderr)
    assert "notes" in result.stdout


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_drift_reports_and_messages_show_no_invisible_character(tmp_path: Path, fmt: str) -> None:
    plain_bundle = tmp_path / "plain.json"
    plain_bundle.write_text(json.dumps(minimal_conformant_bundle()), encoding="utf-8")
    result = run_cli("diff", str(spoofed_bundle(tmp_path)), str(plain_bundle), "-f", fmt, "--fail-on", "none")
    assert result.returncode == 0, result.stderr
    # the name shows with its invisible characters as escapes: it does not read as a plain "notes"
    shown = "no" + "".join(f"\\u{ord(c):04x}" for c in HIDDEN[:3]) + "tes"
    assert shown in result.stdout.replace("\\\\", "\\"), result.stdout
    assert not raw_invisible(result.stdout + result.stderr)
    schemas = run_cli("schemas", str(spoofed_bundle(tmp_path)))
    assert "no successful answer recorded" in schemas.stderr and not raw_invisible(schemas.stderr)


def test_suite_reports_show_no_invisible_character(tmp_path: Path) -> None:
    spoofed_bundle(tmp_path)
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": SPOOFED, "bundles": ["spoofed.json"]}), encoding="utf-8")
    for fmt in ("text", "markdown", "json"):
        result = run_cli("test", str(suite), "-f", fmt)
        assert result.returncode in (0, 1, 2), result.stderr
        assert not raw_invisible(result.stdout + result.stderr), fmt


def test_a_step_summary_that_is_an_input_is_not_appended_to(files: dict[str, Path], tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    result = run_cli("test", str(files["bundle"]), env={"GITHUB_STEP_SUMMARY": str(tmp_path / "hard.json")})
    assert result.returncode == 0
    assert result.stderr == (
        f"warning: GITHUB_STEP_SUMMARY={tmp_path / 'hard.json'} is the input {files['bundle']}: not appended to\n"
    )
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", ["test", "schemas", "diff", "report"])
def test_a_report_printed_into_an_input_is_refused(files: dict[str, Path], tmp_path: Path, command: str) -> None:
    import subprocess
    import sys

    source = files["report"] if command == "report" else files["bundle"]
    args = ["diff", str(source), str(source), "-o", "-"] if command == "diff" else [command, str(source)]
    into = files["report"] if command == "report" else tmp_path / "hard.json"  # `>> FILE`; a hard link to the bundle
    before = snapshot(tmp_path)
    with into.open("ab") as appended:
        result = subprocess.run(
            [sys.executable, "-m", "mcpaql_conformance", *args],
            cwd=ROOT, stdout=appended, stderr=subprocess.PIPE, text=True, check=False, timeout=120,
        )  # fmt: skip
    assert result.returncode == 3
    assert result.stderr == f"error: standard output is the input {source}: redirect it elsewhere, or use -o FILE\n"
    assert snapshot(tmp_path) == before
