"""Text predicates used by the checks: identifier mentions, phrases, leaks."""

from __future__ import annotations

import re

_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NON_WORD = re.compile(r"[^a-z0-9_]+")


def mentions_identifier(text: str, name: str) -> bool:
    """True when ``name`` stands in ``text`` as a whole identifier (``id`` is not in ``widget_id``)."""
    if not name:
        return False
    start = text.find(name)
    while start != -1:
        end = start + len(name)
        before_ok = start == 0 or text[start - 1] not in _IDENT_CHARS
        after_ok = end == len(text) or text[end] not in _IDENT_CHARS
        if before_ok and after_ok:
            return True
        start = text.find(name, start + 1)
    return False


def mentions(text: str, fragment: str) -> bool:
    """Identifier-shaped fragments must appear whole; other fragments as substrings."""
    if _IDENTIFIER.fullmatch(fragment):
        return mentions_identifier(text, fragment)
    return bool(fragment) and fragment in text


def normalize_words(text: str) -> str:
    """Lower-case words separated by single spaces, padded so phrase tests match whole words."""
    return " " + _NON_WORD.sub(" ", text.lower()).strip() + " "


def contains_phrase(normalized_text: str, phrase: str) -> bool:
    """Whole-word phrase test against text from ``normalize_words``."""
    words = normalize_words(phrase)
    return words.strip() != "" and words in normalized_text


def is_snake_case(name: str) -> bool:
    return _SNAKE.fullmatch(name) is not None


_SNAKE = re.compile(r"[a-z][a-z0-9_]*")

# Artifacts of an implementation leaking through an error message. Each pattern
# names a real artifact, never plain English ("must be at least 3" is fine), and
# is bounded: no nested quantifiers, no unbounded repetition next to another.
LEAK_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("exception class name", re.compile(r"\b(?:[A-Z][a-z0-9]{1,30}){1,6}(?:Error|Exception)\b")),
    ("stack trace header", re.compile(r"Traceback \(most recent call last\)")),
    (
        "stack frame",
        re.compile(
            r"\bat [\w$.<>\[\]]{1,200} \([^()\s]{1,400}:\d{1,7}(?::\d{1,7})?\)"
            r"|\bat (?:file://)?/?[\w./\\-]{1,400}:\d{1,7}:\d{1,7}"
            r"|\bat (?:Function|Module|Object|async|new) [\w$.<>]{1,200}"
        ),
    ),
    ("python frame", re.compile(r"File \"[^\"]{1,400}\", line \d{1,7}")),
    ("internal path", re.compile(r"(?:^|[\s'\"(=:])(?:[A-Za-z]:)?[/\\](?:[\w.-]{1,100}[/\\]){0,20}(?:src|node_modules|site-packages|dist-packages|lib/python[\d.]{0,5}|vendor)[/\\]")),
    ("source line reference", re.compile(r"\.(?:py|js|mjs|cjs|ts|tsx|jsx|rb|java|go|rs|php|cs):\d{1,7}\b|\.py\", line \d{1,7}")),
    ("object dump", re.compile(r"#<[A-Z][\w:]{0,100}|\[object Object\]")),
)


def find_leak(message: str) -> str | None:
    """Name the first implementation artifact found in an error message, if any."""
    for label, pattern in LEAK_PATTERNS:
        match = pattern.search(message)
        if match:
            return f"{label} {match.group(0).strip()!r}"
    return None
