"""The check registry, the evaluation context and the shared verdict rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.fields import (
    SUCCESS,
)
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.model import Requirement, Result, TestResult

MAX_LISTED = 8

CONFORMANCE = "conformance-testing"
CORE = "v1.0.0-draft"


@dataclass(frozen=True)
class Outcome:
    """What a check function returns; the registry adds id, name and spec reference."""

    result: Result
    detail: str
    findings: tuple[str, ...] = ()
    lead: str = ""  # heads the findings where each is shown on its own line (the text report)


CheckFunction = Callable[["Context"], Outcome]


@dataclass(frozen=True)
class Check:
    id: str
    name: str
    spec_ref: str
    function: CheckFunction

    def run(self, ctx: Context) -> TestResult:
        outcome = self.function(ctx)
        return TestResult(
            id=self.id,
            name=self.name,
            result=outcome.result,
            detail=outcome.detail,
            spec_ref=self.spec_ref,
            findings=outcome.findings,
            lead=outcome.lead,
        )


@dataclass
class Category:
    """A spec category: its checks run in registration order."""

    name: str
    required: bool
    level: int
    checks: list[Check] = field(default_factory=list)
    expand: Callable[[Context], list[TestResult]] | None = None

    def check(self, check_id: str, name: str, spec_ref: str) -> Callable[[CheckFunction], CheckFunction]:
        """Register a check function under a stable id."""

        def register(function: CheckFunction) -> CheckFunction:
            self.checks.append(Check(check_id, name, spec_ref, function))
            return function

        return register

    def evaluate(self, ctx: Context) -> list[TestResult]:
        if self.expand is not None:
            return self.expand(ctx)
        return [check.run(ctx) for check in self.checks]


def listing(items: Iterable[str], limit: int = MAX_LISTED) -> str:
    """``a, b, c (+12 more)``."""
    values = list(items)
    shown = ", ".join(values[:limit])
    return shown + (f" (+{len(values) - limit} more)" if len(values) > limit else "")


WITHHELD_LABEL = "withheld for safety by capture"


def withheld_hint(flags: Iterable[str]) -> str:
    """How to judge what capture withheld: the option(s) that let it send them."""
    found = set(flags)
    if found == {"--allow-writes"}:
        return "capture again with --allow-writes to judge them"
    if found == {"--allow-destructive"}:
        return "capture again with --allow-destructive, against a disposable instance only, to judge them"
    return (
        "capture again with --allow-writes (CREATE operations) or --allow-destructive (UPDATE, DELETE and"
        " EXECUTE too, against a disposable instance only) to judge them"
    )


def judge(
    requirement: Requirement,
    *,
    judged: int,
    failures: list[str],
    warnings: list[str] | None = None,
    uncovered: list[str] | None = None,
    passed: str,
    no_evidence: str,
    uncovered_label: str = "no evidence for",
    withheld: dict[str, str] | None = None,
    explained: list[str] | None = None,
) -> Outcome:
    """The shared verdict: no evidence, failures, partial coverage or warnings, else PASS.

    With nothing judged a MUST test fails and a SHOULD test warns: never a vacuous pass.
    But what capture withheld for safety (``withheld``: items and the option that would let
    capture send them) or could not build, saying why (``explained``, items with their reason),
    is not "no evidence": a test with nothing else to judge says it was not judged, and why,
    and how to judge it, and warns.
    """
    warnings = warnings or []
    withheld = withheld or {}
    hint = withheld_hint(withheld.values())
    explained = explained or []
    unexplained = uncovered or []
    uncovered = [*unexplained, *explained]
    notes: list[str] = []
    if uncovered:
        notes.append(f"{uncovered_label}: {listing(uncovered)}")
    if withheld:
        notes.append(f"{WITHHELD_LABEL} ({hint}): {listing(withheld)}")
    findings = (
        *failures,
        *warnings,
        *(f"{uncovered_label}: {item}" for item in uncovered),
        *(f"withheld for safety: {item} (needs {flag})" for item, flag in withheld.items()),
    )
    counts = [f"{len(items)} {label}" for items, label in ((failures, "failure(s)"), (warnings, "warning(s)")) if items]
    if uncovered:  # "no evidence for 3", "3 operations without detail evidence"
        label = uncovered_label
        counts.append(f"{label} {len(uncovered)}" if label.startswith("no ") else f"{len(uncovered)} {label}")
    if withheld:
        counts.append(f"{len(withheld)} {WITHHELD_LABEL} ({hint})")
    if judged == 0 and not failures:
        if (withheld or explained) and not unexplained:
            said = "capture withheld every probe it needs" if not explained else "capture could not build its evidence"
            lead = f"not judged: {said}" + (f" ({hint})" if withheld else "")
            return Outcome(Result.WARN, "; ".join([f"not judged: {said}", *notes]), findings, lead)
        result = Result.FAIL if requirement is Requirement.MUST else Result.WARN
        lead = f"no evidence: {no_evidence}"
        return Outcome(result, "; ".join([lead, *notes]), findings, lead)
    if failures:
        return Outcome(Result.FAIL, "; ".join([listing(failures, 5), *notes]), findings, ", ".join(counts))
    if warnings or uncovered or withheld:
        parts = [listing(warnings, 5)] if warnings else []
        return Outcome(Result.WARN, "; ".join([*parts, *notes]), findings, ", ".join(counts))
    return Outcome(Result.PASS, passed, findings)


def split_withheld(ctx: Context, items: list[str], probes: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """(uncovered, withheld): items (``operation`` or ``operation.parameter``) whose operation
    capture withheld for safety are not missing evidence; each withheld item with the option
    that would let capture send its probes."""
    if not ctx.withheld_operations:
        return items, {}
    uncovered: list[str] = []
    withheld: dict[str, str] = {}
    for item in items:
        flag = ctx.withheld_flag(item.split(".", 1)[0], probes)
        if flag is None:
            uncovered.append(item)
        else:
            withheld[item] = flag
    return uncovered, withheld


def single(requirement: Requirement, failures: list[str], passed: str) -> Outcome:
    """The verdict of a test judged on one piece of evidence."""
    return judge(requirement, judged=1, failures=failures, passed=passed, no_evidence="")


def no_evidence(requirement: Requirement, what: str, failures: list[str] | None = None) -> Outcome:
    """The verdict of a test that had nothing to judge (FAIL for MUST, WARN for SHOULD)."""
    return judge(requirement, judged=0, failures=failures or [], passed="", no_evidence=what)


def skip(reason: str) -> Outcome:
    return Outcome(Result.SKIP, reason)


def all_succeeded(ctx: Context, responses: list[JsonObject]) -> bool:
    """Whether every response is a valid success result (one C-level pass)."""
    return ctx.all_responses_valid and all(map(SUCCESS, responses))
