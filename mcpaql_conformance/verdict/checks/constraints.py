"""Constraint Documentation (SHOULD): read-only and append-only rules are enforced and documented."""

from __future__ import annotations

import re

from mcpaql_conformance.evidence.answers import Answer, Kind, classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.checks.applicability import NOT_APPLICABLE_RULE, applicability_findings
from mcpaql_conformance.verdict.checks.base import CONFORMANCE, Category, Outcome, judge, told
from mcpaql_conformance.verdict.checks.nesting import NESTING, nesting_findings
from mcpaql_conformance.verdict.model import Requirement
from mcpaql_conformance.verdict.textmatch import mentions_identifier

CONSTRAINTS = Category("Constraint Documentation", required=False, level=2)
NOT_TRIED = (
    "no constrained write was tried: capture tries one after each inferred update cycle (--allow-destructive) whose "
    "record holds a field its `input` does not take (read-only by introspection, or set by the server by its name: "
    "`created_at`), and a plan's `constraints`"
)
SHOULD = Requirement.SHOULD


_CONSTRAINTS_ENFORCED_RULES = (
    "core:10.1:l2-passes-suite", "conformance:2.2:constraint-documentation", "conformance:4.2:level2-categories",
)  # fmt: skip


@CONSTRAINTS.check(
    "L2.constraints.enforced",
    "Constraints are enforced with structured errors",
    f"{CONFORMANCE} §3.5",
    rules=_CONSTRAINTS_ENFORCED_RULES,
    primary="conformance:2.2:constraint-documentation",
)
def enforced(ctx: Context) -> Outcome:
    cases = ctx.bundle.cases("constraint_tests")
    failures = []
    warnings = []
    for case in cases:
        response = case["response"]
        answer = classify(response)
        if answer.succeeded:
            failures.append(f"{case['name']}: the constrained write succeeded" + _taken(case))
        elif not answer.refused:
            failures.append(f"{case['name']}: not rejected ({answer.describe()})")
        elif not about_constraint(answer, case):  # conformance-testing §3.5: "fails with constraint error"
            warnings.append(f"{case['name']}: not shown: refused for something else ({answer.describe()})")
        elif answer.kind is not Kind.ERROR or not ctx.is_valid_result(response):
            failures.append(f"{case['name']}: the rejection is not a valid structured error ({answer.describe()})")
    return judge(
        SHOULD,
        judged=len(cases),
        failures=failures,
        warnings=warnings,
        passed=f"{len(cases)} constrained write(s) were rejected with structured errors.",
        no_evidence=told(
            ctx,
            NOT_TRIED,
            "no constraint_tests (read-only or append-only attempts)",
        ),
    )


# What a refusal about a constraint says: its code or message names the kind of rule it enforces.
_CONSTRAINT_WORDS = lazy(
    r"read[-_ ]?only|append[-_ ]?only|immutable|constraint|not (?:be )?(?:modifi|edit|writ|chang|updat)\w*"
    r"|cannot be (?:modifi|edit|writ|chang|updat|overwrit)\w*|can ?not (?:modify|edit|change|update|overwrite)",
    re.IGNORECASE,
)


def about_constraint(answer: Answer, case: JsonObject) -> bool:
    """Whether a refusal is about the constraint under test: its code or message says a rule of
    that kind, or names the field the attempt wrote (``field``, or a key of its ``input``)."""
    said = f"{answer.code or ''} {answer.message[:2000]}"
    if _CONSTRAINT_WORDS.search(said.replace("_", " ")) is not None:
        return True
    request = case.get("request")
    written = request.get("input") if isinstance(request, dict) else None
    written = written if isinstance(written, dict) else {}
    fields = [case["field"]] if isinstance(case.get("field"), str) else [str(key) for key in written]
    return not answer.unrelated and any(mentions_identifier(answer.message, field) for field in fields)


_CONSTRAINTS_DOCUMENTED_RULES = (
    "core:10.1:l2-passes-suite", "conformance:2.2:constraint-documentation", "conformance:4.2:level2-categories",
    "introspection:8.2.2:constraints", "introspection:8.2.2:read-only-append-only", NESTING,
    NOT_APPLICABLE_RULE,
)  # fmt: skip


@CONSTRAINTS.check(
    "L2.constraints.documented",
    "Constraints are disclosed in introspection",
    f"{CONFORMANCE} §3.5",
    rules=_CONSTRAINTS_DOCUMENTED_RULES,
    primary="introspection:8.2.2:read-only-append-only",
)
def documented(ctx: Context) -> Outcome:
    cases = ctx.bundle.cases("constraint_tests")
    return judge(
        SHOULD,
        judged=len(cases),
        failures=[],
        warnings=[*(_undocumented(case) for case in cases if case.get("documented") is not True), *_unsaid(ctx)],
        passed=f"{len(cases)} constraint(s) are documented in introspection.",
        no_evidence=told(
            ctx,
            NOT_TRIED,
            "no constraint_tests",
        ),
    )


def _unsaid(ctx: Context) -> list[str]:
    """What refusals tell of an element type's constraints that introspection does not: a nesting
    (nesting.py), an operation that does not apply to a type (applicability.py)."""
    return [*nesting_findings(ctx), *applicability_findings(ctx)]


def _taken(case: JsonObject) -> str:
    """What an inferred case's success means, in the server's terms."""
    field = case.get("field")
    if case.get("inferred") is not True or not isinstance(field, str):
        return ""
    return f" (the server took `input.{field}`, a field its record has and its `input` does not document)"


def _undocumented(case: JsonObject) -> str:
    """A constraint introspection does not document, said in the terms capture tried it in."""
    field = case.get("field")
    if case.get("inferred") is True and isinstance(field, str):
        return (f"{case['name']}: introspection does not say `{field}` is read-only (no readOnly flag, no "
                "description saying read-only, immutable or set by the server)")  # fmt: skip
    return f"{case['name']}: not documented in introspection"
