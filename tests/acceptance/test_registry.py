"""One page for many servers (issue 30): `registry` builds a static site from saved reports (the
demo over several runs, in a dialect and with a fault; a hostile report; the reference
runner's), checked in headless Chromium; `check-many` checks several servers at once."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.acceptance.conftest import DEMO, reference_report, run_cli, warm
from tests.acceptance.test_ci_reports import NEEDS_CHROMIUM, in_chromium, rendered_dom

# One worker under pytest-xdist (--dist loadgroup): what the module captures once is captured once.
pytestmark = pytest.mark.xdist_group("registry")

HOSTILE_NAME = "<script>alert(1)</script>\u202eevil\u200b"
REFERENCE = reference_report()


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four runs of the demo (conformant, a fault, a dialect, conformant again: a level that
    drops and comes back), a hostile copy of one, the reference runner's, and a file that is no
    report."""
    folder = tmp_path_factory.mktemp("registry-inputs")
    (folder / "reports").mkdir()
    for index, speech in enumerate(([], ["--fault", "lossy-round-trip"], ["--dialect", "string-errors"], []), 1):
        bundle = folder / f"run{index}.json"
        args = ["capture", "--allow-destructive", "--bundle", str(bundle), "--capture-dir", str(folder / f"c{index}")]
        assert run_cli(*args, "--", *warm(*DEMO, *speech)).returncode == 0
        data = json.loads(bundle.read_text())
        data["provenance"]["captured_at"] = f"2026-01-0{index}T10:00:00+00:00"  # one run a day
        bundle.write_text(json.dumps(data))
        result = run_cli("test", str(bundle), "-f", "json", "-o", str(folder / "reports" / f"run{index}.json"))
        assert result.returncode in (0, 1), result.stderr
    hostile = json.loads((folder / "reports" / "run1.json").read_text())
    hostile["implementation"] = HOSTILE_NAME
    hostile["version"] = "\x1b[31mred"
    (folder / "reports" / "hostile.json").write_text(json.dumps(hostile))
    hostile["capturedAt"] = "2026-02-01T10:00:00+00:00"  # a later run whose changed verdict shows the finding
    hostile["categories"][0]["tests"][0]["result"] = "FAIL"
    hostile["categories"][0]["tests"][0]["detail"] = "<img src=x onerror=alert(2)>" + "A" * 100_000
    (folder / "reports" / "hostile-later.json").write_text(json.dumps(hostile))
    (folder / "reports" / "reference.json").write_text(json.dumps(REFERENCE))
    (folder / "reports" / "other.json").write_text(json.dumps({"not": "a report"}))
    return folder / "reports"


@pytest.fixture(scope="module")
def site(reports: Path) -> Path:
    target = reports.parent / "site"
    result = run_cli("registry", str(reports), "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert "skipped" in result.stderr and "other.json" in result.stderr
    return target


def implementations(site: Path) -> dict[str, dict[str, Any]]:
    data = json.loads((site / "registry.json").read_text())
    return {item["name"]: item for item in data["implementations"]}


def test_runs_are_grouped_ordered_and_compared(site: Path) -> None:
    demo = implementations(site)["mcpaql-demo-notes"]
    runs = demo["runs"]
    assert [run["capturedAt"][:10] for run in runs] == ["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]
    assert [run["conformanceLevel"] for run in runs] == [1, 0, 0, 1]
    assert [run["levelDropped"] for run in runs] == [None, None, "1 -> 0", None]
    dropped = runs[2]["changed"]
    assert {(c["test"], c["from"], c["to"]) for c in dropped} >= {("L1.roundtrip.create-read", "PASS", "FAIL")}
    assert runs[3]["changed"] == []  # the first run has none before it
    assert all(run["specVersion"] == "1.0.0-draft" and not run["referenceRunner"] for run in runs)


def test_the_reference_runner_report_is_marked_and_undated_runs_say_so(site: Path) -> None:
    (run,) = implementations(site)["some-adapter"]["runs"]
    assert run["referenceRunner"] is True and run["tool"] == "reference runner"
    assert run["capturedAt"] is None and any("no capture time" in note for note in run["notes"])
    data = json.loads((site / "registry.json").read_text())
    assert any("other.json" in note and "not a conformance report" in note for note in data["notes"])


def test_registry_json_follows_its_published_schema(site: Path) -> None:
    schema = json.loads(run_cli("schema", "registry").stdout)
    jsonschema.validate(json.loads((site / "registry.json").read_text()), schema)


def test_hostile_text_is_escaped_cut_and_shown_with_escapes_in_every_output(site: Path) -> None:
    shown = "<script>alert(1)</script>\\u202eevil\\u200b"
    assert shown in implementations(site)
    for name in ("index.html", "registry.md", "registry.json"):
        text = (site / name).read_text()
        assert "\u202e" not in text and "\u200b" not in text and "\x1b" not in text, name
    index = (site / "index.html").read_text()
    assert "<script>alert(1)" not in index and html.escape("<script>alert(1)</script>") in index
    markdown = (site / "registry.md").read_text()
    assert "<script>" not in markdown
    pages = "".join(page.read_text() for page in (site / "implementations").glob("*.html"))
    assert "&lt;img src=x onerror=alert(2)&gt;" in pages and "<img src=x" not in pages
    assert "A" * 1000 in pages and "A" * 3000 not in pages and "A\u2026" in pages  # cut, with a marker


@NEEDS_CHROMIUM
def test_the_page_renders_every_row_and_sorts_and_filters_in_a_browser(site: Path, tmp_path: Path) -> None:
    dom = rendered_dom(site / "index.html")
    rows = re.findall(r'<tr data-name="([^"]*)"', dom)
    assert len(rows) == 3 and len(re.findall(r"<script", dom)) == 1  # ours only: none from a report ran or appeared
    assert "onerror" not in dom and "shown" in dom
    by_failed = rendered_dom(site / "index.html", "#sort=failed&dir=desc")
    order = re.findall(r'<tr data-name="([^"]*)"', by_failed)
    assert order[-1] == "mcpaql-demo-notes" or order[0] == "some-adapter", order  # most failures first
    filtered = rendered_dom(site / "index.html", "#q=some-adapter")
    visible = re.findall(r'<tr data-name="([^"]*)"(?![^>]*hidden)', filtered)
    assert visible == ["some-adapter"] and "1 of 3 shown" in filtered
    shot = tmp_path / "registry.png"
    in_chromium(site / "index.html", 1280, f"--screenshot={shot}")
    assert shot.read_bytes().startswith(b"\x89PNG")


@NEEDS_CHROMIUM
def test_an_implementation_page_links_each_changed_verdict_to_its_finding(site: Path) -> None:
    demo = implementations(site)["mcpaql-demo-notes"]
    page = site / "implementations" / f"{demo['id']}.html"
    dom = rendered_dom(page)
    links = re.findall(r'href="#(run-2-change-\d+)"', dom)
    assert links and all(f'id="{anchor}"' in dom for anchor in links)
    assert "dropped 1 -&gt; 0" in dom


def test_a_named_file_that_is_no_report_is_refused_and_the_site_stays(site: Path, reports: Path) -> None:
    before = (site / "registry.json").read_text()
    result = run_cli("registry", str(reports / "other.json"), "-o", str(site))
    assert result.returncode == 3 and result.stderr.count("\n") == 1, result.stderr
    assert "not a conformance report" in result.stderr
    assert (site / "registry.json").read_text() == before


def test_output_that_holds_an_input_or_foreign_files_is_refused(reports: Path, tmp_path: Path) -> None:
    assert run_cli("registry", str(reports), "-o", str(reports)).returncode == 3
    foreign = tmp_path / "docs"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    result = run_cli("registry", str(reports), "-o", str(foreign))
    assert result.returncode == 3 and "no part of a registry of ours" in result.stderr
    assert (foreign / "keep.txt").read_text() == "mine"


def test_check_many_checks_each_server_alone_and_builds_the_registry(tmp_path: Path) -> None:
    demo = " ".join(warm(*DEMO))  # a warm start (conftest.warm)
    servers = tmp_path / "servers.toml"
    servers.write_text(
        "[defaults]\nlevel = 1\noverall_timeout = 120\n\n"
        f'[[server]]\nname = "notes"\ncommand = "{demo}"\nallow_destructive = true\n\n'
        f'[[server]]\nname = "leaky"\ncommand = "{demo} --fault leaky-errors"\n\n'
        f'[[server]]\nname = "broken"\ncommand = ["{sys.executable}", "-c", "import sys; sys.exit(4)"]\n'
    )
    out = tmp_path / "fleet"
    result = run_cli("check-many", str(servers), "--jobs", "2", "-o", str(out))
    assert result.returncode == 3, result.stderr  # one server could not be checked
    assert "notes: exit 0" in result.stderr and "leaky: exit 1" in result.stderr
    assert re.search(r"broken: exit 3: no report", result.stderr)
    written = sorted(path.parent.name for path in (out / "reports").rglob("*.json"))
    assert written == ["leaky", "notes"]
    data = json.loads((out / "registry" / "registry.json").read_text())
    assert len(data["implementations"]) == 2 and any("broken: not checked" in note for note in data["notes"])


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("[[server]]\nname = 'a'\n", "give either command or url"),
        ("[[server]]\nname = 'a'\ncommand = 'x'\nlevel = 3\n", "level: expected 1 or 2"),
        ("[[server]]\nname = 'a/b'\ncommand = 'x'\n", "name: expected a name"),
        ("[[server]]\nname = 'a'\ncommand = 'x'\nsecret = 1\n", "unknown key 'secret'"),
        ("[[server]]\nname = 'a'\ncommand = 'x'\n[[server]]\nname = 'a'\ncommand = 'y'\n", "two servers are named"),
        ("name = [", "not TOML"),
        ("[[server]]\nname = 'a'\ncommand = 'python \"unbalanced'\n", "No closing quotation"),
        ("server = ['a']\n", "only tables there"),
        ("[defaults]\ncolour = 1\n[[server]]\nname = 'a'\ncommand = 'x'\n", "[defaults]: unknown key 'colour'"),
    ],
)
def test_a_bad_servers_file_is_one_line_and_exit_3(tmp_path: Path, toml: str, said: str) -> None:
    servers = tmp_path / "servers.toml"
    servers.write_text(toml)
    result = run_cli("check-many", str(servers), "-o", str(tmp_path / "out"))
    assert result.returncode == 3 and said in result.stderr and result.stderr.count("\n") == 1, result.stderr


def test_a_report_too_big_to_be_one_is_refused_in_one_line_or_skipped(tmp_path: Path) -> None:
    from mcpaql_conformance.registry import collect

    huge = tmp_path / "reports" / "huge.json"
    huge.parent.mkdir()
    with huge.open("wb") as sink:
        sink.truncate(collect.MAX_REPORT_BYTES + 1)  # sparse: costs no disk
    named = run_cli("registry", str(huge), "-o", str(tmp_path / "site"))
    assert named.returncode == 3 and named.stderr.count("\n") == 1 and "more than a report may hold" in named.stderr
    (tmp_path / "reports" / "reference.json").write_text(json.dumps(REFERENCE))
    folder = run_cli("registry", str(tmp_path / "reports"), "-o", str(tmp_path / "site"))
    assert folder.returncode == 0 and "huge.json" in folder.stderr
    assert len(implementations(tmp_path / "site")) == 1


# --- from an adversarial review ------------------------------------------------------------


def dated(name: str, when: Any, failing: bool = False, tests: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A reference-shaped report of ``name`` captured at ``when`` (a FAIL when ``failing``)."""
    data = reference_report()
    data["implementation"] = name
    data["capturedAt"] = when
    data["tool"] = "mcpaql-conformance"
    test = data["categories"][0]["tests"][0]
    test.update(id="L1.errors.no-leakage", result="FAIL" if failing else "PASS")
    if tests is not None:
        data["categories"][0]["tests"] = tests
    return data


def built(tmp_path: Path, *reports: dict[str, Any]) -> dict[str, dict[str, Any]]:
    folder = tmp_path / "in"
    folder.mkdir()
    for index, data in enumerate(reports):
        (folder / f"{index}.json").write_text(json.dumps(data))
    result = run_cli("registry", str(folder), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    return implementations(tmp_path / "out")


def test_runs_are_ordered_by_the_instant_their_time_names_not_its_text(tmp_path: Path) -> None:
    runs = built(
        tmp_path,
        dated("a", "2025-01-01T10:00:00+05:00"),  # 05:00 UTC: the older
        dated("a", "2025-01-01T06:00:00Z", failing=True),
    )["a"]["runs"]
    assert [run["capturedAt"] for run in runs] == ["2025-01-01T06:00:00Z", "2025-01-01T10:00:00+05:00"]


@pytest.mark.parametrize("when", ["yesterday", "2024-99-99T99:99:99Z"])
def test_a_capture_time_that_is_no_time_is_said_and_the_run_undated(tmp_path: Path, when: str) -> None:
    (run,) = built(tmp_path, dated("a", when))["a"]["runs"]
    assert run["capturedAt"] is None
    assert any("is no ISO 8601 time" in note for note in run["notes"]), run["notes"]


def test_two_tests_with_one_id_are_each_compared_with_their_like(tmp_path: Path) -> None:
    twice = [{"id": "L1.x", "name": "x", "result": result, "detail": "d"} for result in ("FAIL", "PASS")]
    fixed = [{"id": "L1.x", "name": "x", "result": "PASS", "detail": "d"} for _ in range(2)]
    runs = built(
        tmp_path, dated("a", "2025-01-01T00:00:00Z", tests=twice), dated("a", "2025-01-02T00:00:00Z", tests=fixed)
    )
    assert [(c["test"], c["from"], c["to"]) for c in runs["a"]["runs"][0]["changed"]] == [("L1.x", "FAIL", "PASS")]


def test_a_server_a_report_names_is_published_with_its_secrets_masked(tmp_path: Path) -> None:
    data = dated("a", "2025-01-01T00:00:00Z")
    data["server"] = (
        "env API_TOKEN=supersecret123 node s.js --token ghp_abcdefghij https://u:hunter2@h/mcp?api_key=k1234567"
    )
    (item,) = built(tmp_path, data).values()
    assert item["server"] == "env API_TOKEN=*** node s.js --token *** https://u:***@h/mcp?api_key=***"
    pages = "".join(path.read_text() for path in (tmp_path / "out").rglob("*.*") if path.suffix in (".html", ".md"))
    assert "supersecret" not in pages and "hunter2" not in pages and "ghp_" not in pages


def test_a_rebuild_refuses_a_folder_with_the_users_own_files(reports: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert run_cli("registry", str(reports / "reference.json"), "-o", str(site)).returncode == 0
    (site / "CNAME").write_text("registry.example.org")
    result = run_cli("registry", str(reports / "reference.json"), "-o", str(site))
    assert result.returncode == 3 and "CNAME" in result.stderr and (site / "CNAME").exists()
    (site / "CNAME").unlink()
    assert run_cli("registry", str(reports / "reference.json"), "-o", str(site)).returncode == 0  # ours: rebuilt


def test_a_link_as_the_output_builds_where_it_points_and_dot_is_a_folder(reports: Path, tmp_path: Path) -> None:
    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir()
    link.symlink_to(real)
    assert run_cli("registry", str(reports / "reference.json"), "-o", str(link)).returncode == 0
    assert link.is_symlink() and (real / "index.html").is_file()
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".link.")]  # no debris
    here = tmp_path / "here"
    here.mkdir()
    dot = run_cli("registry", str(reports / "reference.json"), "-o", ".", cwd=here)
    assert dot.returncode == 0, dot.stderr
    assert (here / "index.html").is_file()


def test_an_output_inside_an_input_folder_is_refused_and_inputs_count_once(reports: Path, tmp_path: Path) -> None:
    inside = run_cli("registry", str(reports), "-o", str(reports / "site"))
    assert inside.returncode == 3 and "lies in the input folder" in inside.stderr
    twice = run_cli("registry", str(reports), str(reports / "reference.json"), "-o", str(tmp_path / "site"))
    assert twice.returncode == 0
    assert len(implementations(tmp_path / "site")["some-adapter"]["runs"]) == 1


@NEEDS_CHROMIUM
def test_an_address_that_is_no_uri_encoding_leaves_the_page_working(site: Path) -> None:
    dom = rendered_dom(site / "index.html", "#sort=failed&dir=desc&q=%E0%A4%A")
    assert "3 of 3 shown" in dom
    assert "1 of 3 shown" in rendered_dom(site / "index.html", "#q=%&q=some-adapter")


def test_check_many_refuses_a_fifo_a_file_as_output_and_the_root(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "servers.toml"
    os.mkfifo(fifo)
    result = run_cli("check-many", str(fifo), "-o", str(tmp_path / "out"))
    assert result.returncode == 3 and "FIFO" in result.stderr
    servers = tmp_path / "ok.toml"
    servers.write_text("[[server]]\nname = 'a'\ncommand = 'x'\n")
    (tmp_path / "afile").write_text("")
    assert run_cli("check-many", str(servers), "-o", str(tmp_path / "afile")).returncode == 3
    assert run_cli("check-many", str(servers), "-o", "/").returncode == 3


def test_a_plan_and_a_command_are_relative_to_the_servers_file(tmp_path: Path) -> None:
    folder = tmp_path / "fleet"
    folder.mkdir()
    (folder / "plan.json").write_text(
        (Path(__file__).parents[2] / "evidence" / "plans" / "demo-notes.json").read_text()
    )
    demo = " ".join(warm(*DEMO))  # a warm start (conftest.warm)
    (folder / "servers.toml").write_text(
        f'[[server]]\nname = "notes"\ncommand = "{demo}"\nplan = "plan.json"\nallow_destructive = true\n'
    )
    result = run_cli("check-many", str(folder / "servers.toml"), "-o", str(tmp_path / "out"), cwd=tmp_path,
                     env={"DEMO_NOTES_PASSPHRASE": "change-me"})  # fmt: skip
    assert "notes: exit 0" in result.stderr, result.stderr


def test_check_many_stops_its_checks_when_it_is_stopped(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    marker = tmp_path / "server.pid"
    hang = f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(1000)"
    servers = tmp_path / "servers.toml"
    servers.write_text(f"[[server]]\nname = 'hangs'\ncommand = [{sys.executable!r}, '-c', {hang!r}]\ntimeout = 300\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpaql_conformance", "check-many", str(servers), "-o", str(tmp_path / "out")],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marker.exists(), "the server never started"
    server = int(marker.read_text())
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)
    time.sleep(1)
    try:
        os.kill(server, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive, "the server outlived check-many"
