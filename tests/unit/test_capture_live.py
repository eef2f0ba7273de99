"""Capture's building blocks for live servers: safety, values, stderr, discovery, order, plans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcpaql_conformance.capture.probes import _accepted, _named_parameters
from mcpaql_conformance.capture.refusals import rejects_as_unknown
from mcpaql_conformance.capture.values import changed_value, distinct_value
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.live.connection import CaptureError, telling_lines
from mcpaql_conformance.live.levels import Permission
from mcpaql_conformance.live.plan import Plan, check_plan_operations, load_plan
from mcpaql_conformance.live.records import Exchange, RecordWriter
from mcpaql_conformance.live.safety import operation_need, tool_need
from mcpaql_conformance.live.session import gather
from mcpaql_conformance.live.words import danger_word

# --- safety: the strictest reading of every declaration ------------------------------------------

RO, W, D = Permission.READ_ONLY, Permission.WRITES, Permission.DESTRUCTIVE
READ_ONLY_READ = {"semantic_category": "READ", "permissions": {"readOnly": True}}


def level(declarations: list[Any], tools: list[str] | None = None, names: tuple[str, ...] = ()) -> Permission:
    return operation_need(declarations, tools or [], names).level


@pytest.mark.parametrize(
    ("declarations", "tools", "needed"),
    [
        (
            [{"semantic_category": "READ", "permissions": {"readOnly": True, "destructive": False}}],
            ["mcp_aql_read"],
            RO,
        ),
        ([{"semantic_category": "CREATE", "permissions": {"readOnly": False, "destructive": False}}], [], W),
        ([{"semantic_category": "UPDATE"}], [], D),  # core §6.1: UPDATE is destructive
        ([{"semantic_category": "UPDATE", "permissions": {"readOnly": False, "destructive": False}}], [], D),
        ([{"semantic_category": "DELETE "}], [], D),  # whitespace
        ([{"semantic_category": "delete"}], [], D),  # case
        ([{"semantic_category": "READ"}, {"semantic_category": "DELETE"}], [], D),  # list vs detail, twins
        ([{"semantic_category": "READ"}, {"semantic_category": "CREATE"}], [], W),  # contested: the stricter
        ([{"semantic_category": "READ", "permissions": {"destructive": True}}], [], D),
        ([{"semantic_category": "READ", "permissions": {"readOnly": False}}], [], W),  # not read-only
        ([{"semantic_category": "READ", "readOnly": "false"}], [], W),  # anything but true
        ([{"semantic_category": "READ", "danger_level": "reversible"}], [], W),
        ([{"semantic_category": "READ", "danger": {"level": "dangerous"}}], [], D),
        ([{"semantic_category": "READ", "danger": {"level": "safe"}}], [], RO),
        ([{"semantic_category": "READ"}], ["mcp_aql_delete"], D),  # the endpoint tool it sits on
        ([{"semantic_category": "READ"}], ["mcp_aql_create"], W),
        ([{"semantic_category": "READ", "mcpTool": "mcp_aql_execute"}], [], D),
        ([{"endpoint": "execute"}], [], D),
        ([{"name": "mystery"}], [], D),  # no category: the strictest
        ([{"name": "mystery", "permissions": {"readOnly": True}}], [], D),  # read-only is no category
        # the tool an operation is served by never stands in for a category it does not declare
        ([{"name": "cleanup_sessions"}], ["mcp_aql_read"], D),
        ([{"name": "x", "type": "READ"}], ["mcp_aql_read"], D),  # a stray READ declares nothing
        ([{"name": "x", "type": "DELETE"}], ["mcp_aql_read"], D),  # a stray stricter word counts
        ([{"name": "x", "tool": "mcp_aql_delete"}], [], D),
        ([{"name": "x", "mcp_tool": "mcp_aql_update"}], [], D),
        ([{"name": "x", "mcpTool": "MCPAQLCREATE"}], [], W),
        # permissions, hints, danger, side effects and methods in the spellings servers use
        ([{**READ_ONLY_READ, "annotations": {"destructiveHint": True}}], [], D),
        ([{**READ_ONLY_READ, "annotations": {"readOnlyHint": False}}], [], W),
        ([{"semantic_category": "READ", "permissions": {"read_only": False}}], [], W),
        ([{"semantic_category": "READ", "permissions": ["read", "write"]}], [], D),
        ([{"semantic_category": "READ", "permissions": "read"}], [], RO),
        ([{**READ_ONLY_READ, "dangerLevel": "high"}], [], D),
        ([{**READ_ONLY_READ, "risk": "low"}], [], W),
        ([{**READ_ONLY_READ, "sideEffects": True}], [], D),
        ([{**READ_ONLY_READ, "mutates": "false"}], [], RO),
        ([{**READ_ONLY_READ, "method": "DELETE"}], [], D),
        ([{**READ_ONLY_READ, "http_method": "POST"}], [], W),
        ([{**READ_ONLY_READ, "method": "GET"}], [], RO),
        ([{**READ_ONLY_READ, "categories": ["DELETE"]}], [], D),
        ([{**READ_ONLY_READ, "crud": "UPDATE"}], [], D),
        ([{**READ_ONLY_READ, "summary": "Deletes it."}], [], D),
    ],
)
def test_an_operation_needs_the_strictest_level_any_declaration_gives_it(
    declarations: list[Any], tools: list[str], needed: Permission
) -> None:
    assert level(declarations, tools) is needed


@pytest.mark.parametrize(
    ("name", "needed"),
    [
        ("set_status", D), ("sync_portfolio", D), ("publish_collection", D), ("block_agent", D), ("portfolio_sync", D),
        ("github_merge_pull_request", D), ("approveReview", D), ("update_note", D), ("get_or_create_note", W),
        ("add_tag", W), ("fork_repository", W), ("create_repository", W), ("mark_as_read", D),
        ("get_block", RO), ("list_posts", RO), ("get_release", RO), ("get_commit", RO), ("get_order", RO),
        ("search_notes", RO), ("get_settings", RO), ("list_updates", RO), ("get_sync_status", RO),
        # verbs of real servers, run together, after a namespace, after a read verb, past a run-in prefix
        ("cleanup", D), ("prune_branches", D), ("invalidate_cache", D), ("expunge_mailbox", D), ("empty_trash", D),
        ("evict_keys", D), ("void_invoice", D), ("vacuum_db", D), ("detach_volume", D), ("unregister_webhook", D),
        ("suspend_user", D), ("resolve_incident", D), ("acknowledge_alert", D), ("snooze_alert", D),
        ("escalate_incident", D), ("invoke_lambda", D), ("call_webhook", D), ("process_queue", D), ("index_docs", D),
        ("train_model", D), ("withdraw_funds", D), ("resync_repo", D), ("redeploy", D), ("reassign-ticket", D),
        ("checkoutBranch", D), ("sendmessage", D), ("SENDEMAIL", D), ("bulkupdate", D), ("list_then_archive", D),
        ("get_then_publish", D), ("MCPAQLUPDATE_note", D), ("snapshot_report", W),
        # words made from those verbs are not the verbs
        ("list_enabled_features", RO), ("get_acceptance_rate", RO), ("list_sellers", RO), ("get_marketplace", RO),
        ("get_cancellation_policy", RO), ("get_address", RO), ("list_attachments", RO), ("get_creator", RO),
    ],
)  # fmt: skip
def test_a_read_whose_name_says_it_changes_state_counts_at_the_stricter_level(name: str, needed: Permission) -> None:
    assert level([{**READ_ONLY_READ, "name": name}]) is needed


@pytest.mark.parametrize(
    ("description", "needed"),
    [
        ("Updates the note's title.", D), ("Syncs the portfolio with the remote.", D), ("Deletes a note.", D),
        ("This operation publishes the collection.", D), ("Blocks the agent until a human answers.", D),
        ("Use it to create a copy.", W), ("Returns the note. Removed notes are not listed", RO),
        ("Removing the note for good.", D), ("Returns the note. Removes it after.", D),
        ("Lists notes, newest first; deleted ones are left out.", RO), ("Get the updated notes.", RO),
        ("Reads a setting. This cannot be undone", D), (None, RO), ("x" * 100_000 + ". Deletes", RO),
        ("Lists notes, then deletes the old ones", D), ("Returns notes and removes expired ones", D),
        ("Warning - wipes the table", D), ("Shred the old documents", D), ("Syncing the portfolio", D),
        ("Submits the form for review", D), (["Reads it.", "Then wipes it."], D),
        ("Lists the latest updates", RO), ("Never modifies anything.", RO), ("Read-only: does not delete anything", RO),
        ("Lists synced repositories", RO), ("Stopped jobs are listed", RO), ("Lists posts and tags", RO),
        ("Use include_deleted to list deleted notes too", RO), ("Embed a text and return its vector", RO),
    ],
)  # fmt: skip
def test_a_description_that_says_it_changes_state_counts(description: Any, needed: Permission) -> None:
    assert level([{**READ_ONLY_READ, "name": "get_thing", "description": description}]) is needed


@pytest.mark.parametrize(
    ("parameter", "needed"),
    [
        ({"name": "dry_run", "type": "boolean"}, D), ({"name": "force"}, D), ({"name": "confirm_deletions"}, D),
        ({"name": "recursive"}, RO), ({"name": "preview"}, RO), ({"name": "include_deleted"}, RO),
        ({"name": "note_id"}, RO),
    ],
)  # fmt: skip
def test_a_safety_switch_among_the_parameters_says_the_operation_does_something(
    parameter: dict[str, Any], needed: Permission
) -> None:
    assert operation_need([READ_ONLY_READ], [], ("get_thing",), [parameter]).level is needed


def test_a_prefix_run_into_a_tool_name_is_read_past() -> None:
    assert tool_need("MCPAQLUPDATE").level is D and tool_need("mcpaqldelete").level is D
    assert not tool_need("MCPAQLREAD") and not tool_need("mcpaqlcreate")


def test_update_delete_and_execute_tools_bar_every_call_others_not() -> None:
    assert (
        tool_need("mcp_aql_update").level is D and tool_need(" Execute").level is D and tool_need("delete").level is D
    )
    assert not tool_need("mcp_aql_read") and not tool_need("mcp_aql_create") and not tool_need("mcp_aql")
    assert not tool_need("")


# --- values for round trips ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ({"type": "string", "default": ""}, "mcpaql-conformance-x"),
        ({"type": "array", "default": [], "items": {"type": "string"}}, ["mcpaql-conformance-x"]),
        ({"type": "integer", "default": 1, "minimum": 1, "maximum": 100}, 2),
        ({"type": "integer", "default": 1, "minimum": 1, "maximum": 1}, 1),
        ({"type": "boolean", "default": False}, True),
        ({"type": "string", "enum": ["a", "b"], "default": "a"}, "b"),
        ({"type": "string", "maxLength": 3}, "mcp"),
        ({"type": "string", "format": "email"}, "mcpaql-conformance@example.org"),
    ],
)
def test_round_trip_values_differ_from_the_default(parameter: dict[str, Any], value: Any) -> None:
    assert distinct_value(parameter, "x") == value


@pytest.mark.parametrize(
    ("value", "changed"),
    [
        ("t", "t-updated"),
        (3, 4),
        (True, False),
        (["a"], ["a", "mcpaql-conformance-x-updated"]),
        ({}, {"updated": True}),
        ("", "mcpaql-conformance-x-updated"),
    ],
)
def test_an_update_changes_a_value_within_its_type(value: Any, changed: Any) -> None:
    assert changed_value(value, "x") == changed


# --- the server's stderr -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("log", "line"),
    [
        (
            'Starting\nTraceback (most recent call last):\n  File "m.py", line 1\nModuleNotFoundError: '
            "No module named 'x'\n{\n  \"a\": 1\n}\n",
            "ModuleNotFoundError: No module named 'x'",
        ),
        ("listening\nError: port 8080 is in use\nbye\n}\n", "Error: port 8080 is in use"),
        ("hello\nworld\n]\n", "world"),
        ("", ""),
        ("\x1b[31mfatal: no config\x1b[0m\n", "fatal: no config"),
    ],
)
def test_the_most_telling_stderr_line_is_quoted_never_a_closing_brace(log: str, line: str) -> None:
    assert telling_lines(log) == line


# --- required parameters discovered from refusals -------------------------------------------------


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("Missing required parameter 'note_id'. Expected: string", ["note_id"]),
        ('missing field "title"', ["title"]),
        ("Parameter: limit is required", ["limit"]),
        ("tag is required", ["tag"]),
        ("VALIDATION_MISSING_PARAM: parameter missing", []),
    ],
)
def test_parameter_names_are_read_from_refusals(message: str, names: list[str]) -> None:
    assert _named_parameters(message) == names


def test_an_unknown_parameter_refusal_and_acceptance_are_told_apart() -> None:
    unknown = {"success": False, "error": {"code": "VALIDATION_UNKNOWN_PARAM", "message": "Unknown parameter 'sort'"}}
    assert rejects_as_unknown(unknown, "sort") and _accepted(unknown, "sort") is False
    as_string = {"success": False, "error": "unknown parameter: sort"}
    assert rejects_as_unknown(as_string, "sort")
    # refused for a value of ours (or no credentials, a conflict): it shows nothing either way
    not_found = {"success": False, "error": {"code": "NOT_FOUND_RESOURCE", "message": "No note 'probe'."}}
    assert _accepted(not_found, "sort") is None
    upstream = {"success": False, "error": {"code": "INTERNAL_ERROR", "message": "ENOENT: no such file, '<path>'"}}
    assert _accepted(upstream, "sort") is None
    assert _accepted({"success": True, "data": {}}, "sort") is True
    assert _accepted({"_raw_text": "hello", "_is_error": False}, "sort") is False


# --- order ----------------------------------------------------------------------------------------


def exchange(operation: str) -> Exchange:
    return Exchange(0, operation, "mcp_aql_read", "probe", "d", {}, {"success": True, "data": {}}, 1.0, "t", "answered")


def test_records_keep_plan_order_whatever_order_the_answers_came_in(tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path, "stamp", "server")
    for key, operation in [((3, 1), "b"), ((0,), "introspect"), ((3, 0), "a"), ((3, 0, 1), "a")]:
        writer.add(exchange(operation), key)
    writer.flush()
    folder = tmp_path / "stamp" / "server"
    records = [json.loads((folder / name).read_text()) for name in ("introspect-1.json", "a-1.json", "a-2.json")]
    assert [r["index"] for r in records] == [0, 1, 2]
    assert json.loads((folder / "b-1.json").read_text())["index"] == 3


def test_gather_returns_results_in_job_order_and_raises_a_capture_error_as_itself() -> None:
    async def slow(value: int, delay: float) -> int:
        await anyio.sleep(delay)
        return value

    async def main() -> list[Any]:
        return await gather([lambda: slow(1, 0.03), lambda: slow(2, 0.0), lambda: slow(3, 0.01)])

    assert anyio.run(main) == [1, 2, 3]

    async def failing() -> None:
        raise CaptureError("the server did not answer tools/call x within 1 s")

    async def fails() -> list[Any]:
        return await gather([lambda: slow(1, 0.5), failing])

    with pytest.raises(CaptureError, match="did not answer"):
        anyio.run(fails)


# --- plans ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ({"exampels": []}, "$: unknown key 'exampels' (did you mean 'examples'?)"),
        (
            {"examples": [{"operation": "x", "parms": {}}]},
            "$.examples[0]: unknown key 'parms' (did you mean 'params'?)",
        ),
        (
            {"create_read": [{"name": "c", "create": {"operation": "a"}, "read": {"operation": "b"}, "expect": {}}]},
            "$.create_read[0]: unknown key 'expect' (did you mean 'expected_fields'?)",
        ),
        (
            {
                "update_read": [
                    {
                        "name": "u",
                        "create": {"operation": "a"},
                        "update": {"operation": "b", "param": {}},
                        "read": {"operation": "c"},
                    }
                ]
            },
            "$.update_read[0].update: unknown key 'param' (did you mean 'params'?)",
        ),
        ({"values": []}, "$.values: expected an object, got array"),
        ({"env": {"x": 3}}, "$.env.x: expected a string, got integer"),
    ],
)
def test_plans_are_validated_strictly_with_a_did_you_mean(tmp_path: Path, plan: Any, message: str) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    with pytest.raises(ConfigError) as caught:
        load_plan(path)
    assert str(caught.value) == f"{path}: {message}"


def test_plan_operations_must_be_ones_the_server_lists(tmp_path: Path) -> None:
    plan = Plan(
        values={"get_notes.limit": 3, "limit": 1},
        examples=[{"operation": "list_notes"}],
        source="plan.json",
    )
    with pytest.raises(
        ConfigError, match=r"plan.json: \$\.values\[\"get_notes.limit\"\]: the server lists no operation "
    ):
        check_plan_operations(plan, ["get_note", "list_notes"])
    plan.values = {"limit": 1}
    check_plan_operations(plan, ["get_note", "list_notes"])  # a bare parameter name applies everywhere
    # dots in an operation's name (search.notes) and in a parameter's (address.city) are both read
    plan.values = {"search.notes.limit": 1, "create_note.address.city": "Oslo"}
    check_plan_operations(plan, ["search.notes", "create_note", "list_notes"])
    assert plan.value_for("create_note", "address.city") == "Oslo"
    assert plan.given_elsewhere("update_note", "address.city") == "Oslo"
    with pytest.raises(ConfigError, match=r"the server lists no operation 'create_nte.address' "):
        check_plan_operations(Plan(values={"create_nte.address.city": "Oslo"}, source="p"), ["create_note"])
    plan.create_read = [{"name": "c", "create": {"operation": "create_nte"}, "read": {"operation": "get_note"}}]
    with pytest.raises(ConfigError, match=r"create_read\[0\]\.create\.operation: .* \(did you mean 'create_note'\?\)"):
        check_plan_operations(plan, ["create_note", "get_note", "list_notes"])


def test_the_plan_schema_is_published_and_describes_every_field() -> None:
    from mcpaql_conformance.files.schemas import schema_document

    document = schema_document("plan")
    assert document["$id"] == "urn:mcpaql-conformance:schema:plan"
    missing = [key for key, spec in document["properties"].items() if "description" not in spec]
    for definition in document["$defs"].values():
        missing += [key for key, spec in definition.get("properties", {}).items() if "description" not in spec]
    assert missing == []


def test_a_tool_whose_name_says_delete_or_execute_anywhere_is_destructive() -> None:
    assert tool_need("mcp_aql_delete_v2").level is D and tool_need("mcp_aql_execute_job").level is D
    assert tool_need("notes-purge").level is D and not tool_need("mcp_aql_read_v2")
    assert level([READ_ONLY_READ], ["mcp_aql_delete_v2"]) is D


def test_every_declaration_of_a_grouped_or_twin_listing_counts() -> None:
    from mcpaql_conformance.evidence.reading import declarations_of

    answer = {
        "success": True,
        "data": {
            "operations": [
                {"endpoint": "DELETE", "operations": [{"name": "purge", "endpoint": "read"}]},
                {"name": "twin", "semantic_category": "READ"},
                {"name": "twin", "semantic_category": "DELETE"},
            ]
        },
    }
    found = declarations_of(answer)
    assert level(found["purge"]) is D and level(found["twin"]) is D
    assert len(found["twin"]) == 2 and found["purge"][1] == {"endpoint": "DELETE"}


def test_a_detail_of_another_operation_is_no_reading_but_a_declaration() -> None:
    from mcpaql_conformance.evidence.reading import detail_of

    answer = {"success": True, "data": {"operation": {"name": "refresh_index", "semantic_category": "DELETE",
                                                       "parameters": []}}}  # fmt: skip
    found = detail_of(answer, "Refresh_Index")
    assert found.detail is None and found.candidate is not None
    assert found.problem == "answered the detail of 'refresh_index' instead"


def test_an_is_error_result_is_kept_with_its_flag_unless_it_is_an_mcp_aql_failure() -> None:
    from types import SimpleNamespace

    from mcpaql_conformance.live.connection import tool_result_json

    def result(text: str, is_error: bool, *extra: Any) -> Any:
        return SimpleNamespace(content=[SimpleNamespace(type="text", text=text), *extra], is_error=is_error)

    failure = '{"success": false, "error": {"code": "X", "message": "m"}}'
    assert tool_result_json(result(failure, True)) == json.loads(failure)  # as the MCP integration says
    assert tool_result_json(result('{"success": true, "data": 1}', True)) == {
        "_raw_text": '{"success": true, "data": 1}',
        "_is_error": True,
    }
    image = SimpleNamespace(type="image")
    assert tool_result_json(result("see picture", False, image)) == {
        "_raw_text": "see picture\n[image content]",
        "_is_error": False,
    }


@pytest.mark.parametrize(
    ("answer", "wanted", "prefix"),
    [
        ({"success": True, "data": {"note_id": "n1", "title": "t"}}, {"note_id": "n1", "title": "t"}, "data."),
        (
            {"success": True, "data": {"items": [{"name": "a", "type": "x"}, {"name": "b", "type": "x"}]}},
            {"name": "b", "type": "x"},
            "data.items.1.",
        ),
        ({"success": True, "data": {"items": []}}, {"name": "b"}, None),
    ],
)
def test_the_record_is_located_where_the_read_answer_keeps_it(answer: Any, wanted: Any, prefix: Any) -> None:
    from mcpaql_conformance.capture.cycles import _record

    assert _record(answer, wanted) == prefix


@pytest.mark.parametrize(
    ("name", "identifying"),
    [
        ("note_id", True),
        ("id", True),
        ("element_name", True),
        ("noteId", True),
        ("element_type", False),
        ("mode", False),
        ("valid", False),
        ("paid", False),
        ("monkey", False),
        ("NoteID", True),
        ("user-name", True),
    ],
)
def test_identifier_like_parameters_name_one_record(name: str, identifying: bool) -> None:
    from mcpaql_conformance.capture.candidates import identifier_like

    assert identifier_like(name) is identifying


def test_operations_whose_names_collide_once_made_safe_get_a_record_file_each(tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path, "stamp", "server")
    names = ["a/b", "a_b", "a\\b", "..", ".", "", "x" * 100 + "1", "x" * 100 + "2"]
    for index, name in enumerate(names):
        writer.add(exchange(name), (index,))
    writer.flush()
    files = sorted(p.name for p in (tmp_path / "stamp" / "server").glob("*-*.json"))
    assert len(files) == len(names)
    operations = sorted(
        json.loads(p.read_text())["operation"] for p in (tmp_path / "stamp" / "server").glob("*-*.json")
    )
    assert operations == sorted(names)


@pytest.mark.parametrize(
    "name",
    [
        "mcpAqlDelete", "McpAqlDelete", "MCPAQLDelete", "mcp_aql_softDelete", "mcp_aql_softdelete",
        "MCP_AQL_SOFTDELETE", "mcp-aql-bulk-delete", "mcp.aql.bulkDelete", "mcp_aql_" + "x" * 262 + "_delete",
        "notes_purge", "wipeAll", "DROP_TABLE", "droptable", "destroyEverything", "remove_item", "mcp_aql_execute",
        "runJob", "rerun", "mcpaqlrun", "mcpaqlexec", "killall", "mcp_aql_exec", "rm", "truncateLog",
        "a" * 300_000 + "Delete",
    ],
)  # fmt: skip
def test_danger_words_are_found_in_every_case_style_and_at_any_length(name: str) -> None:
    assert danger_word(name) is not None and tool_need(name).level is D
    assert level([READ_ONLY_READ], [], (name,)) is D
    assert level([{**READ_ONLY_READ, "name": name}]) is D


@pytest.mark.parametrize(
    "name",
    ["mcp_aql_read", "mcp_aql_create", "mcp_aql_update", "mcp_aql", "get_runtime_info", "list_skills",
     "get_model", "platform_info", "list_droplets", "search_notes", "get_execution_state", "introspect"],
)  # fmt: skip
def test_ordinary_names_that_contain_a_short_danger_word_are_not_destructive(name: str) -> None:
    assert danger_word(name) is None
    # mcp_aql_update and mcp_aql_create say what they do all the same: not by a danger word
    expected = {"mcp_aql_update": D, "mcp_aql_create": W}.get(name, RO)
    assert level([{**READ_ONLY_READ, "name": name}]) is expected


def test_long_names_are_read_whole() -> None:
    # Two hundred thousand letters: a quadratic reading would not finish.
    assert danger_word("A" * 200_000 + "b") is None and danger_word("aB" * 100_000) is None
    assert danger_word("aB" * 100_000 + "_softDelete") == "delete"


def test_a_camel_case_tool_is_read_for_its_family() -> None:
    from mcpaql_conformance.evidence.reading import read_tool

    reading = read_tool("mcpAqlDelete")
    assert reading is not None and (reading.family, reading.standard) == ("delete", "mcp_aql_delete")


def test_a_read_back_takes_the_identifier_of_the_kind_the_create_made() -> None:
    from mcpaql_conformance.capture.cycles import _locate, created_words

    note = {"success": True, "data": {"id": "n-1", "title": "t"}}
    made = created_words("create_note")
    assert made == {"note"}
    assert _locate(note, "note_id", made) == "data.id"
    assert _locate(note, "noteId", made) == "data.id"
    assert _locate(note, "tag_id", made) is None  # another kind of identifier: not the note's id
    assert _locate(note, "tag_id", frozenset()) == "data.id"  # a create that says nothing of what it makes
    assert _locate({"data": {"tag_id": "t-1", "id": "n-1"}}, "tag_id", made) == "data.tag_id"  # named as such
    assert created_words("addBookmarkList") == {"bookmark", "list"}


def test_an_identifier_the_plan_gives_one_read_is_reused_by_the_others_that_take_it() -> None:
    from types import SimpleNamespace

    from mcpaql_conformance.capture.probes import _borrowed
    from mcpaql_conformance.files.values import MISSING
    from mcpaql_conformance.live.discovery import Operation
    from mcpaql_conformance.live.levels import Need, Permission
    from mcpaql_conformance.live.plan import Plan

    plan = Plan(values={"get_note.note_id": "n-7", "note_id_secret": "x", "title": "t"})
    assert plan.given_elsewhere("list_comments", "note_id") == "n-7"
    assert plan.given_elsewhere("get_note", "note_id") is MISSING  # its own is value_for's
    read = Operation("list_comments", 0, "READ", "mcp_aql_read", [{"name": "note_id"}])
    read.need = Need(Permission.READ_ONLY)
    delete = Operation("delete_note", 1, "DELETE", "mcp_aql_delete", [{"name": "note_id"}])
    delete.need = Need(Permission.DESTRUCTIVE, "declared DELETE")
    live = SimpleNamespace(operation={"list_comments": read, "delete_note": delete}.get, plan=plan)
    assert _borrowed(live, "list_comments", {"name": "note_id"}) == "n-7"  # type: ignore[arg-type]
    assert _borrowed(live, "delete_note", {"name": "note_id"}) is MISSING  # type: ignore[arg-type]
    assert _borrowed(live, "list_comments", {"name": "title"}) is MISSING  # type: ignore[arg-type]


def _refusal(code: str, **details: Any) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": "Refused.", "details": details}}


@pytest.mark.parametrize(
    ("documented", "response", "kept"),
    [
        # a documented parameter called unknown, or one asked for that introspection does not require
        ("integer", _refusal("VALIDATION_UNKNOWN_PARAM", unknown_params=["first"]), True),
        ("integer", _refusal("VALIDATION_MISSING_PARAM", param_name="shelf"), True),
        # another kind of value than the documented type: the server contradicts its introspection
        ("integer", _refusal("VALIDATION_INVALID_TYPE", param_name="first", expected_type="string"), True),
        # the same kind in other words, or a value refused for a constraint: maybe a value of ours
        ("integer", _refusal("VALIDATION_INVALID_TYPE", param_name="first", expected_type="number from 1"), False),
        ("string", _refusal("VALIDATION_INVALID_TYPE", param_name="first", expected_type="preset"), False),
        ("integer", _refusal("VALIDATION_INVALID_TYPE", expected_type="string"), False),  # no parameter named
        ("integer", {"success": True, "data": {}}, False),
    ],
)
def test_a_refused_request_of_documented_parameters_is_kept_only_when_it_contradicts_introspection(
    documented: str, response: dict[str, Any], kept: bool
) -> None:
    from mcpaql_conformance.capture.refusals import kept_because
    from mcpaql_conformance.live.discovery import Operation

    op = Operation("list_books", 0, "READ", "mcp_aql_read", [{"name": "first", "type": documented}])
    assert bool(kept_because(op, {"first": 5}, False, response)) is kept
    assert kept_because(op, {"first": 5}, True, response) == ""  # a probe of one undocumented parameter
