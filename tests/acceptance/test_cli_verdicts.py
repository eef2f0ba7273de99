"""The test command: verdicts, exit codes and options, through the real CLI."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mcpaql_conformance import __version__
from tests.acceptance.conftest import minimal_conformant_bundle


def level2(bundle: dict[str, Any]) -> dict[str, Any]:
    """Add passing Level 2 evidence (single mode, field selection, batch, constraints, semantics)."""
    data = copy.deepcopy(bundle)
    data["endpoint_modes"] = ["crude", "single"]
    data["capabilities"] = {"field_selection": True, "batch_operations": True}
    get = next(d for d in data["introspection"]["operation_details"] if d["name"] == "get_bookmark")
    fields = {"name": "fields", "type": "array", "required": False, "description": "A preset (minimal, full) or names."}
    get["parameters"].append(fields)
    data["accepted_parameters"]["get_bookmark"].append("fields")
    data["batch_example"] = {
        "success": True,
        "data": {},
        "results": [
            {"index": 0, "operation": "get_bookmark", "result": {"success": True, "data": {"url": "u"}}},
            {
                "index": 1,
                "operation": "get_bookmark",
                "result": {"success": False, "error": {"code": "NOT_FOUND_RESOURCE", "message": "No bookmark 'b9'."}},
            },
        ],
        "summary": {"total": 2, "succeeded": 1, "failed": 1},
    }
    data["constraint_tests"] = [
        {
            "name": "created-at-read-only",
            "documented": True,
            "response": {
                "success": False,
                "error": {"code": "VALIDATION_READ_ONLY_FIELD", "message": "Field 'created_at' is read-only."},
            },
        }
    ]
    data["semantic_tests"] = [
        {
            "name": "find-field-selection",
            "response_text": "Use get_bookmark with the fields parameter to select fields.",
            "tool_calls": [{"operation": "introspect", "params": {"query": "operations"}}],
            "structural": {"required_patterns": ["fields parameter"]},
            "semantic": {
                "phrase_groups": [["select fields", "field selection"]],
                "expected_operations": ["introspect"],
                "expected_parameters": ["fields"],
            },
        }
    ]
    return data


def report_of(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_conformant_level1_bundle_exits_0_with_every_test_passing(cli, write_bundle):
    result = cli("test", str(write_bundle(minimal_conformant_bundle())), "--format", "json")
    report = report_of(result)
    assert result.returncode == 0, result.stdout
    assert report["exitCode"] == 0 and report["conformanceLevel"] == 1
    assert report["summary"] == {"total": 13, "passed": 13, "warned": 0, "failed": 0, "skipped": 0}
    assert [c["name"] for c in report["categories"]] == [
        "Introspection Fidelity",
        "Parameter Handling",
        "Error Quality",
        "Round-Trip Integrity",
    ]


def test_every_test_has_a_unique_stable_id_and_a_spec_reference(cli, write_bundle):
    report = report_of(cli("test", str(write_bundle(level2(minimal_conformant_bundle()))), "-l", "2", "-f", "json"))
    tests = [t for c in report["categories"] for t in c["tests"]]
    ids = [t["id"] for t in tests]
    assert len(ids) == len(set(ids))
    assert all(t["specRef"] for t in tests)
    assert "L1.params.required-enforced" in ids and "L2.features.batch" in ids
    assert report["tool"] == "mcpaql-conformance" and report["toolVersion"] == __version__


def test_conformant_level2_bundle_exits_0_at_level_2(cli, write_bundle):
    result = cli("test", str(write_bundle(level2(minimal_conformant_bundle()))), "--level", "2", "-f", "json")
    report = report_of(result)
    assert result.returncode == 0
    assert report["conformanceLevel"] == 2
    assert [c["result"] for c in report["categories"]] == ["PASS"] * 7


def test_empty_bundle_fails_with_no_evidence(cli, write_bundle):
    result = cli("test", str(write_bundle({})), "-f", "json")
    report = report_of(result)
    assert result.returncode == 1
    assert report["conformanceLevel"] == 0
    details = [t["detail"] for c in report["categories"] for t in c["tests"] if t["result"] == "FAIL"]
    assert details and all(d.startswith("no evidence") for d in details)


def test_must_failure_exits_1_and_names_the_problem(cli, write_bundle):
    bundle = minimal_conformant_bundle()
    bundle["parameter_tests"]["missing_required"][1]["response"] = {"success": True, "data": {"id": "b1"}}
    result = cli("test", str(write_bundle(bundle)))
    assert result.returncode == 1
    assert "FAIL Required parameters are enforced" in result.stdout
    assert "create_bookmark.url: the call succeeded without the required parameter" in result.stdout
    assert "Not conformant at Level 1: 1 MUST test(s) failed (badge: red, exit 1)" in result.stdout


def test_should_warning_exits_2(cli, write_bundle):
    bundle = level2(minimal_conformant_bundle())
    bundle["constraint_tests"][0]["documented"] = False
    result = cli("test", str(write_bundle(bundle)), "-l", "2", "-f", "json")
    report = report_of(result)
    assert result.returncode == 2
    assert report["conformanceLevel"] == 2
    constraint = next(c for c in report["categories"] if c["name"] == "Constraint Documentation")
    assert constraint["result"] == "WARN"
    assert "created-at-read-only: not documented in introspection" in constraint["tests"][1]["detail"]


def test_failed_level2_features_report_conformance_level_1_and_exit_2(cli, write_bundle):
    bundle = level2(minimal_conformant_bundle())
    bundle["endpoint_modes"] = ["crude"]
    report = report_of(result := cli("test", str(write_bundle(bundle)), "-l", "2", "-f", "json"))
    assert result.returncode == 2
    assert report["requestedLevel"] == 2 and report["conformanceLevel"] == 1
    features = next(c for c in report["categories"] if c["name"] == "Level 2 Features")
    assert features["result"] == "WARN"
    assert "single mode (`mcp_aql`) is not supported" in features["tests"][0]["detail"]


def test_category_is_matched_case_insensitively_and_claims_no_level(cli, write_bundle):
    result = cli("test", str(write_bundle(minimal_conformant_bundle())), "-c", "error QUALITY", "-f", "json")
    report = report_of(result)
    assert result.returncode == 0
    assert [c["name"] for c in report["categories"]] == ["Error Quality"]
    assert report["categoryFilter"] == "Error Quality"
    assert report["conformanceLevel"] is None


def test_category_filter_exit_code_reflects_only_that_category(cli, write_bundle):
    bundle = minimal_conformant_bundle()
    bundle["error_tests"][0]["response"]["error"]["message"] = "TypeError: url is undefined"
    path = str(write_bundle(bundle))
    assert cli("test", path, "-c", "Round-Trip Integrity").returncode == 0
    assert cli("test", path, "-c", "Error Quality").returncode == 1


@pytest.mark.parametrize(
    ("tier", "result", "phrase"),
    [
        ("both", "WARN", "Tier 2 passed but Tier 1 missed fields parameter"),
        ("2", "PASS", "Tier 2 confirmed"),
        ("1", "WARN", "Tier 1 only: missed fields parameter; inconclusive without Tier 2"),
    ],
)
def test_tiers_are_distinct_modes(cli, write_bundle, tier, result, phrase):
    bundle = level2(minimal_conformant_bundle())
    bundle["semantic_tests"][0]["response_text"] = "Call get_bookmark and select fields to keep answers short."
    args = ("test", str(write_bundle(bundle)), "-l", "2", "--tier", tier, "-c", "semantic evaluation", "-f", "json")
    test = report_of(cli(*args))["categories"][0]["tests"][0]
    assert test["result"] == result
    assert phrase in test["detail"]
    assert test["tier"] == tier


def test_tier_2_failure_is_a_fail_whatever_tier_1_says(cli, write_bundle):
    bundle = level2(minimal_conformant_bundle())
    bundle["semantic_tests"][0]["tool_calls"] = []
    report = report_of(cli("test", str(write_bundle(bundle)), "-l", "2", "-c", "Semantic Evaluation", "-f", "json"))
    test = report["categories"][0]["tests"][0]
    assert test["result"] == "FAIL"
    assert "missed call to introspect" in test["detail"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--level", "7"), "'7' is not one of '1', '2'"),
        (("--format", "yaml"), "'yaml' is not one of 'text', 'json', 'markdown', 'junit', 'html'"),
        (("--tier", "3"), "'3' is not one of '1', '2', 'both'"),
        (("--category", "Nope"), "unknown category 'Nope'; valid categories at level 1: 'Introspection Fidelity'"),
        (("--category", "Semantic Evaluation"), "is a Level 2 category; add --level 2"),
        (("--bogus",), "No such option '--bogus'"),
    ],
)
def test_bad_option_values_are_configuration_errors(cli, write_bundle, args, message):
    result = cli("test", str(write_bundle(minimal_conformant_bundle())), *args)
    assert result.returncode == 3
    assert message in result.stderr
    assert result.stdout == ""


def test_unknown_command_and_missing_argument_exit_3(cli):
    unknown = cli("frobnicate")
    assert unknown.returncode == 3 and "No such command 'frobnicate'" in unknown.stderr
    missing = cli("test")
    assert missing.returncode == 3 and "Missing argument 'BUNDLE|SUITE|FOLDER...'" in missing.stderr


def test_help_exits_0_and_documents_the_exit_codes(cli):
    result = cli("--help")
    assert result.returncode == 0
    assert "3  configuration error" in result.stdout
    test_help = cli("test", "--help")
    assert test_help.returncode == 0 and "--tier" in test_help.stdout and "--category" in test_help.stdout


def test_version_command_and_module_entry_point(cli):
    result = cli("version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"mcpaql-conformance {__version__} (MCP-AQL spec 1.0.0-draft)"


def test_a_large_bundle_ends_fast_with_its_full_report_and_exit_code(cli, write_bundle, tmp_path):
    """Past 8 MB the process ends with os._exit after flushing: nothing may be lost."""
    bundle = minimal_conformant_bundle()
    bundle["provenance"] = {"padding": ["x" * 1000] * 9000}  # about 9 MB of free-form evidence
    path = write_bundle(bundle)
    assert path.stat().st_size > 8_000_000
    run = cli("test", str(path), "--format", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["exitCode"] == 0
    out = tmp_path / "report.md"
    run = cli("test", str(path), "--format", "markdown", "--output", str(out))
    assert run.returncode == 0 and out.read_text(encoding="utf-8").startswith("#")
    bundle["expected_level"] = 7  # invalid, found after the large file is parsed
    run = cli("test", str(write_bundle(bundle, "bad.json")))
    assert run.returncode == 3
    assert run.stderr.strip().endswith("bad.json: $.expected_level: must be one of 1, 2 (not 7)")
