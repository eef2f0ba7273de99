"""The server started again under other configurations (capture --configurations): names that
stay, the CRUDE profile by default, the mode chosen at runtime, the tool prefix (endpoint-modes
§3.1-3.2, mcp-integration §2.2.1, §6.2)."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.configurations import STARTS, planned
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.configurations import (
    configuration_evidence,
    configuration_findings,
    configured_modes,
)
from mcpaql_conformance.verdict.checks.level2 import endpoint_modes
from mcpaql_conformance.verdict.model import Result

CRUDE = ["mcp_aql_create", "mcp_aql_read", "mcp_aql_update", "mcp_aql_delete", "mcp_aql_execute"]
SPEC_WRITTEN = {
    "again": CRUDE,
    "unconfigured": CRUDE,
    "mode-semantic": CRUDE,
    "mode-single": ["mcp_aql"],
    "mode-all": [*CRUDE, "mcp_aql"],
    "mode-crude": CRUDE,
    "prefix": ["zzconf_" + name for name in CRUDE],
}


def restarted(starts: dict[str, Any], modes: tuple[str, ...] = ("crude",)) -> Context:
    """The conformant bundle (CRUDE tools) with a configuration_tests entry per start: a list of
    tool names, or a string (the start's error)."""
    data = conformant_bundle()
    data["mcp_tools"] = [{"name": name, "inputSchema": {}} for name in CRUDE]
    data["endpoint_modes"] = list(modes)
    data["configuration_tests"] = [
        {"configuration": name, "environment": {}, **({"error": said} if isinstance(said, str) else {"tools": said})}
        for name, said in starts.items()
    ]
    return Context(Bundle(data))


def cited(ctx: Context) -> list[tuple[str, str]]:
    return [(finding.rule, str(finding)) for finding in configuration_findings(ctx)]  # type: ignore[attr-defined]


def test_a_server_read_as_the_spec_asks_shows_no_finding_and_both_modes() -> None:
    ctx = restarted(SPEC_WRITTEN)
    assert cited(ctx) == []
    assert configured_modes(ctx) == {"crude", "single"}
    assert "configuration_tests:again" in configuration_evidence(ctx)
    assert "configuration_tests:mode" in configuration_evidence(ctx)
    outcome = endpoint_modes(ctx)  # single mode seen only in a restart counts for the both-modes test
    assert outcome.result is Result.PASS, outcome


def test_tool_names_that_change_from_one_start_to_the_next_warn() -> None:
    ctx = restarted({**SPEC_WRITTEN, "again": [*CRUDE[:4], "mcp_aql_execute_7f3a"]})
    assert cited(ctx) == [
        (
            "mcp:2.2.1:names-stable",
            "started again with the same environment, the server named its tools otherwise (missing: "
            "mcp_aql_execute; new: mcp_aql_execute_7f3a)",
        )
    ]
    outcome = endpoint_modes(ctx)
    assert outcome.result is Result.WARN and "named its tools otherwise" in outcome.detail


def test_a_default_other_than_the_crude_profile_warns() -> None:
    (rule, text), *_ = cited(restarted({**SPEC_WRITTEN, "unconfigured": ["mcp_aql"]}))
    assert rule == "endpoint-modes:3.2:default-crude"
    assert text.startswith("started with none of MCP_AQL_ENDPOINT_MODE, MCP_AQL_ENDPOINT_PROFILE and ")
    assert "listed mcp_aql, not the standard CRUDE profile" in text
    both = cited(restarted({**SPEC_WRITTEN, "unconfigured": [*CRUDE, "mcp_aql"]}))
    assert [rule for rule, _ in both] == ["endpoint-modes:3.2:default-crude"]  # `all` is not the default asked


def test_the_same_tools_under_every_mode_value_warn_and_so_does_no_start_at_all() -> None:
    fixed = {name: (CRUDE if name != "prefix" else SPEC_WRITTEN["prefix"]) for name in SPEC_WRITTEN}
    assert cited(restarted(fixed)) == [
        (
            "endpoint-modes:3.1:runtime-mode-selection",
            "started with MCP_AQL_ENDPOINT_MODE set to semantic, single, all, crude (and without it), the server "
            "listed the same tools each time (mcp_aql_create, mcp_aql_read, mcp_aql_update, mcp_aql_delete, "
            "mcp_aql_execute): its endpoint mode is not chosen at runtime by the variable endpoint-modes §3.1 "
            "recommends",
        )
    ]
    refused = {
        **SPEC_WRITTEN,
        **{f"mode-{m}": "server exited: unknown mode" for m in ("semantic", "single", "all", "crude")},
    }
    assert cited(restarted(refused)) == [
        (
            "endpoint-modes:3.1:runtime-mode-selection",
            "started with MCP_AQL_ENDPOINT_MODE set to semantic, single, all, crude, the server did not start once: "
            "server exited: unknown mode",
        )
    ]
    only_single = {**SPEC_WRITTEN, "mode-semantic": "no", "mode-all": "no", "mode-crude": "no"}
    assert cited(restarted(only_single)) == []  # single mode by the variable: chosen at runtime


def test_a_prefix_left_off_warns_naming_how_many_carry_it() -> None:
    none = cited(restarted({**SPEC_WRITTEN, "prefix": CRUDE}))
    assert none == [
        (
            "mcp:6.2:tool-prefix",
            "started with MCP_AQL_TOOL_PREFIX=zzconf_, the server listed mcp_aql_create, mcp_aql_read, "
            "mcp_aql_update, mcp_aql_delete, mcp_aql_execute: none carry the prefix",
        )
    ]
    some = cited(restarted({**SPEC_WRITTEN, "prefix": ["zzconf_mcp_aql_read", "mcp_aql_create", "notes_export"]}))
    assert [text.rpartition(": ")[2] for _, text in some] == ["1 of 2 carry the prefix"]  # not an MCP-AQL tool aside


def test_without_restarts_nothing_is_judged_and_nothing_is_said() -> None:
    ctx = restarted({})
    assert cited(ctx) == [] and configuration_evidence(ctx) == [] and configured_modes(ctx) == set()
    broken = restarted({"again": "cannot start the server: command not found: srv"})
    assert cited(broken) == [] and configuration_evidence(broken) == []  # no start, no tools to compare


def test_the_starts_change_only_the_spec_s_variables_and_a_dry_run_lists_them() -> None:
    assert [name for name, _ in STARTS] == list(SPEC_WRITTEN)
    assert {name for _, changes in STARTS for name in changes} == {
        "MCP_AQL_ENDPOINT_MODE", "MCP_AQL_ENDPOINT_PROFILE", "MCP_AQL_TOOL_PREFIX"
    }  # fmt: skip
    assert planned()[0] == {"configuration": "again", "environment": {}}
    assert planned()[3]["environment"]["MCP_AQL_ENDPOINT_MODE"] == "single"
