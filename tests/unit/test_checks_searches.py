"""How a search_* operation reads several words (verdict/checks/searches.py, collection-querying
§4.1): OR unless documented otherwise, and a word twice as once; judged only where the word alone
found something, a refusal being another test's matter."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle, fail, ok

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.searches import search_evidence, search_findings

FOUND, NONE = ok({"items": [{"id": 1}]}), ok({"items": []})


def searched(description: str, *calls: tuple[str, str, Any]) -> Context:
    data = conformant_bundle()
    data["introspection"]["operation_details"].append(
        {"name": "search_notes", "semantic_category": "READ", "endpoint": "read", "description": description,
         "parameters": [{"name": "query", "type": "string", "required": True, "description": "Words."}]}
    )  # fmt: skip
    data["search_tests"] = [{"operation": "search_notes", "kind": kind, "request": {"query": query},
                             "response": response} for kind, query, response in calls]  # fmt: skip
    return Context(Bundle(data))


def test_or_and_consistent_words_pass_and_the_evidence_says_so() -> None:
    ctx = searched("Search notes.", ("one_word", "plan", FOUND), ("two_words", "plan zz", FOUND),
                   ("repeated_word", "plan plan", FOUND))  # fmt: skip
    assert search_findings(ctx) == []
    assert search_evidence(ctx) == ["search_tests:one_word", "search_tests:two_words", "search_tests:repeated_word"]
    nothing = searched("Search notes.", ("one_word", "plan", NONE), ("two_words", "plan zz", NONE))
    assert search_findings(nothing) == [] and search_evidence(nothing) == []  # the word alone found nothing


def test_and_undocumented_and_a_repeated_word_losing_results_warn() -> None:
    ctx = searched("Search notes.", ("one_word", "plan", FOUND), ("two_words", "plan zz", NONE),
                   ("repeated_word", "plan plan", NONE))  # fmt: skip
    assert [(f.rule, str(f)) for f in search_findings(ctx)] == [
        ("features/collection-querying:4.1:or-default",
         "search_notes found nothing for 'plan zz', though 'plan' alone finds something: several words do not match "
         "as OR, and its description does not say so"),
        ("features/collection-querying:4.1:multi-word-consistent",
         "search_notes found nothing for 'plan plan', though 'plan' alone finds something"),
    ]  # fmt: skip
    documented = searched("Search notes: every word must appear.", ("one_word", "plan", FOUND),
                          ("two_words", "plan zz", NONE), ("repeated_word", "plan plan", fail("X", "no")))  # fmt: skip
    assert search_findings(documented) == []
