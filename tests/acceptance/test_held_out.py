"""How many rules are really judged, measured on servers the proofs were not written against
(issue 36): the demo adapter, a separate implementation from the reading server whose switches
prove the registry's rules, with each of its faults breaking one rule of the spec.

For each fault, ``check`` (Level 2, --allow-destructive) must report the rule it breaks as broken
in the report's ``requirements`` (FAIL for a MUST, WARN or FAIL for a SHOULD), where the demo
without a fault passes that rule. A fault added to the demo without a line here fails the last test.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.demo_adapter.adapter import FAULTS
from mcpaql_conformance.verdict.model import Requirement
from mcpaql_conformance.verdict.rules import BY_ID
from tests.acceptance.conftest import DEMO, run_cli, warm

# fault -> the rule it breaks, read from the spec (not from what the tool happens to say)
BREAKS = {
    "leaky-errors": "introspection:8.1.3:no-language-errors",
    "silent-unknown": "core:4.6:unknown-rejected",
    "warn-unknown": "core:4.6.2:default-rejects",
    "lossy-round-trip": "conformance:2.1:round-trip-integrity",
    "undocumented-param": "introspection:8.1.2:accepted-documented",
    "wrong-endpoint": "core:6.2:wrong-endpoint-rejected",
    "shape-drift": "core:4.7.2:iso-8601",
    "no-limits": "core:4.7.5:enforce-limits",
    "null-bytes": "core:4.7.1:null-bytes",
    "any-case": "operations:2.4:case-sensitive",
    "string-examples": "introspection:8.1:must-list",
    "numeric-request-id": "operations:3.2:success-shape",
    "no-annotations": "mcp:2.3:tool-annotations",
    "bare-descriptions": "mcp:2.1.1:crude-templates",
}
BROKEN = {Requirement.MUST: {"FAIL"}, Requirement.SHOULD: {"WARN", "FAIL"}}


@cache
def requirements(fault: str, folder: Path) -> dict[str, dict[str, Any]]:
    """The ``requirements`` of a check of the demo with ``fault`` ("" for none), by rule id."""
    capture = folder / (re.sub(r"\W+", "-", fault) or "clean")
    args = ["check", "--level", "2", "--allow-destructive", "-f", "json", "--capture-dir", str(capture)]
    extra = ("--fault", fault) if fault else ()
    result = run_cli(*args, "--", *warm(*DEMO, *extra))
    assert result.returncode in (0, 1, 2), result.stderr
    return {entry["rule"]: entry for entry in json.loads(result.stdout)["requirements"]}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("held-out")


@pytest.mark.parametrize(("fault", "rule"), sorted(BREAKS.items()))
def test_a_demo_fault_is_caught_as_the_rule_it_breaks(fault: str, rule: str, folder: Path) -> None:
    strength = BY_ID[rule].strength
    assert strength is not None and BY_ID[rule].judged
    assert requirements("", folder)[rule]["result"] == "PASS", requirements("", folder)[rule]
    broken = requirements(fault, folder)[rule]
    assert broken["result"] in BROKEN[strength], broken
    assert broken.get("findings"), broken  # what decided it


def test_every_demo_fault_breaks_a_rule_listed_here() -> None:
    assert set(BREAKS) == set(FAULTS), "a demo fault without the rule it breaks (or a line for a fault gone)"
