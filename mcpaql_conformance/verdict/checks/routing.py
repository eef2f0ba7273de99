"""What the server did with operations sent where they do not belong: to another family's
endpoint (core §6.2, operations §6.3) or under a name it does not list (endpoint-modes §5.5)."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.jsonio import dumps
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

WRONG_ENDPOINT = "core:6.2:wrong-endpoint-rejected"

_PARAMETER_CODES = ("VALIDATION_MISSING_PARAM", "VALIDATION_UNKNOWN_PARAM", "VALIDATION_INVALID_TYPE")


def routing_evidence_failures(ctx: Context) -> list[str]:
    """An operation sent to a wrong endpoint must be rejected for that, not executed or validated."""
    failures: list[str] = []
    for case in ctx.bundle.cases("routing_tests"):
        label = f"{case['operation']} via {case['tool']}"
        answer = classify(case["response"])
        if answer.succeeded:
            failures.append(cite(WRONG_ENDPOINT, f"{label}: executed although sent to the wrong endpoint"))
        elif not answer.refused:
            failures.append(f"{label}: not refused although sent to the wrong endpoint ({answer.describe()})")
        elif answer.code in _PARAMETER_CODES:  # refused all the same: the error's form is a SHOULD
            failures.append(
                cite(
                    "operations:6.3:mismatch-error",
                    f"{label}: refused, but for its parameters rather than for the endpoint ({answer.describe()})",
                )
            )
    return failures


UNKNOWN_OPERATION_CASE = "unknown-operation"  # error_tests' case of capture's unknown-operation probe


def unknown_operation_findings(ctx: Context) -> list[str]:
    """An operation name the server does not list is refused with a structured error, never
    routed by guesswork (endpoint-modes §5.5, a SHOULD: a success warns). The refusal's shape,
    leakage and message are the Error Quality tests'."""
    findings: list[str] = []
    for case in ctx.bundle.cases("error_tests"):
        operation = case.get("operation")
        if case.get("name") != UNKNOWN_OPERATION_CASE or not isinstance(operation, str):
            continue
        answer = classify(case["response"])
        if answer.succeeded:
            via = f" via {plain(str(case.get('tool')), max_len=80)}" if case.get("tool") else ""
            findings.append(
                cite(
                    "endpoint-modes:5.5:unknown-operation-structured",
                    f"{plain(operation, max_len=80)}{via}: an operation name the server does not list was answered "
                    f"with success, not refused (data: {_excerpt(case['response'].get('data'))})",
                )
            )
    return findings


def _excerpt(value: Any) -> str:
    """The start of a value as JSON, for a finding (at most 80 characters, control characters shown)."""
    text = dumps(value, indent=False).strip() if value is not None else "none"
    return plain(text if len(text) <= 80 else text[:77] + "...", max_len=80)
