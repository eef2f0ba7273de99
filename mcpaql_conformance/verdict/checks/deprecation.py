"""Deprecated parameters (introspection §8.2.4, a SHOULD): a parameter introspection marks
deprecated (`deprecated: true`, or its description says so) says what to use instead: its
description names another parameter of the operation, or says "use" or "instead"."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.vocabulary import DEPRECATED_PARAMETER, DEPRECATION_WARNED
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import identifiers_folded

GUIDANCE = "introspection:8.2.4:migration-guidance"
NOTICE = "introspection:8.2.4:deprecation-notice"
# Capture's sections of answers to calls of one operation (their `operation`).
_ANSWERED = ("valid_requests", "pagination_tests", "field_tests", "search_tests", "sort_tests", "filter_tests",
             "aggregate_tests", "relationship_tests", "execution_tests")  # fmt: skip


def deprecation_findings(ctx: Context) -> list[str]:
    """A deprecated parameter with no word of what replaces it."""
    findings: list[str] = []
    for op in ctx.details_by_name:
        parameters = ctx.parameters_of(op)
        others = {str(p["name"]).lower() for p in parameters}
        for entry in parameters:
            words = identifiers_folded(str(entry.get("description") or ""))
            if marked(entry) and not (words & (others - {str(entry["name"]).lower()}) or words & {"use", "instead"}):
                where = f"{plain(op, max_len=80)}.{plain(entry['name'], max_len=60)}"
                text = f"{where} is deprecated, but its description says nothing of what to use instead"
                findings.append(cite(GUIDANCE, text))
    return findings


def notice_findings(ctx: Context) -> list[str]:
    """A parameter an answer warns is deprecated, unlisted or listed without a deprecation notice."""
    findings: dict[tuple[str, str], str] = {}
    for operation, parameter in warned_deprecated(ctx):
        entry = next((p for p in ctx.parameters_of(operation) if p["name"] == parameter), None)  # json: names
        where = f"{plain(operation, max_len=80)}.{plain(parameter, max_len=60)}"
        said = "no longer lists it" if entry is None else "lists it with no deprecation notice"
        if entry is None or not marked(entry):
            findings[(operation, parameter)] = f"{where}: an answer warns it is deprecated, but introspection {said}"
    return [cite(NOTICE, text) for text in findings.values()]


def warned_deprecated(ctx: Context) -> list[tuple[str, str]]:
    """(operation, parameter) for each deprecation warning of an answer that names a parameter the call sent
    (its details' `parameter`, `param_name` or `deprecated`, else a name its message quotes)."""
    found: list[tuple[str, str]] = []
    for section in _ANSWERED:
        for case in ctx.bundle.cases(section):
            response, request = case.get("response"), case.get("request", case.get("params"))
            sent = [str(k) for k in request] if isinstance(request, dict) else []
            listed = response.get("warnings") if isinstance(response, dict) else None
            for warning in listed[:20] if isinstance(listed, list) else []:
                if (
                    isinstance(warning, dict)
                    and "deprecat" in f"{warning.get('code')} {warning.get('message')}".casefold()
                ):
                    found += [(str(case.get("operation")), name) for name in _named(warning, sent)]
    return list(dict.fromkeys(found))


def _named(warning: dict[str, Any], sent: list[str]) -> list[str]:
    details = warning.get("details")
    named = [details.get(key) for key in ("parameter", "param_name", "deprecated")] if isinstance(details, dict) else []
    given = [name for name in named if isinstance(name, str) and name in sent]  # json: names sent
    message = str(warning.get("message") or "")
    return given or [name for name in sent if f"'{name}'" in message or f"`{name}`" in message]


def marked(entry: dict[str, Any]) -> bool:
    """A parameter introspection marks deprecated: the flag, or its description saying so."""
    said = identifiers_folded(str(entry.get("description") or ""))
    return entry.get("deprecated") is True or bool(said & {"deprecated", "deprecation"})


def deprecation_evidence(ctx: Context) -> list[str]:
    """DEPRECATED_PARAMETER where introspection marks a parameter deprecated, DEPRECATION_WARNED where an
    answer warns a parameter it was sent is deprecated."""
    listed = any(marked(p) for op in ctx.details_by_name for p in ctx.parameters_of(op))
    return [*([DEPRECATED_PARAMETER] if listed else []), *([DEPRECATION_WARNED] if warned_deprecated(ctx) else [])]
