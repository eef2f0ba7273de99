"""Renderers: text (colour on demand), markdown (escaped), JSON (round-trips) and the badge."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import orjson
import pytest
from bundle_builders import fail, report

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.report import FORMATS, renderer
from mcpaql_conformance.report.badge import badge_status
from mcpaql_conformance.report.escape import Trusted, markdown, terminal
from mcpaql_conformance.report.json import render_json, report_dict
from mcpaql_conformance.report.markdown import render_markdown
from mcpaql_conformance.report.saved import report_from_data
from mcpaql_conformance.report.text import render_text
from mcpaql_conformance.verdict.model import CategoryResult, Report, Result, exit_code_for
from mcpaql_conformance.verdict.model import TestResult as Verdict

Bundle = dict[str, Any]
ESC = "\x1b"
HOSTILE = "x\n# Heading <script>\x1b[31m | [a](b)"
OSC_LINK = "\x1b]8;;http://evil.example\x07click\x1b]8;;\x07"


def hostile_report(**overrides: Any) -> Report:
    """A report in which every string a bundle or a loaded report can control is hostile."""
    tests = (
        Verdict(HOSTILE, HOSTILE, Result.FAIL, HOSTILE + " " + OSC_LINK, spec_ref=HOSTILE, findings=(HOSTILE,)),
        Verdict("t2", "plain\u202etest", Result.PASS, "ok\x00\x07 `code` *bold* _it_ ~~s~~ !img\\"),
    )
    categories = (CategoryResult(HOSTILE, True, tests),)
    fields: dict[str, Any] = {
        "implementation": HOSTILE,
        "version": "1.0\n## v",
        "spec_version": "<b>1</b>",
        "requested_level": 1,
        "conformance_level": 0,
        "categories": categories,
        "exit_code": exit_code_for(categories),
        "tier": "both\x1b[2J",
    }
    fields.update(overrides)
    return Report(**fields)


def unescaped_pipes(line: str) -> int:
    return re.sub(r"\\.", "", line).count("|")


# Renderer lookup


def test_formats_are_text_json_markdown_junit_and_html() -> None:
    from mcpaql_conformance.report.html import render_html
    from mcpaql_conformance.report.junit import render_junit

    assert FORMATS == ("text", "json", "markdown", "junit", "html")
    sample = hostile_report()
    for name, function in [("json", render_json), ("markdown", render_markdown), ("text", render_text),
                           ("junit", render_junit), ("html", render_html)]:  # fmt: skip
        assert renderer(name)(sample, False) == function(sample, False), name


def test_an_unknown_format_is_a_config_error_listing_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        renderer("yaml")
    assert str(caught.value) == "unknown format 'yaml'; valid formats: text, json, markdown, junit, html"


# Text


def test_text_without_colour_has_no_escape_sequences(bundle: Bundle) -> None:
    text = render_text(report(bundle, level=2), color=False)
    assert ESC not in text
    assert "Level 2 conformant (badge: green, exit 0)" in text


def test_text_with_colour_styles_the_verdicts(bundle: Bundle) -> None:
    text = render_text(report(bundle, level=2), color=True)
    assert f"{ESC}[" in text
    assert re.search(r"\x1b\[[0-9;]*32mPASS", text)


def test_text_lists_categories_tests_ids_and_details(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = fail("X", "TypeError: boom")
    text = render_text(report(bundle), color=False)
    assert "MCP-AQL conformance report: unit-adapter 0.0.1" in text
    assert "Error Quality [MUST] FAIL" in text
    assert "  FAIL Error messages do not leak implementation internals  [L1.errors.no-leakage]" in text
    assert "$.error_tests[0].response.error.message: exception class name 'TypeError'" in text
    assert "Summary: 11 passed, 1 warned, 1 failed, 0 skipped (13 tests)" in text
    assert text.rstrip().endswith("Not conformant at Level 1: 1 MUST test(s) failed (badge: red, exit 1)")


def test_text_verdict_mentions_warnings_on_exit_2(bundle: Bundle) -> None:
    del bundle["constraint_tests"]
    assert "Level 2 conformant, 2 warning(s) (badge: yellow, exit 2)" in render_text(
        report(bundle, level=2), color=False
    )


def test_text_of_a_category_run_claims_no_level(bundle: Bundle) -> None:
    text = render_text(report(bundle, category="Error Quality"), color=False)
    assert "Conformance level: none claimed (category filter)" in text
    assert "Partial run (Error Quality): no conformance claim (badge: grey, exit 0)" in text


@pytest.mark.parametrize("color", [False, True])
def test_hostile_strings_cannot_put_escapes_or_lines_into_text(color: bool) -> None:
    text = render_text(hostile_report(), color=color)
    assert "\x1b[31m" not in text
    assert "\x1b[2J" not in text
    assert "\x1b]" not in text
    assert "\x07" not in text
    assert "\x00" not in text
    assert "\u202e" not in text
    assert not any(line.startswith("# Heading") for line in text.splitlines())
    assert "x # Heading <script> | [a](b)" in text
    if not color:
        assert ESC not in text


def test_text_shows_unknown_metadata_plainly() -> None:
    text = render_text(hostile_report(implementation=None, version=None), color=False)
    assert "MCP-AQL conformance report: (unknown) (unknown)" in text


# Markdown


def test_markdown_has_the_badge_the_summary_and_a_section_per_category(bundle: Bundle) -> None:
    text = render_markdown(report(bundle, level=2))
    assert text.startswith("# MCP-AQL Conformance Report\n")
    assert (
        "![MCP-AQL 1.0.0-draft: Level 2 conformant](https://img.shields.io/badge/MCP--AQL%201.0.0--draft-Level%202"
        "%20conformant-brightgreen)" in text
    )
    assert "| Summary | 19 passed, 0 warned, 0 failed, 0 skipped |" in text
    assert "**Level 2 conformant (badge: green, exit 0)**" in text
    assert len(re.findall(r"^## ", text, flags=re.M)) == 8  # seven categories, then the requirements
    assert "## Semantic Evaluation: PASS (SHOULD)" in text
    assert text.index("## Semantic Evaluation") < text.index("## Requirements")


def test_markdown_escapes_markdown_in_test_names(bundle: Bundle) -> None:
    text = render_markdown(report(bundle))
    assert "Canonical parameter names use snake\\_case (L1.params.snake-case)" in text


def test_hostile_strings_cannot_inject_a_heading() -> None:
    text = render_markdown(hostile_report())
    headings = [line for line in text.splitlines() if line.lstrip().startswith("#")]
    assert headings[0] == "# MCP-AQL Conformance Report"
    assert all(line.startswith("## ") for line in headings[1:])
    assert not any("Heading" in line and not line.startswith("## ") for line in headings)


def test_hostile_strings_cannot_inject_html() -> None:
    text = render_markdown(hostile_report())
    assert "<script>" not in text
    assert "<b>" not in text
    assert "&lt;script&gt;" in text


def test_hostile_strings_cannot_inject_a_link() -> None:
    text = render_markdown(hostile_report())
    assert "[a](b)" not in text
    assert "\\[a\\](b)" in text


def test_hostile_strings_cannot_add_table_cells() -> None:
    text = render_markdown(hostile_report())
    rows = [line for line in text.splitlines() if line.startswith("|")]
    field_rows = [r for r in rows if r.startswith("| Implementation") or r.startswith("| Version")]
    assert field_rows
    assert all(unescaped_pipes(r) == 3 for r in field_rows)
    test_rows = [r for r in rows if r.startswith("| FAIL") or r.startswith("| PASS")]
    assert len(test_rows) == 2
    assert all(unescaped_pipes(r) == 4 for r in test_rows)


def test_a_trailing_backslash_cannot_escape_a_cell_separator() -> None:
    text = render_markdown(hostile_report(implementation="name\\"))
    row = next(line for line in text.splitlines() if line.startswith("| Implementation"))
    assert unescaped_pipes(row) == 3


def test_hostile_strings_cannot_put_escapes_or_controls_into_markdown() -> None:
    text = render_markdown(hostile_report())
    assert ESC not in text
    assert "\x07" not in text
    assert "\x00" not in text
    assert "\u202e" not in text


def test_markdown_escape_neutralises_every_inline_construct() -> None:
    assert markdown("`a` *b* _c_ ~d~ !e #f |g| \\h") == "\\`a\\` \\*b\\* \\_c\\_ \\~d\\~ \\!e \\#f \\|g\\| \\\\h"
    assert markdown("<a href='x'>&</a>") == "&lt;a href='x'&gt;&amp;&lt;/a&gt;"
    assert markdown(None) == ""


def test_trusted_markup_is_not_escaped_again() -> None:
    assert markdown(Trusted("![b](u)")) == "![b](u)"


def test_terminal_escape_is_plain_text() -> None:
    assert terminal("a\x1b[31m\nb") == "a b"


# JSON


def test_json_has_the_spec_shape_with_camel_case_keys(bundle: Bundle) -> None:
    data = orjson.loads(render_json(report(bundle, level=2)))
    assert list(data)[:8] == [
        "implementation",
        "version",
        "specVersion",
        "requestedLevel",
        "conformanceLevel",
        "summary",
        "categories",
        "exitCode",
    ]
    assert data["summary"] == {"total": 19, "passed": 19, "warned": 0, "failed": 0, "skipped": 0}
    assert data["categories"][0]["tests"][0] == {
        "name": "Operations query is implemented",
        "result": "PASS",
        "detail": "introspect {query: operations} answered 5 operation(s) in the documented shape.",
        "id": "L1.introspection.operations-query",
        "specRef": data["categories"][0]["tests"][0]["specRef"],
    }
    assert data["tool"] == "mcpaql-conformance"
    assert data["tier"] == "both"


def test_json_round_trips_through_report_loading(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = fail("X", "TypeError: boom")
    del bundle["semantic_tests"]
    original = report(bundle, level=2, tier="1")
    loaded = report_from_data(orjson.loads(render_json(original)))
    assert loaded.categories == original.categories
    assert loaded.summary == original.summary
    assert loaded.exit_code == original.exit_code == 1
    assert (loaded.implementation, loaded.version, loaded.spec_version) == ("unit-adapter", "0.0.1", "1.0.0-draft")
    assert (loaded.requested_level, loaded.conformance_level, loaded.tier) == (2, 0, "1")
    assert loaded.tool == "mcpaql-conformance"


def test_json_round_trips_a_category_filter(bundle: Bundle) -> None:
    original = report(bundle, category="Error Quality")
    loaded = report_from_data(orjson.loads(render_json(original)))
    assert loaded.category_filter == "Error Quality"
    assert loaded.conformance_level is None


def test_json_round_trips_hostile_strings_exactly() -> None:
    original = hostile_report()
    loaded = report_from_data(orjson.loads(render_json(original)))
    assert loaded.implementation == HOSTILE
    assert loaded.categories == original.categories


def test_json_encodes_control_characters_as_escapes() -> None:
    text = render_json(hostile_report())
    assert ESC not in text
    assert "\\u001b" in text


def test_json_omits_empty_optional_test_keys() -> None:
    entry = report_dict(hostile_report())["categories"][0]["tests"][1]
    assert set(entry) == {"name", "result", "detail", "id"}


# Badge


def test_badge_is_green_for_a_clean_pass(bundle: Bundle) -> None:
    status = badge_status(report(bundle, level=2))
    assert (status.message, status.color) == ("Level 2 conformant", "brightgreen")


def test_badge_is_yellow_when_a_must_category_warned(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = fail("X", "Invalid.")
    result = report(bundle)
    assert result.exit_code == 0
    status = badge_status(result)
    assert (status.message, status.color) == ("Level 1 conformant", "yellow")


def test_badge_is_yellow_when_should_categories_warned(bundle: Bundle) -> None:
    del bundle["constraint_tests"]
    status = badge_status(report(bundle, level=2))
    assert (status.message, status.color) == ("Level 2 conformant", "yellow")


def test_badge_shows_the_earned_level_when_level2_features_failed(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["crude"]
    status = badge_status(report(bundle, level=2))
    assert (status.message, status.color) == ("Level 1 conformant, Level 2 not met", "red")


def test_badge_is_red_when_a_must_category_failed(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"] = {"success": True, "data": {}}
    status = badge_status(report(bundle, level=2))
    assert (status.message, status.color) == ("not conformant", "red")


def test_badge_is_grey_for_a_category_run(bundle: Bundle) -> None:
    status = badge_status(report(bundle, category="Error Quality"))
    assert (status.message, status.color) == ("partial run (category filter)", "lightgrey")


def test_badge_url_escapes_dashes_underscores_and_spaces(bundle: Bundle) -> None:
    url = badge_status(report(bundle)).shields_url()
    # the label names the spec version judged against (conformance-testing §2.3)
    assert url == "https://img.shields.io/badge/MCP--AQL%201.0.0--draft-Level%201%20conformant-brightgreen"


def test_badge_ignores_bundle_text() -> None:
    status = badge_status(hostile_report())  # its spec version is bundle text: never on the badge
    assert (status.label, status.message, status.color) == ("MCP-AQL", "not conformant", "red")


def test_json_report_writes_invisible_controls_as_escapes_but_keeps_the_value() -> None:
    loaded = report_from_data({"implementation": "a\u202eb\x9bc\u2066", "summary": {}, "categories": []})
    text = render_json(loaded)
    assert "\u202e" not in text and "\x9b" not in text and "\u2066" not in text
    assert '"a\\u202eb\\u009bc\\u2066"' in text
    assert orjson.loads(text)["implementation"] == "a\u202eb\x9bc\u2066"


def test_json_fast_scan_of_utf8_finds_exactly_the_invisible_characters() -> None:
    from mcpaql_conformance.files.jsonio import _utf8_pattern
    from mcpaql_conformance.sanitize import UNSEEN, UNSEEN_RANGES

    utf8 = _utf8_pattern(UNSEEN_RANGES)
    for code in range(0x7F, 0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        character = chr(code)
        encoded = ("\u00a7" + character + "\u2026").encode()
        assert bool(utf8.search(encoded)) == bool(UNSEEN.match(character)), hex(code)


INVISIBLE_NAME = "no\u00adte\u3164s\u2061\U000e0041\ufe0f\u200b\u202e\x9b"


def test_json_report_escapes_invisible_characters_as_utf16_escapes() -> None:
    loaded = report_from_data({"implementation": INVISIBLE_NAME, "summary": {}, "categories": []})
    text = render_json(loaded)
    assert not any(character in text for character in INVISIBLE_NAME[2:] if not character.isalpha())
    assert "\u3164" not in text and "\U000e0041" not in text
    assert '"no\\u00adte\\u3164s\\u2061\\udb40\\udc41\\ufe0f\\u200b\\u202e\\u009b"' in text
    assert orjson.loads(text)["implementation"] == INVISIBLE_NAME


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit"])
def test_human_readable_reports_show_no_invisible_character(fmt: str) -> None:
    from mcpaql_conformance.report import renderer
    from mcpaql_conformance.sanitize import UNSEEN

    tests = (Verdict("t1", INVISIBLE_NAME, Result.FAIL, INVISIBLE_NAME, findings=(INVISIBLE_NAME,)),)
    categories = (CategoryResult(INVISIBLE_NAME, True, tests),)
    report = hostile_report(implementation=INVISIBLE_NAME, categories=categories)
    text = renderer(fmt)(report, False)
    found = {f"U+{ord(c):04X}" for c in UNSEEN.findall(text)} - ({"U+2060"} if fmt == "markdown" else set())
    assert not found  # (markdown: the word joiner the escaping itself puts after "@")
    assert "notes" in text


def test_markdown_escaping_defeats_autolinks() -> None:
    escaped = markdown("https://x.example www.y.example a@b.example mailto:c@d.example")
    assert escaped == "https\\://x.example www\\.y.example a@\u2060b.example mailto\\:c@\u2060d.example"


@pytest.mark.parametrize("text", ["_www.example.com", "x_www.example.com", "see WWW.example.com"])
def test_www_links_are_defeated_wherever_they_stand(text: str) -> None:
    from cmarkgfm import github_flavored_markdown_to_html

    html = github_flavored_markdown_to_html(markdown(text) + "\n")
    assert "<a " not in html and "example.com" in html


@pytest.mark.parametrize(
    ("text", "shown"),
    [("- item", "- item"), ("---", "---"), ("1. one", "1. one"), ("12) x", "12) x"), ("+ y", "+ y"), ("===", "===")],
)
def test_text_at_the_start_of_a_line_cannot_open_a_block(text: str, shown: str) -> None:
    from cmarkgfm import github_flavored_markdown_to_html

    html = github_flavored_markdown_to_html("Title\n" + markdown(text) + "\n")
    assert html.strip() == f"<p>Title\n{shown}</p>"
    alone = github_flavored_markdown_to_html(markdown("   " + text) + "\n")
    assert alone.strip() == f"<p>{shown}</p>"


# --- text layout: wrapping, findings, verdicts ---------------------------------------------


def many_findings_report(count: int) -> Report:
    findings = tuple(f"operation_{i}.parameter: the error does not name it" for i in range(count))
    name, listing = "Required parameters are enforced", "first, ... (+20 more)"
    test = Verdict(
        "L1.params.required-enforced", name, Result.FAIL, listing, findings=findings, lead=f"{count} failure(s)"
    )
    categories = (CategoryResult("Parameter Handling", True, (test,)),)
    return Report("adapter", "1", "1.0.0-draft", 1, 0, categories, exit_code_for(categories))


def test_each_finding_has_its_own_line_under_a_lead_and_the_cap_says_how_many_are_left_out() -> None:
    from mcpaql_conformance.report.common import RenderOptions

    text = render_text(many_findings_report(25), options=RenderOptions(max_findings=10))
    lines = text.splitlines()
    start = lines.index("       25 failure(s):")
    assert lines[start + 1 : start + 12] == [
        *(f"       - operation_{i}.parameter: the error does not name it" for i in range(10)),
        "       ... and 15 more (--max-findings 0 shows all)",
    ]
    assert "first, ... (+20 more)" not in text  # the truncated listing gives way to the findings
    every = render_text(many_findings_report(25), options=RenderOptions(max_findings=0))
    assert "operation_24.parameter" in every and "more (--max-findings" not in every


def test_text_wraps_at_the_width_with_hanging_indents_and_never_breaks_a_word() -> None:
    from mcpaql_conformance.report.common import RenderOptions

    report_ = many_findings_report(3)
    wrapped = render_text(report_, options=RenderOptions(width=40)).splitlines()
    unwrapped = render_text(report_).splitlines()
    assert all(len(line) <= 40 or " " not in line.strip() for line in wrapped)
    assert max(len(line) for line in unwrapped) > 40
    assert wrapped[wrapped.index("  FAIL Required parameters are enforced") + 1] == (
        "       [L1.params.required-enforced]"
    )  # the id is one word: it moves whole to the next line, under the name
    bullet = wrapped.index("       - operation_0.parameter: the")
    assert wrapped[bullet + 1] == "         error does not name it"  # continued under the bullet's text
    assert " ".join(" ".join(wrapped).split()) == " ".join(" ".join(unwrapped).split())  # nothing lost


def test_capture_sections_are_set_apart_by_a_blank_line() -> None:
    lines = render_text(
        dataclasses.replace(many_findings_report(1), notes=("get_x: missing: destructive",))
    ).splitlines()
    position = lines.index("Not probed during capture (1):")
    assert lines[position - 1] == "" and lines[position + 1] == "  - get_x: missing: destructive"


@pytest.mark.parametrize(
    ("results", "requested", "expected"),
    [
        ((Result.PASS,), 1, "Level 1 conformant (badge: green, exit 0)"),
        ((Result.PASS, Result.WARN, Result.WARN), 1, "Level 1 conformant, 2 warning(s) (badge: yellow, exit 0)"),
        ((Result.FAIL, Result.FAIL), 1, "Not conformant at Level 1: 2 MUST test(s) failed (badge: red, exit 1)"),
    ],
)
def test_the_verdict_line_uses_the_badges_words_and_colour(results: tuple[Result, ...], requested: int,
                                                           expected: str) -> None:  # fmt: skip
    from mcpaql_conformance.report.common import verdict_line
    from mcpaql_conformance.verdict.model import conformance_level

    tests = tuple(Verdict(f"t{i}", f"t{i}", result, "") for i, result in enumerate(results))
    categories = (CategoryResult("Error Quality", True, tests),)
    level = conformance_level(requested, categories)
    verdict = verdict_line(Report("a", "1", "s", requested, level, categories, exit_code_for(categories)))
    assert verdict == expected
    status = badge_status(Report("a", "1", "s", requested, level, categories, exit_code_for(categories)))
    assert status.message in verdict or status.message == "not conformant"


# The claim names the spec version judged against (conformance-testing §2.3), never a silent relabel


def test_every_format_names_the_spec_version_judged_against_and_the_bundles_other_claim(bundle: Bundle) -> None:
    bundle["spec_version"] = "0.9.0"
    result = report(bundle)
    shown = "1.0.0-draft (the evidence says it was recorded against 0.9.0)"
    assert f"Spec version: {shown}" in render_text(result)
    assert f"| Spec version | {shown} |" in render_markdown(result)
    assert f"<tr><th>Spec version</th><td>{shown}</td></tr>" in renderer("html")(result)
    assert f'<property name="specVersion" value="{shown}"' in renderer("junit")(result)
    data = orjson.loads(render_json(result))
    assert (data["specVersion"], data["evidenceSpecVersion"]) == ("1.0.0-draft", "0.9.0")
    assert report_from_data(data).spec_line == shown  # a saved report keeps both
    assert badge_status(result).label == "MCP-AQL 1.0.0-draft"


def test_a_bundle_that_claims_our_version_or_none_gets_no_note(bundle: Bundle) -> None:
    assert "Spec version: 1.0.0-draft\n" in render_text(report(bundle))
    del bundle["spec_version"]
    result = report(bundle)
    assert "Spec version: 1.0.0-draft\n" in render_text(result)
    assert "evidenceSpecVersion" not in orjson.loads(render_json(result))
