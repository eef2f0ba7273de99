"""The sessions a capture opens after its first one ended (for a server started by command, each a
new start of it): one that reads what the first session left (capture/safety.py), and one that
sends capture's request of invalid UTF-8 alone, last (capture/calls.py). Neither ends the capture:
the bundle holds the first session all the same."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.capture.calls import LastProbe, record_last, send_last
from mcpaql_conformance.capture.safety import probe_new_session
from mcpaql_conformance.files.vocabulary import FAILED
from mcpaql_conformance.live.connection import CaptureError, Connection, Target, connect
from mcpaql_conformance.live.guard import Guard
from mcpaql_conformance.live.session import Live, note


@dataclass(frozen=True)
class Later:
    """What another session is opened with: the first one's target, time limit, stderr, warnings and guard."""

    target: Target
    timeout: float
    errlog: Any
    warnings: list[str]
    guard: Guard


async def later_sessions(later: Later, live: Live, restart: bool, last: LastProbe | None) -> None:
    """The session reading what the first one left (where it left something), then the one of the
    request of invalid UTF-8 (where the run's level lets it go). What a start says again (a
    banner) is said once."""
    said: list[str] = []
    again = dataclasses.replace(later, warnings=said)
    try:
        if restart:
            await _new_session(again, live)
        if last is not None:
            await _last_session(again, live, last)
    finally:
        later.warnings.extend(dict.fromkeys(warning for warning in said if warning not in later.warnings))


async def _new_session(later: Later, live: Live) -> None:
    """What the first session left, read from a second connection (probe_new_session). A server that
    cannot be reached again is noted."""
    try:
        async with connect(later.target, later.timeout, later.errlog, later.warnings, later.guard) as connection:
            await probe_new_session(_again(live, connection), live.left, restarted=later.target.url is None)
    except CaptureError as exc:
        reason = f"the second connection (what the first session left) failed: {exc}"
        live.evidence.notes.append(note(None, "execution", reason, FAILED))


async def _last_session(later: Later, live: Live, probe: LastProbe) -> None:
    """The request of invalid UTF-8 on a session of its own: a server may end the session, or its
    process, on it, which costs no other evidence. Its answer, or that none came, is recorded; a
    session that could not be opened sent nothing, and a note says why."""
    response: Any = None
    opened = False
    try:
        async with connect(later.target, later.timeout, later.errlog, later.warnings, later.guard) as connection:
            opened = True
            response = await send_last(_again(live, connection), probe)
    except CaptureError as exc:  # the transport failed on it, or the session could not be opened
        if not opened:
            reason = f"not sent: a session of its own could not be opened: {exc}"
            live.evidence.notes.append(note(None, f"request {probe[1][0]}", reason, FAILED))
            return
        response = response if response is not None else {"_timeout": live.redactor.text(str(exc))}
    record_last(live, probe, response)


def _again(live: Live, connection: Connection) -> Live:
    """A Live on another connection, writing to the first one's records and evidence."""
    again = Live(connection, live.writer, live.redactor, live.plan, live.concurrency, evidence=live.evidence)
    again.operations, again.tools = live.operations, live.tools
    return again
