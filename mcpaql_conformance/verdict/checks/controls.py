"""The collection controls of READ operations, in one place for the introspection tests: what
their documentation says (operation-details: search_* and list_* take `query` as collection-
querying §2.1 has it, query_* grammars, presets, aggregation and relationship support) and what
capture's calls of them show (completeness: pagination, filters, field selection, aggregates,
relationship traversals). Each finding cites its rule in the module that judges it."""

from __future__ import annotations

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.aggregates import aggregate_documentation_findings, aggregate_test_findings
from mcpaql_conformance.verdict.checks.details import list_query_findings, search_query_findings
from mcpaql_conformance.verdict.checks.grammar import query_grammar_findings
from mcpaql_conformance.verdict.checks.matrix import matrix_findings
from mcpaql_conformance.verdict.checks.pages import pagination_findings
from mcpaql_conformance.verdict.checks.relations import relationship_documentation_findings, relationship_test_findings
from mcpaql_conformance.verdict.checks.requests import filter_findings
from mcpaql_conformance.verdict.checks.selection import field_test_findings, preset_alias_findings


def control_documentation_findings(ctx: Context, valid: list[JsonObject]) -> list[str]:
    """What the operation details (``valid``: those in the documented shape) say of the controls."""
    return [
        *search_query_findings(valid),
        *list_query_findings(valid),
        *query_grammar_findings(valid),
        *matrix_findings(ctx),
        *preset_alias_findings(ctx),
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
    ]
