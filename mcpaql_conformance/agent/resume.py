"""`agent --resume`: the incomplete invocation a bundle holds, checked against the options it
is resumed with, so that only its missing runs run (and finished ones are never run again)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpaql_conformance.agent.endpoints import AgentError
from mcpaql_conformance.agent.evidence import existing_bundle, resumable
from mcpaql_conformance.sanitize import plain

# What an incomplete invocation's options must match to be resumed (its agent_runs entry's keys).
RESUMED_SETTINGS = {"models": "--model", "judge": "--judge", "runs": "--runs", "max_turns": "--max-turns"}


class NothingToResume(Exception):  # not an error: said, exit 0
    def __init__(self, message: str, bundle: dict[str, Any]) -> None:
        super().__init__(message)
        self.bundle = bundle


@dataclass
class Resume:
    """An incomplete invocation to continue: its ``agent_runs`` entry, and the bundle."""

    entry: dict[str, Any]
    data: dict[str, Any]  # the bundle as it is (its finished runs)
    base: dict[str, Any]  # the bundle without that entry


def resumed(bundle: Path, now: dict[str, Any]) -> tuple[Resume | None, list[str]]:
    """The incomplete invocation in ``bundle``, and what was found; a NothingToResume when its
    agent runs are complete; an AgentError when ``now`` (the settings of RESUMED_SETTINGS, the
    models by name) differs from the settings it was made with."""
    where = plain(str(bundle))
    path = Path(os.path.realpath(bundle))
    if not path.is_file():
        return None, [f"nothing to resume: {where} does not exist yet; every run is run"]
    data = existing_bundle(path)
    found = resumable(data)
    if found is None:
        if data.get("agent_runs"):
            raise NothingToResume(
                f"nothing to resume: the agent runs in {where} are complete (without --resume, they run again)", data
            )
        return None, [f"nothing to resume: {where} holds no agent runs yet; every run is run"]
    entry, base = found
    then = {**entry, "models": models_of(entry)}
    for key, option in RESUMED_SETTINGS.items():
        said, given = then.get(key), now[key]
        if key == "models":  # in any order
            said, given = " ".join(sorted(said or [])) or None, " ".join(sorted(given)) or None
        if said != given:
            raise AgentError(
                f"--resume: the incomplete agent runs in {where} were made with {option} {plain(str(said))},"
                f" not {plain(str(given))}: give the same options, or leave out --resume to run every run again"
            )
    done, left = entry.get("finished_runs"), entry.get("planned_runs")
    return Resume(entry, data, base), [f"resuming {where}: {done} of {left} run(s) had finished"]


def models_of(entry: dict[str, Any]) -> list[str]:
    """The models an ``agent_runs`` entry ran (or could not use), by name; one written before
    several models could run names its one model under ``model``."""
    listed = [str(model.get("model")) for model in entry.get("models") or [] if isinstance(model, dict)]
    listed += [str(gone.get("model")) for gone in entry.get("unusable") or [] if isinstance(gone, dict)]
    return listed or ([str(entry["model"])] if entry.get("model") else [])
