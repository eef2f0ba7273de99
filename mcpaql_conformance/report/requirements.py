"""Results per requirement: what one run says of every server rule of the registry.

A rule's result comes from the run's tests, never from anything else:

- FAIL (a MUST) or WARN (a SHOULD) when a finding of a failing or warning test cites it, or cites
  the rule it restates (``proofs.VIA``); a rule that gathers tests (a category, a level) fails
  when one of them does. A test that only warned makes its rules WARN, whatever their strength.
- PASS when it is judged (a proof shows a server breaking it is caught), a test it names ran,
  and nothing cites it.
- SKIP when none of the tests it names ran (another level or tier, a category filter, a skip).
- NOT_JUDGED when no proof shows it judged, or a test it names failed with findings citing no
  rule (a report of another tool), so the run cannot say whether this rule held.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from mcpaql_conformance import TOOL_NAME
from mcpaql_conformance.files.vocabulary import RequirementResult
from mcpaql_conformance.report.escape import terminal
from mcpaql_conformance.report.templates import environment
from mcpaql_conformance.verdict.model import Report, Requirement, Result, TestResult
from mcpaql_conformance.verdict.rules.model import DOCUMENTS, SERVER, Document, Rule
from mcpaql_conformance.verdict.rules.needs import said

MAX_SHOWN = 10  # findings kept per rule; the rest are counted
FAIL: RequirementResult = "FAIL"
WARN: RequirementResult = "WARN"
PASS: RequirementResult = "PASS"
SKIP: RequirementResult = "SKIP"
NOT_JUDGED: RequirementResult = "NOT_JUDGED"
ORDER: tuple[RequirementResult, ...] = (FAIL, WARN, NOT_JUDGED, SKIP, PASS)  # worst first


@dataclass(frozen=True)
class Evidence:
    """A finding that decided a rule (``finding`` "" where a whole test decided it)."""

    test: str
    finding: str = ""


def said_result(result: str) -> str:
    """A result as reports say it: ``PASS``..., ``not judged``."""
    return "not judged" if result == NOT_JUDGED else result


def tally_text(tally: dict[str, int]) -> str:
    """``2 FAIL, 300 not judged, 158 PASS``: the results a tally counts, in its order."""
    return ", ".join(f"{count} {said_result(result)}" for result, count in tally.items() if count)


@dataclass(frozen=True)
class RuleResult:
    rule: Rule
    result: RequirementResult
    reason: str  # one line: why this result
    evidence: tuple[Evidence, ...] = ()  # the first MAX_SHOWN
    more: int = 0  # deciding findings not kept
    standing: bool = False  # not judged whatever the run: the registry says why (`rules --not-judged`)

    @property
    def label(self) -> str:
        return said_result(self.result)

    @property
    def why(self) -> str:
        """The reason, and the first finding that decided it."""
        if not self.evidence:
            return self.reason
        first = self.evidence[0]
        shown = f"{first.test}: {first.finding}" if first.finding else first.test
        return f"{self.reason}; {shown}" + (" …" if len(self.evidence) > 1 or self.more else "")


@dataclass(frozen=True)
class _Cited:
    test: TestResult
    finding: str


def requirement_results(report: Report, rules: Iterable[Rule] | None = None) -> list[RuleResult]:
    """Every server rule (of ``rules``, the registry by default) with its result in ``report``."""
    if rules is None:
        from mcpaql_conformance.verdict.rules import RULES

        rules = RULES
    tests = _tests_by_id(report)
    cited: dict[str, list[_Cited]] = defaultdict(list)
    for test in tests.values():
        for finding, rule in zip(test.findings, test.cited, strict=False):
            if rule and test.result in (Result.FAIL, Result.WARN):
                cited[rule].append(_Cited(test, finding))
    ours = report.tool == TOOL_NAME  # our findings name their rule, or are about none
    return [_result(rule, tests, cited, ours, report.evidence) for rule in rules if rule.subject == SERVER]


def _tests_by_id(report: Report) -> dict[str, TestResult]:
    """The run's tests by id; a test saved without one (the reference runner's) by its name."""
    tests = [test for category in report.categories for test in category.tests]
    named = {}
    if any(not test.id for test in tests):
        from mcpaql_conformance.verdict.checks import CATEGORIES

        named = {check.name: check.id for category in CATEGORIES for check in category.checks}
    return {test.id: test for test in (replace(t, id=t.id or named.get(t.name, t.name)) for t in tests)}


def _result(
    rule: Rule,
    tests: dict[str, TestResult],
    cited: dict[str, list[_Cited]],
    ours: bool,
    evidence: tuple[str, ...] | None,
) -> RuleResult:
    ran = [test for test in _named(rule, tests) if test.result is not Result.SKIP]
    if rule.gathers and rule.judged and ran:
        return _gathered(rule, ran)
    via = rule.proof.via if rule.proof else ""
    deciding = [*cited.get(rule.id, ()), *cited.get(via, ())]
    if deciding:
        return _broken(rule, deciding)
    if not rule.judged:
        return RuleResult(rule, NOT_JUDGED, rule.why_not_judged.split(": ", 1)[0], standing=True)
    if not ran:
        return RuleResult(rule, SKIP, _why_skipped(rule, tests))
    undecided = [reason for test in ran if (reason := _undecided(test, ours))]
    if undecided:
        return RuleResult(rule, NOT_JUDGED, "; ".join(undecided))
    if rule.needs and evidence is not None and not set(rule.needs) & set(evidence):
        return RuleResult(rule, SKIP, f"nothing to judge it by: the run holds no {' or '.join(map(said, rule.needs))}")
    return RuleResult(rule, PASS, "no finding cites it in " + ", ".join(f"{t.id} ({t.result.value})" for t in ran))


def _named(rule: Rule, tests: dict[str, TestResult]) -> list[TestResult]:
    """The run's tests a rule names (``L2.semantic`` names each semantic test: L2.semantic.*)."""
    return [test for test_id, test in tests.items() if any(test_id == n or test_id.startswith(n + ".") for n in
            rule.tests)]  # fmt: skip


def _gathered(rule: Rule, ran: list[TestResult]) -> RuleResult:
    """A rule asking every test it names to pass: the worst of them."""
    failing = [test for test in ran if test.result in (Result.FAIL, Result.WARN)]
    if not failing:
        return RuleResult(rule, PASS, "every test it names passed: " + ", ".join(test.id for test in ran))
    result = _strength_result(rule, any(test.failed for test in failing))
    names = ", ".join(f"{test.id} {test.result.value}" for test in failing)
    shown = tuple(Evidence(test.id) for test in failing[:MAX_SHOWN])
    return RuleResult(rule, result, f"asks every test it names to pass: {names}", shown, len(failing) - len(shown))


def _broken(rule: Rule, deciding: list[_Cited]) -> RuleResult:
    result = _strength_result(rule, any(item.test.failed for item in deciding))
    tests = sorted({item.test.id for item in deciding})
    via = f" (through {rule.proof.via}, which it restates)" if rule.proof and rule.proof.via else ""
    shown = tuple(Evidence(item.test.id, item.finding) for item in deciding[:MAX_SHOWN])
    reason = f"{len(deciding)} finding(s) of {', '.join(tests)} cite it{via}"
    return RuleResult(rule, result, reason, shown, len(deciding) - len(shown))


def _strength_result(rule: Rule, failed: bool) -> RequirementResult:
    """FAIL for a MUST broken in a failing test; WARN for a SHOULD, or where the test only warned."""
    return FAIL if failed and rule.strength is Requirement.MUST else WARN


def _undecided(test: TestResult, ours: bool) -> str:
    """Why a failing or warning test cannot say whether one of its rules held ("" when it can):
    it judged nothing (no findings), or its findings (another tool's) name no rule."""
    if test.result not in (Result.FAIL, Result.WARN):
        return ""
    if not test.findings:
        return f"{test.id} {test.result.value} without a finding: {test.detail}"
    if not ours and (len(test.cited) != len(test.findings) or not all(test.cited)):
        return f"{test.id} {test.result.value} with findings naming no rule (a report of another tool)"
    return ""


def _why_skipped(rule: Rule, tests: dict[str, TestResult]) -> str:
    skipped = _named(rule, tests)
    if skipped:
        return f"{skipped[0].id} was skipped: {skipped[0].detail}"
    return f"not in this run: {', '.join(rule.tests)}"


def requirement_dict(item: RuleResult) -> dict[str, Any]:
    """One entry of a JSON report's ``requirements``."""
    entry: dict[str, Any] = {"rule": item.rule.id, "result": item.result, "reason": item.reason}
    if item.evidence:
        entry["findings"] = [
            {"test": shown.test, **({"finding": shown.finding} if shown.finding else {})} for shown in item.evidence
        ]
    if item.more:
        entry["moreFindings"] = item.more
    return entry


def counts(results: Iterable[RuleResult]) -> dict[str, int]:
    """How many rules had each result, worst first."""
    tally: dict[str, int] = {result: 0 for result in ORDER}
    for item in results:
        tally[item.result] += 1
    return tally


@dataclass(frozen=True)
class DocumentResults:
    """One document's rules in a run: those shown, and how many of its rules had each result."""

    document: Document
    shown: tuple[RuleResult, ...]
    counts: dict[str, int]
    standing: int  # rules not judged whatever the run (not shown unless asked)

    @property
    def counts_text(self) -> str:
        return tally_text(self.counts) + (f" ({self.standing} of them by no test yet)" if self.standing else "")


def by_document(results: Iterable[RuleResult], everything: bool = False) -> list[DocumentResults]:
    """Per document (in the registry's order) its results; the rules no test judges in any run
    are counted, and shown only with ``everything``."""
    grouped: dict[str, list[RuleResult]] = defaultdict(list)
    for item in results:
        grouped[item.rule.document.key].append(item)
    return [
        DocumentResults(
            DOCUMENTS[key],
            tuple(item for item in items if everything or not item.standing),
            {result: count for result, count in counts(items).items() if count},
            sum(item.standing for item in items),
        )
        for key, items in grouped.items()
    ]


def requirements_text(results: list[RuleResult], everything: bool = False) -> str:
    """The per-document tables as `rules --report` prints them (terminal-safe)."""
    lines = [f"Requirements: {_total(results)}"]
    for group in by_document(results, everything):
        lines += ["", f"{group.document.path} ({group.document.title}): {group.counts_text}"]
        for item in group.shown:
            rule = item.rule
            lines.append(f"  {item.label:<10} {terminal(rule.id)}  {rule.keyword} §{terminal(rule.section)}")
            lines.append(f"             {terminal(item.why)}")
    if not everything and any(item.standing for item in results):
        lines += ["", "Rules no test judges yet are counted, not listed: `mcpaql-conformance rules --not-judged`."]
    return "\n".join(lines) + "\n"


def _total(results: list[RuleResult]) -> str:
    return f"{len(results)} server rules: {tally_text(counts(results))}"


def requirements_context(
    report: Report, rules: Iterable[Rule] | None = None, everything: bool = False
) -> dict[str, Any]:
    """What the markdown and HTML templates show of a run's requirements."""
    results = requirement_results(report, rules)
    return {"total": _total(results), "documents": by_document(results, everything), "everything": everything}


def requirements_markdown(report: Report, rules: Iterable[Rule] | None = None, everything: bool = False) -> str:
    """The per-document tables in markdown (the markdown report's section, `rules --report -f markdown`)."""
    template = environment("markdown").get_template("requirements.md.j2")
    return template.render(**requirements_context(report, rules, everything))
