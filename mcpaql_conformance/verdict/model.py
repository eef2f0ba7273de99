"""Results, categories and reports; classification and exit-code rules live here only."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from mcpaql_conformance.errors import EXIT_CONFIG


class Result(StrEnum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"


class Requirement(StrEnum):
    MUST = "MUST"
    SHOULD = "SHOULD"


EXIT_CONFORMANT = 0
EXIT_MUST_FAILED = 1
EXIT_SHOULD_WARNED = 2
EXIT_CONFIG_ERROR = EXIT_CONFIG


@dataclass(frozen=True)
class TestResult:
    """The verdict of one test; ``findings`` are the individual items behind it."""

    id: str
    name: str
    result: Result
    detail: str
    spec_ref: str = ""
    findings: tuple[str, ...] = ()
    tier: str | None = None
    baselined: str | None = None  # the baseline's reason, when this failure is an expected one
    lead: str = ""  # what heads the findings when each is shown on its own line (their counts)
    cited: tuple[str, ...] = ()  # per finding, the id of the rule it is about ("" where none)

    @property
    def failed(self) -> bool:
        """A FAIL that counts: not an expected failure listed in the baseline."""
        return self.result is Result.FAIL and self.baselined is None


@dataclass(frozen=True)
class CategoryResult:
    name: str
    required: bool
    tests: tuple[TestResult, ...]
    result: Result = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "result", classify_category(self.required, self.tests))


def classify_category(required: bool, tests: tuple[TestResult, ...]) -> Result:
    """FAIL if a test failed (WARN for a SHOULD category), else WARN, else SKIP, else PASS.

    A category is SKIP when it had no tests or none of its tests applied.
    """
    # A baselined (expected) failure counts as passing here: it must not fail the run or make it
    # warn. It still shows as FAIL on its test, in the summary's "baselined" count and the verdict.
    results = {Result.PASS if test.result is Result.FAIL and not test.failed else test.result for test in tests}
    if Result.FAIL in results:
        return Result.FAIL if required else Result.WARN
    if Result.WARN in results:
        return Result.WARN
    if results <= {Result.SKIP}:
        return Result.SKIP  # no tests at all, or none applied
    return Result.PASS


def exit_code_for(categories: tuple[CategoryResult, ...]) -> int:
    """1 if a MUST category failed, else 2 if a SHOULD category warned or failed, else 0."""
    if any(c.required and c.result is Result.FAIL for c in categories):
        return EXIT_MUST_FAILED
    if any(not c.required and c.result in (Result.WARN, Result.FAIL) for c in categories):
        return EXIT_SHOULD_WARNED
    return EXIT_CONFORMANT


@dataclass(frozen=True)
class Summary:
    total: int
    passed: int
    warned: int
    failed: int
    skipped: int
    baselined: int = 0  # expected failures listed in a baseline (not counted in ``failed``)

    @classmethod
    def of(cls, categories: tuple[CategoryResult, ...]) -> Summary:
        tests = [test for category in categories for test in category.tests]
        counts = Counter(test.result for test in tests)
        baselined = sum(1 for test in tests if test.baselined is not None and test.result is Result.FAIL)
        return cls(
            total=len(tests),
            passed=counts[Result.PASS],
            warned=counts[Result.WARN],
            failed=counts[Result.FAIL] - baselined,
            skipped=counts[Result.SKIP],
            baselined=baselined,
        )

    @property
    def counts_text(self) -> str:
        """The counts as every format says them: ``7 passed, 0 warned, 1 failed, 0 skipped, 1 baselined``."""
        said = f"{self.passed} passed, {self.warned} warned, {self.failed} failed, {self.skipped} skipped"
        return said + (f", {self.baselined} baselined" if self.baselined else "")

    def as_dict(self) -> dict[str, int]:
        counts = {
            "total": self.total,
            "passed": self.passed,
            "warned": self.warned,
            "failed": self.failed,
            "skipped": self.skipped,
        }
        if self.baselined:
            counts["baselined"] = self.baselined
        return counts


@dataclass(frozen=True)
class Report:
    """A complete verdict. ``conformance_level`` is None when a category filter was used."""

    implementation: str | None
    version: str | None
    spec_version: str | None
    requested_level: int | None
    conformance_level: int | None
    categories: tuple[CategoryResult, ...]
    exit_code: int
    tier: str | None = None
    category_filter: str | None = None
    tool: str | None = None
    tool_version: str | None = None
    notes: tuple[str, ...] = ()  # probes a live capture did not send, and why
    readings: tuple[str, ...] = ()  # lenient readings a live capture took of a deviating server
    changes: tuple[str, ...] = ()  # calls of the run that may have created or changed data
    baseline: str | None = None  # the baseline file applied, if any
    stale: tuple[str, ...] = ()  # baseline entries whose tests no longer fail (they fail the run)
    unneeded: tuple[str, ...] = ()  # baseline entries whose tests only warn (said; the exit is unchanged)
    provenance: str | None = None  # where the evidence came from: "captured ... from ... over ...", or None
    agent_summary: str | None = None  # the latest agent invocation: model, runs, judge, tool list
    agent_metrics: tuple[Any, ...] = ()  # verdict.metrics.AgentMetrics rows (per model: tasks, then "all")
    agent_models: tuple[str, ...] = ()  # a line per model (and per model that could not be used)
    agent_incomplete: str | None = None  # "incomplete agent evidence: N of M runs finished (why)..."
    evidence_spec_version: str | None = None  # the spec version the bundle says it was recorded against
    captured_at: str | None = None  # when the evidence was captured (a captured bundle's provenance)
    server: str | None = None  # what `check` captured: the server command or URL (secrets masked)
    # What the run had to judge by (verdict/rules/needs.py: bundle sections with entries, the
    # semantic categories documented); None for a report that does not say (older, another tool's).
    evidence: tuple[str, ...] | None = None

    @property
    def spec_line(self) -> str:
        """The spec version judged against, with the bundle's own claim when it names another
        (conformance-testing §2.3: a claim names the version it was tested against)."""
        version = self.spec_version if self.spec_version is not None else "(unknown)"
        claim = self.evidence_spec_version
        if claim is None or claim == self.spec_version:
            return version
        return f"{version} (the evidence says it was recorded against {claim})"

    @cached_property
    def summary(self) -> Summary:
        return Summary.of(self.categories)

    @property
    def has_warnings(self) -> bool:
        return any(c.result is Result.WARN for c in self.categories)


def conformance_level(requested_level: int, categories: tuple[CategoryResult, ...]) -> int:
    """The level actually earned: 0 if a MUST test failed (a baseline excuses the run, not the
    implementation), 1 if Level 2 features did not pass."""
    if any(c.required and any(t.result is Result.FAIL for t in c.tests) for c in categories):
        return 0
    if requested_level >= 2 and any(c.name == LEVEL2_FEATURES and c.result is not Result.PASS for c in categories):
        return 1  # Level 2 features not demonstrated (failed, or warned for lack of evidence)
    return requested_level


LEVEL2_FEATURES = "Level 2 Features"
