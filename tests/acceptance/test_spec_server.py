"""A server that does everything right gets its level, in every mode, without a plan (issue 29).
The reading list of tests/acceptance/reading_server.py was written from the spec text alone:
documented patterns (``^shelf_[a-z0-9]+$``), references to existing shelves, exclusive
pagination parameters with opaque cursors, field selection, batches per endpoint family, CRUDE
by default and single mode by configuration. Checked with --allow-destructive and no plan."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import run_cli

SERVER = (sys.executable, str(Path(__file__).with_name("reading_server.py")))
# The warnings the spec makes unavoidable without a plan and a model (constraints no plan names,
# semantic evaluation without a model), and for one configuration, which mode it showed.
UNAVOIDABLE = {"L2.constraints.enforced", "L2.constraints.documented", "L2.semantic.evidence"}
# Refusals a probe asks for: a parameter left out or unknown, the wrong endpoint, an unknown
# operation, an identifier inside `input`. Any other refusal would be of a value capture chose.
ASKED_FOR = ("VALIDATION_MISSING_PARAM", "VALIDATION_UNKNOWN_PARAM", "VALIDATION_ENDPOINT_MISMATCH",
             "NOT_FOUND_OPERATION", "VALIDATION_UNKNOWN_FIELD")  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spec-server")


@cache
def checked(folder: Path, *modes: str) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """(the JSON report, every call the server received, the exit code) of a check of the server
    in ``modes`` (two: the second by --also), Level 2, --allow-destructive, no plan."""
    name = "-".join(modes)
    log = folder / f"{name}.jsonl"
    command: list[str] = [*SERVER, "--mode", modes[0]]
    for mode in modes[1:]:
        command += ["--also", "--", *SERVER, "--mode", mode]
    args = ["check", "--level", "2", "--allow-destructive", "-f", "json", "--capture-dir", str(folder / name)]
    result = run_cli(*args, "--", *command, env={"READING_LOG": str(log)})
    assert result.returncode in (0, 1, 2), result.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return json.loads(result.stdout), calls, result.returncode


def results(report: dict[str, Any]) -> dict[str, str]:
    return {test["id"]: test["result"] for category in report["categories"] for test in category["tests"]}


def not_passed(report: dict[str, Any]) -> dict[str, str]:
    return {test: result for test, result in results(report).items() if result not in ("PASS", "SKIP")}


@pytest.mark.parametrize("modes", [("all",), ("semantic", "single"), ("single", "semantic")])
def test_level_2_when_both_modes_are_seen(folder: Path, modes: tuple[str, ...]) -> None:
    report, _, code = checked(folder, *modes)
    assert report["conformanceLevel"] == 2, not_passed(report)
    assert set(not_passed(report)) == UNAVOIDABLE, not_passed(report)
    assert all(result == "WARN" for result in not_passed(report).values())
    assert code == 2  # the SHOULD warnings the spec makes unavoidable


@pytest.mark.parametrize("mode", ["semantic", "single"])
def test_one_mode_fails_no_must_and_says_how_to_show_the_other(folder: Path, mode: str) -> None:
    report, _, _ = checked(folder, mode)
    assert set(not_passed(report)) == UNAVOIDABLE | {"L2.features.endpoint-modes"}, not_passed(report)
    assert "FAIL" not in results(report).values()
    modes = next(t for c in report["categories"] for t in c["tests"] if t["id"] == "L2.features.endpoint-modes")
    seen = "semantic mode (crude)" if mode == "semantic" else "single mode (`mcp_aql`)"
    assert modes["detail"].startswith(f"not judged: this capture saw the server in {seen} only")
    assert "--also" in modes["detail"] and "not supported" not in modes["detail"]


@pytest.mark.parametrize("mode", ["semantic", "single"])
def test_no_probe_is_refused_for_a_value_capture_chose(folder: Path, mode: str) -> None:
    _, calls, _ = checked(folder, mode)
    records = folder / mode
    refused = []
    for path in records.rglob("*.json"):
        record = json.loads(path.read_text())
        answer = json.dumps(record.get("response"))
        if '"success": false' in answer and not any(code in answer for code in ASKED_FOR):
            refused.append((record.get("operation"), record.get("description"), answer[:200]))
    assert calls and refused == []


def test_values_keep_patterns_and_references_and_probes_respect_exclusions(folder: Path) -> None:
    _, calls, _ = checked(folder, "semantic")
    shelves = [call["params"]["shelf_id"] for call in calls if call.get("operation") == "create_shelf"
               and isinstance(call.get("params"), dict) and "shelf_id" in call["params"]]  # fmt: skip
    assert shelves and all(shelf.startswith("shelf_") and shelf[6:].isalnum() for shelf in shelves), shelves
    created = set(shelves) | {"shelf_main", "shelf_later"}
    books = [
        call["params"] for call in calls if call.get("operation") == "add_book" and isinstance(call.get("params"), dict)
    ]
    assert books and all(params["shelf_id"] in created for params in books if "shelf_id" in params), books
    for call in calls:
        params = call.get("params") if isinstance(call.get("params"), dict) else {}
        assert not ({"first", "after"} & set(params) and {"last", "before"} & set(params)), call  # pagination §2.3
        for cursor in ("after", "before"):
            assert cursor not in params, call  # no cursor but the server's own (none was asked for)


def test_a_batch_goes_to_an_endpoint_family_where_the_server_declares_batches(folder: Path) -> None:
    report, calls, _ = checked(folder, "semantic")
    assert results(report)["L2.features.batch"] == "PASS"
    batches = [call for call in calls if "operations" in call]
    assert [call["tool"] for call in batches] == ["mcp_aql_read"]
