"""References kept from one version of a server to the next (operations §4.4.2, a SHOULD): each
reference an operation documented in an earlier capture (``previous_version``, written by
``capture --previous``), where the operation is still there, is still documented, or an alias
names it: its name or path stands in the operation's details under a key that says so (``aliases``,
``deprecated_names``, ``formerly``, ``replaces``...) or in a sentence that does ("`order` is an
alias of `sort`", "formerly `order`"). A mere mention is no alias (a `first` described as "not with
`last`" keeps no `last`). An operation gone altogether is not this rule's."""

from __future__ import annotations

import re
from typing import Any

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.previous import references
from mcpaql_conformance.files.values import objects_in
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import mentions_identifier, sentences

PRESERVE = "operations:4.4.2:preserve-refs"
MAX_WALK = 10_000  # values of one operation's details looked at
MAX_TEXT = 2_000  # characters of one string read for sentences
_ALIAS_KEY = lazy(r"alias|formerly|previous|renamed|replaces|deprecat|legacy|old_?name", re.IGNORECASE)
_ALIAS_SAID = lazy(r"\b(?:alias|aliases|aliased|formerly|previously|renamed|replaces|replaced|deprecated|legacy|"
                   r"old name|still accepted|instead of)\b", re.IGNORECASE)  # fmt: skip


def preserved_reference_findings(ctx: Context) -> list[str]:
    """Per operation of both versions, the references of the earlier one the later one neither
    documents nor names (one finding each)."""
    previous = ctx.bundle.data.get("previous_version")
    if not isinstance(previous, dict) or not isinstance(previous.get("references"), dict):
        return []
    earlier: dict[str, Any] = previous["references"]
    now = references(ctx.bundle.operation_details)
    findings: list[str] = []
    for operation, refs in earlier.items():
        if operation not in now or not isinstance(refs, list):  # json: a name among keys
            continue
        kept = set(now[operation])
        gone = [ref for ref in refs if isinstance(ref, str) and ref not in kept]
        aliases = _alias_texts(ctx.details_by_name.get(operation)) if gone else []
        silent = [ref for ref in gone if not any(_named(text, ref) for text in aliases)]
        if silent:
            shown = ", ".join(f"`{plain(ref, max_len=80)}`" for ref in silent[:10])
            text = f"{plain(operation)}: {shown}, documented by {_version(previous)}, no longer documented, and no"
            findings.append(cite(PRESERVE, f"{text} alias names {'it' if len(silent) == 1 else 'them'}"))
    return findings


def _alias_texts(detail: Any) -> list[str]:
    """What in an operation's details may name an alias: strings under a key that says so, and
    sentences that say so (bounded walk)."""
    found: list[str] = []
    for node in objects_in([detail], MAX_WALK):
        for key, value in node.items():
            strings = _strings(value)
            if _ALIAS_KEY.search(str(key)):
                found += strings
            else:
                found += [line for text in strings for line in sentences(text, MAX_TEXT) if _ALIAS_SAID.search(line)]
    return found


def _strings(value: Any) -> list[str]:
    """A string, or the strings of a list; nothing else."""
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _named(text: str, ref: str) -> bool:
    """Whether ``text`` names the reference: a path as it stands, a name as an identifier."""
    return ref in text if "/" in ref else mentions_identifier(text, ref)


def _version(previous: dict[str, Any]) -> str:
    named = " ".join(plain(str(previous.get(key) or ""), max_len=80) for key in ("implementation", "version"))
    source = previous.get("bundle")
    where = f", {plain(str(source), max_len=80)}" if source else ""
    return f"the previous version ({named.strip() or 'unnamed'}{where})"
