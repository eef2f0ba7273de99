"""How a search_* operation reads several words (features/collection-querying §4.1, SHOULDs): a word
and a word no record holds still find what the word alone finds (OR, unless the operation's
description documents that every word must match), and a word given twice finds what it finds once.
Judged only where the word alone found something."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.files.vocabulary import ONE_WORD, REPEATED_WORD, TWO_WORDS
from mcpaql_conformance.verdict.checks.base import Call, calls_of, cite, kinds_held
from mcpaql_conformance.verdict.checks.pages import items_of
from mcpaql_conformance.verdict.textmatch import identifiers_folded

OR_DEFAULT = "features/collection-querying:4.1:or-default"
CONSISTENT = "features/collection-querying:4.1:multi-word-consistent"
# What a description says to document AND: every (all) word or term must match.
ALL_WORDS, WORDS = frozenset({"every", "all"}), frozenset({"word", "words", "term", "terms"})


def search_findings(ctx: Context) -> list[str]:
    """Each search_* operation whose several words found nothing where one of them found something."""
    findings: list[str] = []
    calls = calls_of(ctx, "search_tests")
    for one in (call for call in calls if call.kind == ONE_WORD and _found(call.response)):
        for call in calls:
            if not json_equal(call.case.get("operation"), one.case.get("operation")) or _found(call.response):
                continue
            if not call.answer.succeeded:
                continue  # a refusal is another matter (its own tests)
            if call.kind == TWO_WORDS and not _and_documented(ctx, str(one.case.get("operation"))):
                findings.append(cite(OR_DEFAULT, f"{one.name} found nothing for {_query(call)}, though "
                                     f"{_query(one)} alone finds something: several words do not match as OR, "
                                     "and its description does not say so"))  # fmt: skip
            elif call.kind == REPEATED_WORD:
                findings.append(cite(CONSISTENT, f"{one.name} found nothing for {_query(call)}, though {_query(one)} "
                                     "alone finds something"))  # fmt: skip
    return findings


def search_evidence(ctx: Context) -> list[str]:
    """``search_tests:KIND`` for each kind of call, where the word alone found something."""
    found = any(call.kind == ONE_WORD and _found(call.response) for call in calls_of(ctx, "search_tests"))
    return kinds_held(ctx, "search_tests") if found else []


def _found(response: Any) -> bool:
    items = items_of(response)
    data = response.get("data") if isinstance(response, dict) and response.get("success") is True else None
    return bool(items) if items is not None else isinstance(data, list) and bool(data)


def _and_documented(ctx: Context, operation: str) -> bool:
    """The operation's description, or its `query`'s, says every word must match."""
    detail = ctx.details_by_name.get(operation) or {}
    texts = [str(detail.get("description") or "")]
    texts += [str(p.get("description") or "") for p in ctx.parameters_of(operation) if p["name"] == "query"]
    return any((said := identifiers_folded(text)) & ALL_WORDS and said & WORDS for text in texts)


def _query(call: Call) -> str:
    request = call.case.get("request")
    return repr(str(request.get("query"))[:60]) if isinstance(request, dict) else "its words"
