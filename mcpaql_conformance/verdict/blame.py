"""Whom a refusal is about: the parameter under test, or a value the prober chose for another one.

A probe changes one thing (omits a required parameter, adds an unknown one) and fills the rest
with values of its own choosing. When the server refuses one of those values ("Unknown query
type: probe", "Note not found: probe") the refusal says nothing about the parameter under test,
and judging it would blame the server for our value. Capture uses this to try another value;
the checks use it so that such an answer is never judged against the parameter under test,
in bundles written by capture or by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.files.values import show
from mcpaql_conformance.verdict.textmatch import mentions_identifier

MIN_QUOTED = 3  # shorter values ("1", "a") stand in too much text to be taken as quoted
MAX_SAID = 4000  # the part of a refusal read (a hostile one may be megabytes)


@dataclass(frozen=True)
class Blame:
    """A refusal of our own value: the parameter it was given for and the value."""

    parameter: str
    value: Any

    def reason(self) -> str:
        """``refused our value 'probe' for query``: how reports and notes say it."""
        return f"refused our value {show(self.value, 60)} for {self.parameter}"

    def not_judged(self) -> str:
        """What a test says of an answer it does not judge for this reason."""
        value = "" if self.value is None else f" ({show(self.value, 60)})"
        return f"not judged: the server refused the value capture chose for {self.parameter}{value}; give one in a plan"


def quoted_value(value: Any) -> str | None:
    """The text a refusal would quote for a value, or None for values too short or not text-like
    to be recognised (booleans, small numbers, objects)."""
    if isinstance(value, str) and len(value.strip()) >= MIN_QUOTED:
        return value.strip()
    return None


def our_value_refused(request: Any, under_test: str | None, response: Any) -> Blame | None:
    """The value of ours the refusal is about, or None when the refusal may be about the
    parameter under test (it names it, or names and quotes nothing else of the request).

    A refusal is about our value when it quotes the value we gave another parameter of the
    request, or names another parameter of the request (and not the one under test)."""
    if not isinstance(request, dict) or not request:
        return None
    answer = classify(response)
    if not answer.refused:
        return None
    said = f"{answer.message} {_details_text(answer.details)}"[:MAX_SAID]
    if under_test and mentions_identifier(said, under_test):
        return None
    others = [(name, value) for name, value in request.items() if isinstance(name, str) and name != under_test]
    for name, value in others:
        text = quoted_value(value)
        if text is not None and _quotes(said, text):
            return Blame(name, value)
    for name, value in others:
        if mentions_identifier(said, name):
            return Blame(name, value)
    return None


def value_quoted(request: Any, under_test: str | None, response: Any) -> Blame | None:
    """The stricter reading the checks apply to any bundle: only a refusal that quotes the value
    of another parameter of the recorded request (naming one is not enough without capture's
    retry to show it)."""
    if not isinstance(request, dict) or not request:
        return None
    answer = classify(response)
    if not answer.refused:
        return None
    said = f"{answer.message} {_details_text(answer.details)}"[:MAX_SAID]
    if under_test and mentions_identifier(said, under_test):
        return None
    for name, value in request.items():
        text = quoted_value(value)
        if isinstance(name, str) and name != under_test and text is not None and _quotes(said, text):
            return Blame(name, value)
    return None


def _quotes(said: str, text: str) -> bool:
    """``text`` stands in ``said`` whole: not inside a longer word (``probe`` is not in
    ``probes``), with any punctuation of its own ("2026-01-01", "a b")."""
    start = said.find(text)
    while start != -1:
        end = start + len(text)
        before = start == 0 or not (said[start - 1].isalnum() or said[start - 1] == "_")
        after = end == len(said) or not (said[end].isalnum() or said[end] == "_")
        if before and after:
            return True
        start = said.find(text, start + 1)
    return False


def _details_text(details: Any) -> str:
    """The strings of an error's details, flattened (bounded): where servers put the value."""
    found: list[str] = []
    stack = [details]
    while stack and len(found) < 200:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item[:50])
    return " ".join(found)


def case_blame(case: Any, under_test: str | None) -> Blame | None:
    """Why a recorded case is not judged against ``under_test``: capture's ``inconclusive`` mark,
    or (in any bundle) a refusal that quotes the value of another parameter of its ``request``."""
    if not isinstance(case, dict):
        return None
    mark = case.get("inconclusive")
    if isinstance(mark, dict) and isinstance(mark.get("parameter"), str):
        tried = mark.get("values")
        return Blame(mark["parameter"], tried[0] if isinstance(tried, list) and tried else None)
    return value_quoted(case.get("request"), under_test, case.get("response"))
