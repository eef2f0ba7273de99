"""Capture building blocks: value synthesis, plans, redaction, records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpaql_conformance.capture.values import matches_type, synthesise
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.live.plan import load_plan, substitute
from mcpaql_conformance.live.records import Exchange, RecordWriter, safe_name
from mcpaql_conformance.live.redact import DEEPER, MASK, MAX_DEPTH, Redactor


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ({"type": "string", "default": "d"}, "d"),
        ({"type": "string", "enum": ["a", "b"]}, "a"),
        ({"type": "integer", "minimum": 5}, 5),
        ({"type": "number"}, 1.0),
        ({"type": "boolean"}, False),
        ({"type": "array"}, []),
        ({"type": "object"}, {}),
        ({"type": "string", "format": "email"}, "mcpaql-conformance@example.org"),
        ({"type": "string", "minLength": 30}, "mcpaql-conformance-probexxxxxx"),
        ({"type": "string", "maxLength": 3}, "mcp"),
        ({"type": "AdapterType"}, "mcpaql-conformance-probe"),
    ],
)
def test_values_are_synthesised_from_introspection(parameter, value):
    assert synthesise(parameter) == value


def test_plan_values_are_checked_against_the_introspected_type():
    assert matches_type(3, {"type": "integer"})
    assert not matches_type(True, {"type": "integer"})
    assert not matches_type("c", {"type": "string", "enum": ["a", "b"]})
    assert matches_type({"x": 1}, {"type": "CustomType"})


def test_secrets_are_masked_wherever_they_appear_whatever_their_length():
    redactor = Redactor()
    redactor.add_secret("x")
    redactor.add_secret("long-secret-value")
    masked = redactor.value({"indexes": "x", "text": "index has an x", "note": "key=long-secret-value;"})
    assert masked == {f"inde{MASK}es": MASK, f"te{MASK}t": f"inde{MASK} has an {MASK}", "note": f"key={MASK};"}
    assert redactor.short_secrets() == ["x"]


def test_our_own_field_names_and_values_stay_whole_even_when_a_short_secret_is_inside():
    redactor = Redactor()
    redactor.add_secret("o")
    bundle = {"introspection": {"query_attempts": [{"query": "operations", "tool": "mcp_aql_read"}]}, "note": "ok"}
    assert redactor.value(bundle) == {
        "introspection": {"query_attempts": [{"query": "operations", "tool": "mcp_aql_read"}]}, "n***te": "***k"
    }  # fmt: skip


def test_sensitive_parameters_are_masked_by_operation():
    redactor = Redactor()
    redactor.sensitive.add(("login", "password"))
    assert redactor.params("login", {"user": "u", "password": "p"}) == {"user": "u", "password": MASK}
    assert redactor.params("other", {"password": "p"}) == {"password": "p"}


def test_substitution_takes_values_from_the_create_answer():
    created = {"success": True, "data": {"note_id": "n7"}}
    params = {"note_id": "${create.data.note_id}", "input": {"ref": "${create.data.note_id}"}, "x": "${create.nope}"}
    assert substitute(params, {"create": created}) == {"note_id": "n7", "input": {"ref": "n7"}, "x": None}


def test_plan_shapes_are_checked_with_json_paths(tmp_path: Path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"examples": [{"params": {}}]}))
    with pytest.raises(ConfigError, match=r"\$\.examples\[0\]: missing required property 'operation'"):
        load_plan(path)
    path.write_text(
        json.dumps({"update_read": [{"name": "u", "create": {"operation": "c"}, "read": {"operation": "r"}}]})
    )
    with pytest.raises(ConfigError, match=r"\$\.update_read\[0\]: missing required property 'update'"):
        load_plan(path)


def test_plan_env_values_become_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PLAN_TEST_KEY", "k-123456")
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"env": {"api_key": "PLAN_TEST_KEY"}, "values": {"op.limit": 3}}))
    plan = load_plan(path)
    assert plan.value_for("any_op", "api_key") == "k-123456"
    assert plan.value_for("op", "limit") == 3


def test_records_are_named_per_operation_and_metrics_have_percentiles(tmp_path: Path):
    writer = RecordWriter(tmp_path, "20260101T000000Z", "my/server")
    for index, ms in enumerate([10.0, 20.0, 30.0, 40.0]):
        writer.add(
            Exchange(0, "get_x", "mcp_aql_read", "probe", "d", {}, {"success": True, "data": 1}, ms, "t", "answered"),
            (index,),
        )
    writer.flush()
    folder = tmp_path / "20260101T000000Z" / "my_server"
    assert sorted(p.name for p in folder.iterdir()) == [
        "get_x-1.json",
        "get_x-2.json",
        "get_x-3.json",
        "get_x-4.json",
        "metrics.json",
    ]
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["calls"] == 4 and metrics["latency_ms"] == {"p50": 30.0, "p95": 40.0, "max": 40.0}


def test_server_supplied_names_cannot_escape_the_capture_folder():
    assert safe_name("../../etc/passwd") == "etc_passwd"
    assert safe_name("") == "unnamed"


@pytest.mark.parametrize(
    "parameter",
    [
        {"type": "integer", "minimum": None},
        {"type": "integer", "minimum": "one"},
        {"type": "string", "minLength": "5 chars"},
        {"type": "string", "minLength": 300_000_000},
        {"type": "string", "maxLength": -3},
    ],
)
def test_odd_introspection_bounds_never_crash_or_explode(parameter):
    value = synthesise(parameter)
    assert value is not None and len(str(value)) <= 4096


def test_a_secret_inside_a_longer_word_is_masked():
    redactor = Redactor()
    redactor.add_secret("k9Zq2")
    assert redactor.value("user 'k9Zq2' got token_k9Zq2_rejected, k9Zq2k9Zq2") == (
        f"user '{MASK}' got token_{MASK}_rejected, {MASK}{MASK}"
    )


def test_numeric_secrets_are_masked_as_numbers_and_inside_numbers_and_text():
    redactor = Redactor()
    redactor.add_secret(482193)
    redactor.add_secret(True)  # a boolean hides nothing: never a secret
    redactor.add_secret({"nested": [7.5]})
    assert redactor.secrets == {"482193", "7.5"}
    answer = {"pin": 482193, "float": 482193.0, "longer": 14821930, "other": 48219, "flag": True, "text": "pin 482193"}
    assert redactor.value(answer) == {
        "pin": MASK, "float": MASK, "longer": MASK, "other": 48219, "flag": True, "text": f"pin {MASK}"
    }  # fmt: skip


def test_overlapping_secrets_leave_no_part_of_the_longer_one():
    redactor = Redactor()
    redactor.add_secret("abc")
    redactor.add_secret("abcdef")
    assert redactor.text("xabcdefx abcx") == f"x{MASK}x {MASK}x"


def test_answers_nested_deeper_than_the_limit_are_cut_with_a_marker_without_recursion():
    value: object = "bottom"
    for _ in range(50_000):
        value = {"inner": [value]}
    cut = Redactor().value(value)
    for _ in range(MAX_DEPTH // 2):
        cut = cut["inner"][0]  # type: ignore[index]
    assert cut == DEEPER and MAX_DEPTH == 100
    assert Redactor().value({"a": [1, "x"]}) == {"a": [1, "x"]} and Redactor().value(5) == 5


def test_the_overall_limit_grows_with_the_operations_listed_and_says_how_far_it_got() -> None:
    import anyio

    from mcpaql_conformance.capture.run import CaptureOptions, OverallLimit
    from mcpaql_conformance.live.connection import Target

    limit = OverallLimit(CaptureOptions(Target(command=("x",)), Path("b.json"), timeout=2.0))
    assert limit.seconds == 60 and not limit.given
    assert limit.message().startswith(
        "the capture did not finish within its overall time limit, 60 s (30 x --timeout): it ended before the"
        " server listed its operations; raise the limit with --overall-timeout SECONDS or"
    )

    async def main() -> tuple[float, float]:
        scope = limit.start()
        before = scope.deadline - limit.started
        limit.listed(1000)
        return before, scope.deadline - limit.started

    assert anyio.run(main) == (pytest.approx(60), pytest.approx(160))
    limit.probed = 12
    assert "160 s (30 x --timeout: 60 s, + 0.1 s for each of the 1000 operation(s)): 12 of the 1000" in limit.message()
    given = OverallLimit(CaptureOptions(Target(command=("x",)), Path("b.json"), overall_timeout=5, per_operation=0))
    given.listed(3)
    assert (
        given.seconds == 5 and "5 s (--overall-timeout: 5 s, + 0 s for each of the 3 operation(s))" in given.message()
    )


def test_an_update_is_probed_with_each_break_of_its_input() -> None:
    from mcpaql_conformance.capture.probes import NOT_AN_OBJECT, UNKNOWN_FIELD, update_input_probes
    from mcpaql_conformance.live.discovery import Operation

    fields = [{"name": "title", "type": "string"}, {"name": "rating", "type": "integer"}]
    parameters = [{"name": "book_id", "type": "string", "required": True},
                  {"name": "input", "type": "object", "required": True, "fields": fields}]  # fmt: skip
    op = Operation("update_book", 0, "UPDATE", "mcp_aql_update", parameters)
    base = {"book_id": "book_1", "input": {"title": "Dune"}}
    probes = {probe.variant: probe for probe in update_input_probes(op, base)}
    assert probes["identifier_in_input"].params["input"] == {"title": "Dune", "book_id": "book_1"}
    assert probes["input_not_object"].params == {"book_id": "book_1", "input": NOT_AN_OBJECT}
    assert probes["input_unknown_field"].params["input"][UNKNOWN_FIELD] and probes["input_unknown_field"].parameter
    assert probes["input_wrong_type"].params["input"] == {"title": 12345}  # a number where a string is documented
    untyped = Operation(
        "update_book", 0, "UPDATE", "mcp_aql_update", [parameters[0], {"name": "input", "type": "object"}]
    )
    assert "input_wrong_type" not in {probe.variant for probe in update_input_probes(untyped, base)}
    assert update_input_probes(Operation("get_book", 0, "READ", "mcp_aql_read", parameters), base) == []


def test_an_operation_paging_with_cursors_is_walked_and_one_mixing_styles_asked_to_refuse() -> None:
    from mcpaql_conformance.capture.collections import collection_calls, next_cursor
    from mcpaql_conformance.live.discovery import Operation

    paging = [{"name": name, "type": "integer" if name == "first" else "string"} for name in ("first", "after")]
    op = Operation("list_books", 0, "READ", "mcp_aql_read", [{"name": "shelf_id", "required": True}, *paging])
    calls = {variant: params for _, _, params, variant in collection_calls(op, {"shelf_id": "s", "first": 5}, "?")}
    assert calls == {"page_of_one": {"shelf_id": "s", "first": 1}, "large_page": {"shelf_id": "s", "first": 1000},
                     "default_page": {"shelf_id": "s"}}  # fmt: skip
    both = Operation("list_books", 0, "READ", "mcp_aql_read", [*paging, {"name": "last"}, {"name": "offset"}])
    variants = [variant for _, _, _, variant in collection_calls(both, {}, "?")]
    assert variants == ["first_and_last", "page_of_one", "large_page", "default_page", "mixed_styles"]
    assert [params for *_, params, variant in collection_calls(both, {}, "?") if variant == "mixed_styles"] == [
        {"first": 1, "offset": 0}
    ]
    assert collection_calls(Operation("add_book", 0, "CREATE", "mcp_aql_create", paging), {}, "?") == []
    selecting = Operation("get_book", 0, "READ", "mcp_aql_read", [{"name": "book_id"}, {"name": "fields"}])
    fields = [(kind, params, variant) for kind, _, params, variant in collection_calls(
        selecting, {"book_id": "b1", "fields": "full"}, "?")]  # fmt: skip
    assert fields == [
        ("field", {"book_id": "b1", "fields": preset}, preset) for preset in ("minimal", "standard", "full")
    ] + [("field", {"book_id": "b1", "fields": ["zz_conformance_field"]}, "unknown_field")]
    more = {"success": True, "data": {"pageInfo": {"hasNextPage": True, "endCursor": "abc"}}}
    assert next_cursor(more) == "abc"
    assert next_cursor({**more, "data": {"pageInfo": {"hasNextPage": False, "endCursor": "abc"}}}) is None
    assert next_cursor({"success": False, "error": {}}) is None and next_cursor("text") is None


def test_an_operation_taking_aggregate_is_asked_for_counts_unknown_names_and_a_grouping() -> None:
    from mcpaql_conformance.capture.collections import collection_calls
    from mcpaql_conformance.live.discovery import Operation

    parameters = [{"name": "aggregate", "type": "object"}, {"name": "include_items", "type": "boolean"}]
    detail = {"aggregation_support": {"groupable_fields": [7, "status"]}}
    op = Operation("list_books", 0, "READ", "mcp_aql_read", parameters, declarations=[detail])
    calls = {variant: params for kind, _, params, variant in collection_calls(op, {"aggregate": {}}, "?")}
    assert calls == {
        "summary": {"aggregate": {"total": {"count": True}}},
        "with_items": {"aggregate": {"total": {"count": True}}, "include_items": True},
        "unknown_function": {"aggregate": {"total": {"zz_conformance_function": True}}},
        "unknown_field": {"aggregate": {"total": {"sum": "zz_conformance_field"}}},
        "grouped": {"aggregate": {"by": {"group_by": "status", "count": True}}},
    }
    bare = Operation("list_books", 0, "READ", "mcp_aql_read", parameters[:1])
    assert [variant for *_, variant in collection_calls(bare, {}, "?")] == ["summary", "unknown_function",
                                                                           "unknown_field"]  # fmt: skip


def test_a_relationship_query_is_asked_for_every_section_one_section_and_its_deepest_traversal() -> None:
    from mcpaql_conformance.capture.collections import collection_calls
    from mcpaql_conformance.live.discovery import Operation

    parameters = [{"name": "root", "required": True}, {"name": "direction", "required": True}, {"name": "depth"},
                  {"name": "include"}]  # fmt: skip
    root = {"element_type": "book", "element_name": "b1"}
    op = Operation("query_relationships", 0, "READ", "mcp_aql_read", parameters,
                   declarations=[{"relationship_capabilities": {"max_depth": 4}}])  # fmt: skip
    calls = {variant: params for kind, _, params, variant in collection_calls(
        op, {"root": root, "direction": "incoming", "include": ["root"]}, "?") if kind == "relationship"}  # fmt: skip
    assert calls == {
        "all_sections": {"root": root, "direction": "both"},
        "one_section": {"root": root, "direction": "both", "include": ["relationships"]},
        "deep": {"root": root, "direction": "both", "depth": 4},
    }
    undocumented = Operation("links_of", 0, "READ", "mcp_aql_read", parameters)
    deep = [params for kind, _, params, variant in collection_calls(undocumented, {"root": root}, "?")
            if variant == "deep"]  # fmt: skip
    assert deep == [{"root": root, "direction": "both", "depth": 50}]
    assert collection_calls(Operation("get_book", 0, "READ", "mcp_aql_read", [{"name": "root"}]), {}, "?") == []


def test_a_computed_field_is_asked_for_and_sorted_or_filtered_on_where_the_details_say_it_cannot_be() -> None:
    from mcpaql_conformance.capture.collections import collection_calls
    from mcpaql_conformance.live.discovery import Operation

    parameters = [{"name": "fields"}, {"name": "sort"}, {"name": "filter", "type": "object"}]
    listed = [{"name": "age_days", "sortable": False, "filterable": True}, {"name": "size"}]
    op = Operation("list_notes", 0, "READ", "mcp_aql_read", parameters, declarations=[{"computed_fields": listed}])
    calls = {variant: params for kind, _, params, variant in collection_calls(op, {}, "?") if kind == "field"}
    assert calls["computed"] == {"fields": ["_computed.age_days"]}
    assert calls["computed_sort"] == {"sort": {"field": "_computed.age_days", "order": "asc"}}
    assert "computed_filter" not in calls  # filterable: nothing to refuse
    plain = Operation("list_notes", 0, "READ", "mcp_aql_read", parameters)
    assert not {"computed", "computed_sort"} & {variant for *_, variant in collection_calls(plain, {}, "?")}


def test_a_search_is_asked_for_one_word_that_word_with_another_and_that_word_twice() -> None:
    from mcpaql_conformance.capture.collections import collection_calls
    from mcpaql_conformance.live.discovery import Operation

    op = Operation("search_books", 0, "READ", "mcp_aql_read", [{"name": "query", "required": True}])
    calls = {variant: params for kind, _, params, variant in collection_calls(op, {"query": "le guin"}, "?")
             if kind == "search"}  # fmt: skip
    assert calls == {"one_word": {"query": "le"}, "two_words": {"query": "le zzconformanceword"},
                     "repeated_word": {"query": "le le"}}  # fmt: skip
    assert collection_calls(op, {"query": {"status": "done"}}, "?") == []  # no text to take a word from
    listing = Operation("list_books", 0, "READ", "mcp_aql_read", [{"name": "query"}])
    assert [kind for kind, *_ in collection_calls(listing, {"query": "le guin"}, "?")] == []


def test_the_safety_loop_drive_sends_what_each_operation_documents_by_its_own_names() -> None:
    from typing import Any, cast

    from mcpaql_conformance.capture.safety import Driver
    from mcpaql_conformance.live.discovery import Operation

    step = Operation("record_execution_step", 0, "CREATE", "mcp_aql_create", [
        {"name": "agent_name", "required": True}, {"name": "next_action_hint", "required": True},
        {"name": "executionId"}, {"name": "outcome"}, {"name": "priority", "required": True}],
        declarations=[{"examples": [{"request": {"params": {"priority": "low", "agent_name": "x"}}}]}])  # fmt: skip
    verify = Operation("verify_challenge", 1, "CREATE", "mcp_aql_create", [
        {"name": "verificationId", "required": True}, {"name": "verification_code", "required": True}])  # fmt: skip
    undocumented = Operation("execute_agent", 2, "EXECUTE", "mcp_aql_execute", None)
    ops = {op.name: op for op in (step, verify, undocumented)}
    driver = Driver(cast(Any, None), ops, {"deny": ["rm -rf*", "*"], "requiresapproval": "not a list"})
    sent = driver.params("record_execution_step", element_name="a1", nextActionHint="list it", outcome=None,
                         execution_id="exec_1")  # fmt: skip
    # our values by the server's names; a value of None left out; a required one of ours from its example
    assert sent == {"agent_name": "a1", "next_action_hint": "list it", "executionId": "exec_1", "priority": "low"}
    omitted = driver.params("record_execution_step", element_name=None, nextActionHint="x")
    assert "agent_name" not in omitted  # left out on purpose, though an example names one
    assert driver.params("verify_challenge", challenge_id="c1", code="0") == {"verificationId": "c1",
                                                                              "verification_code": "0"}  # fmt: skip
    assert driver.params("execute_agent", element_name="a1", execution_id=None) == {"element_name": "a1"}
    # hints from the documented patterns (a bare "*" is no pattern to match), else the spec's examples
    assert driver.hint("deny") == "rm -rfzz_conformance (a conformance probe)"
    assert driver.hint("requiresapproval") == "deploy_zz_conformance (a conformance probe)"
    assert driver.agent(3) == "zz-conformance-agent-run-3"  # outside a capture: "run" for its token
    driver.agent_names.append("reviewer")
    assert driver.agent(3) == "reviewer"  # one fixed name where made-up ones are refused


def test_a_challenge_timeout_is_read_from_the_documented_keys() -> None:
    from mcpaql_conformance.evidence.execution import challenge_timeout, documented_keys

    assert challenge_timeout(documented_keys({"loop": {"challengeTimeoutSeconds": 2}})) == 2.0
    assert challenge_timeout(documented_keys({"verification_expiry_ms": 1500})) == 1.5
    assert challenge_timeout(documented_keys({"timeout": 3, "challenge_expiry": True})) is None


def test_a_sort_object_is_also_sent_as_the_shortcut_a_bare_field_and_order() -> None:
    from mcpaql_conformance.capture.collections import collection_calls
    from mcpaql_conformance.live.discovery import Operation

    sort = {"name": "sort", "type": "object", "default": {"field": "added_at"},
            "fields": [{"name": "field", "enum": ["title", "added_at"]}]}  # fmt: skip
    op = Operation("list_books", 0, "READ", "mcp_aql_read", [sort])
    calls = [
        (params, variant) for kind, _, params, variant in collection_calls(op, {"limit": 2}, "?") if kind == "sort"
    ]
    assert calls == [({"limit": 2, "sort": "added_at", "order": "desc"}, "shorthand")]
    sent = collection_calls(op, {"sort": {"field": "title"}}, "?")
    assert [params for kind, _, params, _ in sent if kind == "sort"] == [{"sort": "title", "order": "desc"}]
    ordered = Operation("list_books", 0, "READ", "mcp_aql_read", [sort, {"name": "order"}])
    assert [kind for kind, *_ in collection_calls(ordered, {}, "?") if kind == "sort"] == []  # documented: judged so
    bare = Operation("list_books", 0, "READ", "mcp_aql_read", [{"name": "sort", "type": "string"}])
    assert [kind for kind, *_ in collection_calls(bare, {}, "?") if kind == "sort"] == []
