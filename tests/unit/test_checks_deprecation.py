"""Deprecated parameters (verdict/checks/deprecation.py, introspection §8.2.4): one marked deprecated
says what to use instead, or warns naming the operation and the parameter."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.deprecation import deprecation_evidence, deprecation_findings


def with_parameter(**entry: Any) -> Context:
    data = conformant_bundle()
    detail = next(d for d in data["introspection"]["operation_details"] if d["parameters"])
    detail["parameters"] = [*detail["parameters"], {"name": "old", "type": "string", "required": False, **entry}]
    return Context(Bundle(data))


def test_a_deprecated_parameter_naming_its_replacement_passes() -> None:
    ctx = with_parameter(description="Deprecated: use the new one instead.", deprecated=True)
    assert deprecation_findings(ctx) == [] and deprecation_evidence(ctx) == ["introspection:deprecated_parameter"]
    assert deprecation_evidence(with_parameter(description="An older name.")) == []


def test_a_deprecated_parameter_without_guidance_warns_flagged_or_said() -> None:
    for entry in ({"description": "Deprecated.", "deprecated": False}, {"description": "Old.", "deprecated": True}):
        [finding] = deprecation_findings(with_parameter(**entry))
        assert finding.rule == "introspection:8.2.4:migration-guidance"
        assert finding.endswith(".old is deprecated, but its description says nothing of what to use instead")


def test_a_parameter_an_answer_warns_is_deprecated_stays_listed_with_a_notice() -> None:
    from bundle_builders import ok

    from mcpaql_conformance.capture.refusals import kept_because
    from mcpaql_conformance.verdict.checks.deprecation import notice_findings

    warned = ok({"items": []}, warnings=[{"code": "DEPRECATION_WARNING", "message": "Parameter 'old' is deprecated.",
                                          "details": {"parameter": "old"}}])  # fmt: skip

    def answered(**entry: Any) -> Context:
        data = with_parameter(**entry).bundle.data if entry else conformant_bundle()
        operation = next(d["name"] for d in data["introspection"]["operation_details"] if d["parameters"])
        case = {"operation": operation, "params": {"old": "x"}, "response": warned}
        data["valid_requests"] = [*data.get("valid_requests", []), case]
        return Context(Bundle(data))

    assert notice_findings(answered(description="Deprecated: use new.", deprecated=True)) == []
    assert "responses:deprecation_warning" in deprecation_evidence(answered(description="Deprecated: use new."))
    [plain_listed] = notice_findings(answered(description="An older name."))
    assert plain_listed.endswith(".old: an answer warns it is deprecated, but introspection lists it with no "
                                 "deprecation notice")  # fmt: skip
    [gone] = notice_findings(answered())
    assert gone.endswith(".old: an answer warns it is deprecated, but introspection no longer lists it")
    assert kept_because(Any, {"old": "x"}, False, warned) == "it warns of something deprecated"  # type: ignore[arg-type]
