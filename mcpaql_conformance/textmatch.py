"""Text predicates used by the checks: identifier mentions, phrases, leaks."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NON_WORD = re.compile(r"[^\w]+")  # Unicode-aware: letters of every script are word characters


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
    """Case-folded (NFKC) words separated by single spaces, padded with a space each side."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " " + _NON_WORD.sub(" ", folded).strip() + " "


def contains_phrase(normalized_text: str, phrase: str) -> bool:
    """Whole-word phrase test against text from ``normalize_words`` ("caf" is not in "café").

    Scripts written without spaces (Chinese, Japanese) have no word boundaries to
    respect: next to such a character a phrase may start or end anywhere.
    """
    words = normalize_words(phrase).strip()
    if not words:
        return False
    start = normalized_text.find(words)
    while start != -1:
        end = start + len(words)
        if _boundary(normalized_text[start - 1], words[0]) and _boundary(normalized_text[end], words[-1]):
            return True
        start = normalized_text.find(words, start + 1)
    return False


def _boundary(neighbour: str, edge: str) -> bool:
    return neighbour == " " or _unspaced(neighbour) or _unspaced(edge)


def _unspaced(char: str) -> bool:
    """Wide (East Asian) characters belong to scripts that do not separate words."""
    return unicodedata.east_asian_width(char) in ("W", "F")


def is_snake_case(name: str) -> bool:
    return _SNAKE.fullmatch(name) is not None


def all_snake_case(names: list[str]) -> bool:
    """``all(map(is_snake_case, names))`` in one regex pass over the joined names.

    A name with a line break cannot hide in the joined text: it would add a line."""
    if not names:
        return True
    joined = "\n".join(names)
    return joined.count("\n") == len(names) - 1 and _SNAKE_LINES.fullmatch(joined) is not None


_SNAKE = re.compile(r"[a-z][a-z0-9_]*")
_SNAKE_LINES = re.compile(r"[a-z][a-z0-9_]*(?:\n[a-z][a-z0-9_]*)*")

# Artifacts of an implementation leaking through an error message. Each rule
# names a real artifact, never plain English ("must be at least 3" is fine).
# The literals are a cheap prefilter (substring search runs at C speed over a
# whole bundle); the regex, bounded (no nested unbounded repetition), confirms.


def _located_in_a_file(match: re.Match[str]) -> bool:
    """A ``(location:line)`` frame names a file or module (has / \\ or .), not "(UTC+5:30)"."""
    location = match.group("location")
    return location is None or any(mark in location for mark in "/\\.")


@dataclass(frozen=True)
class LeakRule:
    label: str
    literals: tuple[str, ...]
    pattern: re.Pattern[str]
    confirm: Callable[[re.Match[str]], bool] | None = None

    def appears_in(self, text: str) -> bool:
        """Cheap test that the rule could match; with no literals the pattern itself is
        the quicker scan (it starts with a literal the regex engine searches for)."""
        if not self.literals:
            return self.pattern.search(text) is not None
        return any(literal in text for literal in self.literals)

    def find(self, text: str) -> str | None:
        if not self.appears_in(text):
            return None
        for match in self.pattern.finditer(text):
            if self.confirm is None or self.confirm(match):
                return f"{self.label} {match.group(0).strip()!r}"
        return None


_SOURCE_EXTENSIONS = ("py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "rb", "java", "go", "rs", "php", "cs")

LEAK_RULES: tuple[LeakRule, ...] = (
    LeakRule(
        "exception class name",
        ("Error", "Exception"),
        re.compile(r"\b[A-Z][A-Za-z0-9]{0,80}(?:Error|Exception)\b"),
    ),
    LeakRule("stack trace header", ("Traceback",), re.compile(r"Traceback \(most recent call last\)")),
    LeakRule(
        "stack frame",
        ("at ",),
        re.compile(
            r"\bat [\w$.<>\[\]]{1,200} \((?P<location>[^()\s]{1,400}):\d{1,7}(?::\d{1,7})?\)"
            r"|\bat (?:file://|node:)?(?:[A-Za-z]:)?[\w.-]{0,100}(?:[/\\][\w.-]{1,100}){1,20}:\d{1,7}:\d{1,7}"
            r"|\bat (?:Function|Module|Object)\.[\w$.<>]{1,200}"
            r"|\bat (?:new|async) [A-Z][\w$.<>]{0,200} \("
        ),
        _located_in_a_file,
    ),
    LeakRule("python frame", ('File "',), re.compile(r"File \"[^\"\n]{1,400}\", line \d{1,7}")),
    LeakRule(
        "internal path",
        ("src", "node_modules", "site-packages", "dist-packages", "lib", "vendor"),
        re.compile(
            r"\bnode_modules[/\\]"
            r"|[/\\](?:src|site-packages|dist-packages|vendor|lib[/\\]python[\d.]{0,5})[/\\]"
        ),
    ),
    LeakRule(
        "source line reference",
        (),
        re.compile(r"\.(?:" + "|".join(_SOURCE_EXTENSIONS) + r"):\d{1,7}\b|\.py\", line \d{1,7}"),
    ),
    LeakRule("object dump", ("#<", "[object Object]"), re.compile(r"#<[A-Z][\w:]{0,100}|\[object Object\]")),
)


def find_leak(message: str) -> str | None:
    """Name the first implementation artifact found in an error message, if any."""
    for rule in LEAK_RULES:
        found = rule.find(message)
        if found is not None:
            return found
    return None


def find_leaks(messages: list[str]) -> list[tuple[int, str]]:
    """(index, artifact) of every leaking message. Servers repeat their messages, so each
    distinct text is judged once; rules whose literals appear nowhere in the whole batch
    are dropped after one substring scan each."""
    distinct = list(dict.fromkeys(messages))
    joined = "\n".join(distinct)
    active = [rule for rule in LEAK_RULES if rule.appears_in(joined)]
    leaking: dict[str, str] = {}
    for message in distinct if active else ():
        leak = next((found for rule in active if (found := rule.find(message)) is not None), None)
        if leak is not None:
            leaking[message] = leak
    if not leaking:
        return []
    return [(index, leaking[message]) for index, message in enumerate(messages) if message in leaking]
