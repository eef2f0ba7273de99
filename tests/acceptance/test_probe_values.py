"""No false blame from our own probe values (issue 21): capture sends the values a server documents
(in prose, examples and earlier answers) before made-up ones, records where each came from, tries
the next value once when a refusal is about ours, and marks what is still refused inconclusive;
`test` never judges such an answer against the parameter under test."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.capture.values import made_up
from tests.acceptance.conftest import DEMO, run_cli, warm

SERVERS = Path(__file__).with_name("servers.py")
PICKY = (sys.executable, str(SERVERS), "picky")


def made(bundle: dict[str, Any], name: str) -> str:
    """What capture made up for parameter ``name`` in the run that wrote ``bundle``."""
    return f"{made_up(name)}-{bundle['provenance']['made_up_token']}"


UNKNOWN_VALUE = "mcpaql-conformance-unknown-value"  # what the unknown parameter is sent with
FALSE_BLAME = ("does not name", "documented but not accepted", "does not mention", "Unknown query type")


@cache
def captured(
    name: str, folder: Path, *command: str, destructive: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(bundle, JSON report) of a capture without a plan."""
    bundle = folder / f"{name}.json"
    args = ["capture", "--bundle", str(bundle), "--capture-dir", str(folder / f"{name}-records")]
    result = run_cli(*args, *(["--allow-destructive"] if destructive else []), "--", *command)
    assert result.returncode == 0, result.stderr
    report = run_cli("test", str(bundle), "-f", "json")
    return json.loads(bundle.read_text()), json.loads(report.stdout)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("values")


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["id"]: test for category in report["categories"] for test in category["tests"]}


def case(bundle: dict[str, Any], kind: str, operation: str) -> dict[str, Any]:
    return next(c for c in bundle["parameter_tests"][kind] if c["operation"] == operation)


def false_blame(report: dict[str, Any]) -> list[str]:
    said = [
        line
        for test in by_id(report).values()
        for line in (test["detail"], *test.get("findings", []))
        if any(phrase in line for phrase in FALSE_BLAME)
    ]
    return said


def test_a_described_value_is_sent_first_and_its_source_recorded(folder: Path) -> None:
    bundle, _ = captured("picky", folder, *warm(*PICKY))
    introspect = case(bundle, "unknown_parameter", "introspect")
    assert introspect["request"] == {"query": "operations", "zz_conformance_probe": UNKNOWN_VALUE}
    assert introspect["value_sources"] == {"query": "description"}  # "Query type: 'operations' or 'types'"
    assert "inconclusive" not in introspect
    assert bundle["accepted_parameters"]["introspect"] == ["query", "name"]


def test_a_refused_value_of_ours_is_replaced_by_one_an_earlier_answer_returned(folder: Path) -> None:
    bundle, report = captured("picky", folder, *warm(*PICKY))
    lookup = case(bundle, "unknown_parameter", "lookup")
    # list_codes returned X-42
    assert lookup["request"] == {"code": "X-42", "zz_conformance_probe": UNKNOWN_VALUE}
    assert lookup["value_sources"] == {"code": "earlier answer"}
    code = made(bundle, "code")
    assert lookup["first_try"]["request"] == {"code": code, "zz_conformance_probe": UNKNOWN_VALUE}
    # the first try is kept: why it was sent again
    assert lookup["first_try"]["response"]["error"]["message"] == f"Unknown code '{code}'"
    assert lookup["response"]["error"]["message"] == "Unknown parameter: zz_conformance_probe"
    records = folder / "picky-records"
    sent = [json.loads(path.read_text()) for path in records.rglob("lookup-*.json")]
    assert any("again: the server refused our value for code" in record["_description"] for record in sent)
    assert "lookup.zz_conformance_probe" not in json.dumps(by_id(report)["L1.params.unknown-explicit"])


def test_a_value_still_refused_is_inconclusive_and_not_judged(folder: Path) -> None:
    bundle, report = captured("picky", folder, *warm(*PICKY))
    find = case(bundle, "unknown_parameter", "find")
    region = made(bundle, "region")  # the value the server refused
    assert find["inconclusive"] == {
        "reason": f'refused our value "{region}" for region',
        "parameter": "region",
        "values": [region],
        "sources": ["synthesised"],
    }
    assert bundle["accepted_parameters"]["find"] == ["region"]  # refused for its value: the parameter was taken
    tests = by_id(report)
    expected = (
        f'not judged: the server refused the value capture chose for region ("{region}", made up); it answered '
        f"VALIDATION_INVALID_VALUE: Invalid region: {region}; give one in a plan"
    )
    assert f"find.zz_conformance_probe: {expected}" in tests["L1.params.unknown-explicit"]["findings"]
    assert (
        f"find with the unknown parameter zz_conformance_probe: {expected}" in tests["L1.errors.actionable"]["findings"]
    )
    about_find = [line for test in tests.values() for line in test.get("findings", []) if "find" in line]
    assert about_find and not [line for line in about_find if any(phrase in line for phrase in FALSE_BLAME)]


def test_a_refusal_that_only_names_another_parameter_whatever_its_value_is_judged(folder: Path) -> None:
    bundle, report = captured("picky", folder, *warm(*PICKY))
    search = case(bundle, "unknown_parameter", "search")
    # "cats" first (the description's example), then the made-up value: the same refusal for both
    assert search["request"] == {"term": made(bundle, "term"), "zz_conformance_probe": UNKNOWN_VALUE}
    assert search["value_sources"] == {"term": "synthesised"} and "inconclusive" not in search
    tests = by_id(report)
    assert tests["L1.params.unknown-explicit"]["result"] == "FAIL"
    assert tests["L1.params.unknown-explicit"]["findings"][0] == (
        "search.zz_conformance_probe: the refusal does not name the unknown parameter "
        "(VALIDATION_ERROR: Invalid params: expected term)"
    )
    assert [test_id for test_id, test in tests.items() if test["result"] == "FAIL"] == ["L1.params.unknown-explicit"]


def test_the_provenance_says_every_operation_was_called_when_all_are_read_only(folder: Path) -> None:
    bundle, report = captured("picky", folder, *warm(*PICKY))
    assert bundle["provenance"]["withheld_operations"] == 0 and bundle["provenance"]["permission"] == "read-only"
    assert report["provenance"].endswith("over stdio; read-only run: every operation called")


@pytest.mark.parametrize("destructive", [False, True], ids=["withheld", "allowed"])
def test_a_server_that_states_its_values_only_in_prose_is_not_blamed_for_ours(folder: Path, destructive: bool):
    name = f"described-{'allowed' if destructive else 'withheld'}"
    bundle, report = captured(name, folder, *warm(*DEMO, "--dialect", "described-values"), destructive=destructive)
    tests = by_id(report)
    # its deviations of its own: introspect's example is a string, where core Appendix D's
    # normative schema asks an object (read all the same: capture takes `query` from it), and it
    # refuses an unknown introspect query (the batch's middle item) with its error as text
    assert [test_id for test_id, test in tests.items() if test["result"] == "FAIL"] == [
        "L1.introspection.operation-details",
        "L1.errors.discriminated-union",
    ], report
    assert tests["L1.introspection.operation-details"]["findings"] == [
        "introspect: $.examples[0]: expected an object, got string"
    ]
    assert tests["L1.errors.discriminated-union"]["findings"] == [
        "the batch: $.results[1].result.error: expected an object, got string"
    ]
    assert false_blame(report) == []
    export = case(bundle, "unknown_parameter", "export_notes") if destructive else None
    if export is not None:  # "Export format, one of: text, markdown"; the example says markdown
        assert export["request"]["format"] == "markdown" and export["value_sources"] == {"format": "example"}
    if destructive:
        assert report["exitCode"] == 1  # the string example, a MUST of the normative schema
        assert "; run with --allow-destructive: every operation called; " in report["provenance"]
    else:
        withheld = bundle["provenance"]["withheld_operations"]
        assert withheld == 8  # 6 UPDATE, DELETE and EXECUTE operations, and 2 CREATE
        assert report["provenance"].endswith(
            f"read-only run: {withheld} operation(s) not called (see Not probed during capture)"
        )


def test_a_plan_secret_refused_by_the_server_is_never_written(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"env": {"find.region": "PICKY_REGION"}}))
    bundle = tmp_path / "bundle.json"
    args = ["capture", "--plan", str(plan), "--bundle", str(bundle), "--capture-dir", str(tmp_path / "records")]
    result = run_cli(*args, "--", *warm(*PICKY), env={"PICKY_REGION": "s3cret-region-77"})
    assert result.returncode == 0, result.stderr
    written = bundle.read_text()
    assert "s3cret-region-77" not in written and "s3cret-region-77" not in result.stderr
    find = case(json.loads(written), "unknown_parameter", "find")
    assert find["inconclusive"]["parameter"] == "region" and find["value_sources"] == {"region": "plan"}
    assert "s3cret-region-77" not in json.dumps(find)
    for record in (tmp_path / "records").rglob("*.json"):
        assert "s3cret-region-77" not in record.read_text(), record
