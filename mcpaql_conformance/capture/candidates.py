"""The values capture may send for a parameter, best first, each with where it came from.

A server's valid values often live outside ``enum``: in the parameter's or the operation's
description ("Query type: 'operations' or 'types'", "one of: a, b, c", "e.g. 2024-01-31"), in
the operation's examples, or in what the server answered before (an identifier a list
returned). Values the server documents come first; a value made up from the type, bounds and
format comes last. The order is the plan (decided by the caller), then the order of ``candidates``.

Reading descriptions is linear and bounded: a hostile description of megabytes costs the
first ``MAX_TEXT`` characters, and each source gives at most ``MAX_PER_SOURCE`` values.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import orjson

from mcpaql_conformance.capture.patterns import fits
from mcpaql_conformance.capture.values import format_ok, matches_type, synthesise
from mcpaql_conformance.evidence.declared import is_placeholder
from mcpaql_conformance.evidence.identifiers import documented_kind, identifier_like, named_identifier
from mcpaql_conformance.evidence.named import NAMED
from mcpaql_conformance.evidence.reading import identifier_words, name_words
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.files.vocabulary import ValueSource
from mcpaql_conformance.live.safety import harmless_value, safe_value
from mcpaql_conformance.regex import lazy

JsonObject = dict[str, Any]

# Where a value came from (files.vocabulary.ValueSource: the bundle's value_sources).
SAFE: ValueSource = "safe value"
ENUM: ValueSource = "enum"
DEFAULT: ValueSource = "default"
EXAMPLE: ValueSource = "example"
DESCRIPTION: ValueSource = "description"
ANSWER: ValueSource = "earlier answer"
SPEC: ValueSource = "spec"
TYPE: ValueSource = "type"
SYNTHESISED: ValueSource = "synthesised"
PLAN: ValueSource = "plan"
MADE_BY_US = frozenset({SYNTHESISED, TYPE})  # values capture made up: from a type, format, pattern, or a named type
MAX_TEXT = 2000
MAX_PER_SOURCE = 8
MAX_VALUE_BYTES = 4096  # an example's value bigger than this is not sent

# The spec's own values for reserved operations: introspect's query.
RESERVED = {("introspect", "query"): ("operations", "types")}

_QUOTED = lazy(r"""'([^'\n]{1,64})'|"([^"\n]{1,64})"|`([^`\n]{1,64})`|\u2018([^\u2019\n]{1,64})\u2019"""
                     r"|\u201c([^\u201d\n]{1,64})\u201d")  # fmt: skip
# "one of: a, b, c", "either a or b", "allowed values: a | b", "values: a, b", "must be: a or b"
_LIST_TRIGGER = lazy(
    r"\b(?:(?:one of|either|any of|(?:allowed|accepted|possible|valid|supported) (?:values|options|types)|choose from)"
    r"\b\s*(?:are|is|include)?\s*[:=]?|(?:values|options|must be|can be|accepts?)\s*[:=])\s*",
    re.IGNORECASE,
)
_LIST_END = lazy(r"[.;()\[\]\n]\s|[;()\[\]\n]|\.$")
_SEPARATOR = lazy(r"\s*(?:,|\||/|\bor\b|\band\b)\s*", re.IGNORECASE)
# "e.g. 2024-01-31", "for example: n-1", "such as 'x'", "example: x", "(default: x)", "defaults to x"
_EXAMPLE_TRIGGER = lazy(
    r"(?:\be\.\s?g\.[,:]?|\bfor (?:example|instance)[,:]?|\bsuch as|\bexamples?:|\bex:)\s*",
    re.IGNORECASE,
)
_DEFAULT_TRIGGER = lazy(r"\bdefaults?(?: value)?(?: is| to|:)\s*", re.IGNORECASE)
_TOKEN = lazy(r"""[^\s,;()\[\]{}]{1,64}""")
_PLAIN_TOKEN = lazy(r"[\w][\w.:+@-]{0,63}", re.UNICODE)
_FORMAT_HINTS = (
    (lazy(r"\bYYYY-MM-DD[T ]HH:MM(?::SS)?", re.IGNORECASE), "2026-01-31T12:00:00Z"),
    (lazy(r"\bYYYY-MM-DD\b", re.IGNORECASE), "2026-01-31"),
    (lazy(r"\bYYYY-MM\b", re.IGNORECASE), "2026-01"),
    (lazy(r"\bHH:MM\b", re.IGNORECASE), "12:00"),
)
_ISO_8601 = lazy(r"\bISO[- ]?8601\b", re.IGNORECASE)
_DATE_TIME = lazy(r"\b(?:date[- ]?time|timestamp)\b", re.IGNORECASE)
_DATE = lazy(r"\bdate\b", re.IGNORECASE)
# Words a list or an example may hold that are not values ("one of the fields, e.g. by name").
_FILLER = (
    "a an the value values string number integer e.g i.e eg ie etc by to of in on for with as at from or and if is be"
    " this that it its your you not no all any some use using when where which"
)
_NOT_VALUES = frozenset(_FILLER.split()) | {"true or false"}
_NEAR_TRIGGER = 40  # a lone quoted value counts when a trigger ("e.g.", "one of") comes this close before it


@dataclass(frozen=True)
class Candidate:
    """A value to try, and where it came from (recorded with the probe)."""

    value: Any
    source: ValueSource


@dataclass
class SeenValues:
    """Values the server returned in successful answers, by field name (bounded): what an
    identifier parameter can be given once the server has shown one."""

    by_field: dict[str, list[Any]] = field(default_factory=dict)
    # the bare `id`s and `name`s, each with the words of the operation that answered it (``note``
    # for add_note's): a `label_id` is never given a note's id
    kinds: dict[str, list[tuple[Any, frozenset[str]]]] = field(default_factory=dict)
    MAX_VALUES = 8
    MAX_NODES = 10_000  # objects and arrays looked at in one answer
    MAX_FIELDS = 1_000  # fields looked at in one object

    def add_answer(self, data: Any, operation: str = "") -> None:
        """Every scalar field of a successful answer's data (breadth first, bounded); ``operation``:
        the one that answered (what its bare ids and names are of)."""
        words = _kind_words(operation)
        queue: deque[Any] = deque([data])
        nodes = 0
        while queue and nodes < self.MAX_NODES:
            item = queue.popleft()
            nodes += 1
            if isinstance(item, dict):
                for name, value in islice(item.items(), self.MAX_FIELDS):
                    if isinstance(value, dict | list):
                        queue.append(value)
                    elif isinstance(name, str) and _scalar(value):
                        self._keep(name, value, words)
            elif isinstance(item, list):
                queue.extend(item[:100])

    def _keep(self, name: str, value: Any, words: frozenset[str] = frozenset()) -> None:
        kept = self.by_field.setdefault(name.lower(), [])
        if len(kept) < self.MAX_VALUES and not any(json_equal(value, old) for old in kept):
            kept.append(value)
        if name.lower() in ("id", "name"):
            kinds = self.kinds.setdefault(name.lower(), [])
            if len(kinds) < self.MAX_VALUES * 4:
                kinds.append((value, words))

    def for_parameter(self, name: str) -> list[Any]:
        """Values of fields of the parameter's name; for ``note_id`` or ``noteId`` the ids an
        operation about notes answered too (or one whose name says nothing of what it answers),
        for ``persona_name`` or ``personaName`` the names likewise."""
        found = list(self.by_field.get(name.lower(), []))
        field_name, wanted = named_kind(name)
        if field_name is not None:
            same = [v for v, words in self.kinds.get(field_name, []) if not words or words & wanted]
            found += [v for v in same if v not in found]
        return found


# Endings that make a parameter name a record of a kind (``shelf_id``: a shelf), each with the
# bare field an answer gives it under (``id``; None: no bare field is offered for it).
_KIND_SUFFIXES = (
    ("_id", "id"), ("Id", "id"), ("_name", "name"), ("Name", "name"),
    ("_slug", None), ("Slug", None), ("_key", None), ("Key", None),
)  # fmt: skip


def named_kind(name: str) -> tuple[str | None, frozenset[str]]:
    """The bare field and the words of the kind of record a parameter names (``note_id``: ``id``,
    {note}; a documented identifier, ``supplier_code``: no bare field, {supplier}); (None, {})
    for a name with none of the endings."""
    documented = documented_kind(name)
    if documented is not None:
        return None, documented
    for suffix, field_name in _KIND_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return field_name, frozenset(word.lower() for word in identifier_words(name[: -len(suffix)]))
    return None, frozenset()


# Words of an operation's name that say what it does, not what it is about.
_VERBS = frozenset(
    ("get", "list", "read", "fetch", "find", "search", "query", "show", "describe", "view", "lookup", "create",
     "add", "new", "make", "insert", "post", "put", "write", "register", "save", "upload", "update", "edit", "set",
     "patch", "modify", "delete", "remove", "drop", "execute", "run", "do", "by", "all", "one", "many")
)  # fmt: skip


# The first word of an operation that makes a new record, whose own identifier it may be given.
_CREATING = frozenset({"create", "add", "new", "insert", "register", "make", "post", "put", "save", "upload", "write"})


def names_existing(operation: str, name: str, category: str | None) -> bool:
    """Whether a parameter names a record the server must already have: a reference to another
    kind (add_book's shelf_id), or one of the operation's own kind that it does not create
    (get_book's book_id, duplicate_note's note_id); never the new record's own identifier
    (create_shelf's shelf_id)."""
    if not identifier_like(name):
        return False
    if refers_elsewhere(operation, name):
        return True
    words = [word.lower() for word in identifier_words(operation)]
    return not (category == "CREATE" and bool(words) and words[0] in _CREATING)


def refers_elsewhere(operation: str, name: str) -> bool:
    """Whether a parameter names a record of another kind than the operation is about (add_book's
    ``shelf_id``): one the server must already have, so its own answers give the value first.
    The record's own identifier (create_shelf's ``shelf_id``) is a new one: never an answer's."""
    if not identifier_like(name):
        return False
    wanted = named_kind(name)[1]
    words = _kind_words(operation)
    plural = {word + "s" for word in wanted}
    return bool(wanted) and not (wanted & words) and not (plural & words)


# What a description says of a parameter that names one record.
_IDENTIFYING_TEXT = lazy(r"\bunique(?:ly)?\b|\bidentif(?:ier|ies|ying)\b|\bprimary key\b", re.IGNORECASE)
_KEY_TYPES = (None, "string", "integer", "number")


def documented_identifiers(operations: list[Any]) -> dict[str, frozenset[str]]:
    """The parameters a server documents as naming one record, with the words of the kind each
    names (``sku``: {item}): the one parameter a READ, UPDATE or DELETE operation needs (taken so by
    two of them, or by one and a CREATE), one described as unique or identifying, one of the uuid
    format; names that say so themselves (``note_id``) are read by their name already."""
    takers: dict[str, list[frozenset[str]]] = {}
    described: dict[str, frozenset[str]] = {}
    created: set[str] = set()
    for op in operations:
        keys = [p for p in op.parameters or [] if _key_shaped(p)]
        if op.category in ("READ", "UPDATE", "DELETE"):
            needed = [p for p in keys if p.get("required") is True]
            if len(needed) == 1:
                takers.setdefault(needed[0]["name"], []).append(_kind_words(op.name))
        if op.category == "CREATE":
            created |= {p["name"] for p in keys}
        for p in keys:
            text = p.get("description")
            if p.get("format") == "uuid" or (isinstance(text, str) and _IDENTIFYING_TEXT.search(text[:MAX_TEXT])):
                described.setdefault(p["name"], _kind_words(op.name))
    found = {name: frozenset().union(*kinds) for name, kinds in takers.items() if len(kinds) > 1 or name in created}
    found.update({name: kinds for name, kinds in described.items() if name not in found})
    return {name: kinds for name, kinds in found.items() if not named_identifier(name)}


def _key_shaped(parameter: JsonObject) -> bool:
    """A parameter that could hold a record's key: a scalar, not `input`, `fields` or a switch."""
    name = parameter.get("name")
    if not isinstance(name, str) or name in ("input", "fields") or safe_value(parameter, [])[0]:
        return False
    return parameter.get("type") in _KEY_TYPES and not isinstance(parameter.get("enum"), list)


def _kind_words(operation: str) -> frozenset[str]:
    """What an operation's answers are about, as words: ``get_note`` -> {note}, ``listNotes`` ->
    {notes, note}."""
    words = {word.lower() for word in identifier_words(operation)} - _VERBS
    return frozenset(words | {singular for word in words for singular in _singulars(word)})


def _singulars(word: str) -> tuple[str, ...]:
    """What a plural may be the plural of: notes -> note, categories -> category, shelves -> shelf
    (and shelve: a guess too many matches nothing)."""
    if len(word) <= 3 or not word.endswith("s"):
        return ()
    if word.endswith("ies"):
        return (word[:-1], word[:-3] + "y")
    if word.endswith("ves"):
        return (word[:-1], word[:-3] + "f", word[:-3] + "fe")
    return (word[:-1],)


def candidates(
    operation: str,
    parameter: JsonObject,
    declarations: list[JsonObject] | None = None,
    seen: SeenValues | None = None,
    category: str | None = None,
) -> list[Candidate]:
    """Every value worth trying for a parameter, best first, without repeats, each fitting the
    declared type (a parameter without a name or type gets the synthesised value only). A
    safety switch or a mode that documents a harmless value gets that value alone: no retry
    may ask for more harm (``safe_choice``)."""
    name = parameter.get("name")
    found: list[Candidate] = []

    def add(values: Iterator[Any] | list[Any] | tuple[Any, ...], source: ValueSource) -> None:
        count = 0
        for raw in values:
            value = _coerce(raw, parameter)
            if value is None or count >= MAX_PER_SOURCE or not matches_type(value, parameter):
                continue
            if is_placeholder(value):  # `<path>` from an example stands for a value: it is none
                continue
            if not within_bounds(value, parameter) or not _small(value) or fits(value, parameter) is False:
                continue  # a value the documented bounds or pattern refuse is no value to try
            if isinstance(value, str) and not format_ok(parameter.get("format"), value):
                continue  # nor one its format refuses (2024-02-30 for a date)
            if not any(json_equal(value, c.value) and type(value) is type(c.value) for c in found):
                found.append(Candidate(value, source))
                count += 1

    if isinstance(name, str):
        enum = parameter.get("enum")
        add(enum if isinstance(enum, list) else [], ENUM)
        add([parameter["default"]] if "default" in parameter else [], DEFAULT)
        existing = refers_elsewhere(operation, name) if category is None else names_existing(operation, name, category)
        if seen is not None and existing:  # a record the server has: what it answered first
            add(seen.for_parameter(name), ANSWER)
        add(list(example_values(name, declarations or [])), EXAMPLE)
        add(list(described_values(_text(parameter.get("description")))), DESCRIPTION)
        add(list(_operation_described(name, declarations or [])), DESCRIPTION)
        add(seen.for_parameter(name) if seen is not None else [], ANSWER)
        add(RESERVED.get((operation, name), ()), SPEC)
    synthesised = synthesise(parameter)
    if not any(json_equal(synthesised, c.value) for c in found):
        found.append(Candidate(synthesised, TYPE if _of_named_type(parameter) else SYNTHESISED))
    safe = safe_choice(parameter, found)
    if safe is not None:
        return [safe]
    if isinstance(name, str) and new_record_key(operation, name, category):
        # the new record's own key: a value of ours first; a documented one may name a record the
        # server has (its seed data, an example), and that create would be a conflict of our making
        return sorted(found, key=lambda candidate: candidate.source not in MADE_BY_US)
    return found


def _of_named_type(parameter: JsonObject) -> bool:
    """Whether the value made up for a parameter is built from a named type's TypeDetails (an
    object of its fields, or a list of such objects)."""
    items = parameter.get("items")
    return NAMED in parameter or (isinstance(items, dict) and NAMED in items)


def new_record_key(operation: str, name: str, category: str | None) -> bool:
    """Whether a parameter of a create is the key of the record it makes (create_item's ``sku``,
    create_shelf's ``shelf_id``): a value that must be new in the run, and on the server."""
    return category == "CREATE" and identifier_like(name) and not names_existing(operation, name, category)


# Words of a parameter's name that make it a direction or mode: a documented harmless value
# (``pull``, ``check``, ``dry-run``) is the one sent.
_MODE_WORDS = frozenset(
    {"direction", "dir", "mode", "action", "operation", "strategy", "method", "op", "command", "run", "type", "kind"}
)


def safe_choice(parameter: JsonObject, found: list[Candidate]) -> Candidate | None:
    """The one value a safety switch or a mode is sent with, whatever else is documented: true
    for ``dry_run``/``preview``, false for ``force``/``confirm...``/``overwrite``/``cascade``/
    ``recursive``, in the parameter's own type (``safety.safe_value``); for a direction or mode,
    or a parameter whose documented values include one that asks for something done (``push``,
    ``apply``), the harmless value documented (``pull``, ``check``), if any; None for any other
    parameter (the plan's value still comes first: the caller decides that)."""
    documented = [c.value for c in found if c.source not in MADE_BY_US]
    switch, value = safe_value(parameter, documented)
    if switch:
        return Candidate(value, SAFE)
    mode = bool(set(name_words(parameter.get("name"))) & _MODE_WORDS)
    harmless = harmless_value(documented, mode)
    return Candidate(harmless, SAFE) if harmless is not None else None


def retry_order(name: str, found: list[Candidate]) -> list[Candidate]:
    """The candidates to try after the server refused our value: for a parameter that names one
    record, what the server returned first (an example id in a description seldom exists)."""
    if not identifier_like(name):
        return found
    return sorted(found, key=lambda candidate: candidate.source != ANSWER)


def described_values(text: str) -> Iterator[str]:
    """Values a description states, in the order it states them: quoted values, listed values
    ("one of: a, b"), values given by example ("e.g. x"), a stated default, a format pattern."""
    text = text[:MAX_TEXT]
    yield from _quoted_values(text)
    for trigger in _LIST_TRIGGER.finditer(text):
        rest = text[trigger.end() : trigger.end() + 300]
        end = _LIST_END.search(rest)
        items = _SEPARATOR.split(rest[: end.start()] if end else rest)
        tokens = [_clean(item) for item in items]
        if len([t for t in tokens if t]) >= 2 or trigger.group(0).lower().startswith("one of"):
            yield from (t for t in tokens if t)
    for trigger in (*_EXAMPLE_TRIGGER.finditer(text), *_DEFAULT_TRIGGER.finditer(text)):
        token = _TOKEN.match(text, trigger.end())
        if token is not None and (cleaned := _clean(token.group(0))):
            yield cleaned
    yield from _format_hint(text)


def _format_hint(text: str) -> Iterator[str]:
    """A value in the format a description names: a pattern (``YYYY-MM-DD``) or ISO 8601."""
    for pattern, value in _FORMAT_HINTS:
        if pattern.search(text):
            yield value
            return
    if _ISO_8601.search(text):
        yield "2026-01-31T12:00:00Z" if _DATE_TIME.search(text) or not _DATE.search(text) else "2026-01-31"


def _quoted_values(text: str) -> Iterator[str]:
    """Quoted values, when they read as a set of values ("'operations' or 'types'") or one follows
    a trigger ("e.g. 'n-1'"); a lone quoted word ("the "name" field") is not a value."""
    matches = list(_QUOTED.finditer(text))[: MAX_PER_SOURCE * 4]
    if len({_unquote(match) for match in matches}) >= 2:
        yield from (_unquote(match) for match in matches)
        return
    triggers = (*_LIST_TRIGGER.finditer(text), *_EXAMPLE_TRIGGER.finditer(text), *_DEFAULT_TRIGGER.finditer(text))
    ends = [trigger.end() for trigger in triggers]
    for match in matches:
        if any(0 <= match.start() - end <= _NEAR_TRIGGER for end in ends):
            yield _unquote(match)


def example_values(name: str, declarations: list[JsonObject]) -> Iterator[Any]:
    """The parameter's values in the operation's examples: ``{request: {params}}`` objects,
    ``{params}`` objects, or example strings (``{ operation: "x", params: { name: "v" } }``)."""
    pattern = re.compile(
        rf"""["']?\b{re.escape(name)}\b["']?\s*[:=]\s*(?:"([^"\n]{{0,64}})"|'([^'\n]{{0,64}})'|(-?\d+(?:\.\d+)?)\b|(true|false)\b)"""
    )
    for declaration in declarations:
        examples = declaration.get("examples") if isinstance(declaration, dict) else None
        for example in examples[:20] if isinstance(examples, list) else []:
            if isinstance(example, str):
                for match in pattern.finditer(example[:MAX_TEXT]):
                    yield _example_literal(match)
            elif isinstance(example, dict):
                request = example.get("request", example)
                params = request.get("params", request) if isinstance(request, dict) else None
                if isinstance(params, dict) and name in params:
                    yield params[name]


def _operation_described(name: str, declarations: list[JsonObject]) -> Iterator[str]:
    """Values the operation's description gives this parameter: ``name: 'x'``, ``name=x``."""
    pattern = re.compile(rf"\b{re.escape(name)}\b\s*[:=]\s*['\"`]?([\w][\w.:@-]{{0,63}})")
    for declaration in declarations:
        description = _text(declaration.get("description")) if isinstance(declaration, dict) else ""
        for match in pattern.finditer(description[:MAX_TEXT]):
            yield match.group(1)


def _example_literal(match: re.Match[str]) -> Any:
    text, single, number, boolean = match.groups()
    if number is not None:
        return float(number) if "." in number else int(number)
    if boolean is not None:
        return boolean == "true"
    return text if text is not None else single


def _unquote(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group is not None).strip()


def _clean(token: str) -> str:
    """A listed or example value without its quotes and trailing punctuation; "" for words
    that are not values."""
    token = token.strip().strip("'\"`\u2018\u2019\u201c\u201d").rstrip(".,:;!?").strip()
    if not token or token.lower() in _NOT_VALUES or not _PLAIN_TOKEN.fullmatch(token):
        return ""
    return token


def within_bounds(value: Any, parameter: JsonObject) -> bool:
    """Whether a value keeps the declared bounds (minimum, maximum, minLength, maxLength); a
    pattern is not run (a server's regular expression may be built to be slow)."""
    size: float
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high, size = parameter.get("minimum"), parameter.get("maximum"), value
    elif isinstance(value, str):
        low, high, size = parameter.get("minLength"), parameter.get("maxLength"), len(value)
    else:
        return True
    low = low if _is_bound(low) else None
    high = high if _is_bound(high) else None
    return (low is None or size >= low) and (high is None or size <= high)


def _is_bound(bound: Any) -> bool:
    return isinstance(bound, int | float) and not isinstance(bound, bool)


def _coerce(value: Any, parameter: JsonObject) -> Any:
    """A value read from text, as the parameter's type: "10" for an integer is 10; None when it
    cannot be."""
    if not isinstance(value, str):
        return value
    kind = str(parameter.get("type", "string")).lower()
    if kind == "integer":
        return int(value) if re.fullmatch(r"-?\d{1,18}", value) else None
    if kind == "number":
        return float(value) if re.fullmatch(r"-?\d{1,18}(?:\.\d{1,18})?", value) else None
    if kind == "boolean":
        return {"true": True, "false": False}.get(value.lower())
    if kind == "array":  # "e.g. 'urgent'" for a list of strings: a list of that one string
        items = parameter.get("items")
        return [value] if isinstance(items, dict) and str(items.get("type", "")).lower() == "string" else None
    if kind == "object":
        return None
    return value


def _small(value: Any) -> bool:
    """Whether a value is JSON we can send and no bigger than MAX_VALUE_BYTES (an example may
    hold anything: a huge object, an integer beyond 64 bits)."""
    try:
        return len(orjson.dumps(value)) <= MAX_VALUE_BYTES
    except (TypeError, orjson.JSONEncodeError):
        return False


def _scalar(value: Any) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= 200) or (
        isinstance(value, int | float) and not isinstance(value, bool)
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
