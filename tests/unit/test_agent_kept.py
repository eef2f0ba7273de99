"""What keeps agent runs when they are interrupted, and lets them go at once: the bundle writer
(incomplete until every planned run is in, in plan order), resuming, transcript names reserved
in plan order, the token budget, the shared backoff gate, and the incomplete line of reports."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcpaql_conformance.agent.budget import Budget, BudgetReached, MeteredConversation, MeteredProvider, metered
from mcpaql_conformance.agent.endpoints import Endpoint, ModelSpec
from mcpaql_conformance.agent.evidence import BundleWriter, Planned, Transcripts, finished_runs, new_bundle, resumable
from mcpaql_conformance.agent.loop import RunRecord
from mcpaql_conformance.agent.presets import PRESETS, builtin_of, max_turns_of
from mcpaql_conformance.agent.providers import Conversation, Provider, Reply, ToolCall
from mcpaql_conformance.agent.tasks import FIELD_SELECTION, OPERATION_SELECTION
from mcpaql_conformance.evidence.bundle import bundle_from_data
from mcpaql_conformance.live.redact import Redactor
from mcpaql_conformance.report import renderer
from mcpaql_conformance.verdict.runner import agent_incomplete, evaluate

SERVER = {"name": "demo", "version": "1"}


def run(index: int) -> dict[str, Any]:
    return {
        "run": index,
        "tool_calls": [],
        "response_text": "done",
        "completed": True,
        "turns": 1,
        "input_tokens": 10,
        "output_tokens": 5,
        "model_seconds": 0.1,
        "tool_seconds": 0.0,
    }


def entry(name: str) -> Any:
    def make(runs: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "_description": name,
            "input": "Do it.",
            "expectedTools": ["list_notes"],
            "minPassRate": 0.8,
            "runs": runs,
        }

    return make


def writer(path: Path, base: dict[str, Any] | None = None) -> BundleWriter:
    info = {"date": "2026-01-01T00:00:00+00:00", "model": "openai:m", "runs": 2, "max_turns": 8, "judge": None}
    written = BundleWriter(path, base or new_bundle(SERVER), info, Redactor())
    written.plan(Planned("A", 2, entry("A")))
    written.plan(Planned("B", 2, entry("B")))
    return written


def test_the_bundle_is_incomplete_until_every_planned_run_is_in_and_in_plan_order(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    bundle = writer(path)
    bundle.finished("B", ("", 2), run(2))
    bundle.write()
    data = json.loads(path.read_text())
    assert [(t["_description"], [r["run"] for r in t["runs"]]) for t in data["agent_tests"]] == [("B", [2])]
    (info,) = data["agent_runs"]
    assert info["incomplete"] is True and info["reason"] == BundleWriter.RUNNING
    assert (info["finished_runs"], info["planned_runs"]) == (1, 4)
    assert info["missing"] == [{"test": "A", "runs": [1, 2]}, {"test": "B", "runs": [1]}]
    for name, index in (("A", 2), ("B", 1), ("A", 1)):  # finishing in any order
        bundle.finished(name, ("", index), run(index))
    bundle.write("ignored once complete")
    data = json.loads(path.read_text())
    assert [(t["_description"], [r["run"] for r in t["runs"]]) for t in data["agent_tests"]] == [
        ("A", [1, 2]),
        ("B", [1, 2]),
    ]
    assert "incomplete" not in data["agent_runs"][0] and "missing" not in data["agent_runs"][0]


def test_the_bundle_joined_keeps_its_other_tests_and_runs_and_replaces_the_planned_ones(tmp_path: Path) -> None:
    base = {
        **new_bundle(SERVER),
        "agent_tests": [entry("A")([run(1)]), entry("Other")([run(1)])],
        "agent_runs": [{"date": "before"}],
    }
    bundle = writer(tmp_path / "b.json", base)
    bundle.finished("B", ("", 1), run(1))
    data = bundle.write("stopped by SIGTERM")
    # "A" is planned: the older "A" is replaced even before one of its runs is in
    assert [t["_description"] for t in data["agent_tests"]] == ["Other", "B"]
    assert [r.get("reason") for r in data["agent_runs"]] == [None, "stopped by SIGTERM"]


def test_several_models_plan_each_run_of_each_and_say_whose_runs_are_missing(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    info = {"date": "2026-01-01T00:00:00+00:00", "model": None, "runs": 2, "max_turns": 8, "judge": None}
    bundle = BundleWriter(path, new_bundle(SERVER), info, Redactor())
    bundle.plan(Planned("A", 2, entry("A"), models=("openai:a", "openai:b")))
    assert bundle.planned[0].missing == [("openai:a", 1), ("openai:b", 1), ("openai:a", 2), ("openai:b", 2)]
    for key in (("openai:b", 2), ("openai:a", 1), ("openai:b", 1)):
        bundle.finished("A", key, {**run(key[1]), "model": key[0]})
    data = bundle.write("stopped by SIGTERM")
    (info,) = data["agent_runs"]
    assert (info["finished_runs"], info["planned_runs"]) == (3, 4)
    assert info["missing"] == [{"test": "A", "model": "openai:a", "runs": [2]}]
    # model by model, each by run number
    assert [(r["model"], r["run"]) for r in data["agent_tests"][0]["runs"]] == [
        ("openai:a", 1),
        ("openai:b", 1),
        ("openai:b", 2),
    ]
    assert sorted(finished_runs(data, "A")) == [("openai:a", 1), ("openai:b", 1), ("openai:b", 2)]


def test_an_incomplete_invocation_is_found_with_its_finished_runs() -> None:
    complete = {"agent_runs": [{"date": "d"}]}
    assert resumable(complete) is None and resumable({}) is None
    stopped = {"agent_tests": [entry("A")([run(1), run(3)])], "agent_runs": [{"date": "a"}, {"incomplete": True}]}
    found = resumable(stopped)
    assert found is not None
    latest, rest = found
    assert latest == {"incomplete": True} and rest["agent_runs"] == [{"date": "a"}]
    assert sorted(finished_runs(stopped, "A")) == [("", 1), ("", 3)] and finished_runs(stopped, "B") == {}
    assert sorted(finished_runs(stopped, "A", "openai:m")) == [("openai:m", 1), ("openai:m", 3)]  # runs of old


def test_transcript_names_are_reserved_in_plan_order(tmp_path: Path) -> None:
    transcripts = Transcripts(tmp_path, "stamp", "demo", Redactor())
    for task, index in (("a b", 1), ("a_b", 1), ("a b", 2)):  # "a b" and "a_b" share a safe name
        transcripts.reserve(task, index)
    second = transcripts.write(RunRecord(task="a_b", run=1, input="x"))  # finishes first
    first = transcripts.write(RunRecord(task="a b", run=1, input="x"))
    assert first is not None and second is not None
    assert (Path(first).name, Path(second).name) == ("a_b-1.jsonl", "a_b-1.2.jsonl")


def test_with_several_models_a_transcript_name_says_whose_run_it_is(tmp_path: Path) -> None:
    transcripts = Transcripts(tmp_path, "stamp", "demo", Redactor(), by_model=True)
    for model in ("openai:a", "openai:b@http://127.0.0.1:8080/v1"):
        transcripts.reserve("find", 1, model)
    b = transcripts.write(RunRecord(task="find", run=1, input="x", model="openai:b@http://127.0.0.1:8080/v1"))
    a = transcripts.write(RunRecord(task="find", run=1, input="x", model="openai:a"))
    assert a is not None and b is not None
    assert (Path(a).name, Path(b).name) == ("find-openai_a-1.jsonl", "find-openai_b_http_127.0.0.1_8080_v1-1.jsonl")


class Scripted(Conversation):
    def __init__(self, tokens: list[tuple[int | None, int | None]]) -> None:
        self.tokens = tokens

    async def reply(self) -> Reply:
        tokens_in, tokens_out = self.tokens.pop(0)
        return Reply("", [], tokens_in, tokens_out, 0.0)

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        pass

    def add_user(self, text: str) -> None:
        pass


def test_the_budget_counts_every_reported_token_and_stops_before_the_next_request() -> None:
    budget = Budget(30)
    inner = Scripted([(10, 5), (None, 4), (11, 1), (1, 1)])
    conversation = MeteredConversation(inner, (budget,))
    conversation.json_reply = True  # the judge's setting reaches the real conversation
    assert inner.json_reply is True

    async def ask() -> None:
        await conversation.reply()

    for _ in range(3):
        anyio.run(ask)
    assert budget.used == 31 and budget.reached  # a count the API did not report is not metered
    with pytest.raises(BudgetReached, match="token budget of 30 reached, 31 tokens used"):
        anyio.run(ask)
    assert len(inner.tokens) == 1  # that request was never sent
    assert not Budget(None).reached


def test_without_a_budget_the_providers_are_not_wrapped() -> None:
    model = Provider(Endpoint(ModelSpec("openai", "m")))
    assert metered(model, Budget(None), Budget(None, owner="openai:m")) is model
    wrapped = metered(model, Budget(5), Budget(None))
    assert isinstance(wrapped, MeteredProvider) and wrapped.endpoint is model.endpoint
    assert [budget.limit for budget in wrapped.budgets] == [5]


def test_a_model_s_own_budget_stops_it_alone_and_says_whose_it_was() -> None:
    shared, own_a, own_b = Budget(100), Budget(10, owner="openai:a"), Budget(10, owner="openai:b")
    a = MeteredConversation(Scripted([(8, 4), (1, 1)]), (shared, own_a))
    b = MeteredConversation(Scripted([(3, 2), (1, 1)]), (shared, own_b))

    async def ask(conversation: MeteredConversation) -> None:
        await conversation.reply()

    anyio.run(ask, a)
    anyio.run(ask, b)
    with pytest.raises(BudgetReached, match="openai:a's token budget of 10 reached, 12 tokens used"):
        anyio.run(ask, a)
    anyio.run(ask, b)  # the other model goes on
    assert shared.used == 19 and own_b.used == 7


class RateLimited(Exception):
    def __init__(self, retry_after: str | None) -> None:
        self.status_code = 429
        self.response = type("Response", (), {"headers": {"retry-after": retry_after} if retry_after else {}})()


def test_one_rate_limit_pauses_every_request_to_the_endpoint() -> None:
    provider = Provider(Endpoint(ModelSpec("openai", "m")))
    provider.errors = RateLimited
    sent: list[tuple[str, float]] = []
    failures = ["first"]

    async def request(name: str) -> str:
        sent.append((name, time.monotonic()))
        if name in failures:
            failures.remove(name)
            raise RateLimited("0.5")
        return name

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(provider.with_retries, lambda: request("first"))
            await anyio.sleep(0.1)  # the 429 came: the next request waits for it
            group.start_soon(provider.with_retries, lambda: request("second"))

    anyio.run(main)
    (_, started), *later = sent
    assert sorted(name for name, _ in later) == ["first", "second"]
    assert all(at - started >= 0.45 for _, at in later), sent


def test_the_incomplete_line_of_every_report(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    bundle = writer(path)
    bundle.finished("A", ("", 1), run(1))
    data = bundle.write("stopped by SIGINT")
    line = "incomplete agent evidence: 1 of 4 runs finished (stopped by SIGINT)"
    assert agent_incomplete(data["agent_runs"]).startswith(line)
    assert agent_incomplete([{"date": "d"}]) is None and agent_incomplete([]) is None
    report = evaluate(bundle_from_data(data), 2, "1", "semantic")
    for fmt in ("text", "markdown", "html", "json", "junit"):
        assert line in renderer(fmt)(report, False), fmt
    assert json.loads(renderer("json")(report, False))["agentRuns"]["incomplete"].startswith(line)


def test_the_quick_preset_names_built_in_kinds_and_turns() -> None:
    quick = PRESETS["quick"]
    assert quick.runs == 1 and max_turns_of("quick", None) == 4 and max_turns_of("quick", 2) == 2
    assert builtin_of("quick") == (FIELD_SELECTION, OPERATION_SELECTION) and builtin_of(None) is None
    assert max_turns_of(None, None) == 8
