"""Return shapes: capture asks for every type's details, and the completeness test compares the
answers with the types the operations declare returning (the demo's shape-drift fault)."""

from __future__ import annotations

import json
import re

from tests.acceptance.conftest import DEMO, ROOT, run_cli, warm

PLAN = ROOT / "evidence" / "plans" / "demo-notes.json"
ENV = {"DEMO_NOTES_PASSPHRASE": "shape-secret"}


def captured(tmp_path, *fault: str) -> dict:
    bundle = tmp_path / "b.json"
    args = ["capture", "--plan", str(PLAN), "--allow-destructive", "--bundle", str(bundle)]
    result = run_cli(*args, "--capture-dir", str(tmp_path / "r"), "--", *warm(*DEMO, *fault), env=ENV)
    assert result.returncode == 0, result.stderr
    return json.loads(bundle.read_text())


def completeness(bundle: dict, tmp_path) -> dict:
    path = tmp_path / "judged.json"
    path.write_text(json.dumps(bundle))
    report = json.loads(run_cli("test", str(path), "-f", "json").stdout)
    return next(t for c in report["categories"] for t in c["tests"] if t["id"] == "L1.introspection.completeness")


def test_capture_records_every_listed_types_details_and_the_demo_keeps_its_promises(tmp_path):
    bundle = captured(tmp_path)
    details = {t["name"]: t for t in bundle["introspection"]["type_details"]}
    assert sorted(details) == [
        "Deletion", "Job", "JobStatus", "Note", "NotePage", "OperationFailure", "OperationResult", "OperationSuccess",
        "SemanticCategory", "TagRemoval",
    ]  # fmt: skip
    assert details["JobStatus"]["values"] == ["completed", "failed"]
    assert [f["name"] for f in details["Note"]["fields"]][:2] == ["note_id", "title"]
    assert completeness(bundle, tmp_path)["result"] == "PASS"


def test_answers_that_stray_from_the_declared_type_are_warned_about_with_a_path(tmp_path):
    test = completeness(captured(tmp_path, "--fault", "shape-drift"), tmp_path)
    assert test["result"] == "FAIL"  # created_at as an epoch number is no ISO 8601 date (core §4.7.2)
    unindexed = [re.sub(r"\[\d+\]", "[N]", finding) for finding in test["findings"]]  # where capture put them
    assert (
        "create_note.created_at: holds the number 1767225600, not an ISO 8601 date or timestamp at"
        " $.parameter_tests.optional_defaults[N].response.data.created_at"
    ) in unindexed
    shape = [finding for finding in unindexed if "declares" in finding]  # the warnings
    assert shape == [
        "create_note.created_at: it is an integer at"
        " $.parameter_tests.optional_defaults[N].response.data.created_at, but Note declares string",
        "create_note.updated_at: Note declares it required, but it is missing from every answer"
        " (e.g. $.parameter_tests.optional_defaults[N].response.data)",
        "get_note.created_at: it is an integer at $.parameter_tests.optional_omitted[N].response.data.created_at,"
        " but Note declares string",
        "get_note.updated_at: Note declares it required, but it is missing from every answer"
        " (e.g. $.parameter_tests.optional_omitted[N].response.data)",
    ]


def test_a_type_without_details_is_noted_and_its_refused_detail_query_fails_the_types_query(tmp_path):
    bundle = captured(tmp_path, "--dialect", "detail-fails")
    notes = [n["reason"] for n in bundle["capture_notes"] if n["probe"] == "type_details"]
    assert len(notes) == 10 and "type_details" not in bundle["introspection"]
    assert notes[0] == (
        "type Note: the detail query refused: NOT_IMPLEMENTED: Details are not available.;"
        " its declared return shape is not checked"
    )
    assert [case["type"] for case in bundle["introspection"]["type_queries"]][:2] == ["Note", "NotePage"]
    path = tmp_path / "judged.json"
    path.write_text(json.dumps(bundle))
    report = json.loads(run_cli("test", str(path), "-f", "json").stdout)
    types = next(t for c in report["categories"] for t in c["tests"] if t["id"] == "L1.introspection.types-query")
    assert types["result"] == "FAIL"  # introspection §8.1 item 6: a detail query answers TypeDetails
    assert types["findings"][0] == (
        "introspect {query: types, name: Note}: refused (NOT_IMPLEMENTED: Details are not available.)"
    )
