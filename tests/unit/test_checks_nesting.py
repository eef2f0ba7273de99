"""Required nesting documented (introspection §8.2.2 item 2): a refusal that tells where a value
belongs names a nesting introspection should document."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.constraints import documented
from mcpaql_conformance.verdict.checks.nesting import nesting_evidence, nesting_findings, nestings_said
from mcpaql_conformance.verdict.model import Result


def refused(message: str, detail: dict[str, Any] | None = None) -> Context:
    data = conformant_bundle()
    data["valid_requests"] = [{"operation": "update_note", "request": {"input": {"tags": ["a"]}}, "response": {
        "success": False, "error": {"code": "VALIDATION_UNKNOWN_FIELD", "message": message}}}]  # fmt: skip
    if detail is not None:
        data["introspection"]["operation_details"].append(detail)
    return Context(Bundle(data))


def test_a_refusal_naming_an_undocumented_nesting_warns_in_the_documented_constraints_test() -> None:
    ctx = refused("Field 'tags' must be in metadata.tags.")
    assert nestings_said(ctx) == [("metadata.tags", "Field 'tags' must be in metadata.tags.")]
    assert [(f.rule, str(f)) for f in nesting_findings(ctx)] == [  # type: ignore[attr-defined]
        (
            "introspection:8.2.2:nesting",
            "a refusal says `metadata.tags` is where a value belongs (\"Field 'tags' "
            'must be in metadata.tags."); introspection documents no such nesting',
        )
    ]
    assert nesting_evidence(ctx) == ["responses:nesting"]
    outcome = documented(ctx)
    assert outcome.result is Result.WARN and "metadata.tags" in outcome.detail


def test_the_request_s_own_wrapper_is_no_nesting_and_other_wordings_are_read() -> None:
    assert nestings_said(refused("Send it as input.placement.shelf_id."))[0][0] == "placement.shelf_id"
    assert nestings_said(refused("The value belongs under `options.sort.field`."))[0][0] == "options.sort.field"
    assert nestings_said(refused("The identifier note_id belongs in params, not inside 'input'.")) == []
    assert nestings_said(refused("Expected: string of at least 1 character (e.g. 1.5)")) == []


def test_a_nesting_introspection_shows_is_documented() -> None:
    held = {"name": "update_note", "parameters": [{"name": "input", "type": "object", "fields": [
        {"name": "metadata", "type": "object", "fields": [{"name": "tags", "type": "array"}]}]}]}  # fmt: skip
    assert nesting_findings(refused("Field 'tags' must be in metadata.tags.", held)) == []
    said = {"name": "tag_note", "description": "Tags go in metadata.tags, not at the top of input."}
    assert nesting_findings(refused("Field 'tags' must be in metadata.tags.", said)) == []
    ctx = refused("Unknown field 'tags'.")
    assert nesting_findings(ctx) == [] and nesting_evidence(ctx) == []
