"""How an operation that takes `aggregate` answers and documents it (features/aggregations), all
SHOULDs: its details advertise the support and list the functions and fields (§2, §5); a count
alone answers the summary without rows, and include_items true, where documented, the rows too
(§3, collection-querying §2.5); a function or a field no server has is refused with a validation
error (§4); group_by with count is taken unless the details say the combination is not (§2). A
server whose READ operations take no `aggregate` offers none of this: nothing is judged."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.vocabulary import (
    AGGREGATES,
    GROUPED,
    SUMMARY,
    UNKNOWN_AGGREGATE_FIELD,
    UNKNOWN_FUNCTION,
    WITH_ITEMS,
)
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import calls_of, cite, kinds_held
from mcpaql_conformance.verdict.checks.pages import items_of

_AG = "features/aggregations"
EXPOSED = f"{_AG}:2:expose-functions"
ADVERTISED = f"{_AG}:5:advertise"
ROWS_LEFT_OUT = f"{_AG}:3:omit-items"
ROWS_ON_REQUEST = f"{_AG}:3:include-items-flag"
REJECTED = f"{_AG}:4:reject-unsupported"
COMBINATIONS = f"{_AG}:2:unsupported-combinations"
FIELD_KEYS = ("groupable_fields", "numeric_fields", "fields")


def aggregating(ctx: Context) -> list[str]:
    """The READ operations that document an `aggregate` parameter."""
    return [op for op in ctx.operations_in("READ") if any(p["name"] == "aggregate" for p in ctx.parameters_of(op))]


def aggregate_documentation_findings(ctx: Context) -> list[str]:
    """An operation taking `aggregate` whose details say nothing of it, or list no functions or fields."""
    findings: list[str] = []
    for op in aggregating(ctx):
        support = (ctx.details_by_name.get(op) or {}).get("aggregation_support")
        name = plain(op, max_len=80)
        if not isinstance(support, dict):
            findings.append(cite(ADVERTISED, f"{name} takes `aggregate` but its details have no aggregation_support"))
            continue
        unsaid = [] if _strings(support.get("functions")) else ["functions"]
        unsaid += [] if any(_strings(support.get(key)) for key in FIELD_KEYS) else ["fields"]
        if unsaid:
            text = f"{name}'s aggregation_support lists no {' and no '.join(unsaid)} it aggregates"
            findings.append(cite(EXPOSED, text))
    return findings


def aggregate_test_findings(ctx: Context) -> list[str]:
    """What capture's aggregate calls (aggregate_tests) show, by kind of call."""
    findings: list[str] = []
    for case, name, kind, response, answer in calls_of(ctx, "aggregate_tests"):
        if kind == SUMMARY and items_of(response):
            text = f"{name} asked for a count alone answered the rows too (a summary leaves them out by default)"
            findings.append(cite(ROWS_LEFT_OUT, text))
        elif kind == WITH_ITEMS and answer.succeeded and not items_of(response):
            findings.append(cite(ROWS_ON_REQUEST, f"{name} documents include_items, but a count with it answered no "
                                 "rows"))  # fmt: skip
        elif kind in (UNKNOWN_FUNCTION, UNKNOWN_AGGREGATE_FIELD) and (answer.succeeded or _not_validation(answer)):
            what = "a function" if kind == UNKNOWN_FUNCTION else "a field"
            said = "answered with success" if answer.succeeded else f"refused with {answer.describe()}"
            findings.append(cite(REJECTED, f"{name} asked to aggregate {what} it does not have {said}, not with a "
                                 "validation error"))  # fmt: skip
        elif kind == GROUPED and answer.refused and answer.validation and not _combinations_said(ctx, case):
            findings.append(cite(COMBINATIONS, f"{name} refused group_by with count ({answer.describe()}), a "
                                 "combination its details do not say it leaves out"))  # fmt: skip
    return findings


def aggregate_evidence(ctx: Context) -> list[str]:
    """``aggregate_tests:KIND`` for each kind of call, AGGREGATES where an operation documents `aggregate`."""
    return [*kinds_held(ctx, "aggregate_tests"), *([AGGREGATES] if aggregating(ctx) else [])]


def _not_validation(answer: Any) -> bool:
    return bool(answer.refused and not answer.validation and not answer.unrelated)


def _combinations_said(ctx: Context, case: JsonObject) -> bool:
    """The operation's aggregation_support says something of combinations it does not take."""
    support = (ctx.details_by_name.get(str(case.get("operation"))) or {}).get("aggregation_support")
    return isinstance(support, dict) and any("combination" in str(key).lower() for key in support)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(item, str) for item in value)
