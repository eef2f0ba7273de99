"""CI-grade outputs: JUnit XML, HTML (checked in headless Chromium), badges, the GitHub step
summary, the expected-failures baseline, clean machine output and the example reports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import IN_THE_CHECKOUT, ROOT, minimal_conformant_bundle
from tests.acceptance.test_reports import hostile_bundle

FIXTURES = ROOT / "fixtures"


def failing_bundle() -> dict:
    bundle = minimal_conformant_bundle()
    bundle["error_tests"][0]["response"]["error"]["message"] = "TypeError: url is undefined"
    return bundle


# --- JUnit ---------------------------------------------------------------------------


def test_junit_has_a_suite_per_category_a_case_per_test_and_counts_matching_json(cli, write_bundle):
    path = str(write_bundle(failing_bundle()))
    xml = cli("test", path, "-f", "junit")
    summary = json.loads(cli("test", path, "-f", "json").stdout)["summary"]
    assert xml.returncode == 1
    root = ET.fromstring(xml.stdout)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [
        "Introspection Fidelity",
        "Parameter Handling",
        "Error Quality",
        "Round-Trip Integrity",
    ]
    cases = root.findall(".//testcase")
    assert len(cases) == int(root.get("tests")) == summary["total"]
    assert len(root.findall(".//failure")) == int(root.get("failures")) == summary["failed"] == 1
    assert int(root.get("skipped")) == summary["skipped"]
    failure_case = next(c for c in cases if c.find("failure") is not None)
    assert failure_case.get("classname") == "L1.errors.no-leakage"
    assert "exception class name 'TypeError'" in failure_case.find("failure").get("message")


def test_junit_marks_skips_and_shows_warnings_as_system_out(cli):
    root = ET.fromstring(cli("test", str(FIXTURES / "l1-warn-partial-evidence-tasks.json"), "-f", "junit").stdout)
    outs = [c.find("system-out").text for c in root.iter("testcase") if c.find("system-out") is not None]
    assert outs and all(text.startswith("WARN: ") for text in outs)
    skipping = ET.fromstring(cli("test", str(FIXTURES / "diff-01-skip-read-only-weather.json"), "-f", "junit").stdout)
    assert skipping.findall(".//skipped")


def test_junit_escapes_hostile_bundle_text(cli, write_bundle):
    result = cli("test", str(write_bundle(hostile_bundle())), "-f", "junit")
    root = ET.fromstring(result.stdout)  # well-formed despite <, &, quotes and control characters
    names = [c.get("name") for c in root.iter("testcase")]
    assert "Error messages are actionable" in names
    warn = next(c for c in root.iter("testcase") if c.get("name") == "Error messages are actionable")
    assert "x # Heading <script>alert(1)</script>RED" in warn.find("system-out").text
    assert "\x1b" not in result.stdout


# --- HTML ------------------------------------------------------------------------------


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


NEEDS_CHROMIUM = pytest.mark.skipif(
    chromium() is None, reason="headless Chromium is not installed (.ci/run installs Debian's chromium)"
)


def html_report(cli: Any, bundle: Path, page: Path) -> Path:
    """``test BUNDLE -f html -o PAGE`` of a conformant bundle: the page."""
    result = cli("test", str(bundle), "-f", "html", "-o", str(page))
    assert result.returncode == 0, result.stderr
    return page


def rendered_dom(html: Path, fragment: str = "") -> str:
    browser = chromium()
    assert browser is not None
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--dump-dom",
                html.as_uri() + fragment,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@NEEDS_CHROMIUM
def test_html_report_renders_hostile_text_as_text_and_filters_by_result(cli, write_bundle, tmp_path):
    page = tmp_path / "report.html"
    bundle = hostile_bundle()
    bundle["error_tests"][0]["response"]["error"]["message"] = "TypeError: boom"
    assert cli("test", str(write_bundle(bundle)), "-f", "html", "-o", str(page)).returncode == 1
    source = page.read_text()
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)", source)  # no external resources
    assert "<link" not in source and "@import" not in source
    dom = rendered_dom(page, "#FAIL")
    from html.parser import HTMLParser

    class Collect(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.scripts = 0
            self.rows: list[tuple[str, bool]] = []
            self.requirements: list[str] = []  # the results of the requirement rows
            self.documents = 0
            self.in_impl = False
            self.impl = ""

        def handle_starttag(self, tag, attrs):
            attributes = dict(attrs)
            self.scripts += tag == "script"
            if tag == "tr" and attributes.get("class") == "test":
                self.rows.append((attributes["data-result"], "hidden" in attributes))
            if tag == "tr" and attributes.get("class") == "requirement":
                self.requirements.append(attributes["data-result"] or "")
            self.documents += tag == "details" and attributes.get("class") == "requirements"
            self.in_impl = attributes.get("id") == "implementation"

        def handle_data(self, data):
            if self.in_impl:
                self.impl += data

        def handle_endtag(self, tag):
            if tag == "td":
                self.in_impl = False

    collected = Collect()
    collected.feed(dom)
    assert collected.scripts == 1  # ours only: the bundle's <script> is text
    assert "<script>alert(1)</script>" in collected.impl
    assert ("FAIL", False) in collected.rows
    assert all(hidden for result, hidden in collected.rows if result != "FAIL")
    assert collected.documents == 15  # a table per document of the spec
    assert "FAIL" in collected.requirements and "PASS" in collected.requirements
    assert "introspection:8.1.3:no-language-errors" in dom[dom.index('id="requirements"') :]


# --- Badges ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "level", "color", "message"),
    [
        ("l1-conformant-notes.json", "1", "brightgreen", "Level 1 conformant"),
        ("l1-warn-partial-evidence-tasks.json", "1", "yellow", "Level 1 conformant"),
        ("diff-02-leak-stack-frame-notes.json", "1", "red", "not conformant"),
    ],
)
def test_badges_in_three_formats_with_the_verdict_colour(cli, tmp_path, fixture, level, color, message):
    saved = tmp_path / "r.json"
    cli("test", str(FIXTURES / fixture), "-l", level, "-f", "json", "-o", str(saved))
    endpoint = json.loads(cli("badge", str(saved), "-f", "json").stdout)
    label = "MCP-AQL 1.0.0-draft"  # the spec version judged against (conformance-testing §2.3)
    assert endpoint == {"schemaVersion": 1, "label": label, "message": message, "color": color}
    svg = ET.fromstring(cli("badge", str(saved)).stdout)
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")] == [label, message]
    markdown = cli("badge", str(saved), "-f", "markdown").stdout.strip()
    assert markdown.startswith(f"![{label}: {message}](https://img.shields.io/badge/") and markdown.endswith(
        f"-{color})"
    )


def test_badge_of_something_that_is_not_a_report_is_a_configuration_error(cli, write_bundle):
    result = cli("badge", str(write_bundle({"implementation": "x"})))
    assert result.returncode == 3 and "not a conformance report" in result.stderr


# --- GitHub step summary ---------------------------------------------------------------------


def test_step_summary_gets_the_markdown_report_appended(cli, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    result = cli("test", str(FIXTURES / "l1-conformant-notes.json"), "-f", "json", env=env)
    json.loads(result.stdout)  # stdout stays pure JSON
    cli("test", str(FIXTURES / "l1-conformant-notes.json"), env=env)
    text = summary.read_text()
    assert text.startswith("earlier step\n# MCP-AQL Conformance Report")
    assert text.count("# MCP-AQL Conformance Report") == 2


# --- Baseline ---------------------------------------------------------------------------------


def write_baseline(tmp_path: Path, entries: list[dict]) -> Path:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"entries": entries}))
    return path


def test_a_baselined_failure_no_longer_fails_the_run_but_is_shown(cli, write_bundle, tmp_path):
    baseline = write_baseline(tmp_path, [{"id": "L1.errors.no-leakage", "reason": "fix tracked in #12"}])
    result = cli("test", str(write_bundle(failing_bundle())), "--baseline", str(baseline), "-f", "json")
    report = json.loads(result.stdout)
    assert result.returncode == 0
    assert report["conformanceLevel"] == 0  # the baseline excuses the run, not the implementation
    assert report["summary"]["baselined"] == 1 and report["summary"]["failed"] == 0
    test = next(t for c in report["categories"] for t in c["tests"] if t["id"] == "L1.errors.no-leakage")
    assert test["result"] == "FAIL" and test["baselined"] == "fix tracked in #12"
    text = cli("test", str(write_bundle(failing_bundle())), "--baseline", str(baseline)).stdout
    assert "(baselined: fix tracked in #12)" in text
    assert text.rstrip().endswith(
        "Not conformant at Level 1: every MUST test that failed is an expected failure, 1 expected failure(s)"
        " baselined (badge: red, exit 0)"
    )


def test_write_baseline_lists_todays_failures_and_the_next_run_reads_it(cli, write_bundle, tmp_path):
    bundle = write_bundle(failing_bundle())
    written = tmp_path / "known.json"
    result = cli("test", str(bundle), "--write-baseline", str(written))
    assert result.returncode == 1  # the run itself is judged as it is
    assert result.stderr.strip() == f"wrote a baseline of 1 failing test(s) to {written}"
    baseline = json.loads(written.read_text())
    (entry,) = baseline["entries"]
    assert entry["id"] == "L1.errors.no-leakage" and entry["reason"].startswith("failing in this run: ")
    again = cli("test", str(bundle), "--baseline", str(written), "-f", "json")
    assert again.returncode == 0 and json.loads(again.stdout)["summary"]["baselined"] == 1
    suite = cli("test", str(bundle), str(bundle), "--write-baseline", str(tmp_path / "b.json"))
    assert suite.returncode == 3
    assert suite.stderr.strip().endswith("--write-baseline apply to one bundle, not to several bundles")


def test_a_new_failure_still_fails_with_a_baseline(cli, write_bundle, tmp_path):
    bundle = failing_bundle()
    bundle["parameter_tests"]["missing_required"][0]["response"] = {"success": True, "data": {}}
    baseline = write_baseline(tmp_path, [{"category": "error quality", "reason": "known leak"}])
    assert cli("test", str(write_bundle(bundle)), "--baseline", str(baseline)).returncode == 1


def test_a_stale_baseline_entry_fails_the_run(cli, tmp_path):
    baseline = write_baseline(tmp_path, [{"id": "L1.params.unknown-explicit", "reason": "old bug"}])
    result = cli("test", str(FIXTURES / "l1-conformant-notes.json"), "--baseline", str(baseline))
    assert result.returncode == 1
    assert "test L1.params.unknown-explicit: no longer fails (old bug)" in result.stdout
    assert result.stdout.rstrip().endswith(
        "Level 1 conformant; 1 stale baseline entry fails the run (badge: green, exit 1)"
    )


WARNING = FIXTURES / "l1-warn-partial-evidence-tasks.json"  # six tests warn, none fails: exit 0


@pytest.mark.parametrize("entry", [{"id": "L1.params.defaults"}, {"category": "Parameter Handling"}])
def test_a_baseline_entry_for_a_test_that_only_warns_is_not_needed_and_changes_nothing(cli, tmp_path, entry):
    without = cli("test", str(WARNING), "-f", "json")
    baseline = write_baseline(tmp_path, [{**entry, "reason": "known gap"}])
    result = cli("test", str(WARNING), "--baseline", str(baseline), "-f", "json")
    assert result.returncode == without.returncode == 0
    report = json.loads(result.stdout)
    target = f"test {entry['id']}" if "id" in entry else f"category {entry['category']}"
    assert report["baseline"]["stale"] == []
    assert report["baseline"]["unneeded"] == [
        f"{target}: not needed: the test warns, and warnings never fail the run (known gap)"
    ]
    assert report["summary"] == json.loads(without.stdout)["summary"]
    text = cli("test", str(WARNING), "--baseline", str(baseline)).stdout
    assert "Baseline entries not needed (1), which change nothing:" in text
    assert text.rstrip().endswith(
        "Level 1 conformant, 6 warning(s), 1 baseline entry not needed (badge: yellow, exit 0)"
    )
    markdown = cli("test", str(WARNING), "--baseline", str(baseline), "-f", "markdown").stdout
    assert "## Baseline entries not needed" in markdown and "not needed: the test warns" in markdown


def test_with_baselined_failures_the_verdict_line_counts_what_the_summary_counts(cli, write_bundle, tmp_path):
    bundle = failing_bundle()  # no-leakage fails
    bundle["parameter_tests"]["missing_required"][0]["response"] = {"success": True, "data": {}}  # and required
    baseline = write_baseline(tmp_path, [{"id": "L1.errors.no-leakage", "reason": "fix tracked in #12"}])
    path = str(write_bundle(bundle))
    report = json.loads(cli("test", path, "--baseline", str(baseline), "-f", "json").stdout)
    assert (report["summary"]["failed"], report["summary"]["baselined"]) == (1, 1)
    text = cli("test", path, "--baseline", str(baseline)).stdout
    assert text.rstrip().endswith(
        "Not conformant at Level 1: 1 MUST test(s) failed, 1 expected failure(s) baselined (badge: red, exit 1)"
    )
    (summary,) = [line for line in text.splitlines() if line.startswith("Summary: ")]
    assert ", 1 failed, " in summary and "1 baselined" in summary, summary


def test_a_baselined_should_failure_is_no_warning_beside_a_green_badge(cli, tmp_path):
    fixture = FIXTURES / "cat-semantic-tier2-fail-contacts.json"
    report = json.loads(cli("test", str(fixture), "-l", "2", "-f", "json").stdout)
    failing = [t["id"] for c in report["categories"] for t in c["tests"] if t["result"] == "FAIL"]
    baseline = write_baseline(tmp_path, [{"id": test, "reason": "prompt being reworded"} for test in failing])
    saved = tmp_path / "r.json"
    result = cli("test", str(fixture), "-l", "2", "--baseline", str(baseline), "-f", "json", "-o", str(saved))
    assert result.returncode == 0
    badge = json.loads(cli("badge", str(saved), "-f", "json").stdout)
    line = cli("test", str(fixture), "-l", "2", "--baseline", str(baseline)).stdout.rstrip().splitlines()[-1]
    assert "warning" not in line, line  # the badge is green: no warning beside it
    assert badge["color"] == "brightgreen" and "badge: green" in line


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([{"id": "L1.nope", "reason": "r"}], "entry 0: unknown test id 'L1.nope'"),
        ([{"category": "Nope", "reason": "r"}], "entry 0: unknown category 'Nope'"),
        ([{"id": "L1.errors.no-leakage"}], "$.entries[0].reason: every entry needs a reason"),
        (
            [{"id": "L1.errors.no-leakage", "category": "Error Quality", "reason": "r"}],
            "exactly one of 'id' or 'category'",
        ),
    ],
)
def test_bad_baselines_are_configuration_errors(cli, tmp_path, entries, message):
    result = cli(
        "test", str(FIXTURES / "l1-conformant-notes.json"), "--baseline", str(write_baseline(tmp_path, entries))
    )
    assert result.returncode == 3
    assert message in result.stderr


# --- Machine output and examples ---------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "junit"])
def test_machine_formats_keep_stdout_clean(cli, tmp_path, fmt):
    baseline = write_baseline(tmp_path, [{"id": "L1.errors.no-leakage", "reason": "r"}])
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "s.md"), "FORCE_COLOR": "1"}
    result = cli(
        "test", str(FIXTURES / "diff-02-leak-stack-frame-notes.json"), "-f", fmt, "--baseline", str(baseline), env=env
    )
    if fmt == "json":
        json.loads(result.stdout)
    else:
        ET.fromstring(result.stdout)
    assert "\x1b" not in result.stdout


@IN_THE_CHECKOUT  # CONTRIBUTING's `python reports/generate.py` rewrites them
def test_example_reports_match_what_the_documented_command_produces(tmp_path):
    run = subprocess.run(
        [sys.executable, str(ROOT / "reports" / "generate.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    produced = {p.name: p.read_text() for p in tmp_path.iterdir()}
    committed = {name: (ROOT / "reports" / name).read_text() for name in produced}
    assert produced == committed, "reports/ drifted: run python reports/generate.py"
    assert {Path(n).suffix for n in produced} >= {".md", ".html", ".xml", ".svg"}
    assert "python reports/generate.py" in (ROOT / "CONTRIBUTING.md").read_text()


# --- regressions from review -------------------------------------------------------------------


def test_junit_stays_well_formed_with_characters_xml_cannot_carry(cli, write_bundle):
    bundle = hostile_bundle()
    bundle["error_tests"][0]["name"] = "bad \uffff name \ufffe"
    ET.fromstring(cli("test", str(write_bundle(bundle)), "-f", "junit").stdout)


def test_a_baselined_should_failure_does_not_make_the_run_warn(cli, tmp_path):
    fixture = FIXTURES / "cat-semantic-tier2-fail-contacts.json"
    report = json.loads(cli("test", str(fixture), "-l", "2", "-f", "json").stdout)
    failing = next(t["id"] for c in report["categories"] for t in c["tests"] if t["result"] == "FAIL")
    baseline = write_baseline(tmp_path, [{"id": failing, "reason": "prompt being reworded"}])
    result = cli("test", str(fixture), "-l", "2", "--baseline", str(baseline), "-f", "json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["summary"]["baselined"] == 1


def test_a_misspelled_semantic_id_in_a_baseline_is_a_configuration_error(cli, tmp_path):
    baseline = write_baseline(tmp_path, [{"id": "L2.semantic.no-such-test", "reason": "r"}])
    result = cli("test", str(FIXTURES / "l2-conformant-bookmarks.json"), "-l", "2", "--baseline", str(baseline))
    assert result.returncode == 3
    assert "unknown test id 'L2.semantic.no-such-test'" in result.stderr


def test_a_stale_baseline_does_not_turn_the_badge_red(cli, tmp_path):
    baseline = write_baseline(tmp_path, [{"id": "L1.params.unknown-explicit", "reason": "old bug"}])
    saved = tmp_path / "r.json"
    cli("test", str(FIXTURES / "l1-conformant-notes.json"), "--baseline", str(baseline), "-f", "json", "-o", str(saved))
    assert json.loads(cli("badge", str(saved), "-f", "json").stdout)["color"] == "brightgreen"


def test_a_summary_that_cannot_be_written_warns_without_changing_the_verdict(cli, tmp_path):
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "missing" / "summary.md")}
    result = cli("test", str(FIXTURES / "l1-conformant-notes.json"), env=env)
    assert result.returncode == 0
    assert result.stderr.startswith("warning: GITHUB_STEP_SUMMARY=")


MEASURE = """<script>
(function () {
  var root = document.documentElement, banner = document.getElementById("verdict");
  var lines = function (element) { return element.getClientRects().length; };
  var metrics = {
    viewport: root.clientWidth,
    scrollWidth: root.scrollWidth,
    banner: getComputedStyle(banner).backgroundColor,
    bannerText: banner.textContent.replace(/\\s+/g, " ").trim(),
    columns: Array.prototype.map.call(document.querySelectorAll("table.tests"), function (table) {
      return Array.prototype.map.call(table.querySelectorAll("thead th"), function (cell) {
        return Math.round(cell.getBoundingClientRect().width);
      });
    }),
    unbroken: document.querySelectorAll(".nw, .tid").length,
    broken: Array.prototype.filter.call(document.querySelectorAll(".nw"), function (e) { return lines(e) > 1; })
      .map(function (e) { return e.textContent; }),
    footer: document.getElementById("footer").textContent.replace(/\\s+/g, " ").trim()
  };
  parent.document.getElementById("metrics").textContent = JSON.stringify(metrics);
})();
</script>"""

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
]  # fmt: skip


def in_chromium(page: Path, width: int, *actions: str) -> subprocess.CompletedProcess[str]:
    """``page`` opened once at ``width``: ``--dump-dom`` (on stdout), ``--screenshot=PATH``, or both."""
    browser = chromium()
    assert browser is not None
    with tempfile.TemporaryDirectory() as profile:
        command = [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},2000", *actions]
        result = subprocess.run([*command, page.as_uri()], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def screenshot_width(page: Path, width: int, shot: Path) -> int:
    """The width of a PNG screenshot of ``page`` taken at ``width`` (kept at ``shot`` to be looked at)."""
    in_chromium(page, width, f"--screenshot={shot}")
    return png_width(shot)


def png_width(shot: Path) -> int:
    png = shot.read_bytes()
    assert png.startswith(b"\x89PNG")
    return int.from_bytes(png[16:20], "big")


def layout(page: Path, width: int) -> dict[str, Any]:
    """The report's layout at ``width`` CSS pixels, measured inside Chromium. Headless windows
    are at least 500 px wide, so the report is laid out in a frame of exactly ``width``."""
    import html as html_module

    report = page.read_text().replace("</body>", MEASURE + "</body>")
    frame = f'<iframe style="width:{width}px;height:2000px;border:0" srcdoc="{html_module.escape(report)}"></iframe>'
    wrapper = page.with_name(f"measured-{width}.html")
    wrapper.write_text(f'<!DOCTYPE html><html><body style="margin:0"><pre id="metrics"></pre>{frame}</body></html>')
    dom = in_chromium(wrapper, width + 100, "--dump-dom").stdout
    found = re.search(r'<pre id="metrics">(.*?)</pre>', dom, re.S)
    assert found is not None and found.group(1), dom[-2000:]
    return dict(json.loads(html_module.unescape(found.group(1))))


def captured_bundle_withholding_a_delete() -> dict[str, Any]:
    bundle = json.loads((FIXTURES / "l1-conformant-notes.json").read_text())
    bundle["provenance"] = {
        "captured": True, "tool": "mcpaql-conformance", "tool_version": "0.1.0",
        "server": {"name": "notes", "version": "2"}, "captured_at": "2026-11-23T08:00:00+00:00",
        "transport": "stdio", "allow_destructive": False,
    }  # fmt: skip
    reason = "destructive (DELETE): pass --allow-destructive against a disposable instance to probe it"
    bundle["capture_notes"] = [
        {"operation": "delete_note", "probe": "missing_required", "reason": reason, "cause": "destructive", "count": 1}
    ]
    return bundle


@NEEDS_CHROMIUM
@pytest.mark.parametrize("width", [390, 1280])
def test_html_report_layout_at_phone_and_desktop_widths(cli, write_bundle, tmp_path, width):
    page = html_report(cli, write_bundle(captured_bundle_withholding_a_delete()), tmp_path / "report.html")
    metrics = layout(page, width)
    assert metrics["viewport"] == width and metrics["scrollWidth"] <= width  # nothing runs off the page
    assert metrics["banner"] == "rgb(68, 204, 17)"  # the badge's green (#4c1)
    assert metrics["bannerText"] == "Level 1 conformant (badge: green, exit 0)"
    assert metrics["unbroken"] >= 14 and metrics["broken"] == []  # ids and --allow-destructive never wrap
    if width == 1280:  # columns line up from table to table (on a phone each test is a card)
        assert len(metrics["columns"]) == 4 and all(widths == metrics["columns"][0] for widths in metrics["columns"])
    assert metrics["footer"] == (
        "Made by mcpaql-conformance 0.1.0 · MCP-AQL spec 1.0.0-draft · tier both · evidence: captured at 2026-11-23T08"
        ":00:00+00:00 by mcpaql-conformance 0.1.0 from notes 2 over stdio; destructive operations withheld (1)"
    )
    assert screenshot_width(page, width, tmp_path / f"report-{width}.png") == width


@NEEDS_CHROMIUM
def test_html_banner_takes_the_badges_colour(cli, tmp_path):
    page = tmp_path / "report.html"
    failing = FIXTURES / "diff-02-leak-stack-frame-notes.json"
    assert cli("test", str(failing), "-f", "html", "-o", str(page)).returncode == 1
    assert layout(page, 1280)["banner"] == "rgb(224, 93, 68)"  # red (#e05d44)
    warned = FIXTURES / "l1-conformant-notes.json"
    assert cli("test", str(warned), "--level", "2", "-f", "html", "-o", str(page)).returncode == 2
    assert layout(page, 1280)["banner"] == "rgb(224, 93, 68)"  # Level 2 not met: red, as on the badge


def test_a_baseline_may_be_yaml_and_is_checked_as_strictly(cli, write_bundle, tmp_path):
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("# known failures\nentries:\n  - id: L1.errors.no-leakage\n    reason: fix tracked in #12\n")
    result = cli("test", str(write_bundle(failing_bundle())), "--baseline", str(baseline), "-f", "json")
    assert result.returncode == 0 and json.loads(result.stdout)["summary"]["baselined"] == 1
    baseline.write_text("entries:\n  - id: L1.errors.no-leakage\n    reasn: typo\n")
    result = cli("test", str(write_bundle(failing_bundle())), "--baseline", str(baseline))
    assert result.returncode == 3
    assert "baseline.yaml: $.entries[0]: unknown key 'reasn' (did you mean 'reason'?)" in result.stderr


def captured_bundle_of_a_run_with_writes() -> dict[str, Any]:
    bundle = captured_bundle_withholding_a_delete()
    bundle["provenance"] |= {"permission": "writes", "allow_writes": True, "withheld_operations": 1}
    bundle["changes"] = [
        {
            "operation": "create_note", "tool": "mcp_aql_create", "at": "2026-11-23T08:00:01.000+00:00",
            "needed": "writes", "source": "capture", "identifiers": {"note_id": "n-" + "7" * 60},
            "request": {"title": "mcpaql-conformance-title"}, "answer": "succeeded",
        }
    ]  # fmt: skip
    return bundle


@NEEDS_CHROMIUM
@pytest.mark.parametrize("width", [390, 1280])
def test_html_report_of_a_run_that_could_change_data_lists_what_it_changed(cli, write_bundle, tmp_path, width):
    page = html_report(cli, write_bundle(captured_bundle_of_a_run_with_writes()), tmp_path / "report.html")
    metrics = layout(page, width)
    assert metrics["viewport"] == width and metrics["scrollWidth"] <= width  # a long identifier wraps
    assert metrics["footer"].endswith(
        "over stdio; run with --allow-writes: 1 operation(s) not called (see Not probed during capture); 1 call(s)"
        " may have created or changed data (see Changed during the run)"
    )
    shot = tmp_path / f"changes-{width}.png"
    dom = in_chromium(page, width, "--dump-dom", f"--screenshot={shot}").stdout
    changed = re.search(r'<ul id="changes"><li>(.*?)</li></ul>', dom, re.S)
    assert changed is not None
    assert '<span class="nw">--allow-writes</span>' in changed.group(1)  # an option name never wraps
    assert re.sub(r"<[^>]+>", "", changed.group(1)) == (
        f"create_note at 2026-11-23T08:00:01.000+00:00: note_id=n-{'7' * 60} (capture, needed --allow-writes;"
        " answered: succeeded)"
    )
    assert png_width(shot) == width


@NEEDS_CHROMIUM
def test_html_report_names_the_spec_version_judged_against_and_why_a_must_only_warns(cli, tmp_path):
    bundle = json.loads((FIXTURES / "l1-conformant-notes.json").read_text())
    bundle["spec_version"] = "0.9.0"  # the bundle says it was recorded against another version
    del bundle["introspection"]["operations_list"]["data"]["_protocol"]  # an informative MUST: it warns
    source = tmp_path / "b.json"
    source.write_text(json.dumps(bundle))
    page = tmp_path / "report.html"
    assert cli("test", str(source), "-f", "html", "-o", str(page)).returncode == 0
    shot = tmp_path / "spec-version.png"
    dom = in_chromium(page, 1280, "--dump-dom", f"--screenshot={shot}").stdout
    row = re.search(r"<tr><th>Spec version</th><td>(.*?)</td></tr>", dom)
    assert row is not None and row.group(1) == "1.0.0-draft (the evidence says it was recorded against 0.9.0)"
    assert "[introspection §8.1 MUST, informative]" in dom
    assert "MCP-AQL 1.0.0-draft" in dom  # the badge's label
    assert png_width(shot) == 1280
