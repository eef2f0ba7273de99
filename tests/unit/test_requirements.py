"""Results per requirement (issue 36, part 4): what a run says of every server rule, in the JSON,
markdown and HTML reports and in `rules --report`."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import orjson
import pytest
from bundle_builders import conformant_bundle, report
from click.testing import CliRunner
from click.testing import Result as Ran

from mcpaql_conformance.report.html import render_html
from mcpaql_conformance.report.json import report_dict
from mcpaql_conformance.report.markdown import render_markdown
from mcpaql_conformance.report.requirements import RuleResult, requirement_results, requirements_text
from mcpaql_conformance.report.saved import report_from_data
from mcpaql_conformance.verdict.model import CategoryResult, Report, Result
from mcpaql_conformance.verdict.model import TestResult as Verdict
from mcpaql_conformance.verdict.rules import BY_ID, RULES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cli() -> Any:
    from mcpaql_conformance.cli.group import cli as group

    def run(*args: str) -> Ran:
        return CliRunner().invoke(group, list(args))

    return run


def results_of(run: Report) -> dict[str, RuleResult]:
    return {item.rule.id: item for item in requirement_results(run)}


def failure_report() -> Report:
    data = orjson.loads((ROOT / "fixtures" / "l1-conformant-notes.json").read_bytes())
    data["error_tests"][0]["response"]["error"]["message"] = "TypeError: url is undefined"
    data["accepted_parameters"] = data.get("accepted_parameters") or {}
    return report(data, level=2)


def with_tests(*tests: Verdict, tool: str | None = "mcpaql-conformance", **fields: Any) -> Report:
    category = CategoryResult("Introspection", True, tests)
    return Report(None, None, None, 1, 1, (category,), 0, tool=tool, **fields)


def test_every_server_rule_has_a_result_and_no_other_rule_does() -> None:
    results = requirement_results(report(conformant_bundle(), level=2))
    assert [item.rule.id for item in results] == [rule.id for rule in RULES if rule.subject == "server"]
    assert {item.result for item in results} <= {"PASS", "SKIP", "NOT_JUDGED"}


def test_a_finding_citing_a_must_fails_it_and_the_rules_that_restate_it() -> None:
    results = results_of(failure_report())
    leak = results["introspection:8.1.3:no-language-errors"]
    assert leak.result == "FAIL"
    assert leak.evidence and leak.evidence[0].test == "L1.errors.no-leakage"
    assert "TypeError" in leak.evidence[0].finding
    assert leak.reason.startswith("1 finding(s) of L1.errors.no-leakage cite it")
    gathered = results["conformance:2.1:error-quality"]
    assert gathered.result == "FAIL"
    assert gathered.reason.startswith("asks every test it names to pass: L1.errors.no-leakage FAIL")
    assert results["conformance:2.1:parameter-handling"].result == "PASS"


def test_a_restating_rule_fails_through_the_rule_it_restates() -> None:
    finding = "get_widget.extra: accepted without a word"
    test = Verdict(
        "L1.params.unknown-explicit", "Unknown parameters", Result.FAIL, "x", findings=(finding,),
        cited=("core:4.6:unknown-rejected",),
    )  # fmt: skip
    results = results_of(with_tests(test))
    assert results["core:4.6:unknown-rejected"].result == "FAIL"
    restating = results["introspection:8.2.1:not-silent"]
    assert restating.rule.strength.value == "SHOULD"  # a SHOULD NOT: broken, it warns
    assert restating.result == "WARN"
    assert "(through core:4.6:unknown-rejected, which it restates)" in restating.reason
    assert results["core:4.6:unknown-param-code"].result == "PASS"  # same test, another rule: not cited


def test_a_must_cited_in_a_test_that_only_warned_warns_and_a_should_never_fails() -> None:
    must = Verdict(
        "L1.params.unknown-explicit", "Unknown", Result.WARN, "x", findings=("a",), cited=("core:4.6:unknown-rejected",)
    )
    should = Verdict(
        "L1.introspection.operations-query", "Ops", Result.FAIL, "x", findings=("b",),
        cited=("introspection:8.1:protocol-object",),
    )  # fmt: skip
    results = results_of(with_tests(must, should))
    assert results["core:4.6:unknown-rejected"].result == "WARN"
    assert BY_ID["introspection:8.1:protocol-object"].strength.value == "SHOULD"
    assert results["introspection:8.1:protocol-object"].result == "WARN"


def test_a_rule_whose_test_did_not_run_is_skipped_saying_why() -> None:
    skipped = Verdict("L1.roundtrip.update-preservation", "Update", Result.SKIP, "No UPDATE operation is documented.")
    results = results_of(with_tests(skipped))
    merge = results["core:4.5.1:deep-merge"]
    assert (merge.result, merge.reason) == (
        "SKIP",
        "L1.roundtrip.update-preservation was skipped: No UPDATE operation is documented.",
    )
    batch = results["operations:7.2:batch-results"]
    assert (batch.result, batch.reason) == ("SKIP", "not in this run: L2.features.batch")


def test_a_pass_needs_the_evidence_the_rule_is_about() -> None:
    passed = Verdict("L1.params.required-enforced", "Required", Result.PASS, "ok")
    without = results_of(with_tests(passed, evidence=("parameter_tests", "category:READ")))
    assert without["core:4.5.3:missing-input-rejected"].result == "SKIP"
    assert without["core:4.5.3:missing-input-rejected"].reason == (
        "nothing to judge it by: the run holds no update_input_tests"
    )
    details = Verdict("L1.introspection.operation-details", "Details", Result.PASS, "ok")
    no_update = results_of(with_tests(details, evidence=("category:READ",)))
    assert no_update["core:4.5:update-input"].reason == "nothing to judge it by: the run holds no UPDATE operation"
    held = results_of(with_tests(passed, evidence=("update_input_tests",)))
    assert held["core:4.5.3:missing-input-rejected"].result == "PASS"
    unknown = results_of(with_tests(passed))  # a report that does not say what it held
    assert unknown["core:4.5.3:missing-input-rejected"].result == "PASS"


def test_a_test_that_judged_nothing_or_another_tools_uncited_findings_decide_no_rule() -> None:
    empty = Verdict("L1.params.unknown-explicit", "Unknown", Result.FAIL, "no evidence: no unknown-parameter calls")
    results = results_of(with_tests(empty))
    assert results["core:4.6:unknown-rejected"].result == "NOT_JUDGED"
    assert results["core:4.6:unknown-rejected"].reason == (
        "L1.params.unknown-explicit FAIL without a finding: no evidence: no unknown-parameter calls"
    )
    theirs = Verdict("", "Unknown parameters", Result.FAIL, "x", findings=("extra accepted",))
    named = {test.id: test.name for category in report(conformant_bundle()).categories for test in category.tests}
    name = named["L1.params.unknown-explicit"]
    results = results_of(with_tests(dataclasses.replace(theirs, name=name), tool=None))
    assert results["core:4.6:unknown-rejected"].result == "NOT_JUDGED"
    assert "findings naming no rule (a report of another tool)" in results["core:4.6:unknown-rejected"].reason
    ours = results_of(with_tests(dataclasses.replace(theirs, id="L1.params.unknown-explicit")))
    assert ours["core:4.6:unknown-rejected"].result == "PASS"  # our uncited findings are about no rule


def test_rules_no_test_judges_are_not_judged_with_the_registrys_reason() -> None:
    results = results_of(report(conformant_bundle(), level=2))
    may = next(rule for rule in RULES if rule.subject == "server" and rule.keyword == "MAY")
    assert (results[may.id].result, results[may.id].reason, results[may.id].standing) == (
        "NOT_JUDGED",
        "a MAY",  # the class of reason; `rules` gives the whole of it
        True,
    )


def test_the_json_report_carries_requirements_and_a_saved_report_gives_them_back() -> None:
    run = failure_report()
    data = orjson.loads(orjson.dumps(report_dict(run)))
    entries = {entry["rule"]: entry for entry in data["requirements"]}
    assert entries["introspection:8.1.3:no-language-errors"]["result"] == "FAIL"
    assert entries["introspection:8.1.3:no-language-errors"]["findings"][0]["test"] == "L1.errors.no-leakage"
    assert "category:READ" in data["evidence"]
    again = report_from_data(data)
    assert again.evidence == run.evidence
    assert [entry for entry in report_dict(again)["requirements"]] == data["requirements"]


def test_markdown_and_html_show_a_table_per_document_with_hostile_text_escaped() -> None:
    hostile = "TypeError: <script>alert(1)</script> | x"
    test = Verdict(
        "L1.errors.no-leakage", "Leaks", Result.FAIL, "x", findings=(hostile,),
        cited=("introspection:8.1.3:no-language-errors",),
    )  # fmt: skip
    run = with_tests(test)
    text = render_markdown(run)
    assert "<details><summary>versions/v1.0.0-draft.md: " in text
    row = next(line for line in text.splitlines() if "introspection:8.1.3:no-language-errors" in line)
    assert row.startswith("| FAIL | introspection:8.1.3:no-language-errors | MUST NOT | 8.1.3 |")
    assert "&lt;script&gt;" in row and "\\| x" in row
    html = render_html(run)
    section = html[html.index('<section id="requirements">') :]
    assert '<tr class="requirement" data-result="FAIL"><td class="FAIL">FAIL</td>' in section
    assert "<script>alert" not in section and "&lt;script&gt;alert(1)&lt;/script&gt;" in section


def test_rules_report_prints_the_saved_runs_results_per_document(cli: Any, tmp_path: Path) -> None:
    saved = tmp_path / "report.json"
    saved.write_bytes(orjson.dumps(report_dict(failure_report())))
    shown = cli("rules", "--report", str(saved))
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].startswith("Requirements: ")
    assert "FAIL" in lines[0] and "not judged" in lines[0]
    at = lines.index(next(line for line in lines if "introspection:8.1.3:no-language-errors" in line))
    assert lines[at].split()[:2] == ["FAIL", "introspection:8.1.3:no-language-errors"]
    assert "TypeError" in lines[at + 1]
    assert lines[-1] == "Rules no test judges yet are counted, not listed: `mcpaql-conformance rules --not-judged`."
    as_json = orjson.loads(cli("rules", "--report", str(saved), "-f", "json").output)
    assert as_json["requirements"] == orjson.loads(saved.read_bytes())["requirements"]
    everything = cli("rules", "--report", str(saved), "--not-judged").output
    assert "core:2.3.4:may-persist" in everything and "core:2.3.4:may-persist" not in shown.output


def test_rules_report_of_something_else_is_one_line_and_exit_3(cli: Any, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(orjson.dumps(conformant_bundle()))
    result = cli("rules", "--report", str(bundle))
    assert result.exit_code == 3
    assert result.output.strip().splitlines() == [
        f"error: {bundle} is an evidence bundle, not a conformance report; judge it with: "
        f"mcpaql-conformance test {bundle}"
    ]
    assert cli("rules", "--report", str(tmp_path / "none.json")).exit_code == 3


def test_the_text_lists_every_result_with_its_reason() -> None:
    text = requirements_text(requirement_results(failure_report()))
    assert "\nintrospection.md (Introspection): " in text
    assert "\x1b" not in text


def test_a_rule_naming_the_semantic_tests_reads_each_of_them() -> None:
    semantic = Verdict("L2.semantic.discovery", "Discovery", Result.WARN, "x", findings=("missed",), cited=("",))
    results = results_of(with_tests(semantic))
    level2 = results["conformance:4.2:level2-categories"]  # gathers L2.semantic among others
    assert (level2.result, level2.reason) == ("WARN", "asks every test it names to pass: L2.semantic.discovery WARN")


def test_a_description_rule_passes_only_where_the_tool_it_is_about_was_described() -> None:
    data = conformant_bundle()
    families = sorted({detail["endpoint"] for detail in data["introspection"]["operation_details"]})
    described = 'Notes.\n\nSupported operations: introspect\n\n{ operation: "introspect" } introspect'
    data["mcp_tools"] = [{"name": f"mcp_aql_{family}", "description": described} for family in families]
    run = report(data, level=2)
    assert "mcp_tools:single" not in run.evidence and "mcp_tools:custom_family" not in run.evidence
    results = results_of(run)
    assert results["endpoint-modes:5.4:unified-description"].result == "SKIP"
    assert (
        "single tool (mcp_aql) whose description capture recorded"
        in results["endpoint-modes:5.4:unified-description"].reason
    )
    assert results["endpoint-modes:4.7:intent-revealing-names"].result == "SKIP"
    data["mcp_tools"] += [{"name": "mcp_aql", "description": "All operations, by CREATE and READ: { operation: x }"},
                          {"name": "mcp_aql_query", "description": described}]  # fmt: skip
    run = report(data, level=2)
    assert {"mcp_tools:single", "mcp_tools:custom_family"} <= set(run.evidence)
    assert results_of(run)["endpoint-modes:5.4:unified-description"].result == "PASS"
