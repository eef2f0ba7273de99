"""Nothing changed unasked. A run is read-only by default; --allow-writes adds additive (CREATE)
operations, --allow-destructive UPDATE, DELETE and EXECUTE. Counted on a server that logs every
call it receives (tests/acceptance/level_server.py), whose every non-read operation says what
it does in another way: below its level none is reached, and at its level each is (so the test
is not vacuous). Capture, dry runs, the cleanup, agent runs, the pytest plugin and the action
obey the same levels; the demo in every dialect and every test server get no call to an
operation that is not read-only in a default run, counted from the capture records."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.demo_adapter.adapter import OPERATIONS as DEMO_OPERATIONS
from mcpaql_conformance.demo_adapter.dialects import DIALECTS
from mcpaql_conformance.live.safety import UNKNOWN_OPERATION
from tests.acceptance import level_server, probe_server
from tests.acceptance.conftest import DEMO, run_cli, warm

pytest_plugins = ["pytester"]

HERE = Path(__file__).parent
LEVELS = (sys.executable, str(HERE / "level_server.py"))
SERVERS = HERE / "servers.py"
READ_ONLY, WRITES, DESTRUCTIVE = level_server.READ_ONLY, level_server.WRITES, level_server.DESTRUCTIVE
EVERY = READ_ONLY | WRITES | DESTRUCTIVE
BARRED_TOOLS = {"mcp_aql_update", "mcp_aql_delete", "mcp_aql_execute"}
LEVELS_BY_FLAG = {
    (): READ_ONLY,
    ("--allow-writes",): READ_ONLY | WRITES,
    ("--allow-destructive",): EVERY,
}


def logged(log: Path) -> list[dict[str, Any]]:
    """Every call the server received, a batch's items as calls of their own."""
    calls = []
    for line in log.read_text().splitlines() if log.exists() else []:
        call = json.loads(line)
        items = call.get("operations") if isinstance(call.get("operations"), list) else [call]
        calls += [{"tool": call["tool"], **item} for item in items]
    return calls


def levels() -> tuple[str, ...]:
    """The level server, started warm (conftest.warm): these tests count its calls, not its processes."""
    return warm(*LEVELS)


# capture's request calls that name no operation the server defines: none, an empty name, upper case
REQUESTS = {None, "", "INTROSPECT"}


def operations(calls: list[dict[str, Any]]) -> set[str]:
    """The operations the calls named, but for capture's unknown-operation probe and its request
    calls, which only ever reach the READ endpoint (the guard holds them there and nowhere else)."""
    probes = [call for call in calls if call.get("operation") == UNKNOWN_OPERATION or call.get("operation") in REQUESTS]
    assert {call["tool"] for call in probes} <= {"mcp_aql_read"}
    return {str(call.get("operation")) for call in calls if call not in probes}


def capture_levels(tmp_path: Path, *flags: str, command: str = "capture") -> tuple[Any, list[dict[str, Any]], Path]:
    log, bundle = tmp_path / "calls.jsonl", tmp_path / "bundle.json"
    args = [command, "--bundle", str(bundle), "--capture-dir", str(tmp_path / "records"), *flags, "--", *levels()]
    result = run_cli(*args, env={"LEVELS_LOG": str(log)})
    return result, logged(log), bundle


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Any, list[dict[str, Any]], Path]]:
    """``capture_levels`` made once per set of flags (per worker) for the tests that only read
    what it wrote."""
    folder = tmp_path_factory.mktemp("levels")

    @cache
    def captured(*flags: str) -> tuple[Any, list[dict[str, Any]], Path]:
        where = folder / ("-".join(flag.strip("-") for flag in flags) or "read-only")
        where.mkdir()
        return capture_levels(where, *flags)

    return captured


@pytest.mark.parametrize("flags", list(LEVELS_BY_FLAG), ids=["read-only", "writes", "destructive"])
def test_each_level_reaches_exactly_the_operations_it_allows(shared: Any, flags: tuple[str, ...]) -> None:
    result, calls, bundle = shared(*flags)
    assert result.returncode == 0, result.stderr
    allowed = LEVELS_BY_FLAG[flags]
    assert operations(calls) == allowed  # none beyond the level, and every one of it: not vacuous
    if "--allow-destructive" not in flags:
        assert {call["tool"] for call in calls} & BARRED_TOOLS == set()  # not a routing probe, not introspect
    provenance = json.loads(bundle.read_text())["provenance"]
    assert provenance["withheld_operations"] == len(EVERY - allowed)
    notes = json.loads(bundle.read_text())["capture_notes"]
    for name in EVERY - allowed:
        flag = "--allow-writes" if name in WRITES else "--allow-destructive"
        assert any(n["operation"] == name and f"pass {flag}" in n["reason"] for n in notes), name


@pytest.mark.parametrize(
    ("operation", "reason"),
    [
        ("create_item", "declared CREATE"),
        ("warm_cache", "declared readOnly: false"),
        ("fetch_feed", "declared CREATE (its declarations name CREATE, READ)"),
        ("update_item", "declared UPDATE"),
        ("update_declared", "declared UPDATE"),
        ("mystery", "no semantic category is declared"),
        ("set_status", "its name set_status says 'set'"),
        ("publish_draft", "its name publish_draft says 'publish'"),
        ("block_agent", "its name block_agent says 'block'"),
        ("snapshot_report", "its description says 'store'"),
        ("sync_portfolio", "its name sync_portfolio says 'sync'"),
    ],
)
def test_each_withheld_operation_says_which_reading_withheld_it(shared: Any, operation: str, reason: str) -> None:
    result, _, bundle = shared()
    assert result.returncode == 0, result.stderr
    notes = [n for n in json.loads(bundle.read_text())["capture_notes"] if n["operation"] == operation]
    assert notes and all(f"{reason}: not called in a read-only run" in n["reason"] for n in notes), notes
    assert any(n["reason"].startswith(reason) for n in notes)


def test_safety_switches_get_their_safe_values(shared: Any) -> None:
    result, calls, _ = shared("--allow-destructive")
    assert result.returncode == 0, result.stderr
    syncs = [call.get("params") or {} for call in calls if call.get("operation") == "sync_portfolio"]
    assert syncs
    safe = {"direction": "pull", "dry_run": True, "force": False, "confirm_deletions": False}
    for params in syncs:
        assert {key: params[key] for key in safe if key in params} == {key: safe[key] for key in safe if key in params}
    assert any(set(safe) <= set(params) for params in syncs)  # every switch was sent at least once


def test_made_up_values_carry_the_tool_s_prefix(shared: Any) -> None:
    result, calls, _ = shared("--allow-writes")
    assert result.returncode == 0, result.stderr
    titles = [call["params"]["title"] for call in calls if "title" in call.get("params", {})]
    assert titles and all(title.startswith("mcpaql-conformance-") for title in titles), titles


def test_what_a_run_created_is_listed_in_the_bundle_and_every_report(tmp_path: Path) -> None:
    result, calls, bundle = capture_levels(tmp_path, "--allow-writes")
    assert result.returncode == 0, result.stderr
    data = json.loads(bundle.read_text())
    changes = data["changes"]
    created = [c for c in changes if c["operation"] == "create_item"]
    creates = [c["params"] for c in calls if c.get("operation") == "create_item"]
    made = [params for params in creates if "title" in params and set(params) <= {"title", "body"}]
    assert created and len(created) == len(made)  # the creates the server did not refuse
    assert all(c["needed"] == "writes" and c["source"] == "capture" for c in changes)
    assert all(c["identifiers"]["item_id"].startswith("item_") for c in created)
    assert {c["operation"] for c in changes} <= WRITES
    assert data["provenance"]["permission"] == "writes"
    text = run_cli("test", str(bundle)).stdout
    assert f"Changed during the run ({len(changes)}):" in text
    assert f"{len(changes)} call(s) may have created or changed data (see Changed during the run)" in text
    line = next(line for line in text.splitlines() if "create_item at " in line)
    assert "item_id=item_" in line and "(capture, needed --allow-writes; answered: succeeded)" in line
    for fmt, marker in (
        ("markdown", "## Changed during the run"),
        ("html", '<ul id="changes">'),
        ("json", '"changes"'),
    ):
        assert marker in run_cli("test", str(bundle), "-f", fmt).stdout, fmt
    read_only = capture_levels(tmp_path / "ro")[2]
    assert "changes" not in json.loads(read_only.read_text())  # a read-only run changes nothing


def test_cleanup_deletes_what_the_run_created(tmp_path: Path) -> None:
    result, calls, bundle = capture_levels(tmp_path, "--allow-destructive", "--cleanup")
    assert result.returncode == 0, result.stderr
    changes = json.loads(bundle.read_text())["changes"]
    created = [c for c in changes if c["operation"] == "create_item" and c["source"] == "capture"]
    assert created
    by_cleanup = {c["identifiers"]["item_id"] for c in created if c["cleanup"] == "deleted by delete_item"}
    earlier = {
        c["identifiers"]["item_id"] for c in created if c["cleanup"].startswith("already deleted during the run")
    }
    assert by_cleanup and by_cleanup | earlier == {c["identifiers"]["item_id"] for c in created}, created
    cleaned = [c for c in changes if c["source"] == "cleanup"]
    assert {c["identifiers"]["item_id"] for c in cleaned} == by_cleanup
    deleted = {call["params"].get("item_id") for call in calls if call.get("operation") == "delete_item"}
    assert by_cleanup | earlier <= deleted  # the server was asked to delete every record the run created


def test_cleanup_needs_allow_destructive(tmp_path: Path) -> None:
    result, calls, bundle = capture_levels(tmp_path, "--allow-writes", "--cleanup")
    assert result.returncode == 3 and calls == [] and not bundle.exists()
    assert result.stderr.strip() == "error: --cleanup deletes what the run created, which needs --allow-destructive"


@pytest.mark.parametrize("command", ["capture", "check"])
def test_a_dry_run_sends_only_introspect_and_lists_what_it_would_send_and_withhold(
    tmp_path: Path, command: str
) -> None:
    result, calls, bundle = capture_levels(tmp_path, "--allow-writes", "--dry-run", command=command)
    assert result.returncode == 0, result.stderr
    assert operations(calls) == {"introspect"} and calls
    assert not bundle.exists() and not (tmp_path / "records").exists()
    out = result.stdout
    assert out.startswith(f"Dry run of {shlex.join(levels())}, as a run with --allow-writes: nothing was sent but")
    assert "create_item via mcp_aql_create: omit required title {}" in out
    assert "inferred create-read: create (then a READ by the identifier it returns: get_item)" in out
    assert (
        "update_item (missing_required 2, unknown_parameter 1, accepted_parameters 10, update_input 3): declared"
        " UPDATE: not called in a run with --allow-writes (pass --allow-destructive, against a disposable instance"
        " only)"
    ) in out
    for name in DESTRUCTIVE:
        assert f"\n  {name} (" in out, name


def test_a_dry_run_as_json(tmp_path: Path) -> None:
    result, calls, _ = capture_levels(tmp_path, "--dry-run", "-f", "json", command="check")
    assert result.returncode == 0, result.stderr
    planned = json.loads(result.stdout)
    assert planned["dry_run"] is True and planned["permission"] == "read-only"
    would = {call["operation"] for call in planned["would_send"]}
    # introspect itself: capture's request calls (the listing queries are sent, not planned)
    assert would == READ_ONLY | {"batch", UNKNOWN_OPERATION}
    withheld = {entry["operation"]: entry["needs"] for entry in planned["would_withhold"]}
    assert withheld == {
        name: "--allow-writes" if name in WRITES else "--allow-destructive" for name in EVERY - READ_ONLY
    }
    assert planned["calls_sent"] == len(calls)


def test_a_check_of_the_demo_says_which_flag_would_judge_each_round_trip(tmp_path: Path) -> None:
    result = run_cli("check", "-f", "json", "--capture-dir", str(tmp_path / "r"), "--", *warm(*DEMO))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    tests = {t["id"]: t for c in report["categories"] for t in c["tests"]}
    create, update = tests["L1.roundtrip.create-read"], tests["L1.roundtrip.update-preservation"]
    assert create["result"] == "WARN" and "capture again with --allow-writes to judge them" in create["detail"]
    assert update["result"] == "WARN" and "capture again with --allow-destructive" in update["detail"]
    assert "read-only run: 8 operation(s) not called" in report["provenance"]


# --- agent runs -------------------------------------------------------------------------------


def agent_calls(tmp_path: Path, *flags: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A scenario whose model calls an operation of every level: what reached the server, and
    what the model was answered."""
    wanted = ["get_item", "create_item", "update_item", "delete_item", "mystery", "sync_portfolio"]
    events = [
        {"type": "llm_response", "tool_calls": [{"name": "mcp_aql", "input": {"operation": name, "params": {}}}]}
        for name in wanted
    ]
    scenario = tmp_path / "scenario.json"
    scenario.write_text(
        json.dumps({"name": "Every level", "events": [*events, {"type": "llm_response", "text": "ok"}]})
    )
    log, bundle = tmp_path / "calls.jsonl", tmp_path / "agent.json"
    args = ["agent", "--bundle", str(bundle), "--transcripts", str(tmp_path / "t"), "--scenario", str(scenario)]
    result = run_cli(*args, *flags, "--", *levels(), env={"LEVELS_LOG": str(log)})
    assert result.returncode == 0, result.stderr
    recorded = json.loads(bundle.read_text())["agent_tests"][0]["runs"][0]["tool_calls"]
    return logged(log), recorded


@pytest.mark.parametrize("flags", list(LEVELS_BY_FLAG), ids=["read-only", "writes", "destructive"])
def test_agent_runs_obey_the_same_levels(tmp_path: Path, flags: tuple[str, ...]) -> None:
    calls, recorded = agent_calls(tmp_path, *flags)
    allowed = LEVELS_BY_FLAG[flags]
    sent = operations(calls) - {"introspect"}
    assert sent == {c["operation"] for c in recorded if c["operation"] in allowed}
    refused = [c for c in recorded if c["outcome"] == "refused"]
    assert {c["operation"] for c in refused} == {c["operation"] for c in recorded} - allowed
    for call in refused:
        flag = "--allow-writes" if call["operation"] in WRITES else "--allow-destructive"
        assert f"it sends them only with {flag}" in call["response"]["error"]["message"], call


# --- the pytest plugin and the action ------------------------------------------------------------


@pytest.mark.parametrize(("flag", "allowed"), [(None, READ_ONLY), ("--mcpaql-allow-writes", READ_ONLY | WRITES)])
def test_the_pytest_plugin_obeys_the_levels(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, flag: str | None, allowed: frozenset[str]
) -> None:
    log = pytester.path / "calls.jsonl"
    monkeypatch.setenv("LEVELS_LOG", str(log))
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    args = ["--mcpaql-server", shlex.join(levels()), *([flag] if flag else []), "-p", "no:cacheprovider"]
    pytester.runpytest_subprocess(*args)
    assert operations(logged(log)) == allowed


def test_the_action_obeys_the_levels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.acceptance.test_docs_ci import Shell, needs_venv, run_action

    if needs_venv.args[0]:
        pytest.skip(needs_venv.kwargs["reason"])
    server = shlex.join(levels())
    for given, allowed in (({}, READ_ONLY), ({"allow-writes": True}, READ_ONLY | WRITES)):
        log = tmp_path / f"calls-{len(given)}.jsonl"
        monkeypatch.setenv("LEVELS_LOG", str(log))
        folder = tmp_path / f"run-{len(given)}"
        folder.mkdir()
        run = run_action(Shell(folder), {"server": server, "fail-on": "never", **given})
        assert run.exit_code == 0, run.log
        assert operations(logged(log)) == allowed
        assert ("--allow-writes" in run.log) is bool(given)


# --- every demo dialect and every test server: a default run reads only --------------------------

DEMO_READS = {op.name for op in DEMO_OPERATIONS if op.category == "READ"}


def recorded(records: Path) -> Iterator[tuple[str, str]]:
    """(tool, operation) of every call the capture records hold, a batch's items each."""
    for path in records.rglob("*.json"):
        if path.name == "metrics.json":
            continue
        record = json.loads(path.read_text())
        params = record.get("params")
        items = params.get("operations") if isinstance(params, dict) else None
        if isinstance(items, list):
            yield from ((record["tool"], item.get("operation")) for item in items)
        else:
            yield record["tool"], record["operation"]


@pytest.mark.parametrize("dialect", ["conformant", *DIALECTS])
def test_a_default_check_of_the_demo_calls_only_its_read_operations(tmp_path: Path, dialect: str) -> None:
    speech = [] if dialect == "conformant" else ["--dialect", dialect]
    result = run_cli("check", "--capture-dir", str(tmp_path / "r"), "--", *warm(*DEMO, *speech))
    assert result.returncode in (0, 1, 2), result.stderr
    calls = list(recorded(tmp_path / "r"))
    assert calls and {operation for _, operation in calls} <= DEMO_READS | {UNKNOWN_OPERATION}
    reached = {tool for tool, operation in calls if operation == UNKNOWN_OPERATION}
    assert all(tool.lower().replace("-", "_").endswith("_read") for tool in reached), reached  # a READ endpoint
    assert not {tool for tool, _ in calls if any(word in tool.lower() for word in ("update", "delete", "execute"))}


# Each test server that can be captured, and the operations it has that are truly read-only.
SERVER_READS = {
    "odd": {"introspect", "get_thing"},
    "banner": {"introspect", "get_thing"},
    "deep": {"introspect", "get_thing"},
    "leaky": {"introspect", "get_account"},
    "many": {"introspect", "get_item_0", "get_item_1", "get_item_2"},
    "picky": {"introspect", "list_codes", "lookup", "find", "search"},
    "trap": {"introspect", "get_item"},
    "evil": {"introspect", "lookup_account"},
}


@pytest.mark.parametrize("kind", sorted(SERVER_READS))
def test_a_default_capture_of_every_test_server_calls_only_read_operations(tmp_path: Path, kind: str) -> None:
    env = {"EVIL_LOG": str(tmp_path / "evil.log"), "TRAP_LOG": str(tmp_path / "trap.log")}
    env |= {"LEAKY_TOKEN": "tok-7f3a9c2e", "LEAKY_PIN": "482193"}
    args = ["capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "r")]
    result = run_cli(*args, "--", *warm(sys.executable, str(SERVERS), kind), env=env)
    assert result.returncode == 0, result.stderr
    calls = {operation for _, operation in recorded(tmp_path / "r")} - {UNKNOWN_OPERATION}  # (read endpoint only)
    assert calls and calls <= SERVER_READS[kind], calls - SERVER_READS[kind]


@pytest.mark.parametrize("kind", sorted(probe_server.KINDS))
def test_a_default_capture_of_every_probe_server_calls_only_its_read_operations(tmp_path: Path, kind: str) -> None:
    """The servers of issue 27 (a file store in front of an upstream, one with only an EXECUTE
    tool, …), counted from the log each keeps of what it received, not from our own records."""
    log = tmp_path / "calls.jsonl"
    args = ["capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "r")]
    result = run_cli(
        *args, "--", *warm(sys.executable, str(HERE / "probe_server.py"), kind), env={"PROBE_LOG": str(log)}
    )
    assert result.returncode == 0, result.stderr
    store = probe_server.KINDS[kind]
    reads = {"introspect"} | {op["name"] for op in store.operations if op["semantic_category"] == "READ"}
    calls = operations(logged(log))
    assert calls <= reads, calls - reads
    assert "introspect" in calls or store.tools == ("mcp_aql_execute",)  # its only tool is barred by default
