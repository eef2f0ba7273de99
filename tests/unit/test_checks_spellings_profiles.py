"""One parameter under several spellings (operations §4.4.4), the active profile of several
(endpoint-modes §3.3) and high warnings used sparingly (features/warnings §3.2)."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.details import same_name_findings
from mcpaql_conformance.verdict.checks.level2 import profile_evidence, profile_findings
from mcpaql_conformance.verdict.checks.warned import warning_evidence, warning_findings


def detail(name: str, *parameters: str) -> dict[str, Any]:
    return {"name": name, "parameters": [{"name": p, "type": "string"} for p in parameters]}


def test_one_parameter_under_several_spellings_warns_and_an_alias_beside_its_name_does_not() -> None:
    findings = same_name_findings([detail("get_book", "book_id"), detail("delete_book", "bookid")])
    assert [(f.rule, str(f)) for f in findings] == [  # type: ignore[attr-defined]
        ("operations:4.4.4:same-name", "one parameter under 2 names: `book_id` on get_book; `bookid` on delete_book")
    ]
    assert same_name_findings([detail("get_book", "book_id"), detail("list_books", "book_id", "bookId")]) == []
    assert same_name_findings([detail("get_book", "book_id"), detail("get_shelf", "shelf_id")]) == []


def profiled(**protocol: Any) -> Context:
    data = conformant_bundle()
    data["introspection"]["operations_list"]["data"]["_protocol"].update(protocol)
    return Context(Bundle(data))


def test_several_profiles_name_the_active_one() -> None:
    assert profile_findings(profiled(profiles=["crude", "books"], profile="crude")) == []
    silent = profiled(profiles=[{"name": "crude"}, {"name": "books"}])
    assert [str(f) for f in profile_findings(silent)] == [
        "`_protocol.profiles` lists 2 semantic profiles (crude, books); `_protocol.profile` names none"
    ]
    assert profile_evidence(silent) == ["introspection:profiles"]
    assert profile_findings(profiled(profiles=["crude", "books"], profile="other"))  # not one of them
    assert profile_findings(profiled(profiles=["crude"])) == [] and profile_evidence(profiled(profiles=["crude"])) == []


def test_most_of_three_conditions_high_warns() -> None:
    def warned(*severities: str) -> list[tuple[str, list[dict[str, Any]]]]:
        answers = [{"success": True, "data": {}, "warnings": [{"code": f"W{i}", "message": "m", "severity": s,
                                                                 "details": {"i": i}}]}
                   for i, s in enumerate(severities)]  # fmt: skip
        return [("$.valid_requests[{}].response", answers)]

    def where(template: str, index: int) -> str:
        return template.format(index)

    assert [f.rule for f in warning_findings(warned("high", "high", "low"), where)] == [  # type: ignore[attr-defined]
        "features/warnings:3.2:high-sparingly"
    ]
    assert warning_findings(warned("high", "low", "low"), where) == []
    assert warning_findings(warned("high", "high"), where) == []  # two conditions: too few to say
    assert "responses:warned_conditions" in warning_evidence(warned("low", "low", "medium"))
    assert "responses:warned_conditions" not in warning_evidence(warned("low", "low"))
