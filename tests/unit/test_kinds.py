"""kinds.kind_of: a report is known by its own structure, whatever additive keys it carries; a
bundle (evidence in it) never becomes a report. And a suite report read back for `report` and `badge`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bundle_builders import conformant_bundle, report

from mcpaql_conformance.files.kinds import BUNDLE, REPORT, SUITE, SUITE_REPORT, kind_of
from mcpaql_conformance.report.badge import suite_badge_status
from mcpaql_conformance.report.saved import suite_report_from_data
from mcpaql_conformance.report.suite import suite_dict
from mcpaql_conformance.verdict.suite import Member, Suite, SuiteReport

REPORT_DATA: dict[str, Any] = {
    "requestedLevel": 1,
    "conformanceLevel": 1,
    "summary": {"total": 1, "passed": 1},
    "categories": [{"name": "Error Quality", "required": True, "tests": [{"name": "t", "result": "PASS"}]}],
    "exitCode": 0,
}


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"provenance": {"tool": "mcpaql-conformance"}},
        {"captureNotes": ["n"], "captureReadings": ["r"]},
        {"agentRuns": {"summary": "s", "metrics": []}},
        {"baseline": {"file": "b.json", "stale": []}},
        {"capture_notes": [], "capture_readings": [], "agent_runs": [], "expected_level": 1, "expected_exit_code": 0},
        {"tool": "mcpaql-conformance", "toolVersion": "0.1.0", "tier": "both", "categoryFilter": "Error Quality"},
    ],
)
def test_a_report_stays_a_report_whatever_additive_keys_it_carries(extra):
    assert kind_of(REPORT_DATA | extra) == REPORT


def test_the_reference_runners_minimal_report_is_a_report():
    assert kind_of({"summary": {}, "categories": []}) == REPORT


@pytest.mark.parametrize(
    "data",
    [
        REPORT_DATA | {"introspection": {}},
        REPORT_DATA | {"parameter_tests": {}, "provenance": {}},
        {"provenance": {}, "categories": []},
        {"provenance": {}, "summary": {}, "categories": [{"name": "no tests"}]},
        {"capture_notes": [], "summary": {}, "categories": "not a list"},
    ],
)
def test_evidence_or_a_bundle_key_without_a_reports_structure_is_a_bundle(data):
    assert kind_of(data) == BUNDLE


def test_suite_reports_and_suites_are_told_apart():
    member = {"bundle": "a.json", "exitCode": 0, "conformant": True, "report": REPORT_DATA, "error": None}
    suite_report = {"suite": "s", "summary": {"bundles": 1}, "exitCode": 0, "members": [member]}
    assert kind_of(suite_report) == SUITE_REPORT
    assert kind_of({"name": "s", "bundles": ["*.json"]}) == SUITE
    assert kind_of(suite_report | {"introspection": {}}) == BUNDLE
    assert kind_of({"suite": "s", "exitCode": 0, "members": [{"bundle": "a.json"}]}) is None


def _suite_result(*members: Member) -> SuiteReport:

    paths = tuple(member.path for member in members)
    return SuiteReport(Suite("ours", "two adapters", paths, 1, "both", "suite.json"), members)


def test_a_saved_suite_report_reads_back_with_each_members_verdict_recomputed():
    good = report(conformant_bundle())
    result = _suite_result(Member(Path("a.json"), good.exit_code, good), Member(Path("b.json"), 3, error="bad"))
    data = suite_dict(result)
    data["members"][0]["exitCode"] = 1  # a hand-edited member code does not survive
    again = suite_report_from_data(data, "s.json")
    assert again.suite.name == "ours" and again.suite.level == 1
    assert [member.exit_code for member in again.members] == [good.exit_code, 3]
    assert again.members[1].error == "bad" and again.exit_code == 3 and again.aggregate() == result.aggregate()


def test_a_suites_badge_counts_its_conformant_bundles():
    good = report(conformant_bundle())
    all_good = suite_badge_status(_suite_result(Member(Path("a.json"), 0, good), Member(Path("b.json"), 0, good)))
    assert (all_good.message, all_good.color) == ("Level 1: 2/2 bundles conformant", "brightgreen")
    one_bad = suite_badge_status(_suite_result(Member(Path("a.json"), 0, good), Member(Path("b.json"), 3, error="x")))
    assert (one_bad.message, one_bad.color) == ("Level 1: 1/2 bundles conformant", "red")
