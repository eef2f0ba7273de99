"""How a query_* operation documents its query grammar (features/collection-querying §2.1, §3, §4.2):
a READ operation named query_* that takes `query` takes a grammar (the family's definition, §1),
so introspection describes it and an example uses it (§2.1); its description summarises it (§4.2);
an example composes it with the fields, sort and pagination controls it takes (§4.2); and where it
also takes `filter`, something says how the two combine (§3). Read leniently: a word or a piece of
syntax anywhere in the text counts."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import identifiers_folded

_CQ = "features/collection-querying"
DOCUMENTED = f"{_CQ}:2.1:query-grammar-documented"
SUMMARISED = f"{_CQ}:4.2:grammar-in-description"
COMPOSED = f"{_CQ}:4.2:composed-example"
WITH_FILTER = f"{_CQ}:3:query-filter-rules"
# The controls §4.2 asks an example to compose the grammar with: fields, sort and pagination.
CONTROLS = frozenset({"fields", "sort", "first", "after", "last", "before", "limit", "offset", "page", "page_size"})
# A piece of query syntax in prose: an operator between a name and a value (status:done,
# rating>=4), a quote, a brace or a boolean keyword (a colon or bracket of prose is none).
_SYNTAX = lazy(r"""\w[:=<>!~]+["'\w-]|\s(?:[<>!=]=|=~)\s|["{]|\b(?:AND|OR|NOT)\b""")


def query_grammar_findings(details: list[JsonObject]) -> list[str]:
    """Every finding about the query grammars of the query_* operations (all warn: informative MUSTs
    and SHOULDs)."""
    findings: list[str] = []
    for detail in details:
        parameters = grammar_parameters(detail)
        if parameters is not None:
            findings += _grammar(plain(detail["name"], max_len=80), detail, parameters)
    return findings


def grammar_parameters(detail: Any) -> dict[str, JsonObject] | None:
    """The parameters, by name, of a READ operation named query_* that takes `query` (one taking a
    grammar); None for any other operation."""
    name = detail.get("name") if isinstance(detail, dict) else None
    if not isinstance(name, str) or not name.startswith("query_") or detail.get("semantic_category") != "READ":
        return None
    parameters = {str(p.get("name")): p for p in detail.get("parameters") or [] if isinstance(p, dict)}
    return parameters if "query" in parameters else None


def _grammar(name: str, detail: JsonObject, parameters: dict[str, JsonObject]) -> list[str]:
    query, description = parameters["query"], _text(detail.get("description"))
    shown = [params for params in _example_params(detail) if "query" in params]
    findings: list[str] = []
    unsaid = [] if _text(query.get("description")).strip() else ["its `query` parameter has no description"]
    unsaid += [] if shown else ["none of its examples uses `query`"]
    if unsaid:
        findings.append(cite(DOCUMENTED, f"{name} takes a query grammar but " + " and ".join(unsaid)))
    if "query" not in identifiers_folded(description) or not _SYNTAX.search(description):
        findings.append(cite(SUMMARISED, f"{name}'s description does not summarise its query grammar (it names no "
                             "`query` syntax: operators, quoted terms, keywords)"))  # fmt: skip
    controls = sorted(CONTROLS & set(parameters))
    if shown and controls and not any(CONTROLS & set(params) for params in shown):
        findings.append(cite(COMPOSED, f"{name}: no example composes `query` with {', '.join(controls)}"))
    if "filter" in parameters and not _says_how_filter_combines(description, query, parameters["filter"]):
        findings.append(cite(WITH_FILTER, f"{name} takes `query` and `filter` but says nothing of how they combine"))
    return findings


def _says_how_filter_combines(description: str, query: JsonObject, filter_: JsonObject) -> bool:
    """The operation's or `query`'s description speaks of `filter`, or `filter`'s of `query`."""
    return (
        "filter" in identifiers_folded(description)
        or "filter" in identifiers_folded(_text(query.get("description")))
        or "query" in identifiers_folded(_text(filter_.get("description")))
    )


def _example_params(detail: JsonObject) -> list[dict[str, Any]]:
    """The params of each example request the operation documents."""
    found: list[dict[str, Any]] = []
    for example in detail.get("examples") or []:
        request = example.get("request") if isinstance(example, dict) else None
        params = request.get("params") if isinstance(request, dict) else None
        if isinstance(params, dict):
            found.append(params)
    return found


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
