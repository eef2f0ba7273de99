"""A second value for a probe the server refused for a value of ours.

A probe is about one parameter; the others carry values capture chose. When the refusal quotes
or names one of those ("Unknown query type: probe"), it is about our value, not the parameter
under test. Once every operation's probes are answered, such a probe is sent once more with
the parameter's next candidate value, which may now come from what the server answered
meanwhile (an identifier a list returned). A probe still refused for our value is marked
inconclusive, and the tests that read it do not judge it. A refusal that names another parameter
but stays the same whatever value it gets is not about the value: it is judged as it is.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcpaql_conformance.capture.candidates import PLAN, Candidate, SeenValues, new_record_key
from mcpaql_conformance.capture.probes import Sent, next_choice, sender, under_test
from mcpaql_conformance.capture.values import fresh
from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.execution import STATEFUL_LOOP_OPERATIONS
from mcpaql_conformance.files.vocabulary import ValueSource
from mcpaql_conformance.live.session import Live, gather
from mcpaql_conformance.verdict.blame import Blame, our_value_refused, value_quoted

RETRY = 1  # the sort-key step of a retried probe: right after the probe it repeats


def seen_values(sent: list[Sent]) -> SeenValues:
    """Every value the server returned in the successful answers to the probes, in plan order."""
    seen = SeenValues()
    for operation in sent:
        if operation.op.name == "introspect":
            continue  # what the server says of itself: operation names, not values of its records
        for answer in operation.answers:
            if isinstance(answer, dict) and classify(answer).succeeded:
                seen.add_answer(answer.get("data"), operation.op.name)
    return seen


async def retry_refused(live: Live, sent: list[Sent]) -> SeenValues:
    """Send every probe refused for a value of ours once more, with the next candidate value;
    what the server answered (for the cycles that follow)."""
    seen = seen_values(sent)
    jobs = []
    for operation in sent:
        jobs += _retries(live, operation, seen)
    await gather(jobs)
    return seen


# Probes whose values are the point (an identifier in `input`, first with last, a field no server has):
# their refusal is the one asked for, never retried with another value.
_ASKED = frozenset(
    {"routing", "update_input", "pagination", "filter", "field", "aggregate", "relationship", "search", "sort"}
)


def _retries(live: Live, sent: Sent, seen: SeenValues) -> list[Any]:
    """One job per probe refused for our value that has a next value to try; a probe without one
    is marked inconclusive at once when its refusal quotes our value (a refusal that only names
    another parameter is judged: nothing shows it is about the value)."""
    jobs: list[Any] = []
    if sent.op.name in STATEFUL_LOOP_OPERATIONS:
        return jobs  # refused for the execution's state, not for a value: another value would not do
    for index, (probe, answer) in enumerate(zip(sent.probes, sent.answers, strict=True)):
        if probe.kind in _ASKED:
            continue
        recorded = _as_recorded(live, sent, probe.params)
        blame = our_value_refused(recorded, under_test(probe), answer)
        if blame is None or blame.parameter not in sent.chosen:
            continue  # about the parameter under test, or our unknown parameter itself
        blame = Blame(blame.parameter, probe.params[blame.parameter])
        # (compared with the value chosen, before a create's numbering)
        following = next_choice(live, sent.op, blame.parameter, sent.chosen[blame.parameter].value, seen)
        if following is None:
            if value_quoted(recorded, under_test(probe), answer) is not None:
                sent.inconclusive[index] = _mark(blame, [blame.value], [sent.chosen[blame.parameter].source])
            continue
        jobs.append(_retry(live, sent, index, blame, following))
    return jobs


def _retry(live: Live, sent: Sent, index: int, blame: Blame, following: Candidate) -> Any:
    probe = sent.probes[index]
    op = sent.op
    value = following.value
    if following.source != PLAN and new_record_key(op.name, blame.parameter, op.category):
        value = fresh(op.parameter(blame.parameter), value)  # a new record's key: one this run has not sent
    again = replace(
        probe,
        params={**probe.params, blame.parameter: value},
        description=f"{probe.description} (again: the server refused our value for {blame.parameter})",
    )
    send = sender(live, sent.op, again, (*sent.key, 1, index, RETRY))

    first = classify(sent.answers[index])

    async def job() -> None:
        answer = await send()
        sent.first[index] = (probe.params, sent.answers[index])
        sent.probes[index], sent.answers[index] = again, answer
        sent.sources[index] = {blame.parameter: following.source}
        recorded = _as_recorded(live, sent, again.params)
        still = our_value_refused(recorded, under_test(again), answer)
        if still is None or still.parameter not in sent.chosen:
            return
        still = Blame(still.parameter, again.params[still.parameter])
        quoted = value_quoted(recorded, under_test(again), answer) is not None
        second = classify(answer)
        same = second.message == first.message and second.code == first.code
        if quoted or not same:  # the refusal follows our value: it is about it
            if still.parameter == blame.parameter:
                tried, sources = [blame.value, value], [sent.chosen[blame.parameter].source, following.source]
            else:
                tried, sources = [still.value], [sent.chosen[still.parameter].source]
            sent.inconclusive[index] = _mark(still, tried, sources)
        # else: the same refusal whatever the value: it is judged as what it is

    return job


def _as_recorded(live: Live, sent: Sent, params: dict[str, Any]) -> dict[str, Any]:
    """The request as the records and the bundle keep it (secrets masked): the answers are kept so
    too, so a refusal that quoted a secret quotes the mask, and the checks read the same pair."""
    return live.redactor.params(sent.op.name, dict(params))


def _mark(blame: Blame, tried: list[Any], sources: list[ValueSource]) -> dict[str, Any]:
    """Capture's mark on a case whose answer refused our value (the bundle's ``inconclusive``)."""
    reason = Blame(blame.parameter, blame.value, tuple(tried)).reason()
    return {"reason": reason, "parameter": blame.parameter, "values": tried, "sources": sources}
