"""How recorded answers encode dates and pages (part of Introspection Completeness).

- Dates and timestamps are ISO 8601 (core §4.7.2, a MUST), with timestamps in UTC (a SHOULD):
  a field holds a date when its type's details document it so (``format: date-time``/``date``,
  or a type named date, datetime, timestamp) or its name says so (``created_at``, ``due_date``,
  ``timestamp``): text that is no ISO 8601 date or timestamp fails, and so does a number (an epoch
  time is a timestamp in another format); an empty string or null is no date at all.
- An operation that pages with cursors (it documents ``first`` and ``after``, or ``last`` and
  ``before``) puts a ``pageInfo`` object with both has-page flags in every answer, and its
  start and end cursors when the page holds items (features/pagination §3.1, an informative
  MUST: a warning). An answer that carries a ``pageInfo`` is a cursor-paginated answer too,
  whatever its operation documents, and is held to the same shape.

- Binary data is padded standard base64 (core §4.7.4, a MUST): a value an answer marks so, by a
  field ``X_encoding`` (``xEncoding``, or ``encoding``) holding ``base64`` beside the data
  (``X_content``, ``X`` or ``X_data``; ``content`` or ``data`` beside ``encoding``), is of
  base64's standard alphabet with its ``=`` padding (RFC 4648 §4): URL-safe characters, a length
  short of its padding or other characters fail. Data no field marks is not judged (nothing
  says it is binary).

Each finding names the operation, the field and one JSON path; one finding per operation and
field, however often the server repeats it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import Bundle, JsonObject
from mcpaql_conformance.evidence.reading import TYPE_NAME_KEYS, data_of, name_of, returned_type
from mcpaql_conformance.evidence.samples import successful_candidates
from mcpaql_conformance.files.values import show
from mcpaql_conformance.files.vocabulary import BINARY
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

ISO_8601 = "core:4.7.2:iso-8601"
UTC = "core:4.7.2:utc"
PAGE_INFO = "features/pagination:3.1:page-info"
BASE64 = "core:4.7.4:base64"

_DATE = r"\d{4}(?:-\d{2}(?:-\d{2})?|-\d{3}|-W\d{2}(?:-\d)?)?|\d{8}"
_TIME = r"\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d{1,9})?)?)?"
_ZONE = r"(?:Z|[+-]\d{2}(?::?\d{2})?)"
ISO_DATE = lazy(rf"(?:{_DATE})")
ISO_DATE_TIME = lazy(rf"(?:{_DATE})T{_TIME}{_ZONE}?", re.IGNORECASE)  # RFC 3339 allows t and z
_UTC_ZONE = lazy(r"(?:Z|[+-]00(?::?00)?)$", re.IGNORECASE)
_NAMED = lazy(r"(?:^|_)(?:date|datetime|timestamp)$|_at$|^(?:created|updated|modified|deleted)_on$", re.I)
_CAMEL_NAMED = lazy(r"[a-z](?:At|Date|Timestamp|DateTime)$")
DATE_TYPES = frozenset({"date", "datetime", "date-time", "timestamp"})
DATE_FORMATS = frozenset({"date", "date-time", "datetime"})
_BASE64_TEXT = lazy(r"[A-Za-z0-9+/]*={0,2}")
_URL_SAFE = lazy(r"[A-Za-z0-9_-]*")
MAX_DEPTH = 8
MAX_VALUES = 5_000  # fields looked at per answer: an answer of a million records is sampled


def encoding_findings(bundle: Bundle, details: dict[str, JsonObject]) -> tuple[list[str], list[str]]:
    """(failures, warnings) about dates and pages in every successful answer tied to an operation."""
    documented = _documented_dates(bundle, details)
    failures: dict[tuple[str, str], str] = {}
    warnings: dict[tuple[str, str], str] = {}
    cursor_operations = {name for name, detail in details.items() if _pages_with_cursors(detail)}
    for operation, path, response, own in _answers(bundle):
        name = operation if isinstance(operation, str) else ""
        data, _ = data_of(response)
        for field, where, value, parent in _fields(data, f"{path}.data"):
            key = (name, field)
            if key in failures:
                continue
            held = _binary_field(field, value, parent)
            if held is not None and (name, held) not in failures:
                wrong = _base64_problem(field, parent[held])
                if wrong is not None:
                    at = f"{where.rpartition('.')[0]}.{plain(held, max_len=80)}"
                    failures[(name, held)] = cite(BASE64, f"{_label(name, held)}: {wrong} at {at}")
            problem = _date_problem(field, value, documented.get(name, frozenset()))
            if problem is not None:
                failures[key] = cite(ISO_8601, f"{_label(name, field)}: {problem} at {where}")
            elif key not in warnings and _off_utc(value) and _named_or_documented(field, documented, name):
                text = f"{_label(name, field)}: timestamp {show(value)} is not in UTC (Z) at {where}"
                warnings[key] = cite(UTC, text)
        # a page is cursor-paginated when its operation documents cursors or it answers a pageInfo;
        # a summary alone (aggregations without rows, features/aggregations §3) is no page
        paged = name in cursor_operations or (isinstance(data, dict) and "pageInfo" in data)
        paged = paged and not (isinstance(data, dict) and "aggregations" in data and "items" not in data)
        if own and paged and (name, "pageInfo") not in warnings:
            problem = _page_info_problem(data)
            if problem is not None:
                warnings[(name, "pageInfo")] = cite(PAGE_INFO, f"{plain(name)}: {problem} at {path}.data")
    return list(failures.values()), list(warnings.values())


def _answers(bundle: Bundle) -> Iterator[tuple[Any, str, Any, bool]]:
    """(operation, path, answer, whether the operation itself answered it) of every success: a
    round trip's read-back holds the record its operation wrote (its documented dates), but is
    another operation's answer (not its page)."""
    for operation, path, response in successful_candidates(bundle):
        if classify(response).succeeded:
            yield operation, path, response, True
    for key in ("round_trip_tests", "update_preservation_tests"):
        for index, case in enumerate(bundle.cases(key)):
            if classify(case.get("read_response")).succeeded:
                yield case.get("operation"), f"$.{key}[{index}].read_response", case.get("read_response"), False


def _label(operation: str, field: str) -> str:
    return f"{plain(operation)}.{plain(field)}" if operation else plain(field)


def _fields(data: Any, path: str) -> Iterator[tuple[str, str, Any, JsonObject]]:
    """(field name, JSON path, value, the object holding it) of every object member under
    ``data``, breadth first and bounded (``MAX_DEPTH``, ``MAX_VALUES``)."""
    queue: deque[tuple[Any, str, int]] = deque([(data, path, 0)])
    seen = 0
    while queue and seen < MAX_VALUES:
        value, where, depth = queue.popleft()
        if isinstance(value, dict):
            for key, item in value.items():
                seen += 1
                child = f"{where}.{plain(str(key), max_len=80)}"
                yield str(key), child, item, value
                if depth < MAX_DEPTH and isinstance(item, (dict, list)):
                    queue.append((item, child, depth + 1))
        elif isinstance(value, list) and depth < MAX_DEPTH:
            queue.extend((item, f"{where}[{index}]", depth + 1) for index, item in enumerate(value[:100]))


def binary_evidence(bundle: Bundle) -> list[str]:
    """What the run held to judge binary data by (a report's ``evidence``): BINARY for an answer
    holding data a field marks base64 (the walk stops at the first)."""
    for _, path, response, _ in _answers(bundle):
        data, _ = data_of(response)
        if any(_binary_field(f, v, parent) is not None for f, _, v, parent in _fields(data, path)):
            return [BINARY]
    return []


def _marks_base64(field: str, value: Any) -> bool:
    return (
        isinstance(value, str)
        and len(value) < 16
        and value.strip().lower() == "base64"
        and field.lower().endswith("encoding")
    )


def _binary_field(field: str, value: Any, parent: JsonObject) -> str | None:
    """The sibling of ``field`` holding the data it marks base64 (None: it marks none)."""
    if not _marks_base64(field, value):
        return None
    stem = field[: -len("encoding")]
    if not stem:
        names: tuple[str, ...] = ("content", "data")
    elif stem.endswith("_"):
        names = (f"{stem}content", stem[:-1], f"{stem}data")
    else:
        names = (f"{stem}Content", stem, f"{stem}Data")
    return next((name for name in names if isinstance(parent.get(name), str)), None)


def _base64_problem(field: str, data: str) -> str | None:
    """Why data ``field`` marks base64 is not padded standard base64 (None: it is)."""
    if len(data) % 4 == 0 and _BASE64_TEXT.fullmatch(data):
        return None
    shown = f"{field}: base64 marks {show(data)}"
    if _URL_SAFE.fullmatch(data.rstrip("=")) and ("-" in data or "_" in data):
        return f"{shown}, URL-safe base64 ('-', '_'), not the standard alphabet (core §4.7.4, RFC 4648 §4)"
    if _BASE64_TEXT.fullmatch(data):
        return f"{shown}, {len(data)} characters: not padded with '=' to a multiple of 4"
    return f"{shown}, which holds characters outside base64's alphabet"


def _documented_dates(bundle: Bundle, details: dict[str, JsonObject]) -> dict[str, frozenset[str]]:
    """Per operation, the fields its return type's details document as dates."""
    dated: dict[str, frozenset[str]] = {}
    for entry in bundle.introspection.get("type_details") or []:
        name = name_of(entry, TYPE_NAME_KEYS)[0] if isinstance(entry, dict) else None
        fields = entry.get("fields") if isinstance(entry, dict) else None
        if name is None or not isinstance(fields, list):
            continue
        dated[name] = frozenset(
            field["name"] for field in fields if isinstance(field, dict) and isinstance(field.get("name"), str)
            and _documents_date(field)
        )  # fmt: skip
    found: dict[str, frozenset[str]] = {}
    for operation, detail in details.items():
        declared = (returned_type(detail.get("returns")) or "").removesuffix("[]")
        if declared in dated:
            found[operation] = dated[declared]
    return found


def _documents_date(field: JsonObject) -> bool:
    return str(field.get("format", "")).lower() in DATE_FORMATS or str(field.get("type", "")).lower() in DATE_TYPES


def _named(field: str) -> bool:
    return _NAMED.search(field) is not None or _CAMEL_NAMED.search(field) is not None


def _named_or_documented(field: str, documented: dict[str, frozenset[str]], operation: str) -> bool:
    return _named(field) or field in documented.get(operation, frozenset())  # json: a field name in a set of names


def _date_problem(field: str, value: Any, documented: frozenset[str]) -> str | None:
    """Why a date field's value is not ISO 8601 (None: it is, or the field holds no date)."""
    if (
        value is None or isinstance(value, bool) or not (field in documented or _named(field))
    ):  # json: a field name in a set of names
        return None
    if field in documented and not isinstance(value, str):  # json: a field name in a set of names
        return f"documented as a date, but holds {show(value)}"
    if isinstance(value, int | float):  # an epoch time: a timestamp, not in ISO 8601
        return f"holds the number {show(value)}, not an ISO 8601 date or timestamp"
    if not isinstance(value, str):
        return None  # an object under a date's name: what it holds is read field by field
    if ISO_DATE.fullmatch(value) or ISO_DATE_TIME.fullmatch(value) or not value:
        return None
    return f"{show(value)} is not an ISO 8601 date or timestamp"


def _off_utc(value: Any) -> bool:
    """An ISO 8601 timestamp given in another zone than UTC (or in none)."""
    return isinstance(value, str) and ISO_DATE_TIME.fullmatch(value) is not None and not _UTC_ZONE.search(value)


def _pages_with_cursors(detail: JsonObject) -> bool:
    names = {p.get("name") for p in detail.get("parameters") or [] if isinstance(p, dict)}
    return {"first", "after"} <= names or {"last", "before"} <= names


def _page_info_problem(data: Any) -> str | None:
    """What is wrong with a cursor-paginated answer's ``pageInfo`` (None: it is there, well formed)."""
    info = data.get("pageInfo") if isinstance(data, dict) else None
    if info is None:
        other = " (it answers `page_info`)" if isinstance(data, dict) and "page_info" in data else ""
        return f"a cursor-paginated answer without `pageInfo`{other}"
    if not isinstance(info, dict):
        return f"`pageInfo` is {show(info)}, not an object"
    flags = [flag for flag in ("hasNextPage", "hasPreviousPage") if not isinstance(info.get(flag), bool)]
    if flags:
        return f"`pageInfo` lacks the boolean {' and '.join(flags)}"
    cursors = [name for name in ("startCursor", "endCursor") if not isinstance(info.get(name), str)]
    if cursors and _holds_items(data):
        return f"`pageInfo` of a page that holds items lacks {' and '.join(cursors)}"
    return None


def _holds_items(data: Any) -> bool:
    """Whether a page's answer holds items (``items``, ``edges``, ``nodes`` or ``results``)."""
    return isinstance(data, dict) and any(
        isinstance(data.get(key), list) and data[key] for key in ("items", "edges", "nodes", "results")
    )
