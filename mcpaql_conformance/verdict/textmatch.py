"""Text predicates used by the checks: identifier mentions, phrases, leaks."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from mcpaql_conformance.regex import lazy

_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_IDENTIFIER = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_NON_WORD = lazy(r"[^\w]+")  # Unicode-aware: letters of every script are word characters
_SENTENCE_BREAK = lazy(r"(?<=[.;!?])\s+")


def sentences(text: str, limit: int) -> list[str]:
    """The sentences of ``text``'s first ``limit`` characters (split after `.`, `;`, `!`, `?`)."""
    return _SENTENCE_BREAK.split(text[:limit])


def refusal_names(message: str, details: Any, name: str) -> bool:
    """Whether any part of a refusal names ``name`` whole: its message, or a key or string anywhere
    in its details (an upstream's own error nested there counts), read breadth first, bounded."""
    if mentions_identifier(message, name):
        return True
    queue: deque[Any] = deque([details])
    looked = 0
    while queue and looked < MAX_DETAIL_NODES:
        item = queue.popleft()
        looked += 1
        if isinstance(item, str):
            if mentions_identifier(item[:MAX_DETAIL_TEXT], name):
                return True
        elif isinstance(item, dict):
            if name in item:  # json: a key looked up
                return True
            queue.extend(islice(item.values(), 200))
        elif isinstance(item, list):
            queue.extend(item[:200])
    return False


MAX_DETAIL_NODES = 500
MAX_DETAIL_TEXT = 2_000


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


_IDENT_RUN = lazy(r"[A-Za-z0-9_]+")


def identifiers_in(text: str) -> set[str]:
    """Every whole identifier in ``text``: ``mentions_identifier(text, name)`` is ``name in``
    this set, for any identifier-shaped name (one pass, however many names are asked)."""
    return set(_IDENT_RUN.findall(text))


def identifiers_folded(text: str) -> set[str]:
    """``identifiers_in(text)`` in lower case: what a text names, whatever case it writes it in."""
    return {identifier.lower() for identifier in _IDENT_RUN.findall(text)}


def mentions_all(text: str, fragments: list[str]) -> list[bool]:
    """``mentions`` of each fragment, in one pass over the text for the identifier-shaped ones."""
    if len(fragments) < 4:
        return [mentions(text, fragment) for fragment in fragments]
    present = identifiers_in(text)
    return [
        fragment in present if _IDENTIFIER.fullmatch(fragment) else bool(fragment) and fragment in text
        for fragment in fragments
    ]


def mentions(text: str, fragment: str) -> bool:
    """Identifier-shaped fragments must appear whole; other fragments as substrings."""
    if _IDENTIFIER.fullmatch(fragment):
        return mentions_identifier(text, fragment)
    return bool(fragment) and fragment in text


def normalize_words(text: str) -> str:
    """Case-folded (NFKC) words separated by single spaces, padded with a space each side."""
    if len(text) <= _SHORT:
        return _normalize_short(text)
    return _normalize(text)


_SHORT = 1024  # short texts (phrases, names, most answers) recur: their normal form is cached


def _normalize(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " " + _NON_WORD.sub(" ", folded).strip() + " "


_normalize_short = functools.lru_cache(maxsize=8192)(_normalize)


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


def phrases_in(normalized_text: str, phrases: list[str]) -> set[str]:
    """The phrases that ``contains_phrase`` finds in a text from ``normalize_words``, all at once:
    linear in the text and the phrases (Aho-Corasick over words), however many phrases there
    are and however often their words recur. A wide (East Asian) character is a word of its
    own, which is ``contains_phrase``'s rule that a phrase may start or end next to one."""
    if len(phrases) <= FEW_PHRASES:  # not worth an automaton
        return {phrase for phrase in phrases if contains_phrase(normalized_text, phrase)}
    wanted: dict[tuple[str, ...], list[str]] = {}
    for phrase in phrases:
        words = _phrase_words(phrase)
        if words:
            wanted.setdefault(words, []).append(phrase)
    if not wanted:
        return set()
    machine = _Automaton(list(wanted))
    return {phrase for words in machine.found(_words(normalized_text)) for phrase in wanted[words]}


FEW_PHRASES = 8


@functools.lru_cache(maxsize=4096)
def _phrase_words(phrase: str) -> tuple[str, ...]:
    return tuple(_words(normalize_words(phrase)))


@functools.cache
def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


_SPACE = " "  # a token of its own: "世界 x" and "世界x" are different texts


def _words(normalized: str) -> Iterator[str]:
    for index, word in enumerate(normalized.split()):
        if index:
            yield _SPACE
        if word.isascii():
            yield word
            continue
        run = ""
        for char in word:
            if _wide(char):
                if run:
                    yield run
                    run = ""
                yield char
            else:
                run += char
        if run:
            yield run


class _Automaton:
    """Aho-Corasick over word sequences: which of the sequences occur in a stream of words."""

    def __init__(self, sequences: list[tuple[str, ...]]) -> None:
        self.goto: list[dict[str, int]] = [{}]
        self.out: list[list[tuple[str, ...]]] = [[]]
        for sequence in sequences:
            node = 0
            for word in sequence:
                child = self.goto[node].get(word)
                if child is None:
                    self.goto.append({})
                    self.out.append([])
                    child = self.goto[node][word] = len(self.goto) - 1
                node = child
            self.out[node].append(sequence)
        self.fail = [0] * len(self.goto)
        self.next_output = [0] * len(self.goto)  # nearest node on the failure chain with output
        queue = deque(self.goto[0].values())
        while queue:
            node = queue.popleft()
            for word, child in self.goto[node].items():
                queue.append(child)
                state = self.fail[node]
                while state and word not in self.goto[state]:  # json: words of our automaton
                    state = self.fail[state]
                target = self.goto[state].get(word, 0)
                self.fail[child] = target if target != child else 0
                link = self.fail[child]
                self.next_output[child] = link if self.out[link] else self.next_output[link]

    def found(self, words: Iterable[str]) -> set[tuple[str, ...]]:
        seen = [False] * len(self.goto)  # a node's whole output chain is reported once
        found: set[tuple[str, ...]] = set()
        node = 0
        for word in words:
            while node and word not in self.goto[node]:  # json: words of our automaton
                node = self.fail[node]
            node = self.goto[node].get(word, 0)
            state = node
            while state and not seen[state]:
                seen[state] = True
                found.update(self.out[state])
                state = self.next_output[state]
        return found


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


_SNAKE = lazy(r"[a-z][a-z0-9_]*")
_SNAKE_LINES = lazy(r"[a-z][a-z0-9_]*(?:\n[a-z][a-z0-9_]*)*")

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
        return next(iter(self.matches(text)), (0, 0, None))[2]

    def matches(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, end, description) of every confirmed match."""
        if not self.appears_in(text):
            return
        for match in self.pattern.finditer(text):
            if self.confirm is None or self.confirm(match):
                yield match.start(), match.end(), f"{self.label} {match.group(0).strip()!r}"


_SOURCE_EXTENSIONS = ("py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "rb", "java", "go", "rs", "php", "cs")

LEAK_RULES: tuple[LeakRule, ...] = (
    LeakRule(
        "exception class name",
        ("Error", "Exception"),
        lazy(r"\b[A-Z][A-Za-z0-9]{0,80}(?:Error|Exception)\b"),
    ),
    LeakRule("stack trace header", ("Traceback",), lazy(r"Traceback \(most recent call last\)")),
    LeakRule(
        "stack frame",
        ("at ",),
        lazy(
            r"\bat [\w$.<>\[\]]{1,200} \((?P<location>[^()\s]{1,400}):\d{1,7}(?::\d{1,7})?\)"
            r"|\bat (?:file://|node:)?(?:[A-Za-z]:)?[\w.-]{0,100}(?:[/\\][\w.-]{1,100}){1,20}:\d{1,7}:\d{1,7}"
            r"|\bat (?:Function|Module|Object)\.[\w$.<>]{1,200}"
            r"|\bat (?:new|async) [A-Z][\w$.<>]{0,200} \("
        ),
        _located_in_a_file,
    ),
    LeakRule("python frame", ('File "',), lazy(r"File \"[^\"\n]{1,400}\", line \d{1,7}")),
    LeakRule(
        "internal path",
        ("src", "node_modules", "site-packages", "dist-packages", "lib", "vendor"),
        lazy(
            r"\bnode_modules[/\\]"
            r"|[/\\](?:src|site-packages|dist-packages|vendor|lib[/\\]python[\d.]{0,5})[/\\]"
        ),
    ),
    LeakRule(
        "source line reference",
        (),
        lazy(r"\.(?:" + "|".join(_SOURCE_EXTENSIONS) + r"):\d{1,7}\b|\.py\", line \d{1,7}"),
    ),
    LeakRule("object dump", ("#<", "[object Object]"), lazy(r"#<[A-Z][\w:]{0,100}|\[object Object\]")),
)


def find_leak(message: str) -> str | None:
    """Name the first implementation artifact found in an error message, if any."""
    for rule in LEAK_RULES:
        found = rule.find(message)
        if found is not None:
            return found
    return None


def leaks_outside(text: str, quoted: list[str]) -> Iterator[str]:
    """Every artifact in ``text``, rule by rule, that does not lie wholly inside a place where
    ``text`` quotes one of ``quoted`` (what the caller sent, echoed back): a match that reaches
    beyond the quote ("TypeError" around a sent "Error", "/src/" around a sent "src") is the
    server's. With nothing quoted, every artifact, the first being the one ``find_leaks`` names."""
    spans = [(start, start + len(value)) for value in set(quoted) if value for start in _occurrences(text, value)]
    for rule in LEAK_RULES:
        for start, end, found in rule.matches(text):
            if not any(left <= start and end <= right for left, right in spans):
                yield found


def _occurrences(text: str, value: str) -> Iterator[int]:
    start = text.find(value)
    while start != -1:
        yield start
        start = text.find(value, start + 1)


def leak_artifacts(texts: list[str]) -> set[str]:
    """Every artifact (as a finding names it) the leak rules find anywhere in ``texts``; one batch
    scan first (``find_leaks``), so texts without any are not walked rule by rule."""
    leaky = {texts[index] for index, _ in find_leaks(texts)}
    return {found for text in leaky for found in leaks_outside(text, [])}


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
