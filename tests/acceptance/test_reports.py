"""Report formats, escaping of untrusted text, atomic output and the report command."""

from __future__ import annotations

import json
import re

from tests.acceptance.conftest import minimal_conformant_bundle, reference_report

HOSTILE = "x\n# Heading <script>alert(1)</script>\x1b[31mRED\x1b]8;;http://evil\x07 | [link](http://evil) \u202e"


def hostile_bundle() -> dict:
    bundle = minimal_conformant_bundle()
    bundle["implementation"] = HOSTILE
    bundle["error_tests"][0]["name"] = HOSTILE
    bundle["error_tests"][0]["must_mention"] = ["url", "nowhere_to_be_seen"]
    return bundle


def test_markdown_report_has_a_badge_and_cannot_be_injected(cli, write_bundle):
    result = cli("test", str(write_bundle(hostile_bundle())), "-f", "markdown")
    assert result.returncode == 0
    out = result.stdout
    assert out.startswith("# MCP-AQL Conformance Report\n")
    badge = r"^!\[MCP-AQL 1\.0\.0-draft: Level 1 conformant\]\(https://img\.shields\.io/badge/[^)]+-yellow\)$"
    assert re.search(badge, out, re.M)
    headings = [line for line in out.splitlines() if line.startswith("#")]
    assert all(h.startswith(("# MCP-AQL Conformance Report", "## ")) for h in headings)
    assert "# Heading" not in [h.strip() for h in headings]
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "\x1b" not in out and "\u202e" not in out
    assert "\\[link\\]" in out and "\\|" in out
    table_rows = [line for line in out.splitlines() if line.startswith("| Implementation")]
    assert len(table_rows) == 1 and table_rows[0].count(" | ") == 1


def test_text_report_is_plain_when_piped_and_strips_bundle_escapes(cli, write_bundle):
    result = cli("test", str(write_bundle(hostile_bundle())))
    assert "\x1b" not in result.stdout
    assert "x # Heading <script>alert(1)</script>RED | [link](http://evil)" in result.stdout
    assert "WARN Error messages are actionable" in result.stdout


def test_text_report_is_coloured_when_forced_but_bundle_escapes_still_stripped(cli, write_bundle):
    result = cli("test", str(write_bundle(hostile_bundle())), env={"FORCE_COLOR": "1"})
    assert "\x1b[" in result.stdout
    assert "\x1b[31mRED" not in result.stdout and "\x1b]8" not in result.stdout


def test_no_color_wins_over_force_color(cli, write_bundle):
    result = cli("test", str(write_bundle(minimal_conformant_bundle())), env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b" not in result.stdout


def test_json_report_keeps_bundle_text_exactly_and_is_valid_json(cli, write_bundle):
    result = cli("test", str(write_bundle(hostile_bundle())), "-f", "json")
    report = json.loads(result.stdout)
    assert report["implementation"] == HOSTILE
    assert "\x1b" not in result.stdout  # JSON escapes it as \u001b
    assert report["exitCode"] == result.returncode == 0
    assert set(report) >= {
        "implementation",
        "version",
        "specVersion",
        "requestedLevel",
        "conformanceLevel",
        "summary",
        "categories",
        "exitCode",
    }


def test_output_file_is_written_and_stdout_stays_empty(cli, write_bundle, tmp_path):
    target = tmp_path / "results.json"
    target.write_text("old content")
    result = cli("test", str(write_bundle(minimal_conformant_bundle())), "-f", "json", "-o", str(target))
    assert result.returncode == 0
    assert result.stdout == ""
    assert f"wrote json report to {target}" in result.stderr
    assert json.loads(target.read_text())["exitCode"] == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_report_command_re_renders_a_saved_report(cli, write_bundle, tmp_path):
    saved = tmp_path / "results.json"
    cli("test", str(write_bundle(hostile_bundle())), "-f", "json", "-o", str(saved))
    markdown = cli("report", str(saved), "--format", "markdown")
    assert markdown.returncode == 0
    assert markdown.stdout == cli("test", str(tmp_path / "bundle.json"), "-f", "markdown").stdout
    text = cli("report", str(saved))
    assert text.returncode == 0 and "Level 1 conformant, 1 warning(s) (badge: yellow, exit 0)" in text.stdout
    again = cli("report", str(saved), "-f", "json")
    assert json.loads(again.stdout) == json.loads(saved.read_text())


def test_report_command_accepts_the_reference_runner_report_shape(cli, write_bundle):
    reference_shaped = reference_report()
    result = cli("report", str(write_bundle(reference_shaped)), "-f", "markdown")
    assert result.returncode == 1  # the report's own exit code: a MUST category failed
    assert "## Error Quality: FAIL (MUST)" in result.stdout
    assert "| FAIL | Leak check | Leak in: error-1 |" in result.stdout
    assert "not%20conformant-red" in result.stdout


LINKY = "https://evil.example/login www.phish.example user@evil.example [click](http://evil.example) <b>bold</b>"


def test_markdown_report_rendered_by_github_s_renderer_has_no_injected_markup(cli, write_bundle):
    """Render with cmark-gfm (what GitHub uses): bundle text must stay text."""
    from cmarkgfm import github_flavored_markdown_to_html
    from cmarkgfm.cmark import Options

    bundle = hostile_bundle()
    bundle["implementation"] = HOSTILE + " " + LINKY
    bundle["error_tests"][0]["name"] = LINKY
    markdown = cli("test", str(write_bundle(bundle)), "-f", "markdown").stdout
    html = github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    assert "<a " not in html  # no link, autolink or email link
    assert html.count("<img ") == 1  # only our badge
    assert "<script" not in html and "<b>" not in html
    headings = re.findall(r"<h(\d)>(.*?)</h\d>", html)
    assert headings[0] == ("1", "MCP-AQL Conformance Report")
    assert {level for level, _ in headings[1:]} == {"2"} and len(headings) == 6  # 4 categories, requirements
    first_row = re.search(r"<tr>\s*<td>Implementation</td>\s*<td>(.*?)</td>\s*</tr>", html, re.S)
    assert first_row is not None  # the hostile value stayed in one cell
    assert "evil.example/login" in first_row.group(1)
