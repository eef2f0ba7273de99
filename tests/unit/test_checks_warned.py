"""What a server's warnings look like over every answer (verdict/checks/warned.py, features/warnings
§3.2, §6.2, §6.4, §6.5): each finding says where the answer is and cites its SHOULD; answers
without warnings cost nothing and say nothing; a report's evidence says what there was to judge."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.verdict.checks.warned import warning_evidence, warning_findings

SLOW = {"code": "PERFORMANCE_SLOW_QUERY_WARNING", "message": "Slow.", "details": {"ms": 900}, "severity": "low"}


def ok(*warnings: dict[str, Any]) -> dict[str, Any]:
    return {"success": True, "data": {}, "warnings": list(warnings)}


def judged(*responses: Any) -> list[tuple[str, str]]:
    found = warning_findings([("$.cases[{}].response", list(responses))], lambda t, i: f"answer {i}")
    return [(getattr(finding, "rule", ""), str(finding)) for finding in found]


def test_answers_with_few_distinct_detailed_warnings_pass() -> None:
    assert judged(ok(SLOW), ok(SLOW), {"success": True, "data": {}}, "text", None) == []
    assert warning_evidence([("$", [ok(SLOW), ok(SLOW)])]) == ["responses:warnings", "responses:repeated_warning"]
    assert warning_evidence([("$", [{"success": True, "data": {}}])]) == []


def test_more_than_ten_warnings_in_one_answer_warn() -> None:
    many = [{**SLOW, "details": {"ms": n}} for n in range(11)]
    assert judged(ok(*many)) == [
        ("features/warnings:6.4:at-most-ten", "answer 0: 11 warnings in one answer (at most 10)")
    ]
    assert judged(ok(*many[:10])) == []


def test_one_warning_twice_in_an_answer_is_a_duplicate() -> None:
    assert judged(ok(SLOW, dict(SLOW))) == [
        (
            "features/warnings:server-side-deduplication:exact-duplicates",
            "answer 0: warning PERFORMANCE_SLOW_QUERY_WARNING appears 2 times with the same details",
        )
    ]
    assert judged(ok(SLOW, {**SLOW, "details": {"ms": 901}})) == []  # details differ: a MAY to merge


def test_a_warning_without_details_warns() -> None:
    bare = {"code": "DEPRECATION_WARNING", "message": "Old."}
    assert judged(ok(bare)) == [
        ("features/warnings:6.2:should-list", "answer 0: warning DEPRECATION_WARNING carries no details")
    ]


def test_one_condition_at_two_severities_warns_naming_both_answers() -> None:
    assert judged(ok(SLOW), ok({**SLOW, "severity": "high"})) == [
        (
            "features/warnings:3.2:stable-severity",
            "warning PERFORMANCE_SLOW_QUERY_WARNING with the same details came at several severities: low in "
            "answer 0; high in answer 1",
        )
    ]
    unstated = {key: value for key, value in SLOW.items() if key != "severity"}
    assert judged(ok({**SLOW, "severity": "medium"}), ok(unstated)) == []  # left out: medium (§3.2)


def test_batch_items_each_carrying_one_warning_are_not_summarised() -> None:
    batch = {"success": True, "results": [{"index": 0, "result": ok(SLOW)}, {"index": 1, "result": ok(SLOW)},
                                          {"index": 2, "result": {"success": False, "error": {}}}]}  # fmt: skip
    assert judged(batch) == [
        (
            "features/warnings:deduplication-recommendations:batch-summary",
            "answer 0: 2 batch items each carry warning PERFORMANCE_SLOW_QUERY_WARNING with the same details, not "
            "one summary of them",
        )
    ]
    assert "batch_example:item_warnings" in warning_evidence([("$", [batch])])


def test_a_flood_is_listed_eight_times_then_counted() -> None:
    found = judged(*[ok({"code": "X_WARNING", "message": "m"}) for _ in range(20)])
    assert len(found) == 9 and found[-1] == ("", "12 more like it (features/warnings:6.2:should-list)")


def test_hostile_codes_and_severities_are_shown_plainly() -> None:
    hostile = {"code": "\x1b[2JX", "message": "m", "details": {"a": 1}, "severity": ["high"]}
    found = judged(ok(hostile, dict(hostile)), ok({**hostile, "severity": "low"}))
    assert found and all("\x1b" not in text for _, text in found)
    assert judged(ok({"code": 5, "message": "m", "details": {"deep": [[[[{}]]]]}}, "x", None)) == []
