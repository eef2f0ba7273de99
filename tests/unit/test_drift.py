"""Drift between two sources: shapes, verdicts, exit codes and hostile names in reports."""

from __future__ import annotations

from mcpaql_conformance.evidence.samples import Source
from mcpaql_conformance.shapes import drift
from mcpaql_conformance.shapes.drift import Change


def source(samples: dict[str, list[object]], details: dict[str, dict[str, object]] | None = None) -> Source:
    return Source("s", samples=samples, details=details or {})


def test_shape_changes_are_found_at_any_depth_and_integers_among_numbers_are_no_change() -> None:
    old = source({"op": [{"a": 1.5, "b": {"c": "x"}, "items": [{"d": "y"}], "gone": 1}]})
    new = source({"op": [{"a": 2, "b": {"c": 3}, "items": [{"d": "y", "e": True}]}, {"a": 1.5, "b": {"c": 4}}]})
    assert [(c.subject, c.what, c.breaking) for c in drift.compare(old, new)] == [
        ("op:data.b.c", "now integer, was string", True),
        ("op:data.gone", "no longer in any answer", True),
        ("op:data.items", "no longer in every answer", True),
        ("op:data.items[].e", "added", False),
    ]


def test_operations_added_and_removed_and_verdicts_that_got_worse() -> None:
    changes = drift.compare(
        source({"a": [1]}, {"b": {}}),
        source({"a": [1], "c": [2]}),
        ({"t1": "PASS", "t2": "FAIL"}, {"t1": "WARN", "t2": "PASS"}),
    )
    assert [(c.kind, c.subject, c.what, c.breaking) for c in changes] == [
        ("operation", "b", "removed", True),
        ("operation", "c", "added", False),
        ("verdict", "t1", "PASS -> WARN", True),
        ("verdict", "t2", "FAIL -> PASS", False),
    ]


def test_exit_codes_follow_fail_on() -> None:
    added, removed = Change("operation", "a", "added", False), Change("operation", "b", "removed", True)
    assert [drift.exit_code([added], mode) for mode in ("none", "breaking", "any")] == [0, 0, 1]
    assert [drift.exit_code([added, removed], mode) for mode in ("none", "breaking", "any")] == [0, 1, 1]
    assert [drift.exit_code([], mode) for mode in ("none", "breaking", "any")] == [0, 0, 0]


def test_hostile_names_stay_text_in_every_format() -> None:
    hostile = Change("operation", "x|<script>alert(1)</script>\x1b]8;;http://evil\x07[a](http://e)", "added", False)
    text = drift.render_text([hostile], "old", "new")
    assert "\x1b" not in text and "\x07" not in text
    markdown = drift.render_markdown([hostile], "old", "new")
    assert "<script>" not in markdown and "\\|" in markdown and "](http" not in markdown.replace("\\]", "")
