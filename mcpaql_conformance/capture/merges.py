"""Deep-merge's array rule (core §4.5.1: "arrays replace entirely"), asked of a live server after its
inferred update-read cycle: an array field the record kept, sent again as one new element only; the
read after it shows whether the array was replaced (the new element alone) or merged into the old one."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcpaql_conformance.capture.values import made_up
from mcpaql_conformance.evidence.answers import classify

JsonObject = dict[str, Any]
Send = Callable[[str, JsonObject, str], Awaitable[Any]]  # (reader or update, params, step) -> the answer


async def array_replaced(send: Send, update: JsonObject, read_params: JsonObject, kept: JsonObject,
                         takes: JsonObject) -> JsonObject | None:  # fmt: skip
    """The first array of strings the record kept (``kept``: read paths and their values), replaced by
    one new element through ``update`` (its identifiers and whether it takes `input`), then read back:
    ``{path, sent, request, read_response}``; None where there is none, or the update was refused."""
    for path, old in kept.items():
        field = path.rsplit(".", 1)[-1]
        strings = isinstance(old, list) and old and all(isinstance(item, str) for item in old)
        if not strings or (takes and field not in takes):  # json: field names
            continue
        new = [made_up(f"{field}-replaced")]
        params = {**update, "input": {field: new}} if "input" in update else {**update, field: new}
        if not classify(await send("update", params, f"update {field}: one new element")).succeeded:
            return None
        read = await send("read", read_params, f"read after {field} was replaced")
        return {"path": path, "sent": new, "request": params, "read_response": read}
    return None
