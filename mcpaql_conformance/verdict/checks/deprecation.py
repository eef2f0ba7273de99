"""Deprecated parameters (introspection §8.2.4, a SHOULD): a parameter introspection marks
deprecated (`deprecated: true`, or its description says so) says what to use instead: its
description names another parameter of the operation, or says "use" or "instead"."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.vocabulary import DEPRECATED_PARAMETER
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import identifiers_folded

GUIDANCE = "introspection:8.2.4:migration-guidance"


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


def marked(entry: dict[str, Any]) -> bool:
    """A parameter introspection marks deprecated: the flag, or its description saying so."""
    said = identifiers_folded(str(entry.get("description") or ""))
    return entry.get("deprecated") is True or bool(said & {"deprecated", "deprecation"})


def deprecation_evidence(ctx: Context) -> list[str]:
    """DEPRECATED_PARAMETER where introspection marks a parameter deprecated."""
    listed = any(marked(p) for op in ctx.details_by_name for p in ctx.parameters_of(op))
    return [DEPRECATED_PARAMETER] if listed else []
