"""One escaping function per output target. Every bundle string passes through one."""

from __future__ import annotations

import re

from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain

# Characters that start emphasis, code, links, images, headings, tables or strikethrough.
_MARKDOWN_SPECIAL = lazy(r"([\\`*_\[\]#!|~])")
# GFM autolinks: "scheme://...", "mailto:"/"xmpp:" and "www." (escaped), emails (see below).
# "www." links even after "_" (a word character), so it is escaped wherever it stands.
_AUTOLINK = lazy(r"(?i):(?=//)|(?<=mailto):|(?<=xmpp):|(?<=www)\.")
# What opens a block when it starts a line: a list item, a thematic break, a setext underline.
_BLOCK_START = lazy(r"^(?:[-+](?=\s|$)|\d{1,9}(?=[.)](?:\s|$))|[-=](?=[-=\s]*$))")
WORD_JOINER = "\u2060"


class Trusted(str):
    """Text produced by this tool itself (badges, fixed markup): not escaped again."""


# Terminal-safe text: no escape sequences or controls (rich Text objects are never parsed as markup).
terminal = plain


def _escape_block_start(match: re.Match[str]) -> str:
    """``- item`` -> ``\\- item``; ``1. item`` -> ``1\\. item`` (rendered as the literal text)."""
    found = match.group()
    return "\\" + found if not found.isdigit() else found + "\\"


def markdown(text: object) -> str:
    """Inline markdown that renders as the literal text: no headings, links, HTML or tables."""
    if isinstance(text, Trusted):
        return str(text)
    if text is None:
        return ""
    value = plain(text).lstrip()  # leading spaces would open an indented code block
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    value = _AUTOLINK.sub(lambda match: "\\" + match.group(), value)
    value = _BLOCK_START.sub(_escape_block_start, value)
    # Email autolinks ignore backslash escapes; an invisible word joiner after "@" stops them.
    return value.replace("@", "@" + WORD_JOINER)
