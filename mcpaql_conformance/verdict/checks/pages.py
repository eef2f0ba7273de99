"""How an operation that pages with cursors answers capture's pagination calls (pagination_tests):
first with last refused (features/pagination §2.3); a page of one in the connection shape, at
most one item, with a pageInfo that says how to go on (§4.1, §6.1, operations §4.4.3); the page
after it, by its endCursor, another item and the same twice, the cursor URL-safe (§6.1, §6.4); a
page of 1000 served at a cap of the documented maximum and of 100 (§5.3); no page size giving
pages of 20 (§5.2); cursor with offset or page pagination refused (collection-querying §2.6).
All SHOULDs or informative MUSTs: warnings. A refusal for a reason of its own (a value of ours
refused) shows nothing."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.values import json_equal, json_key, show
from mcpaql_conformance.files.vocabulary import (
    BEYOND_A_PAGE,
    DEFAULT_PAGE,
    FIRST_AND_LAST,
    FULL_DEFAULT,
    LARGE_PAGE,
    MIXED_STYLES,
    NEXT_PAGE,
    PAGE_OF_ONE,
)
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import calls_of, cite, kinds_held

_PG = "features/pagination"
INVALID_COMBINATION = f"{_PG}:2.3:invalid-combinations"
CONNECTION = f"{_PG}:4.1:connection-shape"
TAKES_CURSORS = f"{_PG}:6.1:must-list"
CURSOR_PROPERTIES = f"{_PG}:6.4:cursor-properties"
DEFAULT_SIZE = f"{_PG}:5.2:default-page-size"
CAPPED = f"{_PG}:5.3:max-page-size"
AT_MOST_100 = f"{_PG}:5.3:max-100"
CLAMPED = f"{_PG}:5.3:clamp-not-reject"
PAGE_INFO = "operations:4.4.3:page-info"
NEXT_PAGE_SAID = "operations:4.4.3:pagination-metadata"
MIXED = "features/collection-querying:2.6:mixed-styles-rejected"
ADVISED_DEFAULT, ADVISED_MAX = 20, 100  # features/pagination §5.2, §5.3
_URL_SAFE = lazy(r"[A-Za-z0-9_.~=-]+")  # RFC 3986's unreserved characters, and base64's padding


def pagination_findings(ctx: Context) -> list[str]:
    """Every finding about the pagination_tests calls, by the kind of call."""
    cases: dict[str, list[JsonObject]] = {}
    for case in ctx.bundle.cases("pagination_tests"):
        cases.setdefault(str(case.get("kind") or FIRST_AND_LAST), []).append(case)
    findings = [_both_ends(case) for case in cases.get(FIRST_AND_LAST, [])]
    findings += [text for case in cases.get(PAGE_OF_ONE, []) for text in _page_of_one(case)]
    findings += _next_pages(cases.get(PAGE_OF_ONE, []), cases.get(NEXT_PAGE, []))
    findings += [text for case in cases.get(LARGE_PAGE, []) for text in _large(case, ctx.details_by_name)]
    findings += [text for case in cases.get(DEFAULT_PAGE, []) for text in _default(case)]
    findings += [_mixed(case) for case in cases.get(MIXED_STYLES, [])]
    return [finding for finding in findings if finding]


def pagination_evidence(ctx: Context) -> list[str]:
    """What the run held to judge paging by (a report's ``evidence``): ``pagination_tests:KIND`` for
    each kind of call, BEYOND_A_PAGE where a page of 1000 shows a collection larger than the page
    it got (or over 100 items), FULL_DEFAULT where a page asked with no size says another follows."""
    beyond = full = False
    for call in calls_of(ctx, "pagination_tests"):
        more = (page_info(call.response) or {}).get("hasNextPage") is True
        count = len(items_of(call.response) or [])
        beyond |= call.kind == LARGE_PAGE and (more or count > ADVISED_MAX)
        full |= call.kind == DEFAULT_PAGE and (more or count > ADVISED_DEFAULT)
    held = kinds_held(ctx, "pagination_tests", FIRST_AND_LAST)
    return [*held, *([BEYOND_A_PAGE] if beyond else []), *([FULL_DEFAULT] if full else [])]


def items_of(response: Any) -> list[Any] | None:
    """The items of a successful page: `items`, or `edges` (the connection shape), or None."""
    data = response.get("data") if isinstance(response, dict) and response.get("success") is True else None
    found = data.get("items", data.get("edges")) if isinstance(data, dict) else None
    return found if isinstance(found, list) else None


def page_info(response: Any) -> JsonObject | None:
    data = response.get("data") if isinstance(response, dict) else None
    info = data.get("pageInfo") if isinstance(data, dict) else None
    return info if isinstance(info, dict) else None


def _name(case: JsonObject) -> str:
    return plain(case.get("operation"), max_len=80)


def _both_ends(case: JsonObject) -> str:
    if not classify(case.get("response")).succeeded:
        return ""
    text = f"{_name(case)} with first and last together was answered with success, not refused"
    return cite(INVALID_COMBINATION, text)


def _page_of_one(case: JsonObject) -> list[str]:
    response = case.get("response")
    if not classify(response).succeeded:
        return []
    data = response.get("data") if isinstance(response, dict) else None
    name, info, items = _name(case), page_info(response), items_of(response)
    found: list[str] = []
    if items is None or info is None:
        keys = ", ".join(plain(key, max_len=40) for key in list(data)[:6]) if isinstance(data, dict) else show(data)
        found.append(cite(CONNECTION, f"{name} asked for first: 1 answered {{{keys}}}, not items (or edges) beside "
                          "pageInfo"))  # fmt: skip
    if info is None:
        found.append(cite(PAGE_INFO, f"{name} pages with cursors (it takes first) but its page of one has no pageInfo"))
    elif not isinstance(info.get("hasNextPage"), bool) or (info["hasNextPage"] and not _cursor(info)):
        said = f"hasNextPage {show(info.get('hasNextPage'))}, endCursor {show(info.get('endCursor'))}"
        found.append(cite(NEXT_PAGE_SAID, f"{name}'s page of one does not say how to fetch the next page ({said})"))
    if items is not None and len(items) > 1:
        found.append(cite(TAKES_CURSORS, f"{name} asked for first: 1 answered {len(items)} items"))
    cursor = _cursor(info or {})
    if cursor and not _URL_SAFE.fullmatch(cursor):
        text = f"{name}'s endCursor {plain(cursor, max_len=60)!r} is not URL-safe (characters beyond A-Z a-z 0-9 -._~)"
        found.append(cite(CURSOR_PROPERTIES, text))
    return found


def _next_pages(firsts: list[JsonObject], nexts: list[JsonObject]) -> list[str]:
    """The page after each page of one, asked for twice by its endCursor: another item, both times
    the same."""
    found: list[str] = []
    for first in firsts:
        pair = [case for case in nexts if json_equal(case.get("operation"), first.get("operation"))][:2]
        if not pair:
            continue
        name, answers = _name(first), [items_of(case.get("response")) for case in pair]
        if any(items is None for items in answers):
            if classify(pair[0].get("response")).refused:
                found.append(cite(TAKES_CURSORS, f"{name} refused `after` its own endCursor: "
                                  f"{classify(pair[0].get('response')).describe()}"))  # fmt: skip
            continue
        if answers[0] and json_key(answers[0]) == json_key(items_of(first.get("response"))):
            found.append(cite(TAKES_CURSORS, f"{name}'s page after its endCursor repeats the page of one (`after` "
                              "ignored)"))  # fmt: skip
        if len(answers) == 2 and json_key(answers[0]) != json_key(answers[1]):
            found.append(cite(CURSOR_PROPERTIES, f"{name}: the same endCursor gave two different pages"))
    return found


def _large(case: JsonObject, details: dict[str, JsonObject]) -> list[str]:
    response, name = case.get("response"), _name(case)
    answer = classify(response)
    if answer.refused and answer.validation:
        return [cite(CLAMPED, f"{name} refused first: 1000 ({answer.describe()}), where a page over the cap is "
                     "served at the cap")]  # fmt: skip
    items = items_of(response)
    if items is None:
        return []
    found: list[str] = []
    cap = documented_cap(details.get(str(case.get("operation"))))
    if cap is not None and len(items) > cap:
        found.append(cite(CAPPED, f"{name} asked for first: 1000 answered {len(items)} items, beyond its documented "
                          f"maximum of {cap}"))  # fmt: skip
    if len(items) > ADVISED_MAX:
        found.append(cite(AT_MOST_100, f"{name} asked for first: 1000 answered {len(items)} items (a cap of "
                          f"{ADVISED_MAX} is advised)"))  # fmt: skip
    return found


def documented_cap(detail: Any) -> int | None:
    """The page cap an operation documents: its pagination.max_page_size, else `first`'s maximum."""
    pagination = detail.get("pagination") if isinstance(detail, dict) else None
    cap = pagination.get("max_page_size") if isinstance(pagination, dict) else None
    if not isinstance(cap, int) or isinstance(cap, bool):
        first = next((p for p in (detail or {}).get("parameters") or [] if isinstance(p, dict)
                      and p.get("name") == "first"), {})  # fmt: skip
        cap = first.get("maximum")
    return cap if isinstance(cap, int) and not isinstance(cap, bool) else None


def _default(case: JsonObject) -> list[str]:
    response = case.get("response")
    items, info = items_of(response), page_info(response)
    if items is None:
        return []
    more = info is not None and info.get("hasNextPage") is True
    if len(items) > ADVISED_DEFAULT or (more and len(items) != ADVISED_DEFAULT):
        return [cite(DEFAULT_SIZE, f"{_name(case)} asked for no page size answered pages of {len(items)} items "
                     f"({ADVISED_DEFAULT} are advised)")]  # fmt: skip
    return []


def _mixed(case: JsonObject) -> str:
    if not classify(case.get("response")).succeeded:
        return ""
    request = case.get("request")
    other = next((key for key in ("offset", "page") if isinstance(request, dict) and key in request), "offset")
    return cite(MIXED, f"{_name(case)} with first and {other} together (two pagination styles) was answered with "
                "success, not refused")  # fmt: skip


def _cursor(info: JsonObject) -> str:
    cursor = info.get("endCursor")
    return cursor if isinstance(cursor, str) else ""
