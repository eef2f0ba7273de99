"""What the model is told of a call the run's guard (``live/guard.py``) refused: the call never
went out, and the answer says why and which option would let it out."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.live.levels import Need

REFUSED_CODE = "REFUSED_BY_CONFORMANCE_RUNNER"


def refused_answer(need: Need) -> dict[str, Any]:
    """What the model is told instead of the server's answer."""
    message = (
        f"Not sent to the server: {need.reason}. The conformance runner withholds such calls in this run; it"
        f" sends them only with {need.level.flag}"
        + (", against a disposable instance." if need.level.flag == "--allow-destructive" else ".")
    )
    return {"success": False, "error": {"code": REFUSED_CODE, "message": message}}
