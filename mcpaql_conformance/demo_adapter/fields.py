"""Field selection of the demo's notes (features/field-selection): the standard presets of §3.1,
note field names, every unknown name refused (§5.2), and one computed field, `_computed.age_days`
(features/computed-fields), answered inside a `_computed` object."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

NOTE_FIELDS = ("note_id", "title", "body", "tags", "created_at", "updated_at")
AGE = "_computed.age_days"  # whole days since the note was created
# The standard presets, by the note fields each shows.
PRESETS = {"minimal": ("note_id", "title"), "standard": ("note_id", "title", "tags", "updated_at"), "full": NOTE_FIELDS}
FIELDS_DOC = (
    f"Field selection: a preset ({', '.join(map(repr, PRESETS))}) or an array of note field names "
    f"({', '.join(NOTE_FIELDS)}); note_id always comes back. Default: every field."
)


def selection(fields: Any) -> tuple[str, ...] | str:
    """The note fields ``fields`` selects (a preset or field names; none given: all), or why it
    selects none (a message naming what it does not know)."""
    if fields is None or fields == []:
        return NOTE_FIELDS
    if isinstance(fields, str):
        if fields in PRESETS:
            return PRESETS[fields]
        fields = [fields]
    if not isinstance(fields, list) or not all(isinstance(name, str) for name in fields):
        return f"Parameter 'fields' expected a preset or field names. {FIELDS_DOC}"
    unknown = [name for name in fields if name not in NOTE_FIELDS and name != AGE]
    if unknown:
        return f"Parameter 'fields' names unknown note field(s): {', '.join(unknown[:5])}. {FIELDS_DOC}"
    return ("note_id", *fields)


def computed(note: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """The `_computed` object ``fields`` asks of a note (empty when it asks none)."""
    if AGE not in fields:
        return {}
    try:
        created = datetime.fromisoformat(str(note.get("created_at")).replace("Z", "+00:00"))
    except ValueError:
        return {"_computed": {"age_days": None}}
    return {"_computed": {"age_days": (datetime.now(UTC) - created).days}}
