"""`mcpaql-conformance rules`: the requirement registry in three formats, filtered by whether a test
judges each rule, with the coverage per document and keyword."""

from __future__ import annotations

import json

from tests.acceptance.conftest import run_cli


def test_rules_lists_every_rule_with_its_tests_or_why_not() -> None:
    result = run_cli("rules")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "core:4.6:unknown-rejected  MUST (MUST)  versions/v1.0.0-draft.md §4.6" in out
    assert "    judged by L1.params.unknown-explicit (proven: a server that accepts a parameter the operation" in out
    # a rule a test names without a defect proof would be not judged, saying so: every one has its proof
    assert "no proof yet" not in out
    assert "not judged: about conformance runners" in out
    assert "  total: MUST " in out and " rules (" in out


def test_rules_as_json_counts_and_filters() -> None:
    everything = json.loads(run_cli("rules", "-f", "json").stdout)
    judged = json.loads(run_cli("rules", "-f", "json", "--judged").stdout)
    unjudged = json.loads(run_cli("rules", "-f", "json", "--not-judged").stdout)
    assert len(judged["rules"]) + len(unjudged["rules"]) == len(everything["rules"]) > 400
    assert all(rule["tests"] and rule["proof"]["breaks"] and rule["judged"] for rule in judged["rules"])
    assert all(rule["notJudged"] and not rule["judged"] and rule["proof"] is None for rule in unjudged["rules"])
    unproven = [rule["id"] for rule in unjudged["rules"] if rule["tests"]]  # named by a test, no proof yet
    assert unproven == []  # every rule a test names is proven (issue 36)
    rule = next(rule for rule in everything["rules"] if rule["id"] == "core:4.6:unknown-rejected")
    assert rule["strength"] == "MUST" and rule["document"] == "versions/v1.0.0-draft.md" and rule["section"] == "4.6"
    total = everything["coverage"][-1]
    assert total["document"] == "total" and total["all"][0] == len(everything["rules"])
    assert everything["coverage"] == judged["coverage"]  # the coverage is always of the whole registry
    may = next(rule for rule in everything["rules"] if rule["keyword"] == "MAY")
    assert may["strength"] is None  # a MAY never fails anything


def test_rules_as_markdown_escapes_and_tabulates() -> None:
    out = run_cli("rules", "-f", "markdown").stdout
    assert out.startswith("# MCP-AQL requirement registry\n\n## Coverage\n\n| Document | MUST judged |")
    assert "| core:4\\.6:unknown\\-rejected | MUST |" in out or "| core:4.6:unknown-rejected | MUST |" in out


def test_a_wrong_rules_option_is_a_configuration_error() -> None:
    result = run_cli("rules", "-f", "yaml")
    assert result.returncode == 3 and "error: Invalid value for '--format'" in result.stderr
