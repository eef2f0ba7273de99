"""Findings as every report shows them: each with the rule of the registry it is about."""

from __future__ import annotations

from mcpaql_conformance.verdict.model import TestResult


def shown_findings(test: TestResult) -> tuple[str, ...]:
    """A test's findings, each with the rule it is about (``... [core §4.6 MUST]``)."""
    from mcpaql_conformance.verdict.rules import citation

    cited = (*test.cited, *("",) * (len(test.findings) - len(test.cited)))
    return tuple(
        f"{finding} [{citation(rule)}]" if rule else finding for finding, rule in zip(test.findings, cited, strict=True)
    )
