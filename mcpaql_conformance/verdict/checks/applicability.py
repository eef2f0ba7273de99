"""Operations that do not apply to an element type, noted (introspection §8.2.2 item 3, a SHOULD):
where a refusal says an operation does not apply to an element type ("query_relationships does not
apply to element type 'book'", "not supported for type 'shelf'"), that operation's introspection
should note it: its details name that type in a sentence that limits it ("only", "not", "except",
"does not apply", "not supported"). What no answer says cannot be told from outside; a run whose refusals name no
such type is judged on none of it.

Reading is linear and bounded: each refusal's message up to REFUSAL_TEXT characters (Context.refusals),
each operation's texts up to MAX_TEXT, at most MAX_SAID refusals judged."""

from __future__ import annotations

import re
from typing import Any

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.vocabulary import NOT_APPLICABLE_SAID
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import sentences

NOT_APPLICABLE_RULE = "introspection:8.2.2:not-applicable"
MAX_TEXT = 2000
MAX_SAID = 5
_TYPE = r"(?:the )?(?:element[ _-]?types?|types?|kinds?|elements?) [`'\"]?([A-Za-z_][\w-]{0,63})"
_SAYS_NOT_APPLICABLE = lazy(
    rf"(?:does not|doesn't|do not|don't|cannot|can't|can not) (?:apply|be used|work|operate|be applied) "
    rf"(?:to|with|for|on) {_TYPE}|not (?:supported|available|applicable|allowed) (?:for|on|with) {_TYPE}",
    re.IGNORECASE,
)
_LIMITING = lazy(
    r"(?:does not|doesn't|do not|don't|cannot|can't|can not) (?:apply|be used|work|operate)|not (?:supported|"
    r"available|applicable|allowed)|\bunsupported\b|\bonly (?:for|to|on|with|applies)\b|\bexcept\b|\bexcluding\b",
    re.IGNORECASE,
)


def types_refused(ctx: Context) -> list[tuple[str, str, str]]:
    """(operation, element type, message) of each refusal saying the operation does not apply to
    that type, each pair once."""
    found: dict[tuple[str, str], str] = {}
    for operation, message in ctx.refusals:
        if len(found) >= MAX_SAID:
            break
        if operation is None:
            continue
        for match in _SAYS_NOT_APPLICABLE.finditer(message):
            kind = next(group for group in match.groups() if group)
            found.setdefault((operation, kind), message)
    return [(operation, kind, message) for (operation, kind), message in found.items()]


def applicability_findings(ctx: Context) -> list[str]:
    """A refusal's element type the refused operation's introspection does not note (docstring)."""
    return [
        cite(
            NOT_APPLICABLE_RULE,
            f"{plain(operation, max_len=80)}: a refusal says it does not apply to element type "
            f"`{plain(kind, max_len=60)}` ({plain(message, max_len=200)!r}); its introspection does not note it",
        )
        for operation, kind, message in types_refused(ctx)
        if not _noted(ctx.details_by_name.get(operation), kind)
    ]


def applicability_evidence(ctx: Context) -> list[str]:
    """NOT_APPLICABLE_SAID where a refusal said an operation does not apply to an element type."""
    return [NOT_APPLICABLE_SAID] if types_refused(ctx) else []


def _noted(detail: Any, kind: str) -> bool:
    """Whether an operation's details name ``kind`` (or its plural) in a sentence that limits the operation."""
    named = re.compile(rf"(?<![\w-]){re.escape(kind)}(?:e?s)?(?![\w-])", re.IGNORECASE)  # "book", "books"
    for text in _texts(detail):
        for sentence in sentences(text, MAX_TEXT):
            if named.search(sentence) and _LIMITING.search(sentence):
                return True
    return False


def _texts(detail: Any) -> list[str]:
    """The operation's description and its parameters' descriptions."""
    if not isinstance(detail, dict):
        return []
    texts = [detail.get("description")]
    parameters = detail.get("parameters")
    for parameter in parameters[:200] if isinstance(parameters, list) else []:
        if isinstance(parameter, dict):
            texts.append(parameter.get("description"))
            fields = parameter.get("fields")
            listed = fields[:200] if isinstance(fields, list) else []
            texts += [field.get("description") for field in listed if isinstance(field, dict)]
    return [text for text in texts if isinstance(text, str)]
