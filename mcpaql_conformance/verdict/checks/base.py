"""The check registry, the evaluation context and the shared verdict rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from mcpaql_conformance.evidence.answers import Answer, classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.fields import (
    SUCCESS,
)
from mcpaql_conformance.evidence.index import WITHHELD, Context
from mcpaql_conformance.sanitize import plain
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


class Finding(str):
    """A finding that names the rule of the registry it is about (``cite``)."""

    rule: str

    def __new__(cls, text: str, rule: str) -> Finding:
        finding = super().__new__(cls, text)
        finding.rule = rule
        return finding


def cite(rule: str, text: str) -> Finding:
    """A finding about ``rule`` (an id of verdict/rules): its keyword decides what it costs."""
    return Finding(text, rule)


def uncited(text: str) -> Finding:
    """A finding about no keyword sentence (a departure from a table of the spec, say): shown
    without a rule, never standing for the test's primary one."""
    return Finding(text, "")


def prefixed(prefix: str, finding: str) -> str:
    """``prefix + finding``, still naming the rule the finding names (if any)."""
    return Finding(prefix + finding, finding.rule) if isinstance(finding, Finding) else prefix + finding


# The rules the running check judges (``Check.rules``): what a finding that names none is about.
_JUDGING: ContextVar[tuple[str, ...]] = ContextVar("judging", default=())


@dataclass(frozen=True)
class Check:
    id: str
    name: str
    spec_ref: str
    function: CheckFunction
    rules: tuple[str, ...] = ()  # the registry's rules this test judges
    primary: str = ""  # the rule a finding that names none is about

    def run(self, ctx: Context) -> TestResult:
        judging = _JUDGING.set((self.primary, *self.rules) if self.primary else self.rules)
        try:
            outcome = withheld_by_us(ctx, self.function(ctx))
        finally:
            _JUDGING.reset(judging)
        return TestResult(
            id=self.id,
            name=self.name,
            result=outcome.result,
            detail=outcome.detail,
            spec_ref=self.spec_ref,
            findings=tuple(map(str, outcome.findings)),  # plain text: the rules go to ``cited``
            lead=outcome.lead,
            cited=_citations(outcome.findings),
        )


def _citations(findings: tuple[str, ...]) -> tuple[str, ...]:
    """Per finding, the rule it is about ("" for none); none at all when no finding names one."""
    cited = tuple(getattr(finding, "rule", "") for finding in findings)
    return cited if any(cited) else ()


@dataclass
class Category:
    """A spec category: its checks run in registration order."""

    name: str
    required: bool
    level: int
    checks: list[Check] = field(default_factory=list)
    expand: Callable[[Context], list[TestResult]] | None = None

    def check(
        self, check_id: str, name: str, spec_ref: str, rules: tuple[str, ...] = (), primary: str = ""
    ) -> Callable[[CheckFunction], CheckFunction]:
        """Register a check function under a stable id, with the registry's rules it judges and
        the one (``primary``, among them) that a finding naming no rule is about."""

        def register(function: CheckFunction) -> CheckFunction:
            self.checks.append(Check(check_id, name, spec_ref, function, rules, primary))
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


def withheld_by_us(ctx: Context, outcome: Outcome) -> Outcome:
    """A test short of evidence because capture withheld introspect itself (and so everything
    else) is not judged: it warns, saying so and which option would judge it; the defect that
    made it necessary (introspect only on an EXECUTE endpoint, say) is the owning test's."""
    note = ctx.introspection_withheld
    if note is None or outcome.result is Result.PASS or not outcome.detail.startswith("no evidence:"):
        return outcome
    flag = WITHHELD.get(str(note.get("cause")), "--allow-destructive")
    hint = withheld_hint([flag]).removesuffix(" to judge them") + " to judge it"
    reason = plain(str(note.get("reason", "")), max_len=300)
    lead = "not judged: capture withheld introspect, so it probed nothing"
    return Outcome(Result.WARN, f"{lead} ({reason}); {hint}", (uncited(f"{reason}; {hint}"),), lead)


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
    # the rule registry is read only when there is something to cite (a passing test needs none)
    default = _default_rule(requirement) if failures or warnings or uncovered or withheld or explained else ""
    failures, demoted = _by_strength([_cited(item, default) for item in failures], default)
    warnings = [*demoted, *(_cited(item, default) for item in warnings or [])]
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
        *(_cited(f"{uncovered_label}: {item}", default) for item in uncovered),
        *(_cited(f"withheld for safety: {item} (needs {flag})", default) for item, flag in withheld.items()),
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


def _default_rule(requirement: Requirement) -> str:
    """What a finding that names no rule is about: the running check's primary rule, else its first
    rule of the test's own strength, else its first ("" when it declares none)."""
    from mcpaql_conformance.verdict.rules import BY_ID

    rules = _JUDGING.get()
    same = [rule for rule in rules if rule in BY_ID and BY_ID[rule].strength is requirement]
    return rules[0] if rules and rules[0] in BY_ID else same[0] if same else (rules[0] if rules else "")


def _cited(item: str, default: str) -> str:
    """``item`` naming its rule: its own, else ``default`` (none when that is "")."""
    if isinstance(item, Finding) or not default:
        return item
    return Finding(item, default)


def _by_strength(failures: list[str], default: str) -> tuple[list[str], list[str]]:
    """(failures, warnings): a violation of a SHOULD (or of a MUST found only in an informative
    document) warns, never fails; what a MAY allows is no violation at all (dropped)."""
    if not failures:
        return [], []
    from mcpaql_conformance.verdict.rules import BY_ID

    kept: list[str] = []
    demoted: list[str] = []
    for item in failures:
        rule = BY_ID.get(getattr(item, "rule", default))
        if rule is None or rule.strength is Requirement.MUST:
            kept.append(item)
        elif rule.strength is Requirement.SHOULD:
            demoted.append(item)
    return kept, demoted


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


def told(ctx: Context, server: str, bundle: str) -> str:
    """What is missing, in the server's terms for a captured bundle (the call that gave nothing,
    how to get it), in the bundle's own for one written by hand (its author's terms)."""
    return server if ctx.captured else bundle


def no_evidence(requirement: Requirement, what: str, failures: list[str] | None = None) -> Outcome:
    """The verdict of a test that had nothing to judge (FAIL for MUST, WARN for SHOULD)."""
    return judge(requirement, judged=0, failures=failures or [], passed="", no_evidence=what)


def skip(reason: str) -> Outcome:
    return Outcome(Result.SKIP, reason)


def nothing_documented(ctx: Context, reason: str, what: str) -> Outcome | None:
    """SKIP for a test with no evidence whose subject no operation detail documents (``reason``),
    and as well where introspection gave no detail at all: nothing documents ``what`` there
    either, and the missing details are the operation-details test's to judge. The same
    situation gets the same verdict on every server (None: details were never asked for)."""
    if ctx.details_by_name:
        return skip(reason)
    if ctx.bundle.detail_queries:
        return skip(f"No operation detail documents {what}: introspection gave none (the operation-details test "
                    "judges that).")  # fmt: skip
    return None


def all_succeeded(ctx: Context, responses: list[JsonObject]) -> bool:
    """Whether every response is a valid success result (one C-level pass)."""
    return ctx.all_responses_valid and all(map(SUCCESS, responses))


class Call(NamedTuple):
    """One of capture's calls of a section (pagination_tests, field_tests...), read: the operation as
    a finding shows it, the kind of call, what the server answered and how it reads."""

    case: JsonObject
    name: str
    kind: Any
    response: Any
    answer: Answer


def calls_of(ctx: Context, section: str) -> list[Call]:
    """The cases of one of capture's call sections, each read."""
    return [
        Call(case, plain(case.get("operation"), max_len=80), case.get("kind"), case.get("response"),
             classify(case.get("response")))
        for case in ctx.bundle.cases(section)
    ]  # fmt: skip


def kinds_held(ctx: Context, section: str, default: str = "") -> list[str]:
    """``section:KIND`` for each kind of call a section holds (a report's ``evidence``); a case without
    a kind counts as ``default``."""
    return list({f"{section}:{case.get('kind') or default}": None for case in ctx.bundle.cases(section)})
