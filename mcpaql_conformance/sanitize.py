"""Neutralise untrusted text before it reaches any output.

Every output target has its own escaping (render/), but all of them start from
``plain``: no terminal escape sequences, no control characters, no bidi
overrides (which can make text read differently from what it is), no invisible
characters (which can make two different names read the same).
"""

from __future__ import annotations

import re

from mcpaql_conformance.regex import lazy
from mcpaql_conformance.secrecy import mask

# ANSI/VT escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), and
# two-character escapes. Bounded so that hostile input cannot make them slow.
_ANSI = lazy(
    r"\x1b\[[0-?]{0,64}[ -/]{0,16}[@-~]"
    r"|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]{0,64}[ -/]{0,16}[@-~]"
)
# Characters no reader sees, or that change how the text around them is shown:
# DEL and the C1 controls (U+009B is a one-byte CSI), Unicode's Default_Ignorable_Code_Point
# set (soft hyphen, combining grapheme joiner, Hangul fillers, Khmer inherent vowels,
# Mongolian variation selectors and vowel separator, zero-width spaces and joiners,
# direction marks, bidi embeddings, overrides and isolates, word joiner, invisible
# operators, deprecated format controls, variation selectors, the BOM, tag characters), the
# line and paragraph separators, the interlinear annotation controls, and what XML 1.0
# cannot carry (U+FFFE, U+FFFF). Names that differ only by these would read the same, so
# every human-readable output removes them (``plain``) and every JSON output writes them as
# ``\u`` escapes (``jsonio.dumps``): one list for both.
UNSEEN_RANGES: tuple[tuple[int, int], ...] = (
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0xFFFE, 0xFFFF),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def _character_class(ranges: tuple[tuple[int, int], ...], extra: str = "") -> str:
    parts = (re.escape(chr(low)) + ("" if low == high else "-" + re.escape(chr(high))) for low, high in ranges)
    return "[" + extra + "".join(parts) + "]"


# Several of these are "printable" to str.isprintable() (U+3164, U+115F, U+FFA0, the
# variation selectors...), so the fast path of ``plain`` looks for them too.
UNSEEN = lazy(_character_class(UNSEEN_RANGES))
# C0 controls (tab and newlines are folded to a space first) and everything unseen.
_CONTROL = lazy(_character_class(UNSEEN_RANGES, extra="\x00-\x08\x0b-\x1f"))
# Lone surrogates: bytes of a file name that are not UTF-8 (Python keeps them as U+DC80..
# U+DCFF). Shown as U+FFFD, so that "bad\xff.json" does not read as "bad.json".
_SURROGATE = lazy(r"[\ud800-\udfff]")
_SPACES = lazy(r"[\t\n\r]+")


def plain(text: object, *, max_len: int = 2000) -> str:
    """One line of printable text: escapes and controls removed, whitespace folded."""
    # Secrets are masked first, the cut made after: no excerpt shows part of one (see secrecy).
    value = mask(text if isinstance(text, str) else str(text), max_len * 4)
    if len(value) <= max_len and value.isprintable() and (value.isascii() or not UNSEEN.search(value)):
        return value  # nothing below can match: no escape, control or unseen character
    if len(value) > max_len * 4:
        value = value[: max_len * 4]
    value = _ANSI.sub("", value)
    value = _SPACES.sub(" ", value)
    value = _CONTROL.sub("", value)
    value = _SURROGATE.sub("\ufffd", value)
    value = mask(value)  # a secret that escapes or invisible characters had split
    if len(value) > max_len:
        value = value[: max_len - 1] + "\u2026"
    return value


_SHOWN_AS_ESCAPES = lazy(_character_class(UNSEEN_RANGES, extra="\x00-\x1f") + r"|[\ud800-\udfff]")
_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC")  # alphabets with look-alike letters


def visible(text: object, *, max_len: int = 2000) -> str:
    """One line in which two names that differ read differently: what ``plain`` would remove
    without a trace (controls, escape sequences' ESC, invisible characters, lone surrogates) is
    shown as a ``\\uXXXX`` escape, and in a name that mixes alphabets whose letters look alike
    (Latin with Cyrillic or Greek: "note" with a Cyrillic o) the letters of every alphabet but
    its main one are escapes too. Secrets are masked as by ``plain``."""
    value = mask(text if isinstance(text, str) else str(text), max_len * 4)
    if len(value) > max_len * 4:
        value = value[: max_len * 4]
    value = _SHOWN_AS_ESCAPES.sub(lambda match: f"\\u{ord(match.group()):04x}", value)
    if not value.isascii():
        value = _unmixed(value)
    return plain(value, max_len=max_len)


def _unmixed(text: str) -> str:
    """``text`` with the letters of every look-alike alphabet but its main one (the one most of
    its letters are in; Latin on a tie) shown as escapes."""
    import unicodedata

    scripts = [_script(unicodedata.name(c, "")) if c.isalpha() else None for c in text]
    counts = {script: scripts.count(script) for script in set(scripts) if script is not None}
    if len(counts) < 2:
        return text
    main = max(counts, key=lambda script: (counts[script], script == "LATIN"))
    return "".join(
        f"\\u{ord(c):04x}" if script is not None and script != main else c
        for c, script in zip(text, scripts, strict=True)
    )


def _script(name: str) -> str | None:
    return next((script for script in _SCRIPTS if name.startswith(script + " ")), None)
