"""A server that does everything right gets its level, in every mode, without a plan (issue 29).
The reading list of tests/acceptance/reading_server.py was written from the spec text alone:
documented patterns (``^shelf_[a-z0-9]+$``), references to existing shelves, exclusive
pagination parameters with opaque cursors, field selection, batches per endpoint family, CRUDE
by default and single mode by configuration. The demo's strict dialect does the same on notes
(``^note_[0-9]+$``, first/after or last/before, batches on every tool, registry codes). Both
are checked with --allow-destructive and no plan."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import DEMO, run_cli, warm

# One worker under pytest-xdist (--dist loadgroup): what the module captures once is captured once.
pytestmark = pytest.mark.xdist_group("spec-server")

SERVERS = {
    "reading": ((sys.executable, str(Path(__file__).with_name("reading_server.py"))), "READING_LOG"),
    "strict-demo": ((*DEMO, "--dialect", "strict"), None),
}
# each server's names of its modes: all at once, semantic (CRUDE) only, single only
MODES = {"reading": ("all", "semantic", "single"), "strict-demo": ("both", "crude", "single")}
# The warning the spec makes unavoidable without a model (semantic evaluation), and for one
# configuration, which mode it showed. (Constraints are tried without a plan: capture's read-only
# field after each inferred update cycle.)
UNAVOIDABLE = {"L2.semantic.evidence"}
# Probes that ask for a refusal: a parameter left out or unknown, the wrong endpoint, an unknown
# operation, an UPDATE's `input` broken, an undocumented parameter, capture's request calls (no,
# an empty or an upper-case operation, unknown parameters, a null byte). Any other refusal would
# be of a value capture chose.
ASKED_FOR = (
    "missing_required",
    "unknown_parameter",
    "routing",
    "update_input",
    "unknown_operation",
    "request",
    "pagination",
    "filter",
    "field",
    "aggregate",
    "relationship",
    "sort",  # the shortcut form, a bare field with order beside it: refused where the spec's shape is the contract
    "batch",  # its middle item asks for a refusal (operations §7.3: the items after it still run)
    "execution",  # the safety loop's drive: a blocked agent's step, wrong codes... are refused on purpose
    "confirmation-batch",  # a call held for confirmation, batched: it halts there (operations §7.5.2)
)
# The safety loop's operations answer a valid call only inside an execution, a pause or a challenge the
# drive sets up, and an agent's confirm_operation or verify_challenge never succeeds (core §8.7.3, §8.8):
# what the per-operation probes of them are refused is the state, never a value capture chose.
STATEFUL = {"record_execution_step", "complete_execution", "abort_execution", "confirm_operation", "verify_challenge"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spec-server")


@cache
def checked(folder: Path, server: str, *modes: str) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """(the JSON report, every call the server logged, the exit code) of a check of the server
    in ``modes`` (two: the second by --also), Level 2, --allow-destructive, no plan."""
    name = "-".join((server, *modes))
    log = folder / f"{name}.jsonl"
    started, variable = SERVERS[server]
    command: list[str] = [*warm(*started, "--mode", modes[0])]  # these tests read answers, not processes
    for mode in modes[1:]:
        command += ["--also", "--", *warm(*started, "--mode", mode)]
    args = ["check", "--level", "2", "--allow-destructive", "-f", "json", "--capture-dir", str(folder / name)]
    result = run_cli(*args, "--", *command, env={variable: str(log)} if variable else None)
    assert result.returncode in (0, 1, 2), result.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return json.loads(result.stdout), calls, result.returncode


def results(report: dict[str, Any]) -> dict[str, str]:
    return {test["id"]: test["result"] for category in report["categories"] for test in category["tests"]}


def not_passed(report: dict[str, Any]) -> dict[str, str]:
    return {test: result for test, result in results(report).items() if result not in ("PASS", "SKIP")}


def both(server: str) -> list[tuple[str, ...]]:
    every, semantic, single = MODES[server]
    return [(every,), (semantic, single), (single, semantic)]


@pytest.mark.parametrize(("server", "modes"), [(server, modes) for server in SERVERS for modes in both(server)])
def test_level_2_when_both_modes_are_seen(folder: Path, server: str, modes: tuple[str, ...]) -> None:
    report, _, code = checked(folder, server, *modes)
    assert report["conformanceLevel"] == 2, not_passed(report)
    assert set(not_passed(report)) == UNAVOIDABLE, not_passed(report)
    assert all(result == "WARN" for result in not_passed(report).values())
    assert code == 2  # the SHOULD warnings the spec makes unavoidable


ONE_MODE = [(server, mode) for server in SERVERS for mode in MODES[server][1:]]


@pytest.mark.parametrize(("server", "mode"), ONE_MODE)
def test_one_mode_fails_no_must_and_says_how_to_show_the_other(folder: Path, server: str, mode: str) -> None:
    report, _, _ = checked(folder, server, mode)
    assert set(not_passed(report)) == UNAVOIDABLE | {"L2.features.endpoint-modes"}, not_passed(report)
    assert "FAIL" not in results(report).values()
    modes = next(t for c in report["categories"] for t in c["tests"] if t["id"] == "L2.features.endpoint-modes")
    seen = "single mode (`mcp_aql`)" if mode == "single" else "semantic mode (crude)"
    assert modes["detail"].startswith(f"not judged: this capture saw the server in {seen} only")
    assert "--also" in modes["detail"] and "not supported" not in modes["detail"]


@pytest.mark.parametrize(("server", "mode"), [(server, MODES[server][0]) for server in SERVERS] + ONE_MODE)
def test_no_probe_is_refused_for_a_value_capture_chose(folder: Path, server: str, mode: str) -> None:
    report, _, _ = checked(folder, server, mode)
    records = folder / f"{server}-{mode}"
    refused = []
    for path in records.rglob("*.json"):
        record = json.loads(path.read_text())
        answer = json.dumps(record.get("response"))
        asked = record.get("probe") in ASKED_FOR or str(record.get("_description")).startswith("undocumented")
        asked = asked or str(record.get("_description")).endswith(": stale if_match")  # a precondition no record meets
        asked = asked or '"CONFIRMATION_REQUIRED"' in answer  # held for the operator, whose confirmation is never ours
        asked = asked or "read-only attempt" in str(record.get("_description"))  # a read-only field, written
        if record.get("operation") in STATEFUL:  # refused for the state: capture never retries another value
            assert "again: the server refused our value" not in str(record.get("_description")), record
            continue
        if '"success": false' in answer and not asked:
            refused.append((record.get("operation"), record.get("_description"), answer[:200]))
    assert report["summary"]["total"] and refused == []


def test_values_keep_patterns_and_references_and_probes_respect_exclusions(folder: Path) -> None:
    _, calls, _ = checked(folder, "reading", "semantic")
    shelves = [call["params"]["shelf_id"] for call in calls if call.get("operation") == "create_shelf"
               and isinstance(call.get("params"), dict) and "shelf_id" in call["params"]]  # fmt: skip
    assert shelves and all(shelf.startswith("shelf_") and shelf[6:].isalnum() for shelf in shelves), shelves
    created = set(shelves) | {"shelf_main", "shelf_later"}
    books = [
        call["params"] for call in calls if call.get("operation") == "add_book" and isinstance(call.get("params"), dict)
    ]
    assert books and all(params["shelf_id"] in created for params in books if "shelf_id" in params), books
    probes = [call for call in calls if {"first", "last"} <= set(call.get("params") or {})]  # asks for the refusal
    assert [call["operation"] for call in probes] == ["list_shelves", "list_books", "query_books"]
    walked = [call for call in calls if "after" in (call.get("params") or {})]
    for call in calls:
        params = call.get("params") if isinstance(call.get("params"), dict) else {}
        if call in probes:
            continue
        assert not ({"first", "after"} & set(params) and {"last", "before"} & set(params)), call  # pagination §2.3
        assert "before" not in params, call  # no cursor but the server's own: `after` a page of one's endCursor
    # the page after each page of one that said another follows, twice by the cursor it gave
    assert sorted({call["operation"] for call in walked}) == ["list_books", "list_shelves"]
    assert all(walked.count(call) == 2 and call["params"]["first"] == 1 for call in walked), walked


def test_a_cursor_walk_is_recorded_and_judged(folder: Path) -> None:
    report, calls, _ = checked(folder, "reading", "semantic")
    evidence = set(report["evidence"])
    assert {"pagination_tests:page_of_one", "pagination_tests:next_page", "pagination_tests:large_page"} <= evidence
    judged = {entry["rule"]: entry["result"] for entry in report["requirements"]}
    for rule in (
        "features/pagination:6.4:cursor-properties",
        "features/pagination:6.1:must-list",
        "operations:4.4.3:pagination-metadata",
        "features/pagination:5.3:clamp-not-reject",
    ):
        assert judged[rule] == "PASS", rule  # fmt: skip
    large = [call for call in calls if (call.get("params") or {}).get("first") == 1000]
    assert sorted(call["operation"] for call in large) == ["list_books", "list_shelves", "query_books"]


def test_a_batch_goes_to_an_endpoint_family_where_the_server_declares_batches(folder: Path) -> None:
    report, calls, _ = checked(folder, "reading", "semantic")
    assert results(report)["L2.features.batch"] == "PASS"
    batches = [call for call in calls if "operations" in call]
    assert [call["tool"] for call in batches] == ["mcp_aql_read"]
