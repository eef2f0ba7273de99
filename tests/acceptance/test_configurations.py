"""capture --configurations starts a server given by command again under the configurations the
spec names, listing its tools each time (capture/configurations.py): a dry run lists the starts,
a URL is refused, and what the restarts recorded reaches `test`, which judges it in the
endpoint-modes test and per requirement. The demo adapter takes its mode from --mode only and
defaults to both modes: the variables change nothing, which is what the warnings say."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.acceptance.conftest import run_cli, warm

DEMO = (sys.executable, "-m", "mcpaql_conformance.demo_adapter")


def test_a_dry_run_lists_the_starts_and_a_url_is_refused(tmp_path: Path) -> None:
    planned = run_cli("check", "--dry-run", "--configurations", "-f", "json", "--capture-dir", str(tmp_path / "c"),
                      "--", *warm(*DEMO))  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    starts = json.loads(planned.stdout)["would_restart"]
    assert [start["configuration"] for start in starts] == [
        "again", "unconfigured", "mode-semantic", "mode-single", "mode-all", "mode-crude", "prefix"
    ]  # fmt: skip
    assert starts[6]["environment"] == {"MCP_AQL_ENDPOINT_MODE": None, "MCP_AQL_ENDPOINT_PROFILE": None,
                                        "MCP_AQL_TOOL_PREFIX": "zzconf_"}  # fmt: skip
    text = run_cli("capture", "--dry-run", "--configurations", "--capture-dir", str(tmp_path / "d"), "--", *warm(*DEMO))
    assert "Would start the server again 7 time(s) (--configurations), listing its tools:\n  again: the same " \
           "environment\n  unconfigured: no MCP_AQL_ENDPOINT_MODE," in text.stdout  # fmt: skip
    refused = run_cli("capture", "--configurations", "--url", "http://127.0.0.1:9/mcp")
    assert refused.returncode == 3
    assert "--configurations starts the server again under other environment variables: give its command after " \
           "--, not --url" in refused.stderr  # fmt: skip


def test_the_restarts_are_recorded_judged_and_shown_per_requirement(tmp_path: Path) -> None:
    bundle = tmp_path / "demo.json"
    captured = run_cli(
        "capture", "--configurations", "--bundle", str(bundle), "--capture-dir", str(tmp_path / "c"), "--", *DEMO
    )  # fmt: skip  (not warm: each start is a process of its own, with its environment)
    assert captured.returncode == 0, captured.stderr
    starts = {case["configuration"]: case for case in json.loads(bundle.read_text())["configuration_tests"]}
    both = ["mcp_aql_create", "mcp_aql_read", "mcp_aql_update", "mcp_aql_delete", "mcp_aql_execute", "mcp_aql"]
    assert {name: sorted(case["tools"]) for name, case in starts.items()} == dict.fromkeys(starts, sorted(both))
    assert starts["mode-single"]["environment"]["MCP_AQL_ENDPOINT_MODE"] == "single"
    judged = run_cli("test", str(bundle), "--level", "2", "-f", "json")
    report = json.loads(judged.stdout)
    test = next(t for c in report["categories"] for t in c["tests"] if t["id"] == "L2.features.endpoint-modes")
    assert test["result"] == "WARN"
    assert test["findingRules"] == [
        "endpoint-modes:3.2:default-crude", "endpoint-modes:3.1:runtime-mode-selection", "mcp:6.2:tool-prefix"
    ]  # fmt: skip
    assert "started with MCP_AQL_TOOL_PREFIX=zzconf_, the server listed mcp_aql_create, " in test["findings"][2]
    results = {entry["rule"]: entry for entry in report["requirements"]}
    assert results["mcp:2.2.1:names-stable"]["result"] == "PASS"  # the same names again
    assert results["endpoint-modes:3.2:default-crude"]["result"] == "WARN"
    assert results["mcp:6.3:prefix-config-methods"]["result"] == "WARN"  # judged on the variable, as §6.2
    data = json.loads(bundle.read_text())
    del data["configuration_tests"]
    bundle.write_text(json.dumps(data))
    unrestarted = {e["rule"]: e for e in json.loads(run_cli("test", str(bundle), "-l", "2", "-f", "json").stdout)
                   ["requirements"]}  # fmt: skip
    assert unrestarted["mcp:2.2.1:names-stable"]["result"] == "SKIP"
    assert "capture --configurations" in json.dumps(unrestarted["mcp:2.2.1:names-stable"])
