"""Live capture against the demo adapter and misbehaving servers, through the real CLI."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import DEMO, ROOT, demo_over_http, http_server, processes, run_cli, warm

PLAN = ROOT / "evidence" / "plans" / "demo-notes.json"
SERVERS = Path(__file__).with_name("servers.py")
SECRET = "correct-horse-battery-staple"
ENV = {"DEMO_NOTES_PASSPHRASE": SECRET}


def capture(tmp_path: Path, *server: str, extra: tuple[str, ...] = (), plan: bool = True) -> tuple[Any, Path]:
    """A capture of ``server``; the demo is started warm (conftest.warm): these tests read what it
    answered, not how its process ran."""
    if server[: len(DEMO)] == DEMO:
        server = warm(*server)
    bundle = tmp_path / "bundle.json"
    args = ["capture", "--bundle", str(bundle), "--capture-dir", str(tmp_path / "records"), "--timeout", "15", *extra]
    if plan:
        args += ["--plan", str(PLAN)]
    result = run_cli(*args, "--", *server, env=ENV) if server else run_cli(*args, env=ENV)
    return result, bundle


def verdict(bundle: Path, level: str = "1") -> dict[str, Any]:
    result = run_cli("test", str(bundle), "--level", level, "-f", "json")
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["exitCode"] == result.returncode
    return report


def failing(report: dict[str, Any]) -> list[str]:
    return [c["name"] for c in report["categories"] if c["result"] == "FAIL"]


@pytest.fixture(scope="module")
def conformant(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path, Path]:
    """One capture of the conformant demo (--allow-destructive, the plan) for the tests that only
    read what it wrote: (its result, the bundle, the folder holding the bundle and records/)."""
    folder = tmp_path_factory.mktemp("conformant")
    result, bundle = capture(folder, *DEMO, extra=("--allow-destructive",))
    return result, bundle, folder


def test_conformant_demo_captures_into_a_level1_conformant_bundle(conformant):
    result, bundle, _ = conformant
    assert result.returncode == 0, result.stderr
    assert "captured" in result.stderr and "next: mcpaql-conformance test" in result.stderr
    report = verdict(bundle)
    assert report["exitCode"] == 0 and report["conformanceLevel"] == 1
    assert report["summary"]["failed"] == 0 and report["summary"]["warned"] == 0


def test_conformant_demo_earns_level2_features_and_only_lacks_semantic_evidence(conformant):
    _, bundle, _ = conformant
    report = verdict(bundle, "2")
    assert report["exitCode"] == 2 and report["conformanceLevel"] == 2
    results = {c["name"]: c["result"] for c in report["categories"]}
    assert results["Level 2 Features"] == "PASS" and results["Constraint Documentation"] == "PASS"
    assert results["Semantic Evaluation"] == "WARN"


@pytest.mark.parametrize(
    ("fault", "category"),
    [
        ("leaky-errors", "Error Quality"),
        ("silent-unknown", "Parameter Handling"),
        ("warn-unknown", "Parameter Handling"),  # core §4.6.2: the default refuses
        ("lossy-round-trip", "Round-Trip Integrity"),
        ("undocumented-param", "Introspection Fidelity"),
        ("wrong-endpoint", "Introspection Fidelity"),
    ],
)
def test_each_fault_mode_fails_its_category(tmp_path, fault, category):
    result, bundle = capture(tmp_path, *DEMO, "--fault", fault, extra=("--allow-destructive",))
    assert result.returncode == 0, result.stderr
    report = verdict(bundle)
    assert report["exitCode"] == 1
    assert category in failing(report)


def test_bundle_states_its_provenance_and_passes_our_schema(conformant):
    _, bundle, _ = conformant
    data = json.loads(bundle.read_text())
    provenance = data["provenance"]
    assert provenance["captured"] is True and provenance["transport"] == "stdio"
    assert provenance["server"] == {"name": "mcpaql-demo-notes", "version": data["version"]}
    assert provenance["tool"] == "mcpaql-conformance" and provenance["captured_at"]
    assert data["endpoint_modes"] == ["crude", "single"]
    from mcpaql_conformance.evidence.bundle import bundle_from_data

    bundle_from_data(data)  # raises on a shape error


def test_records_and_metrics_are_written_per_exchange(conformant):
    [run_folder] = list((conformant[2] / "records").iterdir())
    folder = run_folder / "mcpaql-demo-notes"
    records = sorted(folder.glob("create_note-*.json"))
    assert records, list(folder.iterdir())
    record = json.loads(records[0].read_text())
    assert set(record) >= {"operation", "tool", "index", "_description", "params", "response_time_ms", "timestamp"}
    assert record["operation"] == "create_note" and record["tool"] == "mcp_aql_create"
    metrics = json.loads((folder / "metrics.json").read_text())
    calls = len(list(folder.glob("*-*.json")))
    assert metrics["calls"] == calls and metrics["timeouts"] == 0
    assert set(metrics["latency_ms"]) == {"p50", "p95", "max"} and metrics["latency_ms"]["max"] > 0


def test_secrets_and_sensitive_parameters_are_redacted_everywhere(conformant):
    _, bundle, folder = conformant
    texts = [bundle.read_text()] + [p.read_text() for p in (folder / "records").rglob("*.json")]
    assert all(SECRET not in text for text in texts)
    passphrase_records = [json.loads(p.read_text()) for p in (folder / "records").rglob("create_note-*.json")]
    sent = [r["params"]["passphrase"] for r in passphrase_records if "passphrase" in r["params"]]
    assert sent and set(sent) == {"***"}


DESTRUCTIVE = {"update_note", "tag_note", "delete_note", "delete_tag", "export_notes", "reindex_notes"}


def test_without_allow_destructive_no_call_at_all_reaches_a_destructive_operation_or_tool(tmp_path):
    result, bundle = capture(tmp_path, *DEMO)
    assert result.returncode == 0, result.stderr
    records = [json.loads(p.read_text()) for p in (tmp_path / "records").rglob("*-*.json")]
    assert records
    assert [r for r in records if r["operation"] in DESTRUCTIVE] == []
    assert [r for r in records if r["tool"] in ("mcp_aql_delete", "mcp_aql_execute")] == []  # routing probes too
    report = run_cli("test", str(bundle))
    assert "Not probed during capture" in report.stdout
    assert (
        "reindex_notes: example: not sent: declared EXECUTE: not called in a read-only run "
        "(pass --allow-destructive, against a disposable instance only)"
    ) in report.stdout
    # What capture withheld is said to be withheld, with how to get it, never "no evidence".
    assert "withheld for safety by capture" in report.stdout
    assert "not judged: capture withheld every probe it needs" in report.stdout
    assert "no evidence: no update_preservation_tests" not in report.stdout
    summary = re.search(r"(\d+) probe\(s\) not sent", result.stderr)
    notes = json.loads(bundle.read_text())["capture_notes"]
    assert summary is not None and int(summary.group(1)) == sum(n["count"] for n in notes) > len(DESTRUCTIVE) * 3


def test_capture_over_streamable_http(tmp_path):
    with demo_over_http() as url:
        result, bundle = capture(tmp_path, extra=("--allow-destructive", "--url", url))
    assert result.returncode == 0, result.stderr
    assert json.loads(bundle.read_text())["provenance"]["transport"] == "streamable-http"
    assert verdict(bundle)["exitCode"] == 0


def leftover_children(marker: str) -> list[str]:
    """This test's processes whose command line holds ``marker`` (other workers' never count)."""
    return processes(marker)


@pytest.mark.parametrize(
    ("server", "message"),
    [
        (("definitely-not-a-command-xyz",), "cannot start the server: command not found: definitely-not-a-command-xyz"),
        ((sys.executable, str(SERVERS), "exit"), "the server closed the connection before the capture could run"),
        ((sys.executable, str(SERVERS), "hang"), "error: the server did not answer initialize within 3 s"),
    ],
)
def test_server_faults_are_one_line_errors_with_exit_3_and_no_leftovers(tmp_path, server, message):
    bundle = tmp_path / "bundle.json"
    bundle.write_text("previous bundle")
    result = run_cli(
        "capture", "--bundle", str(bundle), "--timeout", "3", "--capture-dir", str(tmp_path / "r"), "--", *server
    )
    assert result.returncode == 3, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert "Traceback" not in result.stderr
    assert bundle.read_text() == "previous bundle"  # nothing half-written replaced it
    if len(server) > 1:
        assert leftover_children(f"{SERVERS} {server[-1]}") == []


def test_a_server_that_dies_at_start_is_quoted_by_its_telling_stderr_line_and_the_records_folder(tmp_path):
    result = run_cli(
        "capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "r"),
        "--", sys.executable, str(SERVERS), "crash",
    )  # fmt: skip
    assert result.returncode == 3
    line = result.stderr.strip()
    assert "ModuleNotFoundError: No module named 'notes_backend'" in line, line
    assert "records and the server's stderr: " in line
    [log] = list((tmp_path / "r").rglob("server-stderr.log"))
    assert "Traceback (most recent call last)" in log.read_text()
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize(
    ("server", "test_id", "quoted"),
    [
        (
            "no-aql",
            "L1.introspection.operations-query",
            "the server exposes no MCP-AQL tool (mcp_aql, mcp_aql_<family>); its tools: hello",
        ),
        (
            "no-introspect",
            "L1.introspection.operations-query",
            "introspect {query: operations} via mcp_aql_read: gave no operations list (answered with plain text, "
            'not an MCP-AQL result: "not json at all")',
        ),
    ],
)
def test_a_server_without_mcp_aql_or_introspect_gets_a_bundle_and_a_verdict_not_a_configuration_error(
    tmp_path, server, test_id, quoted
):
    result, bundle = capture(tmp_path, *warm(sys.executable, str(SERVERS), server), plan=False)
    assert result.returncode == 0, result.stderr
    report = verdict(bundle)
    assert report["exitCode"] == 1
    test = next(t for c in report["categories"] for t in c["tests"] if t["id"] == test_id)
    assert test["result"] == "FAIL" and quoted in test["detail"], test


def test_an_imperfect_server_is_captured_faithfully_and_judged_by_test(tmp_path):
    result, bundle = capture(tmp_path, *warm(sys.executable, str(SERVERS), "odd"), plan=False)
    assert result.returncode == 0, result.stderr
    data = json.loads(bundle.read_text())
    missing = data["parameter_tests"]["missing_required"][0]["response"]
    assert missing == {"_raw_text": "error: thing_id missing", "_is_error": False}
    [attempt] = data["introspection"]["query_attempts"]
    assert attempt["query"] == "types" and attempt["response"] == {"ok": True, "typeList": []}
    report = verdict(bundle)
    assert report["exitCode"] == 1
    assert {"Introspection Fidelity", "Parameter Handling", "Error Quality"} <= set(failing(report))
    tests = {t["id"]: t for c in report["categories"] for t in c["tests"]}
    assert tests["L1.introspection.types-query"]["detail"] == (
        "introspect {query: types} via mcp_aql_read: gave no types list "
        "(answered a JSON object without a success flag (keys: ok, typeList))"
    )
    # It accepts anything: completeness says so instead of blaming every probe name; and it takes a
    # value nested deeper than any limit (core §4.7.5) and bytes that are not UTF-8 (§4.7.1, its SDK
    # reads them as U+FFFD), which fail.
    completeness = tests["L1.introspection.completeness"]
    assert completeness["result"] == "FAIL"
    assert completeness["findingRules"][:2] == ["core:4.7.1:invalid-utf-8", "core:4.7.5:enforce-limits"]
    assert any(
        finding.startswith("get_thing: accepts any parameter (it accepted the unknown parameter zz_conformance_probe")
        for finding in completeness["findings"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give either --url URL or a server command after --"),
        (("--url", "http://127.0.0.1:9/mcp", "--", "x"), "give either --url URL or a server command after --"),
        (("--timeout", "0", "--", "x"), "--timeout must be a positive number of seconds, not 0"),
        (("--timeout", "nan", "--", "x"), "--timeout must be a positive number of seconds, not nan"),
        (("--timeout", "inf", "--", "x"), "--timeout must be a positive number of seconds, not inf"),
        (("--concurrency", "0", "--", "x"), "Invalid value for '--concurrency'"),
        (("--plan", "nope.json", "--", "x"), "plan not found: nope.json"),
    ],
)
def test_capture_usage_errors_exit_3(tmp_path, args, message):
    result = run_cli("capture", "--bundle", str(tmp_path / "b.json"), *args)
    assert result.returncode == 3
    assert message in result.stderr


def test_plan_errors_name_their_json_path(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"create_read": [{"name": "c", "create": {"operation": 3}}]}))
    result = run_cli("capture", "--plan", str(plan), "--bundle", str(tmp_path / "b.json"), "--", "x")
    assert result.returncode == 3
    assert "$.create_read[0]: missing required property 'read'" in result.stderr


def test_a_plan_env_variable_that_is_not_set_is_a_configuration_error(tmp_path):
    environment = {k: v for k, v in os.environ.items() if k != "DEMO_NOTES_PASSPHRASE"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpaql_conformance",
            "capture",
            "--plan",
            str(PLAN),
            "--bundle",
            str(tmp_path / "b.json"),
            "--",
            *DEMO,
        ],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert result.returncode == 3
    assert "$.env.create_note.passphrase: environment variable DEMO_NOTES_PASSPHRASE is not set" in result.stderr


@pytest.mark.parametrize(("mode", "modes"), [("single", ["single"]), ("crude", ["crude"])])
def test_one_endpoint_mode_is_level1_conformant_but_earns_no_level2(tmp_path, mode, modes):
    result, bundle = capture(tmp_path, *DEMO, "--mode", mode, extra=("--allow-destructive",))
    assert result.returncode == 0, result.stderr
    assert json.loads(bundle.read_text())["endpoint_modes"] == modes
    assert verdict(bundle)["exitCode"] == 0
    level2 = verdict(bundle, "2")
    assert level2["exitCode"] == 2 and level2["conformanceLevel"] == 1


def test_shipped_demo_evidence_is_a_captured_level1_conformant_bundle():
    evidence = ROOT / "evidence" / "demo-notes.json"
    data = json.loads(evidence.read_text())
    assert data["provenance"]["captured"] is True
    assert data["provenance"]["server"]["name"] == "mcpaql-demo-notes"
    assert verdict(evidence)["exitCode"] == 0


def test_contributing_shows_the_command_that_captures_the_shipped_demo_evidence():
    guide = (ROOT / "CONTRIBUTING.md").read_text()
    assert (
        "capture --plan evidence/plans/demo-notes.json --allow-destructive --bundle evidence/demo-notes.json" in guide
    )


def test_an_operation_any_declaration_calls_destructive_gets_no_call_at_all(tmp_path):
    log = tmp_path / "calls.jsonl"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"env": {"user": "EVIL_USER"}}))
    env = {"EVIL_LOG": str(log), "EVIL_USER": "abc"}
    bundle = tmp_path / "b.json"
    result = run_cli(
        "capture",
        "--plan",
        str(plan),
        "--bundle",
        str(bundle),
        "--capture-dir",
        str(tmp_path / "r"),
        "--",
        sys.executable,
        str(SERVERS),
        "evil",
        env=env,
    )
    assert result.returncode == 0, result.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    destructive = {"wipe_note", "run_job", "purge_all", "spaced_delete", "sneaky_delete", "twin", "grouped_purge"}
    destructive |= {"Refresh_Index", "sweep_items"}
    assert [c for c in calls if c["operation"] in destructive] == []
    assert [c for c in calls if c["tool"] in ("mcp_aql_delete", "mcp_aql_execute", "mcp_aql_delete_v2")] == []
    assert any(c["operation"] == "lookup_account" for c in calls)  # the READ operation is probed
    notes = json.loads(bundle.read_text())["capture_notes"]
    for name in destructive:
        assert any(n["operation"] == name and "pass --allow-destructive" in n["reason"] for n in notes), name
    texts = [bundle.read_text()] + [p.read_text() for p in (tmp_path / "r").rglob("*.json")]
    assert all("mcpaql-conformance-secret-value" not in text for text in texts)  # the echoed password
    assert all("user 'abc'" not in text for text in texts)  # a short environment secret, as a word


def test_metrics_count_error_answers(conformant):
    [metrics_file] = list((conformant[2] / "records").rglob("metrics.json"))
    metrics = json.loads(metrics_file.read_text())
    assert metrics["error_answers"] > 0 and metrics["errors"] == metrics["error_answers"] + metrics["mcp_errors"]


def test_bad_output_paths_are_refused_before_any_server_starts(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    afile = tmp_path / "afile"
    afile.write_text("x")
    as_dir = run_cli("capture", "--bundle", str(folder), "--", "definitely-not-a-command-xyz")
    assert as_dir.returncode == 3 and "is a directory, expected a file" in as_dir.stderr
    as_file = run_cli(
        "capture",
        "--bundle",
        str(tmp_path / "b.json"),
        "--capture-dir",
        str(afile),
        "--",
        "definitely-not-a-command-xyz",
    )
    assert as_file.returncode == 3 and "exists and is not a folder" in as_file.stderr


def test_stdout_garbage_fails_fast_with_one_line_naming_it(tmp_path):
    started = time.monotonic()
    result = run_cli(
        "capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "r"),
        "--", sys.executable, str(SERVERS), "garbage",
    )  # fmt: skip
    assert result.returncode == 3
    assert time.monotonic() - started < 10  # not the 20 s call timeout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert (
        "the server wrote 21 lines of text that is not JSON-RPC to stdout before its first message (the first:"
        " 'debug line 0: not JSON-RPC'); stdout is the protocol channel: log to stderr"
    ) in lines[0]
    assert "\x1b" not in result.stderr
    assert leftover_children(f"{SERVERS} garbage") == []


def test_a_stray_stdout_line_is_a_finding_quoted_and_the_capture_goes_on(tmp_path):
    """A server that prints a log line to stdout after a call (issue 34): kept as evidence, the
    capture goes on, the union test warns quoting it."""
    example = ROOT / "tests" / "roundtrip" / "examples" / "stray-stdout.json"
    genserver = ROOT / "tests" / "roundtrip" / "genserver.py"
    result, bundle = capture(tmp_path, sys.executable, str(genserver), str(example), plan=False)
    assert result.returncode == 0, result.stderr
    warning = "warning: the server wrote text that is not JSON-RPC to stdout, its protocol channel: 'created item 3'"
    assert warning in result.stderr
    data = json.loads(bundle.read_text())
    assert data["stdout_noise"]["count"] == 1
    assert data["stdout_noise"]["lines"][0]["line"] == "created item 3"
    assert data["stdout_noise"]["lines"][0]["after"].startswith("tools/call mcp_aql (operation ")
    assert data["introspection"]["operation_details"] and data["parameter_tests"]["unknown_parameter"]
    judged = run_cli("test", str(bundle), "-f", "json")
    union = next(t for c in json.loads(judged.stdout)["categories"] for t in c["tests"] if t["id"].endswith("union"))
    assert union["result"] == "WARN"
    assert any("to stdout, MCP's protocol channel" in f and "'created item 3'" in f for f in union["findings"])


def test_a_stdout_that_never_carries_mcp_again_ends_the_capture_with_what_it_saw(tmp_path):
    started = time.monotonic()
    result, bundle = capture(tmp_path, sys.executable, str(SERVERS), "flood", plan=False)
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 15  # not the 20 s call timeout
    assert "warning: the capture ended early: the server's stdout stopped carrying MCP: 1001 lines" in result.stderr
    data = json.loads(bundle.read_text())
    assert data["introspection"]["operation_details"][0]["name"] == "get_thing"  # what it saw before
    assert data["stdout_noise"]["lost"].startswith("the server's stdout stopped carrying MCP: 1001 lines")
    (note,) = [n for n in data["capture_notes"] if n["probe"] == "capture"]
    assert note["cause"] == "failed" and note["reason"].startswith("the capture ended early")
    assert leftover_children(f"{SERVERS} flood") == []


def test_a_banner_before_a_working_server_is_tolerated_with_one_warning(tmp_path):
    result, bundle = capture(tmp_path, sys.executable, str(SERVERS), "banner", plan=False)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == ["warning: the server printed a banner before speaking JSON-RPC: 'Notes server 1.0 ready'"]
    assert json.loads(bundle.read_text())["introspection"]["operation_details"]


def test_no_process_of_the_server_outlives_the_capture(tmp_path):
    result, _ = capture(tmp_path, sys.executable, str(SERVERS), "grandchild", plan=False)
    assert result.returncode == 0, result.stderr
    assert "grandchild started" in next((tmp_path / "records").rglob("server-stderr.log")).read_text()
    deadline = time.monotonic() + 5
    while leftover_children("grandchild-of-the-server") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftover_children("grandchild-of-the-server") == []


def test_a_server_that_dies_mid_capture_is_exit_3_with_records_and_no_bundle(tmp_path):
    result, bundle = capture(tmp_path, sys.executable, str(SERVERS), "die-mid", plan=False)
    assert result.returncode == 3
    line = result.stderr.strip()
    assert "error: " in line and "records and the server's stderr: " in line, line
    [metrics] = list((tmp_path / "records").rglob("metrics.json"))
    assert json.loads(metrics.read_text())["calls"] >= 3  # introspection, recorded
    assert not bundle.exists()


def test_two_captures_of_the_same_server_write_the_same_records_in_the_same_order(tmp_path):
    names = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        result, _ = capture(tmp_path / run, *DEMO, extra=("--allow-destructive",), plan=False)
        assert result.returncode == 0, result.stderr
        [folder] = [p for p in (tmp_path / run / "records").rglob("mcpaql-demo-notes")]
        records = sorted(folder.glob("*-*.json"), key=lambda p: json.loads(p.read_text())["index"])
        names.append([(p.name, json.loads(p.read_text())["_description"]) for p in records])
    assert names[0] == names[1] and len(names[0]) > 100


def test_check_captures_and_judges_in_one_run_with_the_verdicts_exit_code(tmp_path):
    bundle = tmp_path / "kept.json"
    ok = run_cli("check", "--allow-destructive", "--bundle", str(bundle), "--capture-dir", str(tmp_path / "r"),
                 "--", *warm(*DEMO))  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert (
        "Level 1 conformant (badge: green, exit 0)" in ok.stdout
        and json.loads(bundle.read_text())["provenance"]["captured"]
    )
    faulty = run_cli(
        "check", "-f", "json", "--capture-dir", str(tmp_path / "r"), "--allow-destructive",
        "--", *warm(*DEMO, "--fault", "leaky-errors"),
    )  # fmt: skip
    assert faulty.returncode == 1
    report = json.loads(faulty.stdout)  # stdout holds the report only
    assert report["exitCode"] == 1 and "Error Quality" in failing(report)
    assert "captured" in faulty.stderr


@pytest.mark.parametrize(
    ("fmt", "shown"),
    [
        ("text", "MCP-AQL conformance report: mcpaql-demo-notes"),
        ("json", '"implementation": "mcpaql-demo-notes"'),
        ("markdown", "| Implementation | mcpaql-demo-notes |"),
        ("junit", 'tests="13" failures="0"'),
        ("html", "mcpaql-demo-notes"),
    ],
)
def test_check_prints_every_report_format(tmp_path, fmt, shown):
    out = tmp_path / f"report.{fmt}"
    result = run_cli(
        "check", "-f", fmt, "-o", str(out), "--capture-dir", str(tmp_path / "r"), "--allow-destructive",
        "--", *warm(*DEMO, "--mode", "single"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert shown in out.read_text()


def test_check_refuses_bad_options_before_starting_a_server(tmp_path):
    result = run_cli("check", "--category", "Nope", "--", sys.executable, str(SERVERS), "grandchild")
    assert result.returncode == 3 and "unknown category 'Nope'" in result.stderr
    assert leftover_children("grandchild-of-the-server") == []
    unreachable = run_cli("check", "--url", "http://127.0.0.1:9/mcp", "--timeout", "3")
    assert unreachable.returncode == 3 and unreachable.stderr.startswith("error: cannot talk to http://127.0.0.1:9/mcp")


def test_a_written_plan_is_valid_and_drives_the_next_capture(tmp_path):
    plan = tmp_path / "plan.json"
    (tmp_path / "a").mkdir()
    first, _ = capture(tmp_path / "a", *DEMO, extra=("--allow-destructive", "--write-plan", str(plan)), plan=False)
    assert first.returncode == 0, first.stderr
    assert "wrote a plan to" in first.stderr
    data = json.loads(plan.read_text())
    assert data["env"] == {"create_note.passphrase": "CREATE_NOTE_PASSPHRASE"}  # a placeholder, never a value
    assert (plan.parent / data["$schema"]).resolve().read_bytes() == run_cli("schema", "plan").stdout.encode()
    assert "create_note.passphrase" not in data["values"]
    assert [c["name"] for c in data["create_read"]] == ["inferred-create_note-read"]
    assert data["create_read"][0]["read"]["params"] == {"note_id": "${create.data.note_id}"}
    assert {c["update"]["operation"] for c in data["update_read"]} == {"update_note", "tag_note"}
    import jsonschema

    jsonschema.validate(data, json.loads(run_cli("schema", "--plan").stdout))
    unset = run_cli("capture", "--plan", str(plan), "--bundle", str(tmp_path / "b.json"), "--", *DEMO)
    assert unset.returncode == 3 and "environment variable CREATE_NOTE_PASSPHRASE is not set" in unset.stderr
    second = run_cli(
        "check", "--plan", str(plan), "--allow-destructive", "--capture-dir", str(tmp_path / "r"), "--", *warm(*DEMO),
        env={"CREATE_NOTE_PASSPHRASE": "a-long-pass-phrase"},
    )  # fmt: skip
    assert second.returncode == 0, second.stdout + second.stderr
    assert all("a-long-pass-phrase" not in p.read_text() for p in (tmp_path / "r").rglob("*.json"))


def test_a_plan_naming_an_operation_the_server_does_not_list_is_a_configuration_error(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"examples": [{"operation": "get_notes", "params": {"note_id": "n1"}}]}))
    bundle = tmp_path / "b.json"
    result = run_cli("capture", "--plan", str(plan), "--bundle", str(bundle), "--", *DEMO)
    assert result.returncode == 3
    assert "$.examples[0].operation: the server lists no operation 'get_notes' (did you mean 'get_note'?)" in (
        result.stderr
    )
    assert not bundle.exists() and leftover_children("mcpaql_conformance.demo_adapter") == []


def test_a_server_echoing_its_secrets_in_its_name_words_and_numbers_never_gets_them_written(tmp_path):
    token, pin = "k9Zq2", "482193"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"env": {"token": "LEAKY_TOKEN", "get_account.pin": "LEAKY_PIN"}}))
    bundle, records = tmp_path / "bundle.json", tmp_path / "records"
    args = ["--bundle", str(bundle), "--capture-dir", str(records), "--plan", str(plan), "--timeout", "15"]
    server = ("--", *warm(sys.executable, str(SERVERS), "leaky"))
    env = {"LEAKY_TOKEN": token, "LEAKY_PIN": pin}
    result = run_cli("capture", *args, "--write-plan", str(tmp_path / "next.json"), *server, env=env)
    assert result.returncode == 0, result.stderr
    checked = run_cli("check", *args, "-f", "markdown", *server, env=env)
    assert checked.returncode == 1, checked.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != plan]
    assert len(written) > 10
    for text in [result.stdout, result.stderr, checked.stdout, checked.stderr]:
        assert token not in text and pin not in text, text
    for path in written:
        assert token not in str(path.relative_to(tmp_path)), path
        assert token not in path.read_text() and pin not in path.read_text(), path
    data = json.loads(bundle.read_text())
    assert data["implementation"] == "notes-***" and data["provenance"]["server"]["version"] == "***"
    messages = [test["response"]["error"] for test in data["error_tests"]]
    assert {"message": "token_***_rejected (pin ***); retry with ******", "pin": "***"}.items() <= messages[0].items()
    assert messages[0]["echo"] == {"key-***": ["***", "***"]}


def test_a_short_secret_is_masked_everywhere_with_a_warning(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"env": {"token": "LEAKY_TOKEN", "get_account.pin": "LEAKY_PIN"}}))
    bundle = tmp_path / "bundle.json"
    args = ["--bundle", str(bundle), "--capture-dir", str(tmp_path / "r"), "--plan", str(plan)]
    result = run_cli(
        "capture",
        *args,
        "--",
        *warm(sys.executable, str(SERVERS), "leaky"),
        env={"LEAKY_TOKEN": "Zq9", "LEAKY_PIN": "1234"},
    )
    assert result.returncode == 0, result.stderr
    assert (
        "warning: the value of $LEAKY_TOKEN is 3 character(s) long: it is masked wherever it appears, which may"
        " also mask unrelated text in the records and the bundle"
    ) in result.stderr.splitlines()
    assert "Zq9" not in bundle.read_text() and "LEAKY_PIN is" not in result.stderr
    assert verdict(bundle)["exitCode"] == 1  # still a valid bundle, judged (no UPDATE operation documented)


def test_an_answer_nested_300_levels_deep_is_captured_with_a_marker(tmp_path):
    result, bundle = capture(tmp_path, *warm(sys.executable, str(SERVERS), "deep"), plan=False)
    assert result.returncode == 0, result.stderr
    text = bundle.read_text()
    assert '"[not recorded: nested more than 100 levels deep]"' in text
    records = list((tmp_path / "records").rglob("get_thing-*.json"))
    assert records and all("nested more than 100 levels deep" in p.read_text() for p in records)
    assert verdict(bundle)["exitCode"] == 1  # judged like any other bundle: the server documents no UPDATE


def deep_markers(bundle: Path) -> int:
    """How many answers were captured with their deepest part cut."""
    data = json.loads(bundle.read_text())
    answer = data["parameter_tests"]["missing_required"][0]["response"]  # the server answers all alike
    assert answer["success"] is True and answer["data"]["level"] == 299
    return bundle.read_text().count('"[not recorded: nested more than 100 levels deep]"')


def test_a_json_rpc_message_deeper_than_the_sdk_reads_is_captured_over_stdio(tmp_path):
    result, bundle = capture(tmp_path, *warm(sys.executable, str(SERVERS), "deep-raw"), plan=False)
    assert result.returncode == 0, result.stderr
    data = json.loads(bundle.read_text())  # its one JSON-RPC error: the refusal of capture's request of invalid UTF-8
    data["request_tests"] = [case for case in data["request_tests"] if case["name"] != "invalid_utf8"]
    assert "not JSON-RPC" not in result.stderr and "_mcp_error" not in json.dumps(data)
    assert deep_markers(bundle) >= 1


def test_a_json_rpc_message_deeper_than_the_sdk_reads_is_captured_over_http(tmp_path):
    with http_server("deep-http", tmp_path) as url:
        result, bundle = capture(tmp_path, extra=("--url", url), plan=False)
    assert result.returncode == 0, result.stderr
    assert "_mcp_error" not in bundle.read_text()  # the SDK alone turns each such answer into an error
    assert deep_markers(bundle) >= 1


@pytest.mark.parametrize(
    ("number", "name"), [(signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP"), (signal.SIGINT, "SIGINT")]
)
def test_a_signal_stops_the_capture_and_the_server_with_one_line_and_nothing_half_written(tmp_path, number, name):
    bundle, records = tmp_path / "bundle.json", tmp_path / "records"
    command = [sys.executable, "-m", "mcpaql_conformance", "capture", "--bundle", str(bundle), "--capture-dir"]
    command += [str(records), "--", sys.executable, str(SERVERS), "slow"]
    started = tmp_path / "calls.log"  # a line as each call reaches the server
    environment = {**os.environ, "SLOW_LOG": str(started)}
    capture_process = subprocess.Popen(
        command, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
    )
    deadline = time.monotonic() + 60
    while not leftover_children("grandchild-of-the-slow-server") and time.monotonic() < deadline:
        time.sleep(0.1)
    # the second call started: the first (introspect, which comes before any other) was answered
    while (not started.exists() or started.read_text().count("\n") < 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    capture_process.send_signal(number)
    _, stderr = capture_process.communicate(timeout=30)
    assert capture_process.returncode == 128 + number, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error: stopped by {name}: the server was stopped and no bundle was written (records and the server's stderr: "
    ), stderr
    assert not bundle.exists()
    written = [path for path in records.rglob("*") if path.is_file()]
    assert any(path.name.startswith("introspect-") for path in written)
    assert all(path.suffix in (".json", ".log") for path in written)  # no temporary file left behind
    assert all(json.loads(path.read_text()) is not None for path in written if path.suffix == ".json")
    deadline = time.monotonic() + 5
    while leftover_children("grandchild-of-the-slow-server") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftover_children("grandchild-of-the-slow-server") == []
    assert leftover_children(f"{SERVERS} slow") == []
    assert "grandchild started" in next(records.rglob("server-stderr.log")).read_text()


CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_terminal_escapes_in_server_names_never_reach_the_terminal(tmp_path, fmt):
    bundle, records = tmp_path / "bundle.json", tmp_path / "records"
    server = ("--", *warm(sys.executable, str(SERVERS), "ansi"))
    result = run_cli("check", "--bundle", str(bundle), "--capture-dir", str(records), "-f", fmt, *server)
    assert result.returncode == 1, result.stderr
    assert not CONTROLS.search(result.stdout) and not CONTROLS.search(result.stderr)
    assert "records: " in result.stderr and re.search(r"/notes(?:\n|; \d+ probe)", result.stderr)
    shown = {"text": "MCP-AQL conformance report: notes 1.0", "markdown": "| Implementation | notes |"}
    exact = '"implementation": "notes\\u001b]8;;https://evil.example\\u0007\\u001b[2J"'  # JSON: exact, escaped
    assert {**shown, "json": exact}[fmt] in result.stdout


def test_a_timeout_line_names_the_call_without_the_servers_escapes(tmp_path):
    bundle = tmp_path / "bundle.json"
    # started warm (conftest.warm): the server answers initialize at once, the 2 s are the hanging call's
    args = ["capture", "--bundle", str(bundle), "--timeout", "2", "--", *warm(sys.executable, str(SERVERS), "ansi")]
    result = run_cli(*args, env={"ANSI_HANG": "1"})
    assert result.returncode == 3
    assert result.stderr.startswith(
        "error: the server did not answer tools/call mcp_aql_read (operation get_thing) within 2 s"
    )
    assert not CONTROLS.search(result.stderr)


def test_a_sensitive_integer_gets_a_number_the_server_takes_and_masked_where_it_is_echoed(tmp_path):
    # the leaky server's PIN is a sensitive integer; without a plan capture makes one up: a
    # number (a string would make the server fail every call), masked where the server echoes it
    env = {"LEAKY_TOKEN": "tok-7f3a9c2e", "LEAKY_PIN": "482193"}
    args = ["capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "r")]
    result = run_cli(*args, "--", *warm(sys.executable, str(SERVERS), "leaky"), env=env)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "b.json").read_text()
    assert "Error executing tool" not in text and "PERMISSION_DENIED" in text
    assert "(pin ***)" in text and "739184265" not in text
    records = "".join(path.read_text() for path in (tmp_path / "r").rglob("get_account-*.json"))
    assert records and '"pin": "***"' in records and "739184265" not in records


@pytest.mark.parametrize(("content", "said"), [(None, "bundle not found"), ("{", "invalid JSON")])
def test_an_earlier_bundle_that_cannot_be_read_is_one_line_before_anything_starts(tmp_path, content, said):
    earlier = tmp_path / "v1.json"
    if content is not None:
        earlier.write_text(content, encoding="utf-8")
    started = tmp_path / "started"
    command = [sys.executable, "-c", f"open({str(started)!r}, 'w').close()"]
    result = run_cli("capture", "--previous", str(earlier), "--bundle", str(tmp_path / "b.json"), "--", *command)
    assert result.returncode == 3
    assert result.stderr.startswith("error: --previous: ") and said in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    assert not started.exists()  # the server was never started


def test_an_earlier_capture_is_kept_and_judged_against(tmp_path):
    first, earlier = capture(tmp_path / "one", *DEMO, plan=False)
    assert first.returncode == 0, first.stderr
    result, bundle = capture(tmp_path / "two", *DEMO, extra=("--previous", str(earlier)), plan=False)
    assert result.returncode == 0, result.stderr
    kept = json.loads(bundle.read_text())["previous_version"]
    assert kept["bundle"] == earlier.name and "fields" in kept["references"]["list_notes"]
    report = verdict(bundle)  # the same version: every reference kept
    rule = next(r for r in report["requirements"] if r["rule"] == "operations:4.4.2:preserve-refs")
    assert rule["result"] == "PASS", rule


def test_a_server_that_starts_once_sends_no_invalid_utf8_and_says_why(tmp_path):
    marker = tmp_path / "started-once"
    once = f'if [ -e "{marker}" ]; then echo "already running" >&2; exit 1; fi; touch "{marker}"; exec "$@"'
    result, bundle = capture(tmp_path, "sh", "-c", once, "once", *DEMO, plan=False)
    assert result.returncode == 0, result.stderr
    data = json.loads(bundle.read_text())
    assert "invalid_utf8" not in [case["name"] for case in data["request_tests"]]
    [said] = [n for n in data["capture_notes"] if n["probe"] == "request invalid_utf8"]
    assert said["reason"].startswith("not sent: a session of its own could not be opened: ")
    rule = next(r for r in verdict(bundle)["requirements"] if r["rule"] == "core:4.7.1:invalid-utf-8")
    assert rule["result"] == "SKIP", rule  # nothing sent: nothing to judge, never a failure
