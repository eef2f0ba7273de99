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


# Operations that do not apply to an element type (introspection §8.2.2 item 3; applicability.py)


def refused_by(operation: str, message: str, description: str = "Traverse from a root.") -> Context:
    data = conformant_bundle()
    data["valid_requests"] = [{"operation": operation, "request": {"root": {"element_type": "book"}}, "response": {
        "success": False, "error": {"code": "VALIDATION_INVALID_VALUE", "message": message}}}]  # fmt: skip
    data["introspection"]["operation_details"].append({"name": operation, "description": description})
    return Context(Bundle(data))


def test_an_operation_refusing_an_element_type_its_details_do_not_limit_warns() -> None:
    from mcpaql_conformance.verdict.checks.applicability import applicability_evidence, applicability_findings

    said = "query_links does not apply to element type 'book': start from a shelf."
    ctx = refused_by("query_links", said, "Traverse from a root: a book or a shelf. No cycles are expanded.")
    assert [(f.rule, str(f)) for f in applicability_findings(ctx)] == [  # type: ignore[attr-defined]
        (
            "introspection:8.2.2:not-applicable",
            f"query_links: a refusal says it does not apply to element type "
            f"`book` ({said!r}); its introspection does not note it",
        )
    ]
    assert applicability_evidence(ctx) == ["responses:not_applicable"]
    assert documented(ctx).result is Result.WARN
    noted = refused_by(
        "query_links", "Not supported for type 'book'.", "Traverse from a shelf; books are not supported."
    )
    assert applicability_findings(noted) == []  # "not supported" in a sentence naming books: noted
    assert applicability_findings(refused_by("query_links", "Unknown element_type 'boook'.")) == []
