"""Every category in the spec's order. Add a check: one function, one decorator."""

from mcpaql_conformance.checks.base import Category, Context
from mcpaql_conformance.checks.constraints import CONSTRAINTS
from mcpaql_conformance.checks.errors import ERRORS
from mcpaql_conformance.checks.introspection import INTROSPECTION
from mcpaql_conformance.checks.level2 import LEVEL2
from mcpaql_conformance.checks.parameters import PARAMETERS
from mcpaql_conformance.checks.roundtrip import ROUND_TRIP
from mcpaql_conformance.checks.semantic import SEMANTIC

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
