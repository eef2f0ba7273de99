"""An earlier capture of the same server (``capture --previous BUNDLE``): the references each of its
operations documented, kept in the new bundle (``previous_version``) so that a reference the new
version no longer documents, with no alias naming it, shows (operations §4.4.2: existing shared-
parameter references are preserved, or aliased, never renamed silently).

A reference is what a client holds on to: the name of a shared parameter an operation documents
(the §4.4.1 cross-cutting parameters and the legacy `order` beside `sort`) and every ``$ref`` path
its details give. The earlier bundle is read like any bundle (untrusted: one clear error, exit 3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.bundle import load_bundle
from mcpaql_conformance.evidence.reading import (
    CROSS_CUTTING,
    OPERATION_NAME_KEYS,
    Readings,
    name_of,
    parameters_of,
    read_detail,
)
from mcpaql_conformance.files.values import objects_in
from mcpaql_conformance.sanitize import plain

JsonObject = dict[str, Any]

# The shared parameters of operations §4.4.1 and the legacy `order` §4.4.2 names beside `sort`.
SHARED = frozenset({*CROSS_CUTTING, "order"})
MAX_REFS = 200  # references kept per operation
MAX_WALK = 10_000  # values looked at per operation for $ref paths


def references(details: list[Any]) -> dict[str, list[str]]:
    """Per operation (by name), the references it documents: its shared parameters' names, then
    its ``$ref`` paths (``#/...``), each once, in order."""
    found: dict[str, list[str]] = {}
    for raw in details:
        if not isinstance(raw, dict):
            continue
        name = name_of(raw, OPERATION_NAME_KEYS)[0]
        if name is None or name in found:
            continue
        detail = read_detail(raw, Readings())
        parameters = parameters_of(detail)[0] or []
        names = [entry["name"] for entry in parameters if isinstance(entry, dict) and entry.get("name") in SHARED]
        paths = [node["$ref"] for node in objects_in([raw], MAX_WALK) if isinstance(node.get("$ref"), str)]
        found[name] = list(dict.fromkeys(plain(ref, max_len=200) for ref in [*names, *paths]))[:MAX_REFS]
    return found


def previous_version(path: Path) -> JsonObject:
    """The bundle's ``previous_version`` from an earlier capture's bundle at ``path`` (a problem with
    it: one ConfigError line naming --previous)."""
    try:
        bundle = load_bundle(path)
    except ConfigError as exc:
        raise ConfigError(f"--previous: {exc}") from None
    data = bundle.data
    return {
        "bundle": plain(path.name, max_len=200),
        "implementation": plain(str(data.get("implementation") or ""), max_len=200),
        "version": plain(str(data.get("version") or ""), max_len=80),
        "references": references(bundle.operation_details),
    }
