"""What a JSON document is, so that a file given to the wrong command is named as what it is.

The tool reads nine kinds of file: evidence bundles, conformance reports, suite reports,
suites, capture plans, baselines, agent tasks, agent scenarios and model prices. Each loader calls
``refuse_other_kinds`` first: a report passed to `test` is not judged as an empty bundle
(41 lines of "no evidence"), it is one line that says what the file is and which command
takes it, exit 3.

A report is known by its own structure (``categories``, each with its ``tests``, and a key
only reports have) before any bundle key is looked at, so the additive keys a report may
carry (``provenance``, ``baseline``, capture notes, agent metrics...) never make it a bundle;
a document with evidence in it is a bundle whatever else it holds.
"""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.errors import ConfigError

BUNDLE = "an evidence bundle"
REPORT = "a conformance report"
SUITE = "a suite"
SUITE_REPORT = "a suite report"
PLAN = "a capture plan"
BASELINE = "a baseline"
TASKS = "an agent tasks file"
SCENARIO = "an agent scenario"
PRICES = "a prices file"

# Keys that only one kind has (a bundle's evidence sections, a report's verdicts...).
_EVIDENCE_KEYS = frozenset(
    {
        "introspection", "parameter_tests", "error_tests", "accepted_parameters", "round_trip_tests",
        "update_preservation_tests", "constraint_tests", "semantic_tests", "agent_tests", "batch_example",
        "endpoint_modes", "capabilities", "routing_tests", "valid_requests", "mcp_tools",
    }
)  # fmt: skip
# A bundle's metadata: a bundle's mark too, but a report may carry some of them (provenance).
_BUNDLE_METADATA_KEYS = frozenset(
    {"capture_notes", "capture_readings", "provenance", "expected_exit_code", "expected_level", "agent_runs"}
)
_BUNDLE_KEYS = _EVIDENCE_KEYS | _BUNDLE_METADATA_KEYS
_REPORT_KEYS = frozenset({"summary", "exitCode", "requestedLevel", "conformanceLevel", "specVersion", "toolVersion"})
_PLAN_KEYS = frozenset({"values", "env", "examples", "create_read", "update_read", "constraints"})
PLAN_SCHEMA_FILE = "plan.schema.json"
LEGACY_PLAN_SCHEMA = "https://mcpaql-conformance.dev/schemas/plan.schema.json"  # what older plans carry


def names_plan_schema(value: Any) -> bool:
    """Whether a ``$schema`` value points at the plan schema: a path to the file (as shipped and
    written plans have it: ``../mcpaql_conformance/files/schemas/plan.schema.json``, ``plan.schema.json``)
    or the address older plans carry."""
    return isinstance(value, str) and value.replace("\\", "/").rsplit("/", 1)[-1] == PLAN_SCHEMA_FILE


def kind_of(data: Any) -> str | None:
    """The kind of a parsed JSON document, or None when nothing marks it as one."""
    if isinstance(data, list):
        return BASELINE if data and all(_baseline_entry(item) for item in data) else None
    if not isinstance(data, dict):
        return None
    keys = data.keys()
    if not keys & _EVIDENCE_KEYS:
        if is_report_shaped(data):
            return REPORT
        if is_suite_report_shaped(data):
            return SUITE_REPORT
    if keys & _BUNDLE_KEYS:
        return BUNDLE
    if "bundles" in keys:
        return SUITE
    if isinstance(data.get("tasks"), list) and not keys & _PLAN_KEYS:
        return TASKS
    if isinstance(data.get("events"), list) and "name" in keys:
        return SCENARIO
    if isinstance(data.get("models"), dict) and "tasks" not in keys:
        return PRICES
    if names_plan_schema(data.get("$schema")) or keys & _PLAN_KEYS:
        return PLAN
    entries = data.get("entries")
    if isinstance(entries, list) and all(_baseline_entry(item) for item in entries):
        return BASELINE
    return None


def is_report_shaped(data: Any) -> bool:
    """A conformance report's own structure: ``categories``, a list of objects each with its
    ``tests`` (a list), and one of the keys only a report has (``summary``, ``exitCode``...)."""
    if not isinstance(data, dict) or not data.keys() & _REPORT_KEYS:
        return False
    categories = data.get("categories")
    return isinstance(categories, list) and all(
        isinstance(category, dict) and isinstance(category.get("tests"), list) for category in categories
    )


def is_suite_report_shaped(data: Any) -> bool:
    """A suite report (``test`` on a suite, a folder or several bundles): ``suite``, ``exitCode``
    and ``members``, each member an object with its bundle and exit code."""
    if not isinstance(data, dict) or "suite" not in data or "exitCode" not in data:
        return False
    members = data.get("members")
    return isinstance(members, list) and all(
        isinstance(member, dict) and "bundle" in member and "exitCode" in member for member in members
    )


def _baseline_entry(item: Any) -> bool:
    return isinstance(item, dict) and "reason" in item and ("id" in item or "category" in item)


def _advice(kind: str, source: str) -> str:
    import shlex

    source = shlex.quote(source)
    return {
        BUNDLE: f"judge it with: mcpaql-conformance test {source}",
        REPORT: f"show it with: mcpaql-conformance report {source} (a badge: mcpaql-conformance badge {source})",
        SUITE_REPORT: f"show it with: mcpaql-conformance report {source} (a badge: mcpaql-conformance badge {source})",
        SUITE: f"judge its members with: mcpaql-conformance test {source}",
        PLAN: f"use it with: mcpaql-conformance capture --plan {source} -- SERVER COMMAND",
        BASELINE: f"use it with: mcpaql-conformance test BUNDLE --baseline {source}",
        TASKS: f"use it with: mcpaql-conformance agent --tasks {source} --model PROVIDER:MODEL -- SERVER COMMAND",
        SCENARIO: f"use it with: mcpaql-conformance agent --scenario {source} -- SERVER COMMAND",
        PRICES: f"use it with: mcpaql-conformance agent --prices {source} --model PROVIDER:MODEL -- SERVER COMMAND",
    }[kind]


def refuse_other_kinds(data: Any, source: str, expected: str, *also: str) -> None:
    """Raise a ConfigError naming what ``data`` is when it is marked as another kind than
    ``expected`` (or one of ``also``), with the command that takes it."""
    kind = kind_of(data)
    if kind is not None and kind != expected and kind not in also:
        raise ConfigError(f"{source} is {kind}, not {expected}; {_advice(kind, source)}")
    if kind is not None or (expected != SUITE and SUITE not in also):
        return
    near = near_suite_key(data)
    if near is not None:
        raise ConfigError(
            f"{source} looks like a suite with its members under {near!r}: a suite lists them under"
            ' "bundles" ({"name": ..., "bundles": ["a.json", "evidence/*.json"]})'
        )


def near_suite_key(data: Any) -> str | None:
    """A key that is almost "bundles" and holds a list of paths (``"bundle"``, ``"Bundles"``,
    ``"members"``), in a document that is otherwise no known kind."""
    if not isinstance(data, dict) or "bundles" in data:
        return None
    for key, value in data.items():
        if not isinstance(value, list) or not value or not all(isinstance(item, str) for item in value):
            continue
        folded = str(key).casefold()
        if folded in ("members", "files", "paths") or _close(folded, "bundles"):
            return str(key)
    return None


def _close(word: str, to: str) -> bool:
    """Whether a key is a likely misspelling of another (``bundels``: ``bundles``)."""
    import difflib

    return bool(difflib.get_close_matches(word, [to], cutoff=0.7))


# The evidence sections that make a document with "bundles" a bundle, not a suite (the four every
# Level 1 bundle has; the rest of _EVIDENCE_KEYS never made one a bundle here).
_SUITE_EXCLUDES = ("introspection", "parameter_tests", "error_tests", "accepted_parameters")


def is_suite(data: Any) -> bool:
    """A suite lists bundles and records no evidence itself."""
    return (
        isinstance(data, dict) and "bundles" in data and not any(key in data for key in _SUITE_EXCLUDES)
    )  # json: keys
