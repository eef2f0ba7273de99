"""Parameter Handling (MUST): required, unknown and defaulted parameters behave explicitly."""

from __future__ import annotations

import operator
import re
from itertools import compress
from typing import Any

from mcpaql_conformance.evidence.answers import Kind, classify
from mcpaql_conformance.evidence.blanket import by_refusal
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.execution import SPEC_CAMEL_PARAMETERS
from mcpaql_conformance.evidence.fields import EXPECTED_VALUE_PATH, RESPONSE
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import snake_case as snake_form
from mcpaql_conformance.files.values import MISSING, json_equal, json_equal_each, resolve_each, resolve_path, show
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.blame import case_blame, refusal_said
from mcpaql_conformance.verdict.checks.base import (
    CONFORMANCE,
    CORE,
    Category,
    Outcome,
    all_succeeded,
    cite,
    judge,
    listing,
    nothing_documented,
    skip,
    split_withheld,
    told,
)
from mcpaql_conformance.verdict.checks.requests import precedence_findings
from mcpaql_conformance.verdict.checks.updates import MISSING_INPUT, update_input_findings
from mcpaql_conformance.verdict.model import Requirement
from mcpaql_conformance.verdict.textmatch import is_snake_case, mentions_identifier, refusal_names

PARAMETERS = Category("Parameter Handling", required=True, level=1)
MUST = Requirement.MUST
MISSING_PARAM_CODE = "VALIDATION_MISSING_PARAM"
UNKNOWN_PARAM_CODE = "VALIDATION_UNKNOWN_PARAM"
UNKNOWN_CODE = "core:4.6:unknown-param-code"
DEFAULT_REJECTS = "core:4.6.2:default-rejects"
OPTIONAL_FALSE = "introspection:8.1.2:optional-false"
REQUIRED_TRUE = "introspection:8.1.2:required-true"
ACTIONABLE = "introspection:8.2.3:actionable"
STANDARD_CODES = "operations:8.3:standard-codes"  # an informative MUST no test makes binding: a warning


_PARAMS_REQUIRED_ENFORCED_RULES = (
    "core:4.5.3:validate-input", "core:4.5.3:input-object", "core:4.5.3:input-fields-validated",
    "core:4.5.3:unknown-field", "core:4.5.3:missing-input-rejected",
    "core:4.5.3:no-identifier-in-input", "core:10.1:l2-passes-suite", "conformance:2.1:parameter-handling",
    "conformance:4.1:level1-categories", "introspection:8.1.1:accurate", "introspection:8.1.1:required-match",
    "introspection:8.1.2:required-true", "introspection:8.1.2:optional-false",
    "operations:5.1:validate-first", "operations:5.4:validation-steps",
    "operations:5.4:validation-errors", "operations:8.1:structured-codes", "operations:8.2:code",
    "operations:8.3:standard-codes", "error-codes:7.1:must-list", "endpoint-modes:6.4:common-enforcement",
)  # fmt: skip


@PARAMETERS.check(
    "L1.params.required-enforced",
    "Required parameters are enforced",
    f"{CONFORMANCE} §3.2; {CORE} §4.5.3",
    rules=_PARAMS_REQUIRED_ENFORCED_RULES,
    primary="conformance:2.1:parameter-handling",
)
def required_enforced(ctx: Context) -> Outcome:
    cases = ctx.bundle.parameter_cases("missing_required")
    applicable = ctx.parameter_index.required
    if not applicable and not cases:
        unjudged = nothing_documented(ctx, "No documented operation has a required parameter.", "a required parameter")
        if unjudged is not None:
            return unjudged
    failures: list[str] = []
    warnings: list[str] = []
    blanket: list[tuple[tuple[str, str] | None, str]] = []
    for case in cases:  # every case is judged, even several for the same parameter
        if _clearly_missing(case):
            continue
        if (key := ctx.blanket.covers(case["operation"], case["response"])) is not None:
            blanket.append((key, f"{case['operation']}.{case['parameter']}"))
            continue
        blame = case_blame(case, case["parameter"])
        if blame is not None:  # the refusal was of a value capture chose for another parameter
            warnings.append(f"{case['operation']}.{case['parameter']}: {blame.not_judged(refusal_said(case))}")
            continue
        # an UPDATE's `input` left out: core §4.5.3 names the code, so another one fails
        core_code = case["parameter"] == "input" and ctx.categories.get(case["operation"]) == "UPDATE"
        failure, warning = _judge_missing(case["operation"], case["parameter"], case["response"], core_code)
        failures += failure
        warnings += warning
    warnings += ctx.blanket.findings(by_refusal(blanket), "missing-parameter probe(s)")
    omitted_failures, omitted = _optional_findings(ctx)
    update_failures, update_warnings, updates = update_input_findings(ctx)
    failures += omitted_failures + update_failures
    warnings += update_warnings
    uncovered, withheld = split_withheld(ctx, applicable.uncovered_by(cases), ("missing_required",))
    shown = [f"{len(cases)} omitted required parameter(s) each failed with an error naming the parameter"]
    shown += [f"{omitted} call(s) without optional parameters were not refused for them"] if omitted else []
    shown += [f"{updates} UPDATE call(s) without a proper `input` were refused"] if updates else []
    return judge(
        MUST,
        judged=len(cases) + omitted + updates,
        failures=failures,
        warnings=warnings,
        uncovered=uncovered,
        withheld=withheld,
        uncovered_label="required parameters without missing-parameter evidence",
        passed="; ".join(shown) + ".",
        no_evidence=told(
            ctx, "no call that left out a required parameter was answered", "no parameter_tests.missing_required"
        ),
    )


def _optional_findings(ctx: Context) -> tuple[list[str], int]:
    """Calls that left documented optional parameters out (``optional_omitted``): refused for
    one of them, the parameter is required in fact (introspection §8.1.1 item 3, §8.1.2 item 3).
    A refusal for something else (a made-up identifier not found) shows nothing: not counted."""
    failures: list[str] = []
    judged = 0
    for case in ctx.bundle.parameter_cases("optional_omitted"):
        answer = classify(case["response"])
        omitted = [name for name in case.get("omitted") or [] if isinstance(name, str)]
        named = [name for name in omitted if mentions_identifier(answer.message, name)] if answer.refused else []
        asked = answer.code == MISSING_PARAM_CODE or _ASKS_FOR.search(answer.message[:500]) is not None
        if answer.refused and (answer.unrelated or not named or not asked or case_blame(case, named[0])):
            continue  # refused for something else (a value of ours, a record not found): nothing shown
        judged += 1
        if named:
            text = f"{case['operation']}.{named[0]}: documented optional, but refused when absent ({answer.describe()})"
            failures.append(cite(REQUIRED_TRUE, text))
    return failures, judged


# A refusal that asks for a parameter ("Missing required parameter 'limit'", "limit is required").
_ASKS_FOR = lazy(r"missing|required|must be (?:provided|given|set)|not provided", re.IGNORECASE)


def _clearly_missing(case: JsonObject) -> bool:
    """The common case, decided inline: a VALIDATION_MISSING_PARAM error naming the parameter."""
    error = case["response"].get("error")
    return (
        isinstance(error, dict)
        and error.get("code") == MISSING_PARAM_CODE
        and case["response"].get("success") is False
        and isinstance(message := error.get("message"), str)
        and mentions_identifier(message, case["parameter"])
    )


def _clearly_refused(case: JsonObject) -> bool:
    """The common case, decided inline: VALIDATION_UNKNOWN_PARAM with a message naming the parameter."""
    response = case["response"]
    error = response.get("error")
    return (
        response.get("success") is False
        and isinstance(error, dict)
        and error.get("code") == UNKNOWN_PARAM_CODE
        and isinstance(message := error.get("message"), str)
        and mentions_identifier(message, case["parameter"])
    )


def _judge_missing(
    operation: str, parameter: str, response: Any, core_code: bool = False
) -> tuple[list[str], list[str]]:
    """(failures, warnings) of a call without the required ``parameter``. A refusal with another
    code than VALIDATION_MISSING_PARAM warns (operations §8.3, an informative MUST), but fails
    where the core names the code (``core_code``: an UPDATE's `input`, core §4.5.3)."""
    label = f"{operation}.{parameter}"
    answer = classify(response)
    if answer.succeeded:
        return [cite(OPTIONAL_FALSE, f"{label}: the call succeeded without the required parameter")], []
    if not answer.refused:
        return [f"{label}: the answer is not a refusal ({answer.describe()})"], []
    if not refusal_names(answer.message, answer.details, parameter):
        if answer.unrelated:  # e.g. a synthesised id was not found first: nothing shown either way
            return [], [f"{label}: not shown: refused for another reason ({answer.describe()})"]
        return [f"{label}: the refusal does not name the parameter ({answer.describe()})"], []
    if answer.code != MISSING_PARAM_CODE:
        found = f"error code {answer.code!r}" if answer.code else f"no error code ({answer.describe()})"
        if core_code:
            return [cite(MISSING_INPUT, f"{label}: {found}, expected {MISSING_PARAM_CODE}")], []
        return [], [cite(STANDARD_CODES, f"{label}: {found}, expected {MISSING_PARAM_CODE}")]
    return [], []


_PARAMS_UNKNOWN_EXPLICIT_RULES = (
    "core:4.6:unknown-rejected", "core:4.6:unknown-param-code", "core:4.6.2:default-rejects",
    "core:10.1:l2-passes-suite", "conformance:2.1:parameter-handling", "conformance:4.1:level1-categories",
    "introspection:8.2.1:explicit-unknown", "introspection:8.2.1:not-silent", "introspection:8.2.3:actionable",
    "operations:2.3:resolution-order",
    "operations:5.1:validate-first", "operations:5.4:validation-steps", "operations:5.4:validation-errors",
    "endpoint-modes:6.4:common-enforcement",
)  # fmt: skip


@PARAMETERS.check(
    "L1.params.unknown-explicit",
    "Unknown parameters are handled explicitly",
    f"{CONFORMANCE} §3.2; {CORE} §4.6",
    rules=_PARAMS_UNKNOWN_EXPLICIT_RULES,
    primary="core:4.6:unknown-rejected",
)
def unknown_explicit(ctx: Context) -> Outcome:
    every = ctx.bundle.parameter_cases("unknown_parameter")
    # Metadata fields (a leading underscore) are outside unknown-parameter validation (core §4.6.1).
    cases = [case for case in every if not case["parameter"].startswith("_")]
    failures: list[str] = []
    warnings: list[str] = []
    blanket: list[tuple[tuple[str, str] | None, str]] = []
    for case in cases:
        if _clearly_refused(case):
            continue
        if (key := ctx.blanket.covers(case["operation"], case["response"])) is not None:
            blanket.append((key, f"{case['operation']}.{case['parameter']}"))
            continue
        blame = case_blame(case, case["parameter"])
        if blame is not None:  # the refusal was of a value capture chose for another parameter
            warnings.append(f"{case['operation']}.{case['parameter']}: {blame.not_judged(refusal_said(case))}")
            continue
        answer = classify(case["response"])
        label = f"{case['operation']}.{case['parameter']}"
        reason = unknown_parameter_problem(case["parameter"], case["response"])
        if reason is not None and answer.unrelated:  # refused before the parameters were looked at
            warnings.append(f"{label}: not shown: refused for another reason ({answer.describe()})")
        elif reason is not None and answer.refused and answer.code == UNKNOWN_PARAM_CODE:
            # refused with the core's code: the MUST holds; naming the parameter is guidance (a SHOULD)
            failures.append(cite(ACTIONABLE, f"{label}: {reason}"))
        elif reason is not None:
            failures.append(f"{label}: {reason}")
        elif answer.succeeded:  # named in a warning: core §4.6.2 allows that only with strict_mode off
            failures.append(cite(DEFAULT_REJECTS, f"{label}: accepted with a warning where the default must refuse it"))
        elif answer.code != UNKNOWN_PARAM_CODE:
            found = f"error code {answer.code}" if answer.code else f"no error code ({answer.describe()})"
            failures.append(cite(UNKNOWN_CODE, f"{label}: refused with {found}, not {UNKNOWN_PARAM_CODE}"))
    warnings += ctx.blanket.findings(by_refusal(blanket), "unknown-parameter probe(s)")
    failures += precedence_findings(ctx)  # operations §2.3, a RECOMMENDED: it warns
    metadata = len(every) - len(cases)
    covered = {case["operation"] for case in cases}
    uncovered, withheld = split_withheld(
        ctx, [name for name in ctx.operation_names if name not in covered], ("unknown_parameter",)
    )
    return judge(
        MUST,
        judged=len(cases),
        failures=failures,
        warnings=warnings,
        uncovered=uncovered,
        withheld=withheld,
        uncovered_label="operations without unknown-parameter evidence",
        passed=f"{len(cases)} unknown parameter(s) each refused with {UNKNOWN_PARAM_CODE}, naming it"
        + (f" ({metadata} metadata field(s) with a leading underscore are outside this rule)." if metadata else "."),
        no_evidence=told(ctx, "no call with an unknown parameter was answered", "no parameter_tests.unknown_parameter")
        + (" (its cases are all metadata fields, which core §4.6.1 leaves out)" if metadata else ""),
    )


def unknown_parameter_problem(parameter: str, response: Any) -> str | None:
    """Why an answer to an unknown parameter is not explicit, or None when it is. A refusal
    in any form counts (its form is judged by the discriminated-union test)."""
    answer = classify(response)
    if answer.refused:
        if refusal_names(answer.message, answer.details, parameter):
            return None
        return f"the refusal does not name the unknown parameter ({answer.describe()})"
    if not answer.succeeded:
        return f"neither refused nor answered with a warning ({answer.describe()})"
    for warning in answer.warnings:
        if not isinstance(warning, dict):
            continue
        code, message = warning.get("code"), warning.get("message")
        if isinstance(code, str) and "UNKNOWN_PARAM" in code:
            return None
        if isinstance(message, str) and mentions_identifier(message, parameter):
            return None
    return "silently accepted: no error and no warning names it"


_PARAMS_DEFAULTS_RULES = (
    "core:10.1:l2-passes-suite", "conformance:2.1:parameter-handling", "conformance:4.1:level1-categories",
    "operations:5.4:validation-steps",
)  # fmt: skip


@PARAMETERS.check(
    "L1.params.defaults",
    "Documented defaults are observable",
    f"{CONFORMANCE} §3.2 (Optional Parameter Defaults)",
    rules=_PARAMS_DEFAULTS_RULES,
    primary="conformance:2.1:parameter-handling",
)
def defaults(ctx: Context) -> Outcome:
    cases = ctx.bundle.parameter_cases("optional_defaults")
    applicable = ctx.parameter_index.defaults
    if not applicable and not cases:
        unjudged = nothing_documented(ctx, "No documented parameter declares a default.", "a default")
        if unjudged is not None:
            return unjudged
    expected = _expected_defaults(ctx, cases)
    failures = [
        reason
        for case, value in _unclear_defaults(ctx, cases, expected)
        if (reason := _default_mismatch(case, value)) is not None
    ]
    warnings = _disagreements(cases, expected)
    uncovered, withheld = split_withheld(ctx, applicable.uncovered_by(cases), ("optional_defaults",))
    reasons = {item: reason for item in uncovered if (reason := _reason(ctx, item))}
    shaping = [item for item in reasons if _shapes_the_answer(item)]
    if shaping and not cases and len(shaping) == len(uncovered) and not failures and not warnings and not withheld:
        said = _behaviour(shaping)
        return skip(said[0].upper() + said[1:] + ".")
    observed = bool(reasons)
    return judge(
        MUST,
        judged=len(cases),
        failures=failures,
        warnings=warnings,
        uncovered=[item for item in uncovered if item not in reasons],  # json: our labels
        explained=[f"{item} ({reason})" for item, reason in reasons.items() if item not in shaping],  # json: labels
        withheld=withheld,
        uncovered_label="documented defaults without evidence",
        passed=f"{len(cases)} documented default(s) observed in the responses"
        + (f"; {_behaviour(shaping)}." if shaping else "."),
        no_evidence=_no_default_evidence(ctx, observed),
    )


# Parameters whose default is how the answer is shaped (its fields, order, page), not a value it carries.
_SHAPING = frozenset(
    {"fields", "select", "include", "expand", "sort", "sort_by", "order", "order_by", "limit", "first", "last",
     "page_size", "per_page", "offset", "page", "cursor", "after", "before", "filter", "style"}
)  # fmt: skip


def _shapes_the_answer(item: str) -> bool:
    """Whether ``operation.parameter`` is one whose default shapes the answer (field selection,
    sorting, paging: features/field-selection §3.2 gives `fields` presets as defaults)."""
    return item.partition(".")[2].lower() in _SHAPING


def _behaviour(items: list[str]) -> str:
    return (
        f"not judged: the default of {listing(items)} shapes the answer (its fields, order or page), so no answer "
        "carries it as a value to compare"
    )


def _no_default_evidence(ctx: Context, observed: bool) -> str:
    if observed:
        return "capture's answers show no documented default"
    return told(ctx, "no call left out a parameter with a documented default", "no parameter_tests.optional_defaults")


def _reason(ctx: Context, item: str) -> str | None:
    """Capture's reason for having no evidence of ``operation.parameter``, when it says one."""
    operation, _, parameter = item.partition(".")
    return ctx.not_probed(operation, ("optional_defaults",), parameter)


def _expected_defaults(ctx: Context, cases: list[JsonObject]) -> list[Any]:
    """Per case, the default introspection documents for the parameter (the spec's word), else
    the value the bundle gives (a hand-written case about a parameter no detail documents)."""
    documented = {
        (operation, parameter["name"]): parameter["default"]
        for operation, parameters in ctx.parameter_index.by_operation.items()
        for parameter in parameters
        if "default" in parameter
    }
    return [documented.get((case["operation"], case["parameter"]), case["expected_value"]) for case in cases]


def _disagreements(cases: list[JsonObject], expected: list[Any]) -> list[str]:
    """Cases whose bundle value is not the default introspection documents: the answer is judged
    against the documented default (the spec's word), and the disagreement is said."""
    return [
        f"{case['operation']}.{case['parameter']}: the bundle expects {show(case['expected_value'])}, but "
        f"introspection documents the default {show(value)} (judged against the documented default)"
        for case, value in zip(cases, expected, strict=True)
        if not json_equal(case["expected_value"], value)
    ]


def _unclear_defaults(ctx: Context, cases: list[JsonObject], expected: list[Any]) -> list[tuple[JsonObject, Any]]:
    """The cases (with the value expected) whose success does not plainly show it (usually none)."""
    responses = list(map(RESPONSE, cases))
    if not all_succeeded(ctx, responses):
        return list(zip(cases, expected, strict=True))
    actual = resolve_each(responses, list(map(EXPECTED_VALUE_PATH, cases)))
    shown = json_equal_each(actual, expected)  # MISSING equals no JSON value
    return list(compress(zip(cases, expected, strict=True), map(operator.not_, shown)))


def _default_mismatch(case: JsonObject, expected: Any) -> str | None:
    label = f"{case['operation']}.{case['parameter']}"
    response = case["response"]
    answer = classify(response)
    if answer.refused:
        return f"{label}: the call without the parameter failed ({answer.describe()})"
    if not answer.succeeded:
        return f"{label}: the answer is not a result ({answer.describe()})"
    if answer.kind is Kind.PROSE:
        return f"{label}: the answer is prose, where the default cannot be observed ({answer.describe()})"
    actual = resolve_path(response, case["expected_value_path"])
    if actual is MISSING:
        return f"{label}: {case['expected_value_path']} is not in the response"
    if not json_equal(actual, expected):
        documented = "" if json_equal(expected, case["expected_value"]) else "the documented default "
        return f"{label}: {case['expected_value_path']} expected {documented}{show(expected)}, got {show(actual)}"
    return None


_PARAMS_SNAKE_CASE_RULES = (
    "core:4.3:snake-case", "core:10.1:l2-passes-suite", "conformance:2.1:parameter-handling",
    "conformance:4.1:level1-categories", "operations:4.1:snake-case", "operations:4.1:canonical-snake-case",
)  # fmt: skip


@PARAMETERS.check(
    "L1.params.snake-case",
    "Canonical parameter names use snake_case",
    f"{CORE} §4.3",
    rules=_PARAMS_SNAKE_CASE_RULES,
    primary="core:4.3:snake-case",
)
def snake_case(ctx: Context) -> Outcome:
    by_operation = ctx.parameter_index.by_operation
    accepted = ctx.bundle.accepted_parameters or {}
    judged = sum(map(len, by_operation.values())) + sum(map(len, accepted.values()))
    if not judged:
        unjudged = nothing_documented(ctx, "No operation documents or accepts a parameter.", "a parameter")
        if unjudged is not None:
            return unjudged
    names = set(ctx.parameter_index.names).union(*accepted.values())
    bad = {name for name in names if not is_snake_case(name) and not name.startswith("_")}  # _meta: metadata
    failures: list[str] = []
    aliases = 0
    if bad:
        pairs = [(op, p["name"]) for op, params in by_operation.items() for p in params]
        pairs += [(op, p) for op, params in accepted.items() for p in params]
        canonical = {
            (op, p["name"]) for op, params in by_operation.items() for p in params if p["name"] not in bad
        }  # json: names
        for op, name in dict.fromkeys(pairs):
            if name not in bad:
                continue
            if (op, snake_form(name)) in canonical:  # an alias beside its canonical name: operations §4.1
                aliases += 1
            elif name in SPEC_CAMEL_PARAMETERS.get(op, ()):  # json: names; named so by core §8.6.3 (the reading)
                continue
            else:
                failures.append(f"{op}.{name}: not snake_case")
    return judge(
        MUST,
        judged=judged,
        failures=failures,
        passed=f"All {len(names)} distinct public parameter name(s) are snake_case"
        + (f" ({aliases} camelCase alias(es) beside their snake_case names)." if aliases else "."),
        no_evidence=told(
            ctx,
            "no operation's parameters are known (no detail given, no call answered)",
            "no operation details or accepted parameters",
        ),
    )
