"""Field selection of the demo's notes (features/field-selection): the standard presets of §3.1 and
note field names, every unknown name refused (§5.2)."""

from __future__ import annotations

from typing import Any

NOTE_FIELDS = ("note_id", "title", "body", "tags", "created_at", "updated_at")
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
    unknown = [name for name in fields if name not in NOTE_FIELDS]
    if unknown:
        return f"Parameter 'fields' names unknown note field(s): {', '.join(unknown[:5])}. {FIELDS_DOC}"
    return ("note_id", *fields)
