"""`schemas` (output schemas from what a server answered) and `diff` (drift between two
captures of one server), on demo captures with and without a fault and a dialect."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.acceptance.conftest import DEMO, ROOT, run_cli, warm

# One worker under pytest-xdist (--dist loadgroup): what the module captures once is captured once.
pytestmark = pytest.mark.xdist_group("drift")

PLAN = ROOT / "evidence" / "plans" / "demo-notes.json"


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three captures of the demo: as shipped, drifted (shape-drift + string errors), and again."""
    folder = tmp_path_factory.mktemp("captures")
    found: dict[str, Path] = {}
    for name, extra in (("old", ()), ("new", ("--fault", "shape-drift", "--dialect", "string-errors")), ("same", ())):
        bundle = folder / f"{name}.json"
        args = ["capture", "--plan", str(PLAN), "--allow-destructive", "--bundle", str(bundle)]
        args += ["--capture-dir", str(folder / f"records-{name}")]
        result = run_cli(*args, "--", *warm(*DEMO, *extra), env={"DEMO_NOTES_PASSPHRASE": "drift-secret"})
        assert result.returncode == 0, result.stderr
        found[name] = bundle
        found[f"records-{name}"] = folder / f"records-{name}"
    return found


def samples_of(bundle: Path) -> dict[str, list]:
    data = json.loads(bundle.read_text())
    found: dict[str, list] = {}
    parameter_tests = data["parameter_tests"]
    cases = parameter_tests.get("optional_defaults", []) + parameter_tests.get("optional_omitted", [])
    for case in data.get("valid_requests", []) + cases:
        if case["response"].get("success") is True:
            found.setdefault(case["operation"], []).append(case["response"]["data"])
    return found


def test_schemas_describe_every_answered_operation_and_validate_every_answer(captures):
    result = run_cli("schemas", str(captures["old"]))
    assert result.returncode == 0, result.stderr
    schemas = json.loads(result.stdout)
    samples = samples_of(captures["old"])
    assert set(schemas) == set(samples)
    for operation, data in samples.items():
        validator = jsonschema.Draft202012Validator(schemas[operation])
        assert all(validator.is_valid(sample) for sample in data), operation
    note = schemas["create_note"]
    assert note["properties"]["created_at"] == {
        "type": "string",
        "format": "date-time",
        "description": "When the note was created (RFC 3339)",  # from the Note type it declares
    }
    assert "no successful answer recorded, so no schema, for " in result.stderr


def test_schemas_from_a_capture_folder_into_files_and_as_mcpaql_types(captures, tmp_path):
    out = tmp_path / "schemas"
    result = run_cli("schemas", str(captures["records-old"]), "-o", str(out))
    assert result.returncode == 0, result.stderr
    written = sorted(path.name for path in out.iterdir())
    assert "get_note.schema.json" in written and "batch.schema.json" not in written
    get_note = json.loads((out / "get_note.schema.json").read_text())
    assert get_note["title"] == "get_note data" and "note_id" in get_note["required"]
    result = run_cli("schemas", str(captures["records-old"]), "--format", "mcpaql-types")
    types = {t["name"]: t for t in json.loads(result.stdout)["types"]}
    note = types["Note"]
    assert note["kind"] == "object"
    assert {"name": "note_id", "type": "string", "required": True, "description": "Identifier of the note"} in [
        {key: f[key] for key in ("name", "type", "required", "description") if key in f} for f in note["fields"]
    ]


def test_schemas_without_answers_infer_nothing_and_say_so_without_a_path_is_a_configuration_error(tmp_path):
    data = json.loads((ROOT / "fixtures" / "l1-conformant-notes.json").read_text())
    for key in ("valid_requests", "batch_example", "agent_tests"):
        data.pop(key, None)
    data["parameter_tests"].pop("optional_defaults", None)
    bundle = tmp_path / "no-answers.json"
    bundle.write_text(json.dumps(data))
    result = run_cli("schemas", str(bundle))  # a valid bundle: its (empty) result, never "bad input"
    assert (result.returncode, json.loads(result.stdout)) == (0, {})
    assert result.stderr.startswith(f"{bundle}: no successful answer of any operation, so nothing to infer")
    result = run_cli("schemas", str(tmp_path / "nope"))
    assert (result.returncode, result.stderr) == (3, f"error: not found: {tmp_path / 'nope'}\n")


def test_diff_reports_what_a_client_would_notice_and_fails_on_breaking_changes(captures):
    result = run_cli("diff", str(captures["old"]), str(captures["new"]))
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert "  BREAKING create_note:data.created_at: now integer, was string" in lines
    assert "  BREAKING create_note:data.updated_at: no longer in any answer" in lines
    assert "  BREAKING L1.errors.discriminated-union: PASS -> FAIL" in lines
    assert "  BREAKING L1.introspection.completeness: PASS -> FAIL" in lines
    report = json.loads(run_cli("diff", str(captures["old"]), str(captures["new"]), "-f", "json").stdout)
    assert report["breaking"] == len(report["changes"]) > 0
    markdown = run_cli("diff", str(captures["old"]), str(captures["new"]), "-f", "markdown").stdout
    assert "| **breaking** | Response shapes | create\\_note:data.created\\_at | now integer, was string |" in markdown
    assert run_cli("diff", str(captures["old"]), str(captures["new"]), "--fail-on", "none").returncode == 0


def test_the_same_server_twice_shows_no_change(captures):
    result = run_cli("diff", str(captures["old"]), str(captures["same"]), "--fail-on", "any")
    assert (result.returncode, result.stdout.splitlines()[0]) == (
        0,
        f"Changes from {captures['old']} to {captures['same']}: no change",
    )
    folders = run_cli("diff", str(captures["records-old"]), str(captures["records-same"]), "--fail-on", "any")
    assert folders.returncode == 0, folders.stdout


def test_parameter_and_operation_changes(captures, tmp_path):
    data = json.loads(captures["old"].read_text())
    details = {d["name"]: d for d in data["introspection"]["operation_details"]}
    details["list_notes"]["parameters"] = [p for p in details["list_notes"]["parameters"] if p["name"] != "limit"]
    create = {p["name"]: p for p in details["create_note"]["parameters"]}
    create["body"]["required"] = True
    create["tags"]["type"] = "string"
    export = {p["name"]: p for p in details["export_notes"]["parameters"]}
    export["format"]["enum"] = ["text", "html"]
    details["get_note"]["parameters"].append({"name": "revision", "type": "integer", "required": False})
    data["introspection"]["operation_details"] = [d for d in details.values() if d["name"] != "tag_note"]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    report = json.loads(run_cli("diff", str(captures["old"]), str(edited), "-f", "json").stdout)
    found = {(c["subject"], c["what"], c["breaking"]) for c in report["changes"] if c["kind"] != "verdict"}
    assert found >= {
        ("list_notes.limit", "removed", True),
        ("create_note.body", "now required", True),
        ("create_note.tags", "type changed from array to string", True),
        ("export_notes.format", 'enum values removed: "markdown"', True),
        ("export_notes.format", 'enum values added: "html"', False),
        ("get_note.revision", "added", False),
    }
