"""Optimistic concurrency (verdict/checks/roundtrip.py, core §9.3.2): judged where _protocol.concurrency
lets writes run concurrently; capture never makes up a precondition in its valid calls."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle, fail, ok

from mcpaql_conformance.capture.exclusions import combinable
from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.roundtrip import concurrency_evidence, concurrency_findings


def concurrent(model: str, stale: Any = None, if_match: bool = True) -> Context:
    data = conformant_bundle()
    data["introspection"]["operations_list"]["data"]["_protocol"]["concurrency"] = model
    update = next(d for d in data["introspection"]["operation_details"] if d["name"] == "update_widget")
    if if_match:
        update["parameters"].append({"name": "if_match", "type": "string", "required": False, "description": "x"})
    if stale is not None:
        for case in data["update_preservation_tests"]:
            case["stale_if_match"] = stale
    return Context(Bundle(data))


def test_concurrent_writes_need_if_match_and_a_conflict_for_a_stale_one() -> None:
    mismatch = fail("CONFLICT_VERSION_MISMATCH", "Widget changed.")
    assert concurrency_findings(concurrent("resource-locked", mismatch)) == []
    assert concurrency_evidence(concurrent("resource-locked", mismatch)) == ["update_preservation_tests:stale_if_match"]
    taken = concurrency_findings(concurrent("fully-concurrent", ok({"id": "w1"})))
    assert [f.rule for f in taken] == ["core:9.3.2:optimistic-concurrency"]  # type: ignore[attr-defined]
    assert "took an update whose if_match names no version of the record" in taken[0]
    other = concurrency_findings(concurrent("resource-locked", fail("VALIDATION_INVALID_TYPE", "no")))
    assert "not CONFLICT_VERSION_MISMATCH" in other[0]
    without = concurrency_findings(concurrent("resource-locked", if_match=False))
    assert without[0].endswith("(writes run concurrently), yet no UPDATE takes if_match")
    assert concurrency_findings(concurrent("serialized", ok({"id": "w1"}))) == []  # writes one at a time


def test_a_precondition_is_left_out_of_the_call_with_every_documented_parameter() -> None:
    kept, left_out = combinable([{"name": "id"}, {"name": "if_match"}], {"id": "w1", "if_match": "made-up"})
    assert kept == {"id": "w1"} and "precondition" in left_out["if_match"]
    given, _ = combinable([{"name": "if_match"}], {"if_match": 'W/"1"'}, ["if_match"])  # the server's own
    assert given == {"if_match": 'W/"1"'}


def test_an_array_sent_in_an_update_reads_back_replaced_whole() -> None:
    from mcpaql_conformance.verdict.checks.roundtrip import merge_findings

    def replaced(read: list[str]) -> Context:
        data = conformant_bundle()
        for case in data["update_preservation_tests"]:
            case["array_replaced"] = {"path": "data.tags", "sent": ["new"], "request": {"id": "w1"},
                                      "read_response": ok({"id": "w1", "tags": read})}  # fmt: skip
        return Context(Bundle(data))

    assert merge_findings(replaced(["new"])) == []
    merged = merge_findings(replaced(["old", "new"]))
    assert [f.rule for f in merged] == ["core:4.5.1:merge-result"] * len(merged) and merged  # type: ignore[attr-defined]
    assert merged[0].endswith('the array data.tags sent as ["new"] reads back as ["old","new"]: merged, not replaced')
