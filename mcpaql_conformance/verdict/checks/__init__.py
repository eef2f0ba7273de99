"""Every category in the spec's order. Add a check: one function, one decorator."""

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.base import Category
from mcpaql_conformance.verdict.checks.constraints import CONSTRAINTS
from mcpaql_conformance.verdict.checks.errors import ERRORS
from mcpaql_conformance.verdict.checks.introspection import INTROSPECTION
from mcpaql_conformance.verdict.checks.level2 import LEVEL2
from mcpaql_conformance.verdict.checks.parameters import PARAMETERS
from mcpaql_conformance.verdict.checks.roundtrip import ROUND_TRIP
from mcpaql_conformance.verdict.checks.semantic import SEMANTIC

CATEGORIES: tuple[Category, ...] = (
    INTROSPECTION,
    PARAMETERS,
    ERRORS,
    ROUND_TRIP,
    LEVEL2,
    CONSTRAINTS,
    SEMANTIC,
)

__all__ = ["CATEGORIES", "Category", "Context"]
