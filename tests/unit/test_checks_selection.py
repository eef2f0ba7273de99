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


def test_a_computed_field_taken_under_its_object_passes_and_every_departure_warns() -> None:
    asked = {"fields": ["_computed.age_days"]}

    def computed(kind: str, response: Any) -> dict[str, Any]:
        return {"operation": "list_notes", "kind": kind, "request": asked, "response": response}

    inside = ok({"items": [{"note_id": "n1", "_computed": {"age_days": 3}}]})
    assert judged(computed("computed", inside), computed("computed_sort", fail("VALIDATION_INVALID_TYPE", "no"))) == []
    beside = ok({"items": [{"note_id": "n1", "age_days": 3}]})
    refused = fail("VALIDATION_INVALID_TYPE", "Parameter 'fields' names unknown note field(s): _computed.age_days.")
    assert judged(computed("computed", beside), computed("computed", refused),
                  computed("computed_filter", ok({"items": []}))) == [
        ("features/field-selection:4.4:computed-object",
         "list_notes answered fields naming _computed.age_days without a `_computed` object holding it"),
        ("features/collection-querying:2.4:computed-prefix",
         "list_notes refused fields naming _computed.age_days, a computed field its details list: "
         "VALIDATION_INVALID_TYPE: Parameter 'fields' names unknown note field(s): _computed.age_days."),
        ("features/computed-fields:3:reject-unsupported",
         "list_notes answered a filter on a computed field its details say it cannot take with success, not "
         "refusing it"),
    ]  # fmt: skip
    assert judged(computed("computed", ok({"items": []}))) == []  # no item to look in


def test_computed_fields_listed_without_their_type_or_controls_warn() -> None:
    from mcpaql_conformance.verdict.checks.selection import computed_documentation_findings

    data = conformant_bundle()
    read = next(d for d in data["introspection"]["operation_details"] if d["semantic_category"] == "READ")
    read["computed_fields"] = [{"name": "age_days", "type": "number"}]
    answer = ok({"items": [{"id": 1, "_computed": {"age_days": 3, "size": 9}}]})
    data["valid_requests"] = [{"operation": read["name"], "params": {}, "response": answer}]
    found = [(f.rule, str(f)) for f in computed_documentation_findings(Context(Bundle(data)))]
    assert found == [
        (
            "features/computed-fields:4:advertise",
            f"{read['name']} answers computed value(s) size its details do not list in computed_fields",
        )
    ]
    assert "responses:computed" in selection_evidence(Context(Bundle(data)))
    read["computed_fields"].append({"name": "size", "type": "number"})
    assert computed_documentation_findings(Context(Bundle(data))) == []
