"""validate (coded diagnostics, one test per code) and schema, through the real CLI."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from mcpaql_conformance.evidence.validate import RULES
from tests.acceptance.conftest import ROOT, minimal_conformant_bundle


def base() -> dict[str, Any]:
    bundle = minimal_conformant_bundle()
    bundle["expected_exit_code"] = 0
    return bundle


def with_agent(**agent: Any) -> dict[str, Any]:
    bundle = base()
    bundle["agent_tests"] = [
        {"_description": "find", "input": "Find bookmark b1", "expectedTools": ["read/get_bookmark"], **agent}
    ]
    return bundle


def mutate(change: Any) -> dict[str, Any]:
    bundle = base()
    change(bundle)
    return bundle


CASES = {
    "MQA001": (mutate(lambda b: b.update(error_tests="x")), "$.error_tests: expected an array, got string"),
    "MQA002": (
        mutate(lambda b: b.update(error_test=[])),
        "$.error_test: unknown key 'error_test'; did you mean 'error_tests'?",
    ),
    "MQA003": (
        mutate(lambda b: b["error_tests"].append(copy.deepcopy(b["error_tests"][0]))),
        "$.error_tests[1].name: 'missing-url' is used 2 times in error_tests",
    ),
    "MQA004": (
        mutate(
            lambda b: b["parameter_tests"]["missing_required"].append(
                {"operation": "create_bookmark", "parameter": "title", "response": {"success": False}}
            )
        ),
        "'create_bookmark.title' is not documented as required",
    ),
    "MQA005": (
        mutate(lambda b: b["parameter_tests"]["missing_required"].pop(0)),
        "$.parameter_tests.missing_required: no evidence for required 'introspect.query'",
    ),
    "MQA006": (
        mutate(lambda b: b["introspection"]["operation_details"].pop()),
        "'update_bookmark' is listed but has no operation detail",
    ),
    "MQA007": (mutate(lambda b: b["error_tests"][0].pop("must_mention")), "'missing-url' has no must_mention"),
    "MQA008": (
        mutate(lambda b: b.update(semantic_tests=[{"name": "s", "response_text": "t"}])),
        "$.semantic_tests[0]: 's' records no tool_calls",
    ),
    "MQA009": (
        mutate(lambda b: b["round_trip_tests"][0]["expected_fields"].update({"data.tags.first": "x"})),
        "'data.tags.first' cannot exist in read_response: data.tags is a list, indexed by numbers, not 'first'",
    ),
    "MQA010": (with_agent(input="  "), "$.agent_tests[0].input: the input prompt is empty"),
    "MQA011": (with_agent(expectedTools=[]), "$.agent_tests[0].expectedTools: no expected tools"),
    "MQA012": (with_agent(expectedTools=["create/get_bookmark"]), "'get_bookmark' is on endpoint 'read', not 'create'"),
    "MQA013": (
        mutate(lambda b: b.pop("expected_exit_code")),
        "$: verify-fixtures will count this bundle as a mismatch",
    ),
    "MQA014": (
        mutate(
            lambda b: b.update(
                agent_runs=[{"incomplete": True, "reason": "stopped by SIGTERM", "finished_runs": 2, "planned_runs": 6}]
            )
        ),
        "$.agent_runs[0]: 2 of 6 runs finished (stopped by SIGTERM)",
    ),
}


def test_every_code_has_a_case_here_and_a_row_in_the_docs():
    readme = (ROOT / "docs" / "evidence.md").read_text()
    assert {r.code for r in RULES} == set(CASES)
    for code in CASES:
        assert re.search(rf"^\| `{code}` \| (error|warning|info) \|", readme, re.M), code


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_code_is_triggered_by_its_case(cli, write_bundle, code):
    bundle, fragment = CASES[code]
    result = cli("validate", str(write_bundle(bundle)), "-f", "json")
    diagnostics = json.loads(result.stdout)
    mine = [d for d in diagnostics if d["code"] == code]
    assert mine, diagnostics
    assert any(fragment in f"{d['path']}: {d['message']}" for d in mine), mine
    assert all(d["hint"] for d in mine)
    severity = next(r.severity for r in RULES if r.code == code)
    assert result.returncode == (1 if severity == "error" else 0)


def test_a_clean_bundle_has_no_diagnostics_and_exits_0(cli, write_bundle):
    result = cli("validate", str(write_bundle(base())))
    assert result.returncode == 0
    assert result.stdout.strip().endswith("0 error(s), 0 warning(s), 0 info in 1 bundle(s)")


def test_strict_turns_warnings_into_exit_2(cli, write_bundle):
    path = str(write_bundle(CASES["MQA002"][0]))
    assert cli("validate", path).returncode == 0
    strict = cli("validate", path, "--strict")
    assert strict.returncode == 2
    assert "MQA002 warning $.error_test: unknown key 'error_test'; did you mean 'error_tests'? (fix: " in strict.stdout


def test_unreadable_input_is_a_configuration_error(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    good = tmp_path / "good.json"
    good.write_text((ROOT / "fixtures" / "l1-conformant-notes.json").read_text())
    result = cli("validate", str(bad), str(good))
    assert result.returncode == 3 and result.stderr == ""
    assert result.stdout.splitlines() == [
        f"{bad}: 1 diagnostic(s)",
        f"  MQA000 error $: {bad}:1:2: invalid JSON: unexpected end of data (fix: fix the file, or give it to the"
        " command the message names)",
        f"{good}: 0 diagnostic(s)",
        "1 error(s), 0 warning(s), 0 info in 2 bundle(s)",
    ]


def test_our_fixtures_validate_without_errors(cli):
    paths = [str(p) for p in sorted((ROOT / "fixtures").glob("*.json")) if not p.name.startswith("config-")]
    result = cli("validate", *paths, "-f", "json")
    assert [d for d in json.loads(result.stdout) if d["severity"] == "error"] == []


def test_schema_prints_a_draft_2020_12_schema_describing_every_field(cli):
    import jsonschema

    schema = json.loads(cli("schema").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    undocumented: list[str] = []

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        for key, child in (node.get("properties") or {}).items():
            if isinstance(child, dict) and "description" not in child:
                undocumented.append(f"{path}.{key}")
            walk(child, f"{path}.{key}")
        for key in ("items", "additionalProperties"):
            walk(node.get(key), f"{path}[]")
        for key, child in (node.get("$defs") or {}).items():
            walk(child, f"#{key}")

    walk(schema, "$")
    assert undocumented == []
    assert "$schema" in schema["properties"]


def test_odd_names_that_pass_the_schema_do_not_crash_validate(cli, write_bundle):
    bundle = base()
    bundle["introspection"]["operation_details"].append({"name": {}, "parameters": [{"name": {"a": 1}}]})
    result = cli("validate", str(write_bundle(bundle)))
    assert result.returncode in (0, 1) and "internal error" not in result.stderr


def test_json_diagnostics_write_bidi_and_c1_controls_as_escapes(cli, write_bundle):
    bundle = {"implementation": "x", "evil\u202ekey\x9b": 1}
    result = cli("validate", str(write_bundle(bundle)), "-f", "json")
    assert "\u202e" not in result.stdout and "\x9b" not in result.stdout
    assert "\\u202e" in result.stdout
    [diagnostic] = [d for d in json.loads(result.stdout) if d["code"] == "MQA002"]
    assert "'evil\\u202ekey\\x9b'" in diagnostic["message"]  # quoted with repr: controls shown, not acted on
