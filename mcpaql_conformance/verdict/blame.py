"""Whom a refusal is about: the parameter under test, or a value the prober chose for another one.

A probe changes one thing (omits a required parameter, adds an unknown one) and fills the rest
with values of its own choosing. When the server refuses one of those values ("Unknown query
type: probe", "Note not found: probe") the refusal says nothing about the parameter under test,
and judging it would blame the server for our value. Capture uses this to try another value;
the checks use it so that such an answer is never judged against the parameter under test,
in bundles written by capture or by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.evidence.answers import Answer, classify
from mcpaql_conformance.files.values import json_equal, show
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.textmatch import mentions_identifier

MIN_QUOTED = 3  # shorter values ("1", "a") stand in too much text to be taken as quoted
MAX_SAID = 4000  # the part of a refusal read (a hostile one may be megabytes)
# A refusal that says a parameter is not known is about that parameter, never about a value.
_NOT_KNOWN = lazy(
    r"unknown|unrecogni[sz]ed|unexpected|unsupported|not (?:allowed|permitted|supported|accepted|recognized)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Blame:
    """A refusal of our own value: the parameter it was given for, the values tried (in order)
    and where each came from (``plan``, ``description``, ``synthesised``... when known)."""

    parameter: str
    value: Any
    tried: tuple[Any, ...] = ()
    sources: tuple[str, ...] = ()

    @property
    def values(self) -> tuple[Any, ...]:
        return self.tried or (self.value,)

    def reason(self) -> str:
        """``refused our value "probe" for query``: how capture's mark says it."""
        shown = ", ".join(show(value, 60) for value in self.values)
        return f"refused our value{'s' if len(self.values) > 1 else ''} {shown} for {self.parameter}"

    def not_judged(self, said: str = "") -> str:
        """What a test says of an answer it does not judge for this reason: the values with their
        sources, what the server answered, and what would let it be judged."""
        values = [show(value, 60) for value in self.values if value is not None]
        for index, source in enumerate(self.sources[: len(values)]):
            values[index] += f", {_SOURCE_WORDS.get(source, f'from the {source}')}"
        given = f" ({'; then '.join(values)})" if values else ""
        answered = f"; it answered {said}" if said else ""
        advice = "give one it accepts in the plan" if "plan" in self.sources else "give one in a plan"
        return f"not judged: the server refused the value capture chose for {self.parameter}{given}{answered}; {advice}"


_SOURCE_WORDS = {"plan": "from the plan", "synthesised": "made up", "earlier answer": "from an earlier answer"}


def quoted_value(value: Any) -> str | None:
    """The text a refusal would quote for a value, or None for values too short or not text-like
    to be recognised (booleans, small numbers, objects)."""
    if isinstance(value, str) and len(value.strip()) >= MIN_QUOTED:
        return value.strip()
    return None


def our_value_refused(request: Any, under_test: str | None, response: Any) -> Blame | None:
    """The value of ours the refusal is about, or None when it may be about the parameter under
    test. Capture's reading, which it then tests by sending another value: a refusal that quotes
    the value we gave another parameter (``value_quoted``), or that names another parameter of
    the request and not the one under test, without saying a parameter is unknown."""
    if not isinstance(request, dict) or not request:
        return None
    answer = classify(response)
    if not answer.refused:
        return None
    quoted = _value_quoted(request, under_test, answer)
    if quoted is not None:
        return quoted
    said = f"{answer.message} {_details_text(answer.details)}"[:MAX_SAID]
    if (under_test and mentions_identifier(said, under_test)) or _NOT_KNOWN.search(answer.message[:MAX_SAID]):
        return None
    for name, value in request.items():
        if isinstance(name, str) and name != under_test and mentions_identifier(said, name):
            return Blame(name, value)
    return None


def value_quoted(request: Any, under_test: str | None, response: Any) -> Blame | None:
    """The reading the checks apply to any bundle: a refusal that quotes the value of another
    parameter of the recorded request, and neither names the parameter under test nor quotes
    its value. A refusal whose details echo the request back says nothing of one value in it."""
    if not isinstance(request, dict) or not request:
        return None
    answer = classify(response)
    return _value_quoted(request, under_test, answer) if answer.refused else None


def _value_quoted(request: dict[str, Any], under_test: str | None, answer: Answer) -> Blame | None:
    """``value_quoted`` of a refusal already classified."""
    message = answer.message[:MAX_SAID]
    details = _details_text(answer.details)[:MAX_SAID]
    quotable = {name: text for name, value in request.items() if (text := quoted_value(value)) is not None}
    if _echoes(answer.details, request) or sum(1 for text in quotable.values() if quotes_whole(details, text)) >= 2:
        details = ""  # the request echoed back: it names every value, so it blames none
    said = f"{message} {details}"
    if under_test and mentions_identifier(said, under_test):
        return None
    own = quotable.get(under_test or "")
    if own is not None and quotes_whole(said, own):
        return None  # our value for the parameter under test is refused: it is about that parameter
    for name, text in quotable.items():
        if isinstance(name, str) and name != under_test and text != own and quotes_whole(said, text):
            return Blame(name, request[name])
    return None


def quotes_whole(said: str, text: str) -> bool:
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


def _echoes(details: Any, request: dict[str, Any]) -> bool:
    """Whether the details hold the request itself (an object with every parameter sent, as sent)."""
    stack, seen = [details], 0
    while stack and seen < 200:
        item = stack.pop()
        seen += 1
        if isinstance(item, dict):
            if all(
                name in item and json_equal(item[name], value) for name, value in request.items()
            ):  # json: a key looked up
                return True
            stack.extend(value for value in item.values() if isinstance(value, dict | list))
        elif isinstance(item, list):
            stack.extend(value for value in item[:50] if isinstance(value, dict | list))
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
    recorded = case.get("value_sources")
    sources: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    if isinstance(mark, dict) and isinstance(mark.get("parameter"), str):
        parameter = mark["parameter"]
        tried = tuple(mark["values"]) if isinstance(mark.get("values"), list) else ()
        marked = mark.get("sources")
        known = tuple(str(s) for s in marked) if isinstance(marked, list) else _source_of(sources, parameter)
        return Blame(parameter, tried[0] if tried else None, tried, known)
    blame = value_quoted(case.get("request"), under_test, case.get("response"))
    if blame is None:
        return None
    return Blame(blame.parameter, blame.value, (), _source_of(sources, blame.parameter))


def refusal_said(case: Any) -> str:
    """What the server said in a case's answer, in its own terms (for "not judged" lines)."""
    return classify(case.get("response")).describe() if isinstance(case, dict) else ""


def _source_of(sources: dict[str, Any], parameter: str) -> tuple[str, ...]:
    source = sources.get(parameter)
    return (source,) if isinstance(source, str) else ()
