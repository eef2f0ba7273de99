"""The requirement registry: rules of one document (see model.py).

conformance-testing.md defines our tests themselves: its categories (sections 2 and 4) map to
our test ids; its sentences about reports, badges, exit codes and the CLI bind runners."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    DEFINITION,
    GENERATOR,
    MAY,
    MUST,
    NOT_A_REQUIREMENT,
    RUNNER,
    SHOULD,
    Rule,
)

RUNNERS = "about conformance runners"

INTROSPECTION_FIDELITY = (
    "L1.introspection.operations-query",
    "L1.introspection.types-query",
    "L1.introspection.operation-details",
    "L1.introspection.completeness",
)
PARAMETER_HANDLING = (
    "L1.params.required-enforced",
    "L1.params.unknown-explicit",
    "L1.params.defaults",
    "L1.params.snake-case",
)
ERROR_QUALITY = ("L1.errors.discriminated-union", "L1.errors.no-leakage", "L1.errors.actionable")
ROUND_TRIP = ("L1.roundtrip.create-read", "L1.roundtrip.update-preservation")
LEVEL2_FEATURES = ("L2.features.endpoint-modes", "L2.features.field-selection", "L2.features.batch")
CONSTRAINT_DOCUMENTATION = ("L2.constraints.enforced", "L2.constraints.documented")
SEMANTIC = ("L2.semantic",)
LEVEL1 = INTROSPECTION_FIDELITY + PARAMETER_HANDLING + ERROR_QUALITY + ROUND_TRIP
LEVEL2 = LEVEL2_FEATURES + CONSTRAINT_DOCUMENTATION + SEMANTIC

COUNTS = (
    "Within this document §3 defines 9 Level 1 tests (3.1: 2, 3.2: 3, 3.3: 2, 3.4: 2) while the §4.1 table "
    "counts 13 (and the §6.1 report example 11); we take the table's 13, the four extra being the §2.1 "
    "requirements (introspect operations and types queries, snake_case naming, the discriminated union)."
)
LEVEL2_MODES = (
    "core §10.1 makes both endpoint modes (semantic and single) a MUST for Level 2 and asks that the suite be "
    "passed, where this category only warns; the core wins: a Level 2 claim without both modes does not hold "
    "(field selection and batch stay SHOULD in the core too)."
)

RULES: tuple[Rule, ...] = (
    # 1 Introduction
    Rule(
        "conformance:1.1:what-to-test",
        MUST,
        "1.1",
        "What implementations MUST test",
        "Lists, as this document's scope, that it says what must be tested.",
        not_judged=NOT_A_REQUIREMENT,
        subject=DEFINITION,
    ),
    Rule(
        "conformance:1.2:rfc2119",
        MUST,
        "1.2",
        "key words",
        "The keywords of this document carry their RFC 2119 meanings.",
        not_judged=NOT_A_REQUIREMENT,
        subject=DEFINITION,
    ),
    # 2.1 Level 1: the MUST PASS categories
    Rule(
        "conformance:2.1:introspection-fidelity",
        MUST,
        "2.1",
        "Introspection Fidelity",
        "For Level 1 the server passes the introspection tests: list and type queries answer, details and "
        "parameters tell the truth.",
        tests=INTROSPECTION_FIDELITY,
        gathers=True,
    ),
    Rule(
        "conformance:2.1:parameter-handling",
        MUST,
        "2.1",
        "Parameter Handling",
        "For Level 1 the server enforces required parameters, answers unknown ones explicitly, applies documented "
        "defaults and names parameters in snake_case.",
        tests=PARAMETER_HANDLING,
        gathers=True,
        reading=(
            "§3.2's Unknown Parameter test lets a server accept an unknown parameter with a warning, where core §4.6 "
            "requires rejection with VALIDATION_UNKNOWN_PARAM (a warning only with strict_mode off, core §4.6.2); the "
            "core wins: rejection is the rule, a warning instead of the refusal fails (only strict_mode off, in "
            "development, may warn)."
        ),
    ),
    Rule(
        "conformance:2.1:error-quality",
        MUST,
        "2.1",
        "Error Quality",
        "For Level 1 the server's errors are structured, leak no internals and say what went wrong.",
        tests=ERROR_QUALITY,
        gathers=True,
        reading=(
            "The category is MUST PASS but §3.3's Actionable Error Messages test only warns; the specific test over "
            "the category: unactionable messages warn, malformed or leaking errors fail."
        ),
    ),
    Rule(
        "conformance:2.1:round-trip-integrity",
        MUST,
        "2.1",
        "Round-Trip Integrity",
        "For Level 1 what the server stores reads back unchanged, and an update keeps untouched fields.",
        tests=ROUND_TRIP,
        gathers=True,
    ),
    # 2.2 Level 2: the SHOULD PASS categories
    Rule(
        "conformance:2.2:level2-features",
        SHOULD,
        "2.2",
        "Level 2 Features",
        "For Level 2 the server offers both endpoint modes, field selection and batches.",
        tests=LEVEL2_FEATURES,
        gathers=True,
        reading=LEVEL2_MODES,
    ),
    Rule(
        "conformance:2.2:constraint-documentation",
        SHOULD,
        "2.2",
        "Constraint Documentation",
        "For Level 2 read-only and append-only constraints are enforced and disclosed in introspection (judged on "
        "a plan's constraints and on the read-only field capture tries after each inferred update cycle).",
        tests=CONSTRAINT_DOCUMENTATION,
    ),
    Rule(
        "conformance:2.2:semantic-evaluation",
        SHOULD,
        "2.2",
        "Semantic Evaluation",
        "For Level 2 an LLM using only introspection finds and calls the right operations.",
        tests=SEMANTIC,
    ),
    # 2.3 Conformance certification
    Rule(
        "conformance:2.3:claim-levels",
        MAY,
        "2.3",
        "MAY claim conformance levels",
        "An implementation is allowed to state a Level 1 or Level 2 claim.",
        not_judged="a MAY: allowed either way",
    ),
    Rule(
        "conformance:2.3:claim-spec-version",
        MUST,
        "2.3",
        "include the specification version",
        "A conformance claim names the spec version it was tested against (our reports and badges carry it).",
        not_judged="about conformance runners",
        subject=RUNNER,
    ),
    # 4 Test requirements
    Rule(
        "conformance:4.1:level1-categories",
        MUST,
        "4.1",
        "test categories MUST pass",
        "Level 1 needs every test of the four MUST PASS categories to pass.",
        tests=LEVEL1,
        gathers=True,
        reading=COUNTS,
    ),
    Rule(
        "conformance:4.1:thirteen-tests",
        MUST,
        "4.1",
        "Total MUST PASS tests",
        "Counts the Level 1 (MUST PASS) tests: thirteen.",
        not_judged=NOT_A_REQUIREMENT,
        subject=DEFINITION,
        reading=COUNTS,
    ),
    Rule(
        "conformance:4.2:level2-categories",
        SHOULD,
        "4.2",
        "test categories SHOULD pass",
        "Level 2 asks the constraint, feature and semantic categories to pass.",
        tests=LEVEL2,
        gathers=True,
        reading=LEVEL2_MODES,
    ),
    Rule(
        "conformance:4.2:should-failure-warns",
        SHOULD,
        "4.2",
        "Failure in SHOULD PASS tests",
        "A runner reports a failed SHOULD PASS test as WARN, never as a block.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    # 5 Evaluation methodology
    Rule(
        "conformance:5.1:two-tier",
        SHOULD,
        "5.1",
        "two-tier evaluation approach",
        "A runner judges first by structure (fast, deterministic), then by meaning (AI-assisted).",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    Rule(
        "conformance:5.2:semantic-evaluation",
        SHOULD,
        "5.2",
        "LLM discoverability",
        "A runner evaluates LLM discoverability by meaning, not only by patterns.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    # 6 Reporting
    Rule(
        "conformance:6.1:reports",
        SHOULD,
        "6.1",
        "generate conformance reports",
        "Conformance results come out as a report in the shown JSON shape.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    Rule(
        "conformance:6.2:badges",
        MAY,
        "6.2",
        "display badges",
        "A conformant implementation is allowed to show a level badge.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    Rule(
        "conformance:6.3:certification-registry",
        MAY,
        "6.3",
        "certification registry",
        "A later registry is allowed to list conformant implementations.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    # 7 Command-line interface
    Rule(
        "conformance:7.1:cli",
        SHOULD,
        "7.1",
        "provide a command-line interface",
        "A conformance runner can be run from the command line.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    Rule(
        "conformance:7.4:exit-1",
        MUST,
        "7.4",
        "One or more MUST PASS tests failed",
        "A runner exits 1 when a MUST PASS test failed.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    Rule(
        "conformance:7.4:exit-2-must-passed",
        MUST,
        "7.4",
        "All MUST PASS passed",
        "A runner exits 2 only when every MUST PASS test passed.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    Rule(
        "conformance:7.4:exit-2-should-warned",
        SHOULD,
        "7.4",
        "SHOULD PASS tests warned",
        "A runner exits 2 when some SHOULD PASS test warned.",
        not_judged=RUNNERS,
        subject=RUNNER,
    ),
    Rule(
        "conformance:7.6:generator-runs-tests",
        SHOULD,
        "7.6",
        "invoke conformance tests",
        "An adapter generator runs the conformance tests as it generates.",
        not_judged="about adapter generators",
        subject=GENERATOR,
    ),
)
