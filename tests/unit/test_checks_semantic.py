"""Semantic Evaluation (SHOULD): Tier 1 patterns, Tier 2 criteria and the tier modes (difference 7)."""

from __future__ import annotations

from typing import Any

from bundle_builders import report

from mcpaql_conformance.verdict.model import Result
from mcpaql_conformance.verdict.model import TestResult as Verdict

Bundle = dict[str, Any]
SEMANTIC = "Semantic Evaluation"


def semantic_results(bundle: Bundle, tier: str = "both") -> list[Verdict]:
    return list(report(bundle, level=2, tier=tier, category=SEMANTIC).categories[0].tests)


def only_result(bundle: Bundle, tier: str = "both") -> Verdict:
    (result,) = semantic_results(bundle, tier)
    return result


def case(bundle: Bundle) -> dict[str, Any]:
    semantic_case: dict[str, Any] = bundle["semantic_tests"][0]
    return semantic_case


def miss_tier1(bundle: Bundle) -> None:
    case(bundle)["structural"]["required_patterns"] = ["get_widget", "mcp_aql_execute"]


def miss_tier2(bundle: Bundle) -> None:
    case(bundle)["semantic"]["expected_operations"] = ["create_widget"]


# Evidence


def test_no_semantic_tests_warn_for_lack_of_evidence(bundle: Bundle) -> None:
    del bundle["semantic_tests"]
    result = only_result(bundle)
    assert result.id == "L2.semantic.evidence"
    assert result.result is Result.WARN
    assert result.detail == "no evidence: no semantic_tests or agent_tests"


def test_each_case_is_its_own_test_named_after_it(bundle: Bundle) -> None:
    result = only_result(bundle)
    assert result.id == "L2.semantic.find-a-widget"
    assert result.name == "Find a widget"
    assert result.tier == "both"


def test_cases_with_the_same_slug_get_distinct_ids(bundle: Bundle) -> None:
    bundle["semantic_tests"].append(dict(case(bundle), name="Find a widget!"))
    bundle["semantic_tests"].append(dict(case(bundle), name="???"))
    ids = [t.id for t in semantic_results(bundle)]
    assert ids == ["L2.semantic.find-a-widget", "L2.semantic.find-a-widget-2", "L2.semantic.unnamed"]


def test_hostile_case_names_make_safe_ids(bundle: Bundle) -> None:
    case(bundle)["name"] = "\x1b[31m<script>\n# x"
    result = only_result(bundle)
    assert result.id == "L2.semantic.31m-script-x"


# Two-tier matrix (--tier both)


def test_both_tiers_passing_pass(bundle: Bundle) -> None:
    result = only_result(bundle)
    assert result.result is Result.PASS
    assert result.detail == "Tier 1 and Tier 2 both confirmed the expected discovery behaviour."


def test_tier1_miss_with_tier2_pass_warns(bundle: Bundle) -> None:
    miss_tier1(bundle)
    result = only_result(bundle)
    assert result.result is Result.WARN
    assert result.detail == "Tier 2 passed but Tier 1 missed mcp_aql_execute: update the structural patterns."


def test_tier2_failure_fails_even_when_tier1_passes(bundle: Bundle) -> None:
    miss_tier2(bundle)
    result = only_result(bundle)
    assert result.result is Result.FAIL
    assert result.detail == "Tier 2 failed: missed call to create_widget."


def test_both_tiers_failing_fail(bundle: Bundle) -> None:
    miss_tier1(bundle)
    miss_tier2(bundle)
    assert only_result(bundle).result is Result.FAIL


def test_tier2_pass_without_tier1_patterns_warns(bundle: Bundle) -> None:
    del case(bundle)["structural"]
    result = only_result(bundle)
    assert result.result is Result.WARN
    assert result.detail == "Tier 2 passed, but there are no Tier 1 patterns to confirm it quickly."


def test_no_tier2_criteria_warn_as_no_evidence(bundle: Bundle) -> None:
    del case(bundle)["semantic"]
    result = only_result(bundle)
    assert result.result is Result.WARN
    assert result.detail.startswith("no evidence: no Tier 2 criteria")


def test_a_tier2_failure_makes_the_should_category_warn_with_exit_2(bundle: Bundle) -> None:
    miss_tier2(bundle)
    result = report(bundle, level=2)
    category = next(c for c in result.categories if c.name == SEMANTIC)
    assert category.result is Result.WARN
    assert result.exit_code == 2
    assert result.conformance_level == 2


# Tier 2 criteria


def test_a_phrase_group_is_met_by_any_of_its_phrases(bundle: Bundle) -> None:
    case(bundle)["semantic"]["phrase_groups"] = [["retrieve", "fetch", "call"]]
    assert only_result(bundle).result is Result.PASS


def test_an_unmet_phrase_group_is_listed(bundle: Bundle) -> None:
    case(bundle)["semantic"]["phrase_groups"] = [["delete", "remove"]]
    result = only_result(bundle)
    assert result.result is Result.FAIL
    assert result.detail == "Tier 2 failed: missed phrase group [delete | remove]."


def test_phrases_match_whole_words_only(bundle: Bundle) -> None:
    case(bundle)["semantic"]["phrase_groups"] = [["get"]]
    result = only_result(bundle)
    assert result.result is Result.FAIL
    assert "missed phrase group [get]" in result.detail


def test_phrases_ignore_case_and_punctuation(bundle: Bundle) -> None:
    case(bundle)["semantic"]["phrase_groups"] = [["CALL GET_WIDGET"]]
    assert only_result(bundle).result is Result.PASS


def test_an_expected_parameter_may_appear_in_nested_call_params(bundle: Bundle) -> None:
    case(bundle)["response_text"] = "Call get_widget through mcp_aql_read."
    case(bundle)["semantic"]["phrase_groups"] = []
    case(bundle)["semantic"]["expected_parameters"] = ["widget_id"]
    case(bundle)["tool_calls"] = [{"operation": "get_widget", "params": {"filter": {"widget_id": "w1"}}}]
    assert only_result(bundle).result is Result.PASS


def test_an_expected_parameter_may_be_named_in_the_answer(bundle: Bundle) -> None:
    case(bundle)["tool_calls"] = [{"operation": "get_widget"}]
    assert only_result(bundle).result is Result.PASS


def test_an_expected_parameter_neither_used_nor_named_is_missed(bundle: Bundle) -> None:
    case(bundle)["semantic"]["expected_parameters"] = ["fields"]
    result = only_result(bundle)
    assert result.result is Result.FAIL
    assert result.detail == "Tier 2 failed: missed parameter fields."


def test_an_operation_only_named_in_the_text_is_not_a_call(bundle: Bundle) -> None:
    case(bundle)["tool_calls"] = []
    result = only_result(bundle)
    assert result.result is Result.FAIL
    assert result.detail == "Tier 2 failed: missed call to get_widget."


def test_every_missed_tier2_item_is_listed(bundle: Bundle) -> None:
    case(bundle)["tool_calls"] = []
    case(bundle)["semantic"]["expected_parameters"] = ["fields"]
    case(bundle)["semantic"]["phrase_groups"] = [["delete"]]
    result = only_result(bundle)
    assert result.detail == "Tier 2 failed: missed phrase group [delete], call to get_widget, parameter fields."


# --tier 2: the Tier 2 verdict alone


def test_tier2_mode_passes_on_tier2_alone(bundle: Bundle) -> None:
    miss_tier1(bundle)
    result = only_result(bundle, tier="2")
    assert result.result is Result.PASS
    assert result.detail == "Tier 2 confirmed the expected discovery behaviour."
    assert result.tier == "2"


def test_tier2_mode_fails_on_a_tier2_failure(bundle: Bundle) -> None:
    miss_tier2(bundle)
    result = only_result(bundle, tier="2")
    assert result.result is Result.FAIL
    assert result.detail == "Tier 2 failed: missed call to create_widget."


def test_tier2_mode_without_criteria_warns(bundle: Bundle) -> None:
    del case(bundle)["semantic"]
    result = only_result(bundle, tier="2")
    assert result.result is Result.WARN
    assert "no evidence" in result.detail


# --tier 1: structural only, and says so


def test_tier1_mode_passes_when_patterns_are_found_and_says_tier2_was_not_run(bundle: Bundle) -> None:
    miss_tier2(bundle)
    result = only_result(bundle, tier="1")
    assert result.result is Result.PASS
    assert result.detail == "Tier 1 only: every structural pattern was found (Tier 2 not run)."
    assert result.tier == "1"


def test_tier1_mode_warns_when_patterns_are_missed(bundle: Bundle) -> None:
    miss_tier1(bundle)
    result = only_result(bundle, tier="1")
    assert result.result is Result.WARN
    assert result.detail == "Tier 1 only: missed mcp_aql_execute; inconclusive without Tier 2."


def test_tier1_mode_without_patterns_is_inconclusive(bundle: Bundle) -> None:
    del case(bundle)["structural"]
    result = only_result(bundle, tier="1")
    assert result.result is Result.WARN
    assert result.detail == "Tier 1 only: no structural patterns to check; inconclusive without Tier 2."


def test_tier1_patterns_match_whole_words(bundle: Bundle) -> None:
    case(bundle)["structural"]["required_patterns"] = ["get_wid"]
    result = only_result(bundle, tier="1")
    assert result.result is Result.WARN
    assert result.detail == "Tier 1 only: missed get_wid; inconclusive without Tier 2."


def test_semantic_test_ids_stay_unique_whatever_the_names() -> None:
    from bundle_builders import conformant_bundle

    data = conformant_bundle()
    template = data["semantic_tests"][0]
    data["semantic_tests"] = [dict(template, name=name) for name in ("find notes", "find notes", "find notes 2")]
    tests = report(data, level=2, category="Semantic Evaluation").categories[0].tests
    assert [t.id for t in tests] == [
        "L2.semantic.find-notes",
        "L2.semantic.find-notes-2",
        "L2.semantic.find-notes-2-2",
    ]


def agent_bundle(**agent: Any) -> dict[str, Any]:
    from bundle_builders import conformant_bundle

    data = conformant_bundle()
    data["agent_tests"] = [
        {
            "_description": "Find a widget",
            "input": "Show me widget w1",
            "expectedTools": ["read/get_widget"],
            "expectedContent": ["Widget One"],
            "tool_calls": [{"endpoint": "mcp_aql_read", "operation": "get_widget", "params": {"widget_id": "w1"}}],
            "response_text": "Here it is: widget one, created today.",
            **agent,
        }
    ]
    return data


def agent_result(data: dict[str, Any]) -> Verdict:
    tests = report(data, level=2, category="Semantic Evaluation").categories[0].tests
    return next(t for t in tests if t.id.startswith("L2.semantic.agent-"))


def test_an_agent_test_passes_on_the_expected_tools_and_content_case_insensitively() -> None:
    test = agent_result(agent_bundle())
    assert test.result is Result.PASS and test.id == "L2.semantic.agent-find-a-widget"
    assert test.detail == "Called read/get_widget and answered with the expected content."


def test_an_agent_that_used_other_tools_fails_deterministically() -> None:
    test = agent_result(agent_bundle(tool_calls=[{"operation": "introspect", "params": {}}]))
    assert test.result is Result.FAIL
    assert test.detail == "did not call read/get_widget (called: read/introspect)"


def test_an_agent_answer_without_the_expected_content_fails() -> None:
    test = agent_result(agent_bundle(response_text="I could not find it."))
    assert test.result is Result.FAIL
    assert "answer lacks 'Widget One'" in test.detail
