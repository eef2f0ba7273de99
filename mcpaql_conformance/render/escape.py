"""One escaping function per output target. Every bundle string passes through one."""

from __future__ import annotations

import re

from mcpaql_conformance.sanitize import plain

# Characters that start emphasis, code, links, images, headings, tables or strikethrough.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]#!|~])")
# GFM autolinks: "scheme://...", "mailto:"/"xmpp:" and "www." (escaped), emails (see below).
_AUTOLINK = re.compile(r"(?i):(?=//)|(?<=\bmailto):|(?<=\bxmpp):|(?<=\bwww)\.")
WORD_JOINER = "\u2060"


class Trusted(str):
    """Text produced by this tool itself (badges, fixed markup): not escaped again."""


def terminal(text: object) -> str:
    """Terminal-safe text: no escape sequences or controls (rich Text objects are never parsed as markup)."""
    return plain(text)


def markdown(text: object) -> str:
    """Inline markdown that renders as the literal text: no headings, links, HTML or tables."""
    if isinstance(text, Trusted):
        return str(text)
    if text is None:
        return ""
    value = plain(text)
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    value = _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    value = _AUTOLINK.sub(lambda match: "\\" + match.group(), value)
    # Email autolinks ignore backslash escapes; an invisible word joiner after "@" stops them.
    return value.replace("@", "@" + WORD_JOINER)
