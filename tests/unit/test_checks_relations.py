"""How a relationship query answers and documents itself (verdict/checks/relations.py, features/
relationship-queries): each departure warns, naming the operation; a server with no relationship
query is judged on none of it."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle, fail, ok

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.relations import (
    relationship_documentation_findings,
    relationship_evidence,
    relationship_test_findings,
)

CAPABILITIES = {"supported": True, "max_depth": 3, "relationship_types": ["shelved_on"]}
PARAMETERS = [{"name": name, "type": "object" if name == "root" else "string", "required": name != "depth",
               "description": name} for name in ("root", "direction", "depth")]  # fmt: skip
NODES = [{"id": "book:1"}, {"id": "shelf:a"}]
EDGES = [{"source": "book:1", "target": "shelf:a", "type": "shelved_on"}]
ALL = {"root": {"element_type": "book"}, "relationships": [{"type": "shelved_on"}], "graph": {"nodes": NODES,
       "edges": EDGES}}  # fmt: skip


def traversing(*cases: dict[str, Any], capabilities: Any = CAPABILITIES, parameters: Any = None) -> Context:
    data = conformant_bundle()
    detail = {"name": "query_relationships", "semantic_category": "READ", "endpoint": "read",
              "description": "Traverse.", "parameters": parameters or PARAMETERS}  # fmt: skip
    if capabilities is not None:
        detail["relationship_capabilities"] = capabilities
    data["introspection"]["operation_details"].append(detail)
    data["relationship_tests"] = [{"operation": "query_relationships", **case} for case in cases]
    return Context(Bundle(data))


def rules(findings: list[str]) -> list[str]:
    return [getattr(finding, "rule", "") for finding in findings]


def test_a_documented_traversal_answering_as_asked_passes() -> None:
    ctx = traversing({"kind": "all_sections", "response": ok(ALL)},
                     {"kind": "one_section", "response": ok({"relationships": []})},
                     {"kind": "deep", "response": ok(ALL)})  # fmt: skip
    assert relationship_documentation_findings(ctx) == [] and relationship_test_findings(ctx) == []
    assert relationship_evidence(ctx) == [
        "relationship_tests:all_sections", "relationship_tests:one_section", "relationship_tests:deep",
        "introspection:relationship_query",
    ]  # fmt: skip
    assert relationship_evidence(Context(Bundle(conformant_bundle()))) == []


def test_undocumented_support_depth_and_other_words_warn() -> None:
    renamed = [{**PARAMETERS[0], "name": "start"}, *PARAMETERS[1:]]
    ctx = traversing(capabilities=None, parameters=renamed)
    assert [str(f) for f in relationship_documentation_findings(ctx)] == [
        "query_relationships traverses relationships but its details have no relationship_capabilities",
        "query_relationships documents no maximum depth (relationship_capabilities.max_depth, or a maximum on `depth`)",
        "query_relationships takes its traversal by other words than the standard ones (start for root)",
    ]
    assert rules(relationship_documentation_findings(ctx)) == [
        "features/relationship-queries:6:advertise", "features/relationship-queries:5:max-depth-documented",
        "features/relationship-queries:2:stable-vocabulary",
    ]  # fmt: skip


def test_sections_against_include_repeats_and_undocumented_types_warn() -> None:
    repeated = {**ALL, "graph": {"nodes": [*NODES, NODES[0]], "edges": [*EDGES, EDGES[0]]},
                "relationships": [{"type": "lends_to"}]}  # fmt: skip
    ctx = traversing({"kind": "all_sections", "response": ok({"relationships": []})},
                     {"kind": "one_section", "response": ok(ALL)}, {"kind": "deep", "response": ok(repeated)},
                     {"kind": "deep", "response": {"rpc_error": "timeout"}})  # fmt: skip
    assert rules(relationship_test_findings(ctx)) == [
        "features/relationship-queries:3:all-sections-default", "features/relationship-queries:3:requested-sections",
        "features/relationship-queries:5:dedupe-visited", "features/relationship-queries:5:bounded-expansion",
        "features/relationship-queries:4:custom-types-documented", "features/relationship-queries:5:bounded-expansion",
    ]  # fmt: skip
    refused = traversing({"kind": "deep", "response": fail("VALIDATION_INVALID_TYPE", "depth at most 3")})
    assert relationship_test_findings(refused) == []  # a refusal is an answer: nothing expanded
