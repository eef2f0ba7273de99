"""reportio: saved JSON reports (ours or the reference runner's) back into a Report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from bundle_builders import conformant_bundle, report

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.report.json import render_json
from mcpaql_conformance.report.saved import load_report, report_from_data
from mcpaql_conformance.verdict.model import Result


def reference_report() -> dict[str, Any]:
    """Shaped like the reference runner's output: no ids, spec refs, tier or tool keys."""
    return {
        "implementation": "reference-adapter",
        "version": "1.0.0",
        "specVersion": "1.0.0-draft",
        "requestedLevel": 2,
        "conformanceLevel": 2,
        "summary": {"total": 3, "passed": 2, "warned": 1, "failed": 0, "skipped": 0},
        "categories": [
            {
                "name": "Introspection Fidelity",
                "required": True,
                "result": "PASS",
                "tests": [{"name": "Operations query is implemented", "result": "PASS", "detail": "ok"}],
            },
            {
                "name": "Semantic Evaluation",
                "required": False,
                "result": "WARN",
                "tests": [
                    {"name": "Discover widgets", "result": "WARN", "detail": "Tier 1 missed"},
                    {"name": "No detail here", "result": "PASS"},
                ],
            },
        ],
        "exitCode": 2,
    }


def config_error(data: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        report_from_data(data, "r.json")
    return str(caught.value)


# Accepted reports


def test_our_own_json_report_is_accepted() -> None:
    original = report(conformant_bundle(), level=2)
    loaded = report_from_data(orjson.loads(render_json(original)))
    assert loaded.categories == original.categories
    assert loaded.exit_code == 0


def test_a_reference_runner_report_without_ids_is_accepted() -> None:
    loaded = report_from_data(reference_report())
    assert loaded.implementation == "reference-adapter"
    # It lacks most MUST categories: read, but it has shown no conformance.
    assert (loaded.requested_level, loaded.conformance_level, loaded.exit_code) == (2, 0, 1)
    assert [c.name for c in loaded.categories] == ["Introspection Fidelity", "Semantic Evaluation"]
    test = loaded.categories[1].tests[0]
    assert (test.id, test.name, test.result, test.detail, test.spec_ref) == (
        "",
        "Discover widgets",
        Result.WARN,
        "Tier 1 missed",
        "",
    )
    assert loaded.tier is None
    assert loaded.tool is None


def test_a_missing_detail_becomes_empty() -> None:
    assert report_from_data(reference_report()).categories[1].tests[1].detail == ""


def test_a_null_detail_becomes_empty() -> None:
    data = reference_report()
    data["categories"][0]["tests"][0]["detail"] = None
    assert report_from_data(data).categories[0].tests[0].detail == ""


def test_verdicts_and_exit_code_are_recomputed_from_the_tests() -> None:
    data = reference_report()
    data["categories"][0]["result"] = "PASS"
    data["categories"][0]["tests"][0]["result"] = "FAIL"
    data["exitCode"] = 0
    loaded = report_from_data(data)
    assert loaded.categories[0].result is Result.FAIL
    assert loaded.exit_code == 1
    assert loaded.summary.failed == 1


def test_a_stale_summary_is_ignored() -> None:
    data = reference_report()
    data["summary"] = {"total": 99}
    assert report_from_data(data).summary.total == 3


def test_a_report_file_is_loaded(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(orjson.dumps(reference_report()))
    assert load_report(path).implementation == "reference-adapter"


def test_a_missing_report_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^report not found: "):
        load_report(tmp_path / "absent.json")


def test_a_malformed_report_file_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(b'{"summary": {},\n "categories": [}')
    with pytest.raises(ConfigError) as caught:
        load_report(path)
    assert str(caught.value).startswith(f"{path}:2:")


# Rejected reports


@pytest.mark.parametrize(("data", "type_name"), [([], "array"), ("report", "string"), (None, "null")])
def test_a_report_that_is_not_an_object_is_rejected(data: Any, type_name: str) -> None:
    assert config_error(data) == f"r.json: $: expected a JSON object (a conformance report), got {type_name}"


def test_a_report_without_summary_is_rejected() -> None:
    data = reference_report()
    del data["summary"]
    assert config_error(data) == "r.json: $: missing required property 'summary' (not a conformance report)"


def test_a_report_without_categories_is_rejected() -> None:
    data = reference_report()
    del data["categories"]
    assert config_error(data) == "r.json: $: missing required property 'categories' (not a conformance report)"


def test_a_bad_result_value_is_rejected_with_its_path() -> None:
    data = reference_report()
    data["categories"][1]["tests"][1]["result"] = "OK"
    message = config_error(data)
    assert message.startswith("r.json: $.categories[1].tests[1].result: must be one of ")
    assert '"PASS", "WARN", "FAIL", "SKIP"' in message
    assert message.endswith("(not a conformance report)")


def test_a_lowercase_result_is_rejected() -> None:
    data = reference_report()
    data["categories"][0]["tests"][0]["result"] = "pass"
    assert config_error(data).startswith("r.json: $.categories[0].tests[0].result: must be one of ")


def test_a_bad_category_result_is_rejected_with_its_path() -> None:
    data = reference_report()
    data["categories"][0]["result"] = "GREEN"
    assert config_error(data).startswith("r.json: $.categories[0].result: must be one of ")


def test_a_category_without_required_flag_is_rejected() -> None:
    data = reference_report()
    del data["categories"][0]["required"]
    assert config_error(data) == (
        "r.json: $.categories[0]: missing required property 'required' (not a conformance report)"
    )


def test_a_test_without_a_name_is_rejected() -> None:
    data = reference_report()
    del data["categories"][1]["tests"][0]["name"]
    assert config_error(data) == (
        "r.json: $.categories[1].tests[0]: missing required property 'name' (not a conformance report)"
    )


def test_a_wrongly_typed_summary_is_rejected() -> None:
    data = reference_report()
    data["summary"] = [3]
    assert config_error(data) == "r.json: $.summary: expected an object, got array (not a conformance report)"


def test_an_exit_code_outside_the_verdict_codes_is_rejected() -> None:
    data = reference_report()
    data["exitCode"] = 3
    assert config_error(data).startswith("r.json: $.exitCode: must be one of 0, 1, 2")


def test_a_bundle_given_as_a_report_is_named_with_the_command_that_takes_it() -> None:
    message = config_error(conformant_bundle())
    assert message == (
        "r.json is an evidence bundle, not a conformance report; judge it with: mcpaql-conformance test r.json"
    )


def test_an_unmarked_object_that_is_no_report_says_so_with_the_missing_property() -> None:
    message = config_error({"implementation": "x"})
    assert message.endswith("(not a conformance report)") and "missing required property" in message


def test_the_conformance_level_is_recomputed_not_trusted() -> None:
    data = {
        "requestedLevel": 1,
        "conformanceLevel": 1,
        "summary": {},
        "categories": [{"name": "I", "required": True, "tests": [{"name": "t", "result": "FAIL"}]}],
    }
    loaded = report_from_data(data)
    assert loaded.conformance_level == 0
    assert loaded.exit_code == 1


def test_an_impossible_requested_level_is_not_a_conformance_report() -> None:
    data = {"requestedLevel": 7, "conformanceLevel": 7, "summary": {}, "categories": []}
    with pytest.raises(ConfigError, match=r"\$\.requestedLevel: must be one of 1, 2, null"):
        report_from_data(data, "r.json")


@pytest.mark.parametrize("level", [2.0, True, "2"])
def test_a_requested_level_that_is_not_an_integer_is_invalid(level: Any) -> None:
    data = orjson.loads(render_json(report(conformant_bundle(), level=2)))
    data["requestedLevel"] = level
    assert "$.requestedLevel" in config_error(data)


def test_a_report_without_categories_claims_no_conformance() -> None:
    data = orjson.loads(render_json(report(conformant_bundle(), level=2)))
    data["categories"] = []
    loaded = report_from_data(data)
    assert loaded.conformance_level == 0 and loaded.exit_code == 1
    from mcpaql_conformance.report.badge import badge_status

    assert badge_status(loaded).color == "red"


def test_a_level_2_report_without_level_2_features_is_not_level_2() -> None:
    data = orjson.loads(render_json(report(conformant_bundle(), level=2)))
    data["categories"] = [c for c in data["categories"] if c["name"] != "Level 2 Features"]
    assert report_from_data(data).conformance_level == 0
