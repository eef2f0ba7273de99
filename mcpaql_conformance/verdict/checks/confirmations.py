"""A batch holding an item that needs confirmation (operations §7.5): capture's
``confirmation_batch`` sends a call that answered CONFIRMATION_REQUIRED alone, then introspect.
§7.5.2 asks the batch to halt at the gated item (a SHOULD): the item after it does not run, and
the answer carries `halted_at` and `pending_operations` to continue from; §7.5.4 calls running
the rest anyway (skip-and-continue) NOT RECOMMENDED, the same observation, proven through §7.5.2."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.answers import CONFIRMATION_REQUIRED
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

HALT = "operations:7.5.2:halt-on-confirmation"
CONFIRMATION_RULES = (HALT, "operations:7.5.4:skip-not-recommended")
SECTION = "confirmation_batch"


def gated_item(item: dict[str, Any]) -> bool:
    """A batch item held for a confirmation (CONFIRMATION_REQUIRED, or skip-and-continue's
    ``status: pending_confirmation``, operations §7.5.4)."""
    result = item.get("result")
    error = result.get("error") if isinstance(result, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return item.get("status") == "pending_confirmation" or code == CONFIRMATION_REQUIRED  # json: strings


def confirmation_findings(ctx: Context) -> list[str]:
    """What the confirmation batch shows against §7.5.2 (module docstring); nothing where there is
    none, or where its answer holds no result for the gated item (the batch refused whole)."""
    case = ctx.bundle.data.get(SECTION)
    answer = case.get("response") if isinstance(case, dict) else None
    if not isinstance(case, dict) or not isinstance(answer, dict):
        return []
    items = answer.get("results")
    results = [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
    halted = answer.get("halted_at")
    held = [halted] if isinstance(halted, dict) else []
    first = next((item for item in [*results, *held] if _index(item) == 0), None)
    if first is None:
        return []
    operation = plain(str(case.get("operation")), max_len=60)
    lead = f"a batch of {operation} (it answered {CONFIRMATION_REQUIRED} alone) then introspect: "
    if not gated_item(first):
        return [cite(HALT, lead + "the server ran the first item without the confirmation it asked for alone")]
    if any(_index(item) > 0 for item in results):
        said = "the server ran the introspect item after the gated one (skip-and-continue), where operations §7.5.2 "
        return [cite(HALT, lead + said + "asks the batch to halt there")]
    pending = answer.get("pending_operations")
    listed = isinstance(pending, list) and any(isinstance(item, dict) and _index(item) == 1 for item in pending)
    if not held or not listed:
        said = "the batch stopped at the gated item without `halted_at` and `pending_operations` listing the "
        return [cite(HALT, lead + said + "introspect item (the continuation §7.5.2 asks for)")]
    return []


def _index(item: dict[str, Any]) -> int:
    index = item.get("index")
    return index if isinstance(index, int) and not isinstance(index, bool) else -1
