"""A verdict rests only on an answer to a request that was valid apart from the one thing under
test (issue 27): values keep their declared type, a placeholder from a server's examples
(``<path>``) is never sent, made-up names are unique (a second create is no conflict of ours),
introspect always gets its spec-required ``query``, an undocumented parameter counts as accepted
only when a call with it went through, and one call of an operation no server lists gives the
error tests evidence."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.live.safety import UNKNOWN_OPERATION
from tests.acceptance.conftest import run_cli, warm

PROBE_SERVER = Path(__file__).with_name("probe_server.py")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("probe-validity")


@cache
def captured(kind: str, folder: Path, *flags: str) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """(bundle, JSON report, every tools/call the server saw) of a capture without a plan."""
    name = f"{kind}{''.join(flags)}"
    bundle, log = folder / f"{name}.json", folder / f"{name}.log"
    args = ["capture", "--bundle", str(bundle), "--capture-dir", str(folder / "records"), *flags]
    result = run_cli(*args, "--", *warm(sys.executable, str(PROBE_SERVER), kind), env={"PROBE_LOG": str(log)})
    assert result.returncode == 0, result.stderr
    report = json.loads(run_cli("test", str(bundle), "-f", "json").stdout)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return json.loads(bundle.read_text()), report, calls


def findings(report: dict[str, Any]) -> list[str]:
    return [
        line for category in report["categories"] for test in category["tests"] for line in test.get("findings", [])
    ]


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["id"]: test for category in report["categories"] for test in category["tests"]}


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return []


def test_a_server_that_checks_our_values_first_is_blamed_for_nothing(folder: Path) -> None:
    # The file store refuses a file it does not have before it looks at unknown parameters: the
    # made-up path's "no such file or directory" says nothing of `fields` or `limit` beside it.
    _, report, _ = captured("files", folder, "--allow-destructive")
    assert report["exitCode"] == 0, findings(report)
    assert not [line for line in findings(report) if "accepted but not documented" in line]
    assert by_id(report)["L1.introspection.completeness"]["result"] == "PASS"
    assert by_id(report)["L1.roundtrip.create-read"]["result"] == "PASS"  # tags sent as a list: the create worked


def test_no_placeholder_is_sent_and_values_keep_their_declared_type(folder: Path) -> None:
    _, _, calls = captured("files", folder, "--allow-destructive")
    sent = [text for call in calls for text in strings(call.get("params"))]
    assert sent and not [text for text in sent if "<" in text or ">" in text]
    writes = [call["params"] for call in calls if call["operation"] == "write_file"]
    assert writes and all(isinstance(p["tags"], list) for p in writes if "tags" in p)  # declared `string[]`


def test_made_up_names_are_unique_within_a_run_and_between_runs(folder: Path) -> None:
    _, report, calls = captured("files", folder, "--allow-destructive")
    paths = [call["params"]["path"] for call in calls if call["operation"] == "write_file" and "path" in call["params"]]
    assert len(paths) == len(set(paths)) > 2
    assert not [line for line in findings(report) if "CONFLICT_EXISTS" in line]
    _, _, again = captured("files", folder, "--allow-destructive", "--timeout", "20")
    later = {call["params"]["path"] for call in again if call["operation"] == "write_file" and "path" in call["params"]}
    assert not later & set(paths)


def test_introspect_is_always_sent_its_query(folder: Path) -> None:
    _, _, calls = captured("files", folder, "--allow-destructive")
    without = [call for call in calls if call["operation"] == "introspect" and "query" not in call.get("params", {})]
    # only the probe that leaves out `query` on purpose (it is documented as required)
    assert [call["params"] for call in without] == [{}]


def test_an_unknown_operation_is_sent_once_on_the_read_endpoint_even_in_a_read_only_run(folder: Path) -> None:
    bundle, report, calls = captured("files", folder)
    unknown = [call for call in calls if call["operation"] == UNKNOWN_OPERATION]
    assert [(call["tool"], call["params"]) for call in unknown] == [("mcp_aql_read", {})]
    (case,) = [case for case in bundle["error_tests"] if case["name"] == "unknown-operation"]
    assert case["response"]["error"]["code"] == "NOT_FOUND_OPERATION"
    assert case["must_mention"] == [UNKNOWN_OPERATION]
    # judged (its message names the operation): no warning is about it
    assert not [line for line in by_id(report)["L1.errors.actionable"]["findings"] if "unknown-operation" in line]
    assert "[endpoint-modes" not in json.dumps(by_id(report)["L1.introspection.operation-details"])


def test_an_unknown_operation_routed_by_guesswork_warns_quoting_the_answer(folder: Path) -> None:
    _, report, _ = captured("guesswork", folder)
    details = by_id(report)["L1.introspection.operation-details"]
    assert details["result"] == "WARN", details
    assert details["findings"] == [
        f"{UNKNOWN_OPERATION} via mcp_aql_read: an operation name the server does not list was answered with "
        'success, not refused (data: {"files":["notes/readme.txt"]})'
    ]
    assert details["findingRules"] == ["endpoint-modes:5.5:unknown-operation-structured"]
    actionable = by_id(report)["L1.errors.actionable"]
    said = f"the unknown operation {UNKNOWN_OPERATION} sent to mcp_aql_read: the response is not an error (succeeded)"
    assert said in actionable["findings"]


def test_a_success_flagged_is_error_is_kept_and_failed_in_the_test_that_owns_it(folder: Path) -> None:
    # list_files answers `success: true` in an MCP result flagged isError: its answers are read for
    # the parameters only, so one is kept as evidence, and the discriminated-union test fails it.
    bundle, report, _ = captured("flagged-success", folder)
    (kept,) = bundle["valid_requests"]
    assert kept["operation"] == "list_files"
    assert kept["_description"] == "no parameter, as documented, kept as its answer is no valid MCP-AQL result"
    union = by_id(report)["L1.errors.discriminated-union"]
    assert union["result"] == "FAIL" and report["exitCode"] == 1
    assert union["findings"] == [
        # said in the server's terms: the call, not the bundle field that keeps it
        "list_files (no parameter, as documented, kept as its answer is no valid MCP-AQL result): answered "
        "`success: true` in an MCP result flagged "
        'isError: true (a contradiction): "{\\"success\\": true, \\"data\\": {\\"files\\": [\\"notes/readme.txt\\"]}}"'
    ]
    assert not captured("files", folder)[0].get("valid_requests")  # the conformant store keeps no such evidence


def test_evidence_we_withheld_is_not_judged_and_the_defect_that_made_it_necessary_fails(folder: Path) -> None:
    # Every tool is the EXECUTE endpoint, introspect included: a read-only run sends nothing.
    _, report, calls = captured("execute-only", folder)
    assert calls == []
    tests = by_id(report)
    home = tests["L1.introspection.operations-query"]
    assert home["result"] == "FAIL" and report["exitCode"] == 1
    assert home["findings"] == [
        "the server has no READ endpoint and no single tool (its MCP-AQL tools: mcp_aql_execute): introspect, a "
        "READ operation, can only be served by an endpoint of another category"
    ]
    assert home["findingRules"] == ["operations:9.1:introspect"]
    others = {test_id: test for test_id, test in tests.items() if test_id != "L1.introspection.operations-query"}
    for test_id, test in others.items():
        assert test["result"] == "WARN", (test_id, test)
        assert test["detail"].startswith("not judged: capture withheld introspect, so it probed nothing ("), test
        assert test["detail"].endswith(
            "capture again with --allow-destructive, against a disposable instance only, to judge it"
        )
    assert "no evidence" not in json.dumps(report)
    assert report["provenance"].endswith(
        "read-only run: introspect not sent, so nothing else was (see Not probed during capture)"
    )


def test_introspect_served_only_by_an_execute_endpoint_fails_when_it_answers_too(folder: Path) -> None:
    _, report, calls = captured("execute-only", folder, "--allow-destructive")
    assert {call["tool"] for call in calls} == {"mcp_aql_execute"}
    tests = by_id(report)
    assert tests["L1.introspection.operations-query"]["result"] == "FAIL"
    assert tests["L1.introspection.operations-query"]["findingRules"] == ["operations:9.1:introspect"]
    assert [test_id for test_id, test in tests.items() if test["result"] == "FAIL"] == [
        "L1.introspection.operations-query"
    ]


FLAT_PLAN = {
    "update_read": [
        {
            "name": "flat-update-keeps-tags",
            "create": {"operation": "write_file", "params": {"path": "docs/a.md", "content": "one", "tags": ["x"]}},
            "update": {"operation": "update_file", "params": {"path": "${create.data.path}", "content": "two"}},
            "read": {"operation": "read_file", "params": {"path": "${create.data.path}"}},
        }
    ]
}


def test_a_plan_update_with_flat_fields_is_judged_as_the_update_without_input_it_is(folder: Path) -> None:
    # The plan sends `content` flat in params (no `input`): the field it changes is not expected
    # unchanged, and the server taking such an update is the deviation, in the test that owns it.
    plan = folder / "flat-plan.json"
    plan.write_text(json.dumps(FLAT_PLAN))
    bundle, report, _ = captured("flat-update", folder, "--allow-destructive", "--plan", str(plan))
    tests = by_id(report)
    assert tests["L1.roundtrip.update-preservation"]["result"] == "PASS", tests["L1.roundtrip.update-preservation"]
    flat = [case for case in bundle["update_input_tests"] if case["request"] == {"path": "docs/a.md", "content": "two"}]
    assert [case["kind"] for case in flat] == ["missing_input"]
    required = tests["L1.params.required-enforced"]
    assert "update_file without `input`: the update succeeded" in required["findings"]
    assert required["result"] == "FAIL"


NESTED_PLAN = {
    "create_read": [
        {
            "name": "write-then-read",
            "create": {"operation": "write_file", "params": {"path": "docs/b.md", "content": "one", "tags": ["x"]}},
            "read": {"operation": "read_file", "params": {"path": "${create.data.path}"}},
        }
    ]
}


def test_a_read_answer_that_wraps_the_record_is_searched_where_the_server_put_it(folder: Path) -> None:
    # read_file answers {data: {structured_content: {...}}}; the plan expects data.content, data.tags
    plan = folder / "nested-plan.json"
    plan.write_text(json.dumps(NESTED_PLAN))
    bundle, report, _ = captured("nested-read", folder, "--allow-destructive", "--plan", str(plan))
    (case,) = [case for case in bundle["round_trip_tests"] if case["name"] == "write-then-read"]
    assert case["expected_fields"] == {"data.path": "docs/b.md", "data.content": "one", "data.tags": ["x"]}
    assert "path" not in case["read_response"]["data"]
    assert by_id(report)["L1.roundtrip.create-read"]["result"] == "PASS", by_id(report)["L1.roundtrip.create-read"]


def test_the_same_refusal_for_every_call_is_one_grouped_finding_quoting_it_once(folder: Path) -> None:
    _, report, _ = captured("no-credentials", folder, "--allow-destructive")
    tests = by_id(report)
    said = "(AUTH_REQUIRED: Upstream refused the request: no access token is configured (set FILES_TOKEN).)"
    for test_id, count, what in (
        ("L1.params.required-enforced", 4, "missing-parameter probe(s) of read_file, write_file"),
        ("L1.params.unknown-explicit", 3, "unknown-parameter probe(s) of list_files, read_file, write_file"),
        ("L1.errors.actionable", 7, "error case(s) of list_files, read_file, write_file"),
    ):
        test = tests[test_id]
        assert test["result"] == "WARN", test
        (line,) = test["findings"]
        assert line.startswith(f"{count} {what}: not judged: every probe of these operations was refused the same way")
        assert said in line and line.endswith("capture again once it can")
    assert report["exitCode"] == 0
    assert "does not mention" not in json.dumps(report) and "not shown" not in json.dumps(report)
    # capture's own notes: the same refusal of every operation's probe is one line for them all
    (note,) = [line for line in report["captureNotes"] if "accepted_parameters" in line]
    # in the order they are probed: list_files first (it finds the paths), read_file after write_file made one
    assert note.startswith("list_files, write_file, read_file: accepted_parameters: ") and said in note


def test_partial_details_are_kept_and_judged_for_what_they_lack(folder: Path) -> None:
    # introspect {query: operations, name} answers {operation: {name, endpoint, description}}
    bundle, report, _ = captured("partial-details", folder)
    kept = {detail["name"] for detail in bundle["introspection"]["operation_details"]}
    assert kept == {"introspect", "read_file", "list_files", "write_file"}
    details = by_id(report)["L1.introspection.operation-details"]
    assert details["result"] == "FAIL"
    assert (
        "read_file: $: missing required property 'mcpTool', 'permissions', 'parameters', 'returns'"
        in (details["findings"])
    )
    assert "gave no operation detail" not in json.dumps(report)


def test_a_read_back_never_takes_an_identifier_of_another_kind(folder: Path) -> None:
    # add_note answers {id}; the only read is get_label(label_id): a note's id is no label's, so
    # the create-read cycle is not run (and says why) rather than failed by a read of the wrong kind
    bundle, report, calls = captured("two-kinds", folder, "--allow-destructive")
    assert not [
        call
        for call in calls
        if call["operation"] == "get_label" and str(call["params"].get("label_id")).startswith("note-")
    ]
    assert "round_trip_tests" not in bundle or not bundle["round_trip_tests"]
    create = by_id(report)["L1.roundtrip.create-read"]
    assert create["result"] == "WARN", create
    assert (
        "add_note (inferred create-read cycle not run: no READ operation takes an identifier its answer carries)"
        in (create["detail"])
    )
    assert report["exitCode"] == 0
