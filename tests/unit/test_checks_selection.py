"""What capture's field-selection calls show (verdict/checks/selection.py): a standard preset
refused or a field name no server has taken warns, naming the operation and citing the rule; a
`preset` documented instead of `fields` warns; a refusal about another parameter shows nothing."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle, fail, ok, run

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.introspection import operation_details
from mcpaql_conformance.verdict.checks.selection import field_test_findings, selection_evidence


def case(kind: str, response: Any) -> dict[str, Any]:
    return {"operation": "list_notes", "kind": kind, "request": {"fields": kind}, "response": response}


def judged(*cases: dict[str, Any]) -> list[tuple[str, str]]:
    data = conformant_bundle()
    data["field_tests"] = list(cases)
    return [(getattr(f, "rule", ""), str(f)) for f in field_test_findings(Context(Bundle(data)))]


def test_presets_taken_and_an_unknown_field_refused_pass() -> None:
    refused = fail("VALIDATION_INVALID_TYPE", "Unknown field zz_conformance_field.")
    assert judged(*(case(kind, ok({"items": []})) for kind in ("minimal", "standard", "full")),
                  case("unknown_field", refused)) == []  # fmt: skip


def test_a_refused_preset_and_an_unknown_field_taken_warn() -> None:
    refused = fail("VALIDATION_INVALID_ENUM", "Preset 'minimal' is not one of standard, full.")
    assert judged(case("minimal", refused), case("unknown_field", ok({"items": []}))) == [
        ("features/field-selection:3.1:standard-presets",
         "list_notes refused the standard preset fields 'minimal': VALIDATION_INVALID_ENUM: Preset 'minimal' is not "
         "one of standard, full."),
        ("features/field-selection:5.2:should-list",
         "list_notes answered fields naming a field it does not have with success, not refusing the name"),
    ]  # fmt: skip
    unrelated = fail("NOT_FOUND_RESOURCE", "No note n1.")
    assert judged(case("full", unrelated)) == []


def test_a_preset_parameter_instead_of_fields_warns_and_the_evidence_says_what_was_held() -> None:
    data = conformant_bundle()
    details = data["introspection"]["operation_details"]
    read = next(d for d in details if d["semantic_category"] == "READ" and any(
        p["name"] == "fields" for p in d["parameters"]))  # fmt: skip
    read["parameters"] = [p if p["name"] != "fields" else {**p, "name": "preset"} for p in read["parameters"]]
    data["field_tests"] = [case("full", ok({}))]
    outcome = run(operation_details, data)
    said = [(f.rule, str(f)) for f in outcome.findings if getattr(f, "rule", "").endswith("preset-alias-only")]
    assert said == [("features/collection-querying:2.4:preset-alias-only",
                     f"{read['name']} takes a `preset` parameter but no `fields`: a preset is meant as an alias of "
                     "fields, not a control of its own")]  # fmt: skip
    assert selection_evidence(Context(Bundle(data))) == ["field_tests:full", "introspection:preset_parameter"]
