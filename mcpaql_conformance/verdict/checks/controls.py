"""The collection controls of READ operations, in one place for the introspection tests: what
their documentation says (operation-details: search_* and list_* take `query` as collection-
querying §2.1 has it, query_* grammars, presets, aggregation and relationship support) and what
capture's calls of them show (completeness: pagination, filters, field selection, aggregates,
relationship traversals). Each finding cites its rule in the module that judges it."""

from __future__ import annotations

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.aggregates import aggregate_documentation_findings, aggregate_test_findings
from mcpaql_conformance.verdict.checks.deprecation import deprecation_findings, notice_findings
from mcpaql_conformance.verdict.checks.details import list_query_findings, search_query_findings
from mcpaql_conformance.verdict.checks.grammar import query_grammar_findings
from mcpaql_conformance.verdict.checks.matrix import matrix_findings
from mcpaql_conformance.verdict.checks.pages import pagination_findings
from mcpaql_conformance.verdict.checks.relations import relationship_documentation_findings, relationship_test_findings
from mcpaql_conformance.verdict.checks.requests import filter_findings
from mcpaql_conformance.verdict.checks.searches import search_findings
from mcpaql_conformance.verdict.checks.selection import (
    computed_documentation_findings,
    field_test_findings,
    preset_alias_findings,
)
from mcpaql_conformance.verdict.checks.sorting import sort_findings

# The rules the introspection tests cite through these findings (operation-details, completeness).
CONTROL_DOCUMENTATION_RULES: tuple[str, ...] = (
    "features/collection-querying:2.1:search-query-name", "features/collection-querying:3:search-query",
    "features/collection-querying:2.1:list-no-query", "features/collection-querying:2.4:preset-alias-only",
    "features/aggregations:5:advertise", "features/collection-querying:3:query-aggregate",
    "features/relationship-queries:6:advertise", "features/collection-querying:3:list-controls",
    "features/collection-querying:5:partial-explicit", "introspection:8.2.4:deprecation-notice",
    "features/collection-querying:3:list-paging-fields", "features/collection-querying:3:search-filter-sort",
    "features/collection-querying:3:search-paging-fields", "features/collection-querying:3:query-sort",
    "features/collection-querying:3:query-paging-fields", "features/collection-querying:3:omission-explicit",
    "features/collection-querying:2.2:filter-object", "features/collection-querying:1:shared-shapes",
    "features/computed-fields:4:advertise", "introspection:8.2.4:migration-guidance",
    "features/relationship-queries:5:max-depth-documented", "features/relationship-queries:2:stable-vocabulary",
    "features/aggregations:2:expose-functions", "features/collection-querying:2.1:query-grammar-documented",
    "features/collection-querying:3:query-grammar", "features/collection-querying:3:query-filter-rules",
    "features/collection-querying:4.2:grammar-in-description", "features/collection-querying:4.2:composed-example",
    "features/collection-querying:6:grammar-summary",
)  # fmt: skip
CONTROL_CALL_RULES: tuple[str, ...] = (
    "features/pagination:4.1:connection-shape", "features/pagination:6.1:must-list",
    "features/pagination:6.4:cursor-properties", "features/pagination:5.2:default-page-size",
    "features/pagination:5.3:max-page-size", "features/pagination:5.3:max-100",
    "features/pagination:5.3:clamp-not-reject", "features/pagination:6.2:should-list", "operations:4.4.3:page-info",
    "operations:4.4.3:pagination-metadata", "features/collection-querying:2.6:mixed-styles-rejected",
    "features/collection-querying:5:validation-list", "features/field-selection:3.1:standard-presets",
    "features/field-selection:5.2:should-list", "features/aggregations:3:omit-items",
    "features/aggregations:3:include-items-flag", "features/aggregations:4:reject-unsupported",
    "features/aggregations:2:unsupported-combinations", "features/collection-querying:2.5:summary-by-default",
    "features/relationship-queries:3:all-sections-default", "features/relationship-queries:3:requested-sections",
    "features/relationship-queries:5:dedupe-visited", "features/relationship-queries:5:bounded-expansion",
    "features/relationship-queries:4:custom-types-documented", "features/field-selection:4.4:computed-object",
    "features/collection-querying:2.4:computed-prefix", "features/computed-fields:3:reject-unsupported",
    "features/collection-querying:4.1:or-default", "features/collection-querying:4.1:multi-word-consistent",
    "features/collection-querying:2.3:shortcuts-documented",
)  # fmt: skip


def control_documentation_findings(ctx: Context, valid: list[JsonObject]) -> list[str]:
    """What the operation details (``valid``: those in the documented shape) say of the controls."""
    return [
        *search_query_findings(valid),
        *list_query_findings(valid),
        *query_grammar_findings(valid),
        *matrix_findings(ctx),
        *preset_alias_findings(ctx),
        *computed_documentation_findings(ctx),
        *deprecation_findings(ctx),
        *notice_findings(ctx),
        *aggregate_documentation_findings(ctx),
        *relationship_documentation_findings(ctx),
    ]


def control_call_findings(ctx: Context) -> list[str]:
    """What capture's calls of the controls show."""
    return [
        *pagination_findings(ctx),
        *filter_findings(ctx),
        *field_test_findings(ctx),
        *aggregate_test_findings(ctx),
        *relationship_test_findings(ctx),
        *search_findings(ctx),
        *sort_findings(ctx),
    ]
