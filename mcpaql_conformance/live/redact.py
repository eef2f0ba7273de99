"""Secrets never leave the capture: sensitive parameters and environment-provided values."""

from __future__ import annotations

import functools
import re
from typing import Any

from mcpaql_conformance import secrecy
from mcpaql_conformance.files.depth import DEEPER, MAX_DEPTH

MASK = secrecy.MASK
# A secret this short is masked wherever it appears all the same (a secret is never
# written), but the user is warned: it may also blank out unrelated text of the evidence.
SHORT_SECRET = 4


def secret_text(value: object) -> str | None:
    """The text a secret value shows as when a server echoes it: strings, and numbers
    (``482193`` is echoed as ``482193`` or ``482193.0``). Booleans and null hide nothing."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        return value or None
    if isinstance(value, int | float):
        return str(value)
    return None


# The words of a record and of the metrics (the bundle's come from its schema).
_RECORD_WORDS = (
    "index", "operation", "tool", "probe", "_description", "params", "response_time_ms", "timestamp", "outcome",
    "response", "answered", "error", "timeout", "calls", "by_probe", "by_operation", "errors", "error_answers",
    "mcp_errors", "timeouts", "latency_ms", "p50", "p95", "max",
)  # fmt: skip


@functools.cache
def vocabulary() -> frozenset[str]:
    """Our own words: the bundle schema's property names and enumerated values, and the
    fields of records and metrics. A string that is exactly one of them is public text, kept
    as it is, so that a short secret (``x``) cannot break the bundle's structure (``te***t``)."""
    from mcpaql_conformance.files.schemas import schema_document

    words = set(_RECORD_WORDS)
    stack: list[Any] = [schema_document("bundle")]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                if key == "properties" and isinstance(item, dict):
                    words.update(item)
                elif key == "enum" and isinstance(item, list):
                    words.update(word for word in item if isinstance(word, str))
                stack.append(item)
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(words)


class Redactor:
    """Masks sensitive parameter values and every occurrence of secret strings: whole
    values, inside longer words, in keys, and in numbers whose digits contain one. Only
    a string that is exactly one of our own field names or enumerated values is kept."""

    def __init__(self) -> None:
        self.sensitive: set[tuple[str, str]] = set()
        secrecy.protect_model_keys()  # the model keys set in the environment, used or not
        self.secrets: set[str] = set(secrecy.registered())  # the process's: model keys, URL credentials
        self._pattern: re.Pattern[str] | None = None

    def add_secret(self, value: object, *, everywhere: bool = False) -> None:
        """Mask ``value`` in the evidence; ``everywhere``: a real secret (the plan's, from the
        environment), masked in every line printed too. A value sent to a sensitive parameter is
        not: it may be one capture made up (``probe``), a word our own lines use."""
        text = secret_text(value)
        if text is None:
            if isinstance(value, dict | list):  # a structured secret: each of its scalars
                for item in value.values() if isinstance(value, dict) else value:
                    self.add_secret(item, everywhere=everywhere)
            return
        if text not in self.secrets:
            self.secrets.add(text)
            self._pattern = None
        if everywhere:
            secrecy.register(text)

    def short_secrets(self) -> list[str]:
        return sorted(secret for secret in self.secrets if len(secret) < SHORT_SECRET)

    def params(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        masked = {key: MASK if (operation, key) in self.sensitive else value for key, value in params.items()}
        return self.value(masked)  # type: ignore[no-any-return]

    def text(self, text: str) -> str:
        """``text`` with every secret masked (longest first, so that no part of one survives);
        one of our own words is kept (see ``vocabulary``)."""
        if not self.secrets or text in vocabulary():
            return text
        if self._pattern is None:
            ordered = sorted(self.secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(secret) for secret in ordered))
        return self._pattern.sub(MASK, text)

    def value(self, value: Any) -> Any:
        """A copy of ``value`` with every secret masked, at any depth (iteratively: an answer
        nested thousands of levels deep costs no recursion), cut at MAX_DEPTH levels."""
        if not self.secrets and not isinstance(value, dict | list):
            return value
        return _rebuild(value, self._scalar if self.secrets else _same)

    def _scalar(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            shown = str(value)
            return MASK if self.text(shown) != shown else value
        return value


def _same(value: Any) -> Any:
    return value


def _rebuild(root: Any, scalar: Any) -> Any:
    """A copy of a JSON tree with ``scalar`` applied to every key and leaf, without recursion;
    a container nested deeper than MAX_DEPTH is replaced by DEEPER (see depth.py)."""
    holder: list[Any] = [root]
    stack: list[tuple[Any, Any, Any, int]] = [(root, holder, 0, 0)]  # (source, its copy's parent, slot, depth)
    while stack:
        source, parent, slot, depth = stack.pop()
        if isinstance(source, dict | list) and depth >= MAX_DEPTH:
            copy: Any = DEEPER
        elif isinstance(source, dict):
            copy = {}
            for key, item in source.items():
                key = scalar(key) if isinstance(key, str) else key
                copy[key] = item
                stack.append((item, copy, key, depth + 1))
        elif isinstance(source, list):
            copy = list(source)
            stack.extend((item, copy, index, depth + 1) for index, item in enumerate(source))
        else:
            copy = scalar(source)
        parent[slot] = copy
    return holder[0]
