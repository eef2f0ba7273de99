"""Neutralise untrusted text before it reaches any output.

Every output target has its own escaping (render/), but all of them start from
``plain``: no terminal escape sequences, no control characters, no bidi
overrides (which can make text read differently from what it is).
"""

from __future__ import annotations

import re

# ANSI/VT escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), and
# two-character escapes. Bounded so that hostile input cannot make them slow.
_ANSI = re.compile(
    r"\x1b\[[0-?]{0,64}[ -/]{0,16}[@-~]"
    r"|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]{0,64}[ -/]{0,16}[@-~]"
)
# C0 and C1 controls (tab/newline handled separately), DEL, bidi controls,
# zero-width joiners used for spoofing, line/paragraph separators, and what XML
# 1.0 cannot carry at all (U+FFFE, U+FFFF).
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff"
    r"\ufffe\uffff]"
)
# Lone surrogates: bytes of a file name that are not UTF-8 (Python keeps them as U+DC80..
# U+DCFF). Shown as U+FFFD, so that "bad\xff.json" does not read as "bad.json".
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SPACES = re.compile(r"[\t\n\r]+")


def plain(text: object, *, max_len: int = 2000) -> str:
    """One line of printable text: escapes and controls removed, whitespace folded."""
    value = text if isinstance(text, str) else str(text)
    if len(value) <= max_len and value.isprintable():
        return value  # nothing below can match: every character it removes is unprintable
    if len(value) > max_len * 4:
        value = value[: max_len * 4]
    value = _ANSI.sub("", value)
    value = _SPACES.sub(" ", value)
    value = _CONTROL.sub("", value)
    value = _SURROGATE.sub("\ufffd", value)
    if len(value) > max_len:
        value = value[: max_len - 1] + "\u2026"
    return value
