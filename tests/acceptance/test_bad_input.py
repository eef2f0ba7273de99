"""Hostile and broken input: one clear line on stderr, exit 3, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acceptance.conftest import ROOT, minimal_conformant_bundle


def assert_config_error(result, *fragments: str) -> None:
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert result.stdout == ""


def test_missing_file(cli, tmp_path):
    assert_config_error(cli("test", str(tmp_path / "nope.json")), "bundle not found", "nope.json")


def test_a_folder_without_bundles_is_a_configuration_error(cli, tmp_path):
    assert_config_error(cli("test", str(tmp_path)), f"{tmp_path}: no bundles (*.json) in this folder")
    assert_config_error(cli("report", str(tmp_path)), "is a directory, expected a report file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file; unit tests cover permission errors")
def test_unreadable_file(cli, tmp_path):
    path = tmp_path / "locked.json"
    path.write_text("{}")
    path.chmod(0)
    assert_config_error(cli("test", str(path)), "permission denied")


def test_malformed_json_reports_line_and_column(cli, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "implementation": "x",\n  "version": ]\n}\n')
    assert_config_error(cli("test", str(path)), "broken.json:3:14: invalid JSON")


def test_truncated_json_reports_where_it_ends(cli, tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"implementation": "x"')
    assert_config_error(cli("test", str(path)), "cut.json:1:23: invalid JSON: unexpected end of data")


def test_non_utf8_bundle(cli, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"implementation": "caf\xe9"}')
    assert_config_error(cli("test", str(path)), "latin1.json:1:24: not valid UTF-8")


def test_empty_file(cli, tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("  \n")
    assert_config_error(cli("test", str(path)), "file is empty")


def test_deeply_nested_json_is_an_error_not_a_crash(cli, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert_config_error(cli("test", str(path)), "deep.json")


@pytest.mark.parametrize(("value", "kind"), [([], "array"), ("bundle", "string"), (None, "null"), (3, "integer")])
def test_top_level_must_be_an_object(cli, write_bundle, value, kind):
    assert_config_error(
        cli("test", str(write_bundle(value))), f"$: expected a JSON object (the evidence bundle), got {kind}"
    )


def test_wrongly_typed_section_names_its_json_path(cli, write_bundle):
    bundle = minimal_conformant_bundle()
    bundle["parameter_tests"]["missing_required"][3]["response"] = "Missing parameter"
    assert_config_error(
        cli("test", str(write_bundle(bundle))),
        "$.parameter_tests.missing_required[3].response: expected an object, got string",
    )


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda b: b.update(error_tests={"name": "x"}), "$.error_tests: expected an array, got object"),
        (lambda b: b.update(expected_level=3), "$.expected_level: must be one of 1, 2"),
        (lambda b: b["round_trip_tests"][0].pop("read_response"), "$.round_trip_tests[0]: missing required property"),
        (lambda b: b.update(accepted_parameters={"get_bookmark": "bookmark_id"}), "$.accepted_parameters.get_bookmark"),
    ],
)
def test_other_shape_errors_name_their_path(cli, write_bundle, mutate, where):
    bundle = minimal_conformant_bundle()
    mutate(bundle)
    assert_config_error(cli("test", str(write_bundle(bundle))), where)


def test_hostile_bundle_path_is_shown_without_control_characters(cli, tmp_path):
    name = "evil\x1b[31m.json"
    result = cli("test", str(tmp_path / name))
    assert_config_error(result, "bundle not found")
    assert "\x1b" not in result.stderr


def test_report_command_rejects_a_bundle_as_report_input(cli, write_bundle):
    path = write_bundle(minimal_conformant_bundle())
    result = cli("report", str(path))
    assert_config_error(
        result, f"error: {path} is an evidence bundle, not a conformance report; judge it with: mcpaql-conformance test"
    )


def test_report_command_rejects_an_unknown_result_value(cli, write_bundle):
    report = {"summary": {}, "categories": [{"name": "X", "required": True, "tests": [{"name": "t", "result": "OK"}]}]}
    assert_config_error(cli("report", str(write_bundle(report))), "$.categories[0].tests[0].result: must be one of")


def test_output_into_a_missing_folder_creates_it_and_a_file_in_the_way_is_an_error(cli, write_bundle, tmp_path):
    target = tmp_path / "no" / "such" / "report.json"
    result = cli("test", str(write_bundle(minimal_conformant_bundle())), "-o", str(target), "-f", "json")
    assert result.returncode == 0 and json.loads(target.read_text())["exitCode"] == 0
    (tmp_path / "file").write_text("x")
    blocked = tmp_path / "file" / "report.json"
    result = cli("test", str(write_bundle(minimal_conformant_bundle())), "-o", str(blocked))
    assert_config_error(result, f"{blocked}: cannot write output: cannot create folder {tmp_path}/file: ")


def test_invalid_json_report_input(cli, tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"summary": {}})[:-1])
    assert_config_error(cli("report", str(path)), "results.json:1:15: invalid JSON: unexpected end of data")


def test_an_internal_error_is_one_line_unless_debugging(tmp_path):
    """Simulate a bug by making the runner raise; the CLI must not print a traceback."""
    script = (
        "import mcpaql_conformance.verdict.runner as r\n"
        "def boom(*a, **k): raise RuntimeError('simulated bug')\n"
        "r.evaluate = boom\n"
        "from mcpaql_conformance.cli import main\n"
        "main()\n"
    )
    bundle = tmp_path / "b.json"
    bundle.write_text("{}")
    run = subprocess.run(
        [sys.executable, "-c", script, "test", str(bundle)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 70
    assert run.stderr.strip() == (
        "error: internal error (RuntimeError): simulated bug; please report it "
        "(set MCPAQL_CONFORMANCE_DEBUG=1 for the traceback)"
    )
    debug = subprocess.run(
        [sys.executable, "-c", script, "test", str(bundle)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "MCPAQL_CONFORMANCE_DEBUG": "1"},
    )
    assert "Traceback" in debug.stderr and "simulated bug" in debug.stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("test", "--levl", "2", "x.json"), "No such option '--levl'"),
        (("tset",), "No such command 'tset'"),
        (("test",), "Missing argument 'BUNDLE|SUITE|FOLDER...'"),
        (("test", "b.json", "--format", "yaml"), "Invalid value for '--format'"),
    ],
)
def test_usage_errors_are_one_line_with_where_to_look_for_help(cli, args, fragment):
    result = cli(*args)
    assert_config_error(result, fragment, "--help')")


@pytest.mark.parametrize("command", ["test", "validate", "report", "badge"])
def test_a_fifo_given_as_input_is_refused_at_once(cli, tmp_path, command):
    fifo = tmp_path / "input.json"
    os.mkfifo(fifo)
    result = cli(command, str(fifo))
    if command != "validate":
        assert_config_error(result, "is a FIFO, not a")
        return
    # validate reports every file, good and bad, then exits 3 for the one it could not read
    assert result.returncode == 3 and result.stderr == ""
    assert f"MQA000 error $: {fifo}: is a FIFO, not a bundle file" in result.stdout


def test_a_utf16_file_is_named_as_such(cli, tmp_path):
    path = tmp_path / "b.json"
    path.write_bytes(json.dumps(minimal_conformant_bundle()).encode("utf-16"))
    assert_config_error(cli("test", str(path)), "UTF-16 is not supported; save the file as UTF-8")


def test_a_closed_pipe_ends_quietly_with_the_verdicts_code(tmp_path):
    path = tmp_path / "b.json"
    path.write_text(json.dumps(minimal_conformant_bundle()))
    shell = f"{sys.executable} -m mcpaql_conformance test {path} | head -1; exit ${{PIPESTATUS[0]}}"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("MCP-AQL conformance report")


@pytest.mark.parametrize("output", ["-", "/dev/stdout"])
def test_the_report_can_go_to_stdout_by_name(cli, tmp_path, output):
    path = tmp_path / "b.json"
    path.write_text(json.dumps(minimal_conformant_bundle()))
    # its own process: /dev/stdout is the process's standard output, not one a runner captures
    result = cli("test", str(path), "-f", "json", "-o", output, process=True)
    assert result.returncode == 0
    assert json.loads(result.stdout)["exitCode"] == 0


def test_file_names_that_are_not_utf8_are_read_written_and_named_with_a_replacement_character(cli, tmp_path):
    bundle = Path(os.fsdecode(os.fsencode(tmp_path) + b"/bad\xff.json"))
    shutil.copy(ROOT / "fixtures" / "l1-conformant-notes.json", bundle)
    judged = cli("test", str(bundle), "-o", str(bundle.with_name("out\udcfe.txt")))
    assert judged.returncode == 0 and judged.stderr == f"wrote text report to {tmp_path}/out\ufffd.txt\n"
    assert os.path.exists(os.fsencode(tmp_path) + b"/out\xfe.txt")
    assert_config_error(cli("test", str(bundle.with_name("gone\udcff.json"))), "gone\ufffd.json")
    validated = cli("validate", str(bundle))
    assert validated.returncode == 0 and f"{tmp_path}/bad\ufffd.json: 0 diagnostic(s)" in validated.stdout


def test_a_superscript_digit_in_a_field_path_is_a_key_not_a_list_index(cli, write_bundle):
    # "²" passes str.isdigit(); as a list index it once crashed the round-trip check.
    bundle = json.loads((ROOT / "fixtures" / "l1-conformant-notes.json").read_text())
    test = bundle["round_trip_tests"][0]
    test["expected_fields"] = {"data.²": 1}
    result = cli("test", str(write_bundle(bundle)), "-f", "json")
    assert result.returncode == 1 and "internal error" not in result.stderr
    report = json.loads(result.stdout)
    details = [t["detail"] for c in report["categories"] for t in c["tests"] if c["name"] == "Round-Trip Integrity"]
    assert any("data.²" in detail for detail in details), details


@pytest.mark.parametrize("command", ["capture", "check", "agent"])
def test_an_option_we_do_not_have_is_said_as_such_not_run_as_the_server(cli, tmp_path, command):
    # the live commands take unknown options as the server's command; one before it is a mistake of ours to name
    result = cli(command, "--bundel", str(tmp_path / "out.json"), "--", sys.executable, "-c", "pass")
    said = "no such option: --bundel (the server command goes after --"
    assert_config_error(result, said, f"mcpaql-conformance {command}")
    assert not (tmp_path / "out.json").exists()
