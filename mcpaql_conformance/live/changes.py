"""What a run may have created or changed, so that a user can clean up: every call the guard let
through above read-only that the server did not refuse (``guard.Change``), as the bundle's
``changes`` list: the operation, when, the level it needed, the request (secrets masked) and
the identifiers of the record it touched, read from the request and the answer."""

from __future__ import annotations

from collections import deque
from itertools import islice
from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.identifiers import identifier_like
from mcpaql_conformance.files.vocabulary import CLEANUP, ChangeSource
from mcpaql_conformance.live.guard import Change, operations_named
from mcpaql_conformance.live.redact import Redactor

JsonObject = dict[str, Any]
MAX_IDENTIFIERS = 8  # identifiers kept per change
MAX_NODES = 200  # objects of an answer looked at for identifiers
ID_DEPTH = 2  # how deep in an answer's data an identifier is looked for


def change_entries(
    changes: list[Change], redactor: Redactor, source: ChangeSource, cleaned: dict[int, str] | None = None
) -> list[JsonObject]:
    """The bundle's ``changes`` entries (``source``: capture or agent; a call of --cleanup says
    cleanup), secrets masked; ``cleaned``: what --cleanup did about the record a change created,
    by its index."""
    entries = []
    cleaned = cleaned or {}
    for index, change in enumerate(changes):
        operation = (operations_named(change.arguments) or [""])[0]
        params = change.arguments.get("params")
        params = params if isinstance(params, dict) else {}
        identifiers = {**_named(params), **answer_identifiers(change.response)}
        entries.append(
            {
                "operation": operation,
                "tool": change.tool,
                "at": change.at,
                "needed": change.need.level.label,
                "source": CLEANUP if change.cleanup else source,
                "identifiers": dict(islice(identifiers.items(), MAX_IDENTIFIERS)),
                "request": redactor.params(operation, params),
                "answer": classify(change.response).describe(),
                **({"cleanup": cleaned[index]} if index in cleaned else {}),
            }
        )
    return redactor.value(entries)  # type: ignore[no-any-return]


def _named(params: JsonObject) -> JsonObject:
    """The request's parameters that name a record (``note_id``, ``path``, ``name``)."""
    return {name: value for name, value in params.items() if _identifies(name) and _scalar(value)}


def answer_identifiers(response: Any) -> JsonObject:
    """Identifier fields of a successful answer's data (``data.note_id``, ``data.note.id``),
    breadth first, bounded."""
    if not isinstance(response, dict) or response.get("success") is not True:
        return {}
    found: JsonObject = {}
    queue: deque[tuple[Any, int]] = deque([(response.get("data"), 0)])
    looked = 0
    while queue and looked < MAX_NODES and len(found) < MAX_IDENTIFIERS:
        node, depth = queue.popleft()
        looked += 1
        if not isinstance(node, dict):
            continue
        for name, value in islice(node.items(), 100):
            if isinstance(name, str) and _identifies(name) and _scalar(value):
                found.setdefault(name, value)
            elif isinstance(value, dict) and depth < ID_DEPTH:
                queue.append((value, depth + 1))
    return found


_NAMING = frozenset({"path", "file", "filename", "filepath", "dir", "directory", "folder", "repo", "repository"})


def _identifies(name: str) -> bool:
    return identifier_like(name) or name.lower() in _NAMING


def _scalar(value: Any) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= 300) or (
        isinstance(value, int) and not isinstance(value, bool)
    )
