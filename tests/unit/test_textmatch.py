"""textmatch: whole-identifier mentions, phrases, snake_case and leak detection."""

from __future__ import annotations

import time

import pytest

from mcpaql_conformance.verdict.textmatch import (
    all_snake_case,
    contains_phrase,
    find_leak,
    find_leaks,
    is_snake_case,
    mentions,
    mentions_identifier,
    normalize_words,
    refusal_names,
)

# mentions_identifier (deliberate difference 3)


def test_identifier_is_found_as_a_whole_word() -> None:
    assert mentions_identifier("Missing required parameter 'id'.", "id")


def test_identifier_inside_a_longer_identifier_is_not_a_mention() -> None:
    assert not mentions_identifier("Missing required parameter widget_id.", "id")


def test_identifier_as_a_prefix_of_a_word_is_not_a_mention() -> None:
    assert not mentions_identifier("The identity is missing.", "id")


def test_identifier_followed_by_a_digit_is_not_a_mention() -> None:
    assert not mentions_identifier("id2 is wrong", "id")


def test_identifier_at_the_start_and_end_of_the_text_is_a_mention() -> None:
    assert mentions_identifier("id", "id")
    assert mentions_identifier("id is missing", "id")
    assert mentions_identifier("missing: id", "id")


def test_identifier_next_to_punctuation_is_a_mention() -> None:
    assert mentions_identifier("params.id/required", "id")
    assert mentions_identifier("`id`", "id")
    assert mentions_identifier("(id)", "id")


def test_identifier_found_after_an_earlier_embedded_occurrence() -> None:
    assert mentions_identifier("widget_id is set but id is missing", "id")


def test_identifier_match_is_case_sensitive() -> None:
    assert not mentions_identifier("ID is missing", "id")


def test_empty_identifier_is_never_mentioned() -> None:
    assert not mentions_identifier("anything", "")


# mentions


def test_mentions_requires_identifier_shaped_fragments_whole() -> None:
    assert mentions("size must be positive", "size")
    assert not mentions("page_size must be positive", "size")


def test_mentions_matches_other_fragments_as_substrings() -> None:
    assert mentions("Parameter size must be at least 1.", "at least 1")
    assert mentions("expected 1..10", "1..10")


def test_mentions_of_an_absent_phrase_is_false() -> None:
    assert not mentions("Parameter size is invalid.", "at least 1")


def test_mentions_of_an_empty_fragment_is_false() -> None:
    assert not mentions("anything", "")


# normalize_words / contains_phrase


def test_normalize_words_lowercases_and_folds_punctuation_to_single_spaces() -> None:
    assert normalize_words("Call  GET_widget, then: read!") == " call get_widget then read "


def test_contains_phrase_matches_whole_words_ignoring_case_and_punctuation() -> None:
    text = normalize_words("Use the ID parameter, then call get_widget.")
    assert contains_phrase(text, "id parameter")
    assert contains_phrase(text, "Get_Widget")


def test_contains_phrase_does_not_match_inside_words() -> None:
    text = normalize_words("Use the identifier.")
    assert not contains_phrase(text, "id")
    assert not contains_phrase(text, "identifie")


def test_contains_phrase_words_must_be_adjacent() -> None:
    text = normalize_words("the id of the parameter")
    assert not contains_phrase(text, "id parameter")


def test_contains_phrase_rejects_an_empty_or_punctuation_only_phrase() -> None:
    text = normalize_words("anything at all")
    assert not contains_phrase(text, "")
    assert not contains_phrase(text, " ... ")


# is_snake_case


@pytest.mark.parametrize("name", ["get_widget", "a", "list_widgets_v2", "x1"])
def test_snake_case_names_are_accepted(name: str) -> None:
    assert is_snake_case(name)


@pytest.mark.parametrize(
    "name", ["getWidget", "GetWidget", "get-widget", "_private", "1st", "", "get widget", "widget\u00e9", "GET_WIDGET"]
)
def test_non_snake_case_names_are_rejected(name: str) -> None:
    assert not is_snake_case(name)


def test_snake_case_rejects_a_trailing_newline() -> None:
    assert not is_snake_case("get_widget\n")


# find_leak (deliberate difference 2)


@pytest.mark.parametrize(
    "message",
    [
        "must be at least 3",
        "Parameter size must be at least 1 and at most 100.",
        "Error: name is required",
        "VALIDATION_ERROR: the id is invalid",
        "Value at index 3 is invalid",
        "Expected one of: low, medium, high",
        "Meeting at 10:30",
        "Widget w9 not found.",
        "Use a ratio such as 3:4",
        "Parameter 'id' must match ^[a-z]+$",
        "Check the file config.json",
    ],
)
def test_plain_english_is_not_a_leak(message: str) -> None:
    assert find_leak(message) is None


@pytest.mark.parametrize(
    "message",
    ["Maintenance ends at 23:59:59, try again later.", "The sensor's last reading was at 2025-05-01T10:30:00Z."],
)
def test_a_time_or_timestamp_after_at_is_not_a_leak(message: str) -> None:
    assert find_leak(message) is None


def test_plain_english_at_new_is_not_a_leak() -> None:
    assert find_leak("Sessions can be resumed at new login.") is None


def test_exception_class_name_is_a_leak() -> None:
    assert find_leak("TypeError: Cannot read properties of undefined") == "exception class name 'TypeError'"


@pytest.mark.parametrize("name", ["ValueError", "NullPointerException", "KeyError", "RangeError"])
def test_other_exception_class_names_are_leaks(name: str) -> None:
    leak = find_leak(f"failed: {name}")
    assert leak is not None
    assert leak.startswith("exception class name")


@pytest.mark.parametrize("name", ["OSError", "JSONDecodeError", "URIError"])
def test_exception_names_starting_with_an_acronym_are_leaks(name: str) -> None:
    assert find_leak(f"{name}: something went wrong") == f"exception class name {name!r}"


def test_the_word_error_alone_is_not_a_leak() -> None:
    assert find_leak("Error") is None


def test_javascript_stack_frame_is_a_leak() -> None:
    assert find_leak("oops\n    at fn (file.js:1:2)") == "stack frame 'at fn (file.js:1:2)'"


def test_javascript_anonymous_frame_with_absolute_path_is_a_leak() -> None:
    leak = find_leak("at Object.<anonymous> (/app/server.js:10:5)")
    assert leak == "stack frame 'at Object.<anonymous> (/app/server.js:10:5)'"


def test_javascript_async_frame_is_a_leak() -> None:
    leak = find_leak("at async Promise.all (index 0)")
    assert leak is not None
    assert leak.startswith("stack frame")


def test_python_traceback_header_is_a_leak() -> None:
    assert find_leak("Traceback (most recent call last):\n  ...") == (
        "stack trace header 'Traceback (most recent call last)'"
    )


def test_python_file_frame_is_a_leak() -> None:
    assert find_leak('  File "x.py", line 3, in handler') == "python frame 'File \"x.py\", line 3'"


def internal_path(message: str) -> str:
    leak = find_leak(message)
    assert leak is not None, message
    assert leak.startswith("internal path "), leak
    return leak


def test_node_modules_path_is_a_leak() -> None:
    assert "node_modules/" in internal_path("failed in /node_modules/")


def test_src_path_is_a_leak() -> None:
    assert "/src/" in internal_path("/src/")


def test_deep_src_path_is_a_leak() -> None:
    assert "/src/" in internal_path("Invalid value at /data/app/src/handler")


def test_windows_src_path_is_a_leak() -> None:
    assert "src" in internal_path("C:\\app\\src\\index")


def test_site_packages_path_is_a_leak() -> None:
    assert "site-packages" in internal_path("/opt/venv/site-packages/app/handler")


def test_typescript_line_reference_is_a_leak() -> None:
    assert find_leak("thrown in widget.ts:12") == "source line reference '.ts:12'"


@pytest.mark.parametrize("reference", ["handler.py:40", "index.mjs:7", "Main.java:101", "main.go:9"])
def test_other_source_line_references_are_leaks(reference: str) -> None:
    leak = find_leak(f"failed in {reference}")
    assert leak is not None
    assert leak.startswith("source line reference")


def test_object_dumps_are_leaks() -> None:
    assert find_leak("got [object Object]") == "object dump '[object Object]'"
    assert find_leak("got #<Widget:0x1>") == "object dump '#<Widget:0x1'"


@pytest.mark.parametrize(
    "hostile",
    [
        "A" * 100_000,
        "Aa" * 50_000,
        "Aaaaa " * 16_000,
        "at " * 33_333,
        "at a:1:" * 14_000,
        ("at " + "a" * 200 + " (" + "b" * 400) * 150,
        "/" * 100_000,
        " /a" * 33_333,
        ("=/" + "a" * 99 + "/") * 900,
        'File "' * 16_666,
        "a.py:" * 20_000,
        "#<A" * 33_333,
        "at " + "/a" * 50_000,
        "at a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v:1 " * 2_000,
        ("at async " + "a" * 200) * 400,
    ],
)
def test_a_100_kb_hostile_message_is_judged_quickly(hostile: str) -> None:
    started = time.perf_counter()
    find_leak(hostile)
    assert time.perf_counter() - started < 1.0


# find_leaks (batch form used by the no-leakage check)


def test_find_leaks_reports_the_index_of_each_leaking_message() -> None:
    messages = ["must be at least 3", "TypeError: boom", "Widget not found.", "at fn (file.js:1:2)"]
    assert find_leaks(messages) == [(1, "exception class name 'TypeError'"), (3, "stack frame 'at fn (file.js:1:2)'")]


def test_find_leaks_reports_one_artifact_per_message() -> None:
    assert find_leaks(['TypeError in File "x.py", line 3']) == [(0, "exception class name 'TypeError'")]


def test_find_leaks_of_clean_or_no_messages_is_empty() -> None:
    assert find_leaks(["Parameter size must be at least 1.", "Widget w9 not found."]) == []
    assert find_leaks([]) == []


def test_find_leaks_agrees_with_find_leak() -> None:
    messages = ["/src/", "ok", 'File "x.py", line 3', "Traceback (most recent call last)", "got [object Object]"]
    expected = [(i, leak) for i, m in enumerate(messages) if (leak := find_leak(m)) is not None]
    assert find_leaks(messages) == expected
    assert len(expected) == 4


@pytest.mark.parametrize(
    "message",
    [
        "The cursor points at new notes (refresh with list_notes).",
        "Sync runs at 6 (UTC+5:30).",
        "Retry at async intervals (see docs).",
    ],
)
def test_plain_english_with_at_and_parentheses_is_not_a_stack_frame(message: str) -> None:
    assert find_leak(message) is None


@pytest.mark.parametrize(
    ("message", "phrase"),
    [("ノートを作成します", "ノートを作成"), ("Café au lait", "café"), ("\uff26\uff35\uff2c\uff2c text", "full")],
)
def test_phrases_match_in_any_script(message: str, phrase: str) -> None:
    assert contains_phrase(normalize_words(message), phrase)


def test_a_phrase_does_not_match_inside_a_longer_word_with_accents() -> None:
    assert not contains_phrase(normalize_words("Café au lait"), "caf")


# bulk forms (the hot paths of 100,000-operation bundles) agree with the one-by-one rules


def test_all_snake_case_agrees_with_is_snake_case_on_each_name() -> None:
    assert all_snake_case(["get_widget", "a", "x_1"])
    assert all_snake_case([])
    assert not all_snake_case(["get_widget", "getWidget"])
    assert not all_snake_case(["", "a"])


def test_all_snake_case_is_not_fooled_by_a_line_break_inside_a_name() -> None:
    # Joined with line breaks, "ab\ncd" would read as two good names.
    assert not all_snake_case(["ab\ncd"])
    assert not all_snake_case(["ok", "ab\n"])


def test_find_leaks_reports_every_message_that_repeats_a_leak() -> None:
    leak = "TypeError: x is undefined"
    found = find_leaks(["fine", leak, "fine", leak])
    assert [index for index, _ in found] == [1, 3]
    assert all(artifact == "exception class name 'TypeError'" for _, artifact in found)


def test_find_leaks_of_clean_repeated_messages_is_empty() -> None:
    assert find_leaks(["Missing required parameter 'id'."] * 1000) == []


def test_phrases_in_agrees_with_contains_phrase_on_random_texts() -> None:
    import random

    from mcpaql_conformance.verdict.textmatch import normalize_words, phrases_in

    alphabet = ["a", "b", "ab", "ba", "café", "caf", "é", "世", "界", "世界", "x_y", "1", "Ab", "\u0391\u0392"]
    rng = random.Random(20261123)
    for _ in range(400):
        text = normalize_words(" ".join(rng.choice([*alphabet, ".", ",", ""]) for _ in range(rng.randint(0, 12))))
        phrases = ["".join(rng.choice([*alphabet, " "]) for _ in range(rng.randint(1, 4))) for _ in range(6)]
        expected = {p for p in phrases if contains_phrase(text, p)}
        assert phrases_in(text, phrases) == expected, (text, phrases)


def test_mentions_all_agrees_with_mentions() -> None:
    from mcpaql_conformance.verdict.textmatch import mentions_all

    text = "Missing 'widget_id' (see docs/api.md); id is required, a-b too."
    fragments = ["id", "widget_id", "widget", "docs/api.md", "a-b", "required", "", "api", "b"]
    assert mentions_all(text, fragments) == [mentions(text, f) for f in fragments]


def test_a_refusal_names_a_parameter_anywhere_in_it() -> None:
    upstream = {"upstream": {"errors": [{"field": "owner", "message": "owner must be a login"}]}}
    assert refusal_names("Upstream rejected the request", upstream, "owner")
    assert refusal_names("bad", {"unknown_params": ["tag"]}, "tag")
    assert refusal_names("bad", {"tag": "not allowed"}, "tag")  # a key of its own
    assert not refusal_names("bad", {"hint": "see owner_id"}, "owner")  # not whole
    assert not refusal_names("Upstream unavailable", None, "owner")
    deep: object = "owner"
    for _ in range(1000):
        deep = [deep]
    assert not refusal_names("bad", deep, "owner")  # bounded: a refusal built to be slow is not followed far
