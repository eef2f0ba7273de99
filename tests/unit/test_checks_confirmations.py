"""A batch holding an item that awaits confirmation halts there (operations §7.5.2; §7.5.4's
skip-and-continue judged through it): capture's ``confirmation_batch``."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.confirmations import confirmation_findings, gated_item
from mcpaql_conformance.verdict.checks.level2 import batch
from mcpaql_conformance.verdict.model import Result

GATED = {"success": False, "error": {"code": "CONFIRMATION_REQUIRED", "message": "Confirm first.",
                                     "details": {"confirmation_token": "conf_1"}}}  # fmt: skip
LISTED = {"success": True, "data": {"operations": []}}
HALTED = {
    "success": True, "data": None, "results": [],
    "halted_at": {"index": 0, "operation": "delete_shelf", "result": GATED},
    "pending_operations": [{"index": 1, "operation": "introspect", "params": {"query": "operations"}}],
    "summary": {"total": 2, "succeeded": 0, "failed": 0, "halted": 1, "pending": 1},
}  # fmt: skip


def sent(response: Any) -> Context:
    data = conformant_bundle()
    data["confirmation_batch"] = {"operation": "delete_shelf", "response": response}
    return Context(Bundle(data))


def said(response: Any) -> list[tuple[str, str]]:
    return [(f.rule, str(f)) for f in confirmation_findings(sent(response))]  # type: ignore[attr-defined]


LEAD = "a batch of delete_shelf (it answered CONFIRMATION_REQUIRED alone) then introspect: "


def test_a_batch_halted_at_the_gated_item_with_its_continuation_passes() -> None:
    assert said(HALTED) == []
    outcome = batch(sent(HALTED))
    assert outcome.result is Result.PASS, outcome


def test_skip_and_continue_warns_quoting_what_ran() -> None:
    skipped = {"success": True, "data": None, "results": [
        {"index": 0, "operation": "delete_shelf", "result": GATED, "status": "pending_confirmation"},
        {"index": 1, "operation": "introspect", "result": LISTED}]}  # fmt: skip
    assert said(skipped) == [
        (
            "operations:7.5.2:halt-on-confirmation",
            LEAD + "the server ran the introspect item after the gated one (skip-and-continue), where operations "
            "§7.5.2 asks the batch to halt there",
        )
    ]
    outcome = batch(sent(skipped))
    assert outcome.result is Result.WARN and "skip-and-continue" in outcome.detail


def test_a_halt_without_its_continuation_or_a_gated_item_run_in_the_batch_warns() -> None:
    bare = {"success": True, "data": None, "results": [], "halted_at": HALTED["halted_at"]}
    assert [text for _, text in said(bare)] == [
        LEAD + "the batch stopped at the gated item without `halted_at` and `pending_operations` listing the "
        "introspect item (the continuation §7.5.2 asks for)"
    ]
    ran = {"success": True, "data": None, "results": [{"index": 0, "operation": "delete_shelf", "result": LISTED}]}
    assert [text for _, text in said(ran)] == [
        LEAD + "the server ran the first item without the confirmation it asked for alone"
    ]


def test_a_refused_batch_or_none_judges_nothing() -> None:
    assert said({"success": False, "error": {"code": "VALIDATION_INVALID_TYPE", "message": "no batches"}}) == []
    assert confirmation_findings(Context(Bundle(conformant_bundle()))) == []
    assert gated_item({"index": 0, "status": "pending_confirmation", "result": {"success": False}})
    assert not gated_item({"index": 0, "result": LISTED})
