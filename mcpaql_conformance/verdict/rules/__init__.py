"""The requirement registry: every sentence of the spec's documents with an RFC 2119 keyword
(``model.Rule``), one module per document (the core in two), and the tests that judge each."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules import (
    conformance,
    core,
    core_execution,
    crude,
    endpoint_modes,
    error_codes,
    features,
    features_querying,
    introspection,
    mcp,
    operations,
)
from mcpaql_conformance.verdict.rules.model import DOCUMENTS, Document, Rule

RULES: tuple[Rule, ...] = (
    *core.RULES,
    *core_execution.RULES,
    *conformance.RULES,
    *introspection.RULES,
    *operations.RULES,
    *error_codes.RULES,
    *endpoint_modes.RULES,
    *crude.RULES,
    *mcp.RULES,
    *features.RULES,
    *features_querying.RULES,
)
BY_ID = {rule.id: rule for rule in RULES}


def citation(rule_id: str) -> str:
    """How a report names a rule: ``core §4.6 MUST``, ``introspection §8.2 SHOULD``, a MUST of an
    informative document that warns ``introspection §8.1 MUST, informative``; an id the registry
    does not know (a report of another version) as it is."""
    rule = BY_ID.get(rule_id)
    if rule is None:
        return rule_id
    label = "core" if rule.document.key == "core" else rule.document.path.removesuffix(".md")
    informative = ", informative" if rule.informative_must else ""  # a MUST that only warns: say why
    return f"{label} §{rule.section} {rule.keyword}{informative}"


__all__ = ["BY_ID", "DOCUMENTS", "RULES", "Document", "Rule", "citation"]
