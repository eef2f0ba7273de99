"""Which parameters name one record: by their name (``note_id``, ``noteId``, ``slug``), or by
what the server documents of them (``sku``, ``supplier_code``: the key its read, update and
delete operations take, a description that says it identifies, a ``uuid`` format).

A capture learns the documented identifiers once it has described the operations
(``capture.identifiers``) and holds them for the run (``documented``): every reader of
``identifier_like`` then sees them, with the words of the kind of record each names
(``supplier_code``: a supplier), so that a reference to another kind is told from the record's
own key whatever its name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType

from mcpaql_conformance.regex import lazy

_IDENTIFYING = lazy(r"(?:^|_|-|(?<=[a-z0-9])(?=[A-Z]))(?:id|key|name|slug|uuid)$", re.IGNORECASE)

# The documented identifiers of the run in progress: name -> the words of the kind of record it names.
_DOCUMENTED: ContextVar[Mapping[str, frozenset[str]]] = ContextVar(
    "mcpaql_conformance_identifiers", default=MappingProxyType({})
)


def named_identifier(name: str) -> bool:
    """Whether the name alone says it names one record (``note_id``, ``id``, ``noteId``,
    ``element_name``, ``slug``); a word that merely ends in the letters (``valid``, ``paid``,
    ``monkey``) does not."""
    match = _IDENTIFYING.search(name)
    if match is None:
        return False
    suffix = name[match.start() :].lstrip("_-")
    # camelCase: the suffix starts upper-case (noteId); after "_" or at the start, any case
    return match.start() == 0 or name[match.start()] in "_-" or suffix[:1].isupper()


def identifier_like(name: str) -> bool:
    """A parameter that names one record: by its name, or as the server documents it."""
    return named_identifier(name) or name in _DOCUMENTED.get()


def documented_kind(name: str) -> frozenset[str] | None:
    """The words of the kind of record a documented identifier names (``supplier_code``:
    {supplier}); None for a name the server does not document as an identifier."""
    return _DOCUMENTED.get().get(name)


@contextmanager
def documented() -> Iterator[dict[str, frozenset[str]]]:
    """The documented identifiers of one run: filled once the operations are described, read by
    every ``identifier_like`` in the run, gone after it."""
    found: dict[str, frozenset[str]] = {}
    reset = _DOCUMENTED.set(found)
    try:
        yield found
    finally:
        _DOCUMENTED.reset(reset)


def learn(found: Mapping[str, frozenset[str]]) -> None:
    """Add identifiers the server documents to the run's (outside a run, nothing is kept)."""
    current = _DOCUMENTED.get()
    if isinstance(current, dict):
        current.update(found)
