"""Required nesting documented (introspection §8.2.2 item 2, a SHOULD): where a refusal tells the
caller a value belongs under a nested key ("tags must be in metadata.tags", "send it as
input.placement.shelf_id"), introspection should say so: a parameter or field named after the
key holding one named after the value, or a description naming the dotted path. What no answer
says cannot be told from outside; a run whose refusals name no nesting is judged on none of it.

Reading is linear and bounded: each refusal's message up to REFUSAL_TEXT characters (Context.refusals),
each description up to MAX_TEXT, introspection up to MAX_NODES nodes."""

from __future__ import annotations

import re
from typing import Any

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.values import objects_in
from mcpaql_conformance.files.vocabulary import NESTING_SAID
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

NESTING = "introspection:8.2.2:nesting"
MAX_TEXT = 2000
MAX_NODES = 20_000
MAX_SAID = 5  # nestings judged per run (each named once)
_PATH = r"[`'\"]?([A-Za-z_]\w{0,63}(?:\.[A-Za-z_]\w{0,63}){1,5})"
_SAYS_NESTED = lazy(
    r"(?:must|should|needs? to|has to) (?:be |go |sit |live )?(?:placed )?"
    rf"(?:in|inside|under|within|nested (?:in|under|inside|within)|at) {_PATH}"
    rf"|(?:send|give|put|pass|nest) (?:it|them|this|the \w+) (?:as|in|under|inside|at) {_PATH}"
    rf"|belongs? (?:in|under|inside|at) {_PATH}",
    re.IGNORECASE,
)
_WRAPPERS = ("input", "params", "arguments")  # where a request's own values sit, not the nesting asked for


def nestings_said(ctx: Context) -> list[tuple[str, str]]:
    """(dotted path, the message saying it) of each refusal that tells where a value belongs, the
    path without the request's own wrapper (``input.``), each path once."""
    found: dict[str, str] = {}
    for _, message in ctx.refusals:
        if len(found) >= MAX_SAID:
            break
        for match in _SAYS_NESTED.finditer(message):
            path = next(group for group in match.groups() if group).rstrip(".")
            while path.split(".", 1)[0] in _WRAPPERS and path.count(".") > 1:
                path = path.split(".", 1)[1]
            if path.split(".", 1)[0] not in _WRAPPERS:
                found.setdefault(path, message)
    return list(found.items())


def nesting_findings(ctx: Context) -> list[str]:
    """A nesting a refusal asks for that introspection does not document (module docstring)."""
    said = nestings_said(ctx)
    documented = _documented(ctx, [path for path, _ in said])
    return [
        cite(
            NESTING,
            f"a refusal says `{plain(path, max_len=120)}` is where a value belongs "
            f"({plain(message, max_len=200)!r}); introspection documents no such nesting",
        )
        for path, message in said
        if path not in documented  # json: dotted paths (strings)
    ]


def nesting_evidence(ctx: Context) -> list[str]:
    """NESTING_SAID where a refusal told where a value belongs."""
    return [NESTING_SAID] if nestings_said(ctx) else []


def _documented(ctx: Context, paths: list[str]) -> set[str]:
    """The paths introspection documents: a description naming the dotted path, or an entry named
    after its last key but one holding (in ``fields``, ``parameters`` or ``properties``) one named
    after its last key."""
    if not paths:
        return set()
    pairs = {tuple(path.rsplit(".", 2)[-2:]): path for path in paths}
    found: set[str] = set()
    for node in objects_in([ctx.details, ctx.bundle.data.get("introspection")], MAX_NODES):
        description = node.get("description")
        if isinstance(description, str):
            found |= {path for path in paths if path in description[:MAX_TEXT]}  # json: text
        name = node.get("name")
        for (parent, child), path in pairs.items():
            if name == parent and child in _children(node):  # json: names
                found.add(path)
        if len(found) == len(paths):
            break
    return found


def _children(node: dict[str, Any]) -> set[str]:
    """The names an entry holds: its ``fields`` or ``parameters`` entries, its ``properties`` keys."""
    names: set[str] = set()
    for key in ("fields", "parameters"):
        entries = node.get(key)
        if isinstance(entries, list):
            names |= {e["name"] for e in entries[:500] if isinstance(e, dict) and isinstance(e.get("name"), str)}
    properties = node.get("properties")
    if isinstance(properties, dict):
        names |= {key for key in list(properties)[:500] if isinstance(key, str)}
    return names
