"""Values that keep a parameter's documented ``pattern`` (JSON Schema's regular expression):
``shelf_id`` with ``^shelf_[a-z0-9]+$`` is sent ``shelf_k3x9q2``, never ``mcpaql-conformance-
shelf_id``, which the server would rightly refuse (a refusal of our value shows nothing).

Strings are generated with ``rstr`` (its ``Xeger``: a well-kept library that builds a string
from a regular expression's parse tree), with short repeats (six where a ``+`` or ``*`` allows,
the least a ``{n,m}`` allows beyond that) and a random source seeded by the run's token, the
parameter and a number, so that a run is reproducible and two creates get two values.

A server's pattern is untrusted: one longer than MAX_PATTERN, one Python cannot read (ECMA-262
has a few constructs it lacks), one whose shortest match is longer than MAX_WIDTH, or one whose
generated value is longer than that, gives no value (capture falls back to its made-up one).
A pattern is only *run* against a value (to keep a documented or earlier value that fits, or
our made-up one) when it cannot backtrack exponentially: no repeat inside a repeat, no
alternation inside a repeat (``(a+)+``, ``(a|a)*``); otherwise the value is not checked and the
generated one is used.
"""

from __future__ import annotations

import random
import re
import string
from functools import lru_cache
from itertools import chain
from typing import Any

from rstr.xeger import Xeger

try:  # the parser `re` itself uses (rstr reads the same tree)
    import re._parser as sre_parse  # type: ignore[import-not-found,unused-ignore]
    from re._constants import BRANCH, MAX_REPEAT, MIN_REPEAT, SUBPATTERN  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # Python 3.10
    import sre_parse  # type: ignore[no-redef,unused-ignore]
    from sre_constants import BRANCH, MAX_REPEAT, MIN_REPEAT, SUBPATTERN  # type: ignore[no-redef,unused-ignore]

JsonObject = dict[str, Any]
MAX_PATTERN = 256
MAX_WIDTH = 256
PREFERRED_REPEATS = 6
_PLAIN = string.ascii_lowercase + string.digits
ATTEMPTS = 8  # seeds tried for a value that also keeps minLength and maxLength


def pattern_of(parameter: JsonObject) -> str | None:
    """The parameter's documented pattern, when it is one we can use."""
    pattern = parameter.get("pattern")
    return pattern if isinstance(pattern, str) and _parsed(pattern) is not None else None


@lru_cache(maxsize=256)
def _parsed(pattern: str) -> Any:
    """The parse tree of a pattern (None: too long, unreadable, or no match short enough)."""
    if len(pattern) > MAX_PATTERN:
        return None
    try:
        tree = sre_parse.parse(pattern)
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    if tree.getwidth()[0] > MAX_WIDTH:
        return None
    return tree


@lru_cache(maxsize=256)
def safe_to_run(pattern: str) -> bool:
    """Whether running the pattern cannot backtrack exponentially (no repeat or alternation
    inside a repeat): only then is a value checked against it."""
    tree = _parsed(pattern)
    if tree is None:
        return False
    stack: list[tuple[Any, bool]] = [(tree, False)]
    while stack:
        node, in_repeat = stack.pop()
        for opcode, argument in node:
            if opcode in (MAX_REPEAT, MIN_REPEAT):
                if in_repeat:
                    return False
                stack.append((argument[2], True))
            elif opcode is BRANCH:
                if in_repeat:
                    return False
                stack.extend((branch, in_repeat) for branch in argument[1])
            elif opcode is SUBPATTERN:
                stack.append((argument[-1], in_repeat))
    return True


def fits(value: Any, parameter: JsonObject) -> bool | None:
    """Whether a string keeps the parameter's pattern (JSON Schema: found anywhere in it, unless
    anchored); None when there is none or it is not safe to run; other values have none."""
    pattern = pattern_of(parameter)
    if pattern is None or not isinstance(value, str):
        return None
    if not safe_to_run(pattern) or len(value) > MAX_WIDTH * 4:
        return None
    return re.search(pattern, value) is not None


class _Short(Xeger):
    """rstr's generator with short repeats (readable values that still differ between seeds)
    and a budget of repetitions, so that nested repeats cannot make it work for long."""

    BUDGET = 4 * MAX_WIDTH

    def __init__(self, source: random.Random, repeats: int = PREFERRED_REPEATS) -> None:
        super().__init__(source)
        self._left = self.BUDGET
        self._repeats = repeats
        self._cases = {**self._cases, "not_literal": lambda code: self._random.choice(_PLAIN.replace(chr(code), ""))}

    def _handle_in(self, value: Any) -> Any:
        """A negated class (``[^@]``) takes a letter or digit it allows, not any printable
        character: a value made of quotes and pipes is refused for reasons of its own."""
        candidates = list(chain(*(self._handle_state(item) for item in value)))
        if candidates and candidates[0] is False:
            excluded = set(candidates[1:])
            return self._random.choice([c for c in _PLAIN if c not in excluded] or ["_"])
        return self._random.choice(candidates)

    def _handle_repeat(self, start_range: int, end_range: int, value: str) -> str:
        times = min(max(start_range, self._repeats), end_range) if end_range > 1 else end_range
        self._left -= times
        if self._left < 0:
            raise ValueError("the pattern's repeats are nested too deep to generate a value")
        return "".join("".join(self._handle_state(item) for item in value) for _ in range(times))


def matching(pattern: str, seed: str, parameter: JsonObject | None = None) -> str | None:
    """A string the pattern matches (and that keeps the parameter's length bounds), generated
    from ``seed``; None where the pattern gives none we may send."""
    if _parsed(pattern) is None:
        return None
    low, high = _bounds(parameter or {})
    for attempt in range(ATTEMPTS):
        try:
            repeats = max(1, PREFERRED_REPEATS - attempt)  # shorter each time: a maxLength may want it
            value = str(_Short(random.Random(f"{seed}:{attempt}"), repeats).xeger(pattern))
        except (KeyError, IndexError, ValueError, TypeError, RecursionError, re.error):  # backrefs, lookarounds
            return None
        if len(value) > MAX_WIDTH:
            return None
        if low <= len(value) <= high and (not safe_to_run(pattern) or re.search(pattern, value) is not None):
            return value
    return None


def _bounds(parameter: JsonObject) -> tuple[int, int]:
    low, high = parameter.get("minLength"), parameter.get("maxLength")
    low = low if isinstance(low, int) and not isinstance(low, bool) and low >= 0 else 0
    high = high if isinstance(high, int) and not isinstance(high, bool) and high >= 0 else MAX_WIDTH
    return low, high
