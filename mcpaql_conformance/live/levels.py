"""The three permission levels of a run and what a call or operation needs.

After the core spec's category table (v1.0.0-draft §6.1): READ is read-only; CREATE is additive
(not read-only, not destructive); UPDATE, DELETE and EXECUTE are destructive. A run is read-only
unless the user says ``--allow-writes`` (additive calls too) or ``--allow-destructive``
(everything, ``--allow-writes`` included).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from mcpaql_conformance.files.vocabulary import PermissionLabel


class Permission(IntEnum):
    """What a run may call: the default reads only."""

    READ_ONLY = 0
    WRITES = 1
    DESTRUCTIVE = 2

    @property
    def flag(self) -> str:
        """The option that allows this level ("" for read-only)."""
        return ("", "--allow-writes", "--allow-destructive")[self]

    @property
    def label(self) -> PermissionLabel:
        """The run's level as the bundle and the reports name it."""
        labels: tuple[PermissionLabel, ...] = ("read-only", "writes", "destructive")
        return labels[self]

    @property
    def run(self) -> str:
        """A run at this level, in a sentence."""
        return f"a run with {self.flag}" if self else "a read-only run"

    @property
    def how(self) -> str:
        """How to allow it, at a sentence's end."""
        if self is Permission.DESTRUCTIVE:
            return "pass --allow-destructive, against a disposable instance only"
        return f"pass {self.flag}" if self else ""


def permission_of(allow_writes: bool, allow_destructive: bool) -> Permission:
    """The level the options ask for (``--allow-destructive`` implies ``--allow-writes``)."""
    if allow_destructive:
        return Permission.DESTRUCTIVE
    return Permission.WRITES if allow_writes else Permission.READ_ONLY


@dataclass(frozen=True)
class Need:
    """The level a call or operation needs, and the reading that set it."""

    level: Permission
    reason: str = ""

    def __bool__(self) -> bool:
        return self.level > Permission.READ_ONLY


READ_ONLY = Need(Permission.READ_ONLY)
CATEGORY_LEVELS = {
    "READ": Permission.READ_ONLY,
    "CREATE": Permission.WRITES,
    "UPDATE": Permission.DESTRUCTIVE,
    "DELETE": Permission.DESTRUCTIVE,
    "EXECUTE": Permission.DESTRUCTIVE,
}


def strictest(needs: list[Need]) -> Need:
    """The need of the highest level (the first such reading gives the reason)."""
    found = READ_ONLY
    for need in needs:
        if need.level > found.level:
            found = need
    return found
