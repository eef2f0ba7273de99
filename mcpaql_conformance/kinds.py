"""What a JSON document is, so that a file given to the wrong command is named as what it is.

The tool reads seven kinds of file: evidence bundles, conformance reports, suites, capture
plans, baselines, agent tasks and agent scenarios. Each loader calls ``refuse_other_kinds`` first: a report passed
to `test` is not judged as an empty bundle (41 lines of "no evidence"), it is one line
that says what the file is and which command takes it, exit 3.
"""

from __future__ import annotations

import difflib
import shlex
from typing import Any

from mcpaql_conformance.errors import ConfigError

BUNDLE = "an evidence bundle"
REPORT = "a conformance report"
SUITE = "a suite"
PLAN = "a capture plan"
BASELINE = "a baseline"
TASKS = "an agent tasks file"
SCENARIO = "an agent scenario"

# Keys that only one kind has (a bundle's evidence sections, a report's verdicts...).
_BUNDLE_KEYS = frozenset(
    {
        "introspection", "parameter_tests", "error_tests", "accepted_parameters", "round_trip_tests",
        "update_preservation_tests", "constraint_tests", "semantic_tests", "agent_tests", "batch_example",
        "endpoint_modes", "capabilities", "routing_tests", "valid_requests", "mcp_tools", "capture_notes",
        "capture_readings", "provenance", "expected_exit_code", "expected_level", "agent_runs",
    }
)  # fmt: skip
_REPORT_KEYS = frozenset({"summary", "exitCode", "requestedLevel", "conformanceLevel", "specVersion", "toolVersion"})
_PLAN_KEYS = frozenset({"values", "env", "examples", "create_read", "update_read", "constraints"})
PLAN_SCHEMA = "https://mcpaql-conformance.dev/schemas/plan.schema.json"


def kind_of(data: Any) -> str | None:
    """The kind of a parsed JSON document, or None when nothing marks it as one."""
    if isinstance(data, list):
        return BASELINE if data and all(_baseline_entry(item) for item in data) else None
    if not isinstance(data, dict):
        return None
    keys = data.keys()
    if keys & _BUNDLE_KEYS:
        return BUNDLE
    if isinstance(data.get("categories"), list) and keys & _REPORT_KEYS:
        return REPORT
    if "bundles" in keys:
        return SUITE
    if isinstance(data.get("tasks"), list) and not keys & _PLAN_KEYS:
        return TASKS
    if isinstance(data.get("events"), list) and "name" in keys:
        return SCENARIO
    if data.get("$schema") == PLAN_SCHEMA or keys & _PLAN_KEYS:
        return PLAN
    entries = data.get("entries")
    if isinstance(entries, list) and all(_baseline_entry(item) for item in entries):
        return BASELINE
    return None


def _baseline_entry(item: Any) -> bool:
    return isinstance(item, dict) and "reason" in item and ("id" in item or "category" in item)


def _advice(kind: str, source: str) -> str:
    source = shlex.quote(source)
    return {
        BUNDLE: f"judge it with: mcpaql-conformance test {source}",
        REPORT: f"show it with: mcpaql-conformance report {source} (a badge: mcpaql-conformance badge {source})",
        SUITE: f"judge its members with: mcpaql-conformance test {source}",
        PLAN: f"use it with: mcpaql-conformance capture --plan {source} -- SERVER COMMAND",
        BASELINE: f"use it with: mcpaql-conformance test BUNDLE --baseline {source}",
        TASKS: f"use it with: mcpaql-conformance agent --tasks {source} --model PROVIDER:MODEL -- SERVER COMMAND",
        SCENARIO: f"use it with: mcpaql-conformance agent --scenario {source} -- SERVER COMMAND",
    }[kind]


def refuse_other_kinds(data: Any, source: str, expected: str, *also: str) -> None:
    """Raise a ConfigError naming what ``data`` is when it is marked as another kind than
    ``expected`` (or one of ``also``), with the command that takes it."""
    kind = kind_of(data)
    if kind is not None and kind != expected and kind not in also:
        raise ConfigError(f"{source} is {kind}, not {expected}; {_advice(kind, source)}")
    if expected != SUITE and SUITE not in also:
        return
    near = near_suite_key(data)
    if kind is None and near is not None:
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
        if folded in ("members", "files", "paths") or difflib.get_close_matches(folded, ["bundles"], cutoff=0.7):
            return str(key)
    return None
