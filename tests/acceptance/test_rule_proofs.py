"""A rule counts as judged only when a server breaking it is caught (issue 36, part 3).

Each proof of mcpaql_conformance/verdict/rules/proofs.py is a defect switch of the spec-written
reading server (``READING_DEFECT=<rule id>``): checked with it on (Level 2, every endpoint mode
by MCP_AQL_ENDPOINT_MODE, --allow-destructive, no plan; --configurations for the rules only its
restarts show, --previous and a capture of the unbroken server for those only two versions show,
--agent with a scripted model that picks operations by their descriptions for semantic evaluation),
a test the rule names must FAIL where the rule is a MUST and WARN or FAIL where it is a SHOULD,
with a finding citing the rule (or, for a rule proven ``via`` another, citing that one), where the
unbroken server passes that test and no finding of it cites the rule. The registry's proofs and
the server's switches are the same set."""

from __future__ import annotations

import json
import re
import sys
import uuid
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.files.vocabulary import CONFIGURED_MODE
from mcpaql_conformance.verdict.model import Requirement
from mcpaql_conformance.verdict.rules import BY_ID
from mcpaql_conformance.verdict.rules.needs import CONFIGURED, NEEDS
from mcpaql_conformance.verdict.rules.proofs import OWN, PROOFS, VIA
from tests.acceptance.conftest import run_cli, warm
from tests.fake_llm import FakeLLM, Request

SERVER = Path(__file__).with_name("reading_server.py")
SAFETY = Path(__file__).with_name("reading_safety.py")  # its execution safety loop, switched alike
FAILING = {Requirement.MUST: {"FAIL"}, Requirement.SHOULD: {"WARN", "FAIL"}}
CLEAN = ""
RESTARTED = {CLEAN, *(rule for rule in OWN if set(NEEDS.get(rule, ())) & {CONFIGURED_MODE, *CONFIGURED})}
VERSIONED = {rule for rule in OWN if "previous_version" in NEEDS.get(rule, ())}  # judged against a capture before


@cache
def previous(folder: Path) -> Path:
    """A capture of the unbroken reading server: the version before, for the rules two versions show."""
    bundle = folder / "previous.json"
    run = {"READING_DEFECT": CLEAN, "READING_RUN": uuid.uuid4().hex, "MCP_AQL_ENDPOINT_MODE": "all"}
    result = run_cli("capture", "--bundle", str(bundle), "--", *warm(sys.executable, str(SERVER)), env=run)
    assert result.returncode == 0, result.stderr
    return bundle


MODELLED = {CLEAN, *(rule for rule in OWN if any(test.startswith("L2.semantic") for test in BY_ID[rule].tests))}
TASK = "List the books, sorted, a page at a time."
STOPWORDS = frozenset({"the", "a", "an", "of", "on", "at", "to", "and", "or", "in", "by", "one", "with", "for"})


def words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z]+", text.lower()) if word not in STOPWORDS}


def reader(request: Request) -> dict[str, Any]:
    """A scripted model that trusts the documentation: it lists the operations, calls the READ one
    whose description shares the most words with its task (the first of those that tie), answers."""
    results = request.tool_results()
    if not results:
        return {"tool_calls": [{"name": "mcp_aql_read", "arguments": {"operation": "introspect",
                                                                      "params": {"query": "operations"}}}]}  # fmt: skip
    if len(results) == 1:
        listed = json.loads(results[0]).get("data", {}).get("operations", [])
        reads = [op for op in listed if op.get("semantic_category") == "READ" and op.get("name") != "introspect"]
        best = max(reads, key=lambda op: len(words(str(op.get("description"))) & words(TASK)))
        return {"tool_calls": [{"name": "mcp_aql_read", "arguments": {"operation": best["name"], "params": {}}}]}
    return {"text": "Here they are."}


def agent_args(folder: Path, fake: FakeLLM) -> list[str]:
    """check --agent with the reader, one task (list the books, with list_books), Tier 1."""
    tasks = folder / "tasks.yaml"
    tasks.write_text(f"tasks:\n  - _description: List the books\n    input: {TASK}\n"
                     "    expectedTools: [read/list_books]\n", encoding="utf-8")  # fmt: skip
    return ["--agent", "--model", "openai:reader", "--base-url", fake.url + "/v1", "--no-builtin", "--tasks",
            str(tasks), "--runs", "1", "--tier", "1"]  # fmt: skip


@cache
def checked(defect: str, folder: Path) -> dict[str, dict[str, Any]]:
    """Each test of the JSON report of a check of the reading server with ``defect`` switched on
    ("" for none), by id."""
    capture = folder / (re.sub(r"\W+", "-", defect) or "clean")
    args = ["check", "--level", "2", "--allow-destructive", "-f", "json", "--capture-dir", str(capture)]
    if defect in RESTARTED:  # the starts of --configurations, for the rules only they show (and the clean run)
        args.append("--configurations")
    if defect in VERSIONED:  # the version before, for the rules two versions show
        args += ["--previous", str(previous(folder))]
    run = {"READING_DEFECT": defect, "READING_RUN": uuid.uuid4().hex, "MCP_AQL_ENDPOINT_MODE": "all"}
    with FakeLLM(replies=[reader] * 20) as fake:  # the rules a model's runs show (and the clean run)
        modelled = agent_args(folder, fake) if defect in MODELLED else []
        result = run_cli(*args, *modelled, "--", *warm(sys.executable, str(SERVER)), env=run)
    assert result.returncode in (0, 1, 2), result.stderr
    report = json.loads(result.stdout)
    return {test["id"]: test for category in report["categories"] for test in category["tests"]}


def cites(test: dict[str, Any], rule: str) -> list[str]:
    """The findings of ``test`` that cite ``rule``."""
    rules = test.get("findingRules") or []
    return [finding for finding, cited in zip(test.get("findings") or [], rules, strict=False) if cited == rule]


def named_tests(rule_id: str, tests: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The tests of a report the rule names (``L2.semantic`` names every semantic test)."""
    return [test for test_id, test in tests.items() if any(test_id == n or test_id.startswith(n + ".") for n in
            BY_ID[rule_id].tests)]  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("proofs")


def test_each_proof_is_a_switch_of_the_reading_server_and_each_switch_a_proof() -> None:
    # every rule id the server's text names is a switch (``broken("...")``, or a table of them)
    text = SERVER.read_text(encoding="utf-8") + SAFETY.read_text(encoding="utf-8")
    switches = set(re.findall(r'"([a-z/-]+:[\w.-]+:[a-z0-9-]+)"', text))
    assert switches == set(OWN)
    assert set(VIA) <= set(BY_ID) and set(OWN) <= set(BY_ID)
    assert all(by in OWN for by in VIA.values())  # a rule is proven via one with its own defect
    assert all(BY_ID[rule].tests for rule in PROOFS)  # a proof shows a named test catching it


def test_the_unbroken_server_passes_every_test_a_proven_rule_names(folder: Path) -> None:
    clean = checked(CLEAN, folder)
    for rule_id in PROOFS:
        for test in named_tests(rule_id, clean):
            assert test["result"] in ("PASS", "SKIP") or test["id"].startswith(("L2.constraints", "L2.semantic")), test
            assert cites(test, rule_id) == [], (rule_id, test)


@pytest.mark.parametrize("defect", sorted(OWN))
def test_a_server_breaking_one_rule_is_caught_by_the_test_the_rule_names(defect: str, folder: Path) -> None:
    clean, broken = checked(CLEAN, folder), checked(defect, folder)
    for rule_id in (defect, *(rule for rule, by in VIA.items() if by == defect)):
        rule = BY_ID[rule_id]
        assert rule.strength is not None
        caught = [
            test["id"]
            for test in named_tests(rule_id, broken)
            if test["result"] in FAILING[rule.strength]
            and clean.get(test["id"], {}).get("result") not in FAILING[rule.strength]  # agent tests: clean run only
            and cites(test, defect)
        ]
        said = {test["id"]: (test["result"], test.get("findings")) for test in named_tests(rule_id, broken)}
        assert caught, f"{rule_id} ({rule.strength}) broken by the {defect} defect is not caught: {said}"
