"""Field getters for whole-collection passes.

``list(map(NAME, parameters))`` reads one field of 100,000 entries with no Python
step per entry. Checks use these only where a pass measured faster than a plain
loop (building lists, tuples or sets of fields often is not). Plain getters raise
KeyError on a missing field (callers fall back to per-entry rules); ``GET_*`` give
None instead.
"""

from __future__ import annotations

from operator import itemgetter, methodcaller

NAME = itemgetter("name")
PARAMETERS = itemgetter("parameters")
REQUIRED = itemgetter("required")
GET_REQUIRED = methodcaller("get", "required")

OPERATION = itemgetter("operation")
PARAMETER = itemgetter("parameter")
OPERATION_PARAMETER = itemgetter("operation", "parameter")
RESPONSE = itemgetter("response")
EXPECTED_VALUE_PATH = itemgetter("expected_value_path")
EXPECTED_VALUE = itemgetter("expected_value")

SUCCESS = itemgetter("success")
