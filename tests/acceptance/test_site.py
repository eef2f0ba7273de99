"""The docs site (issue 37): `mkdocs build --strict` builds it (a broken link or an unknown page
fails); its command reference, generated from the click command tree at build time, has an entry
for every command and every option of each, so that none can go undocumented; and in headless
Chromium every page loads without a console error, the navigation goes where it says, the
search box finds an option, and the registry screenshot and an example HTML report are shown."""

from __future__ import annotations

import contextlib
import http.server
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from mcpaql_conformance.cli.group import cli
from tests.acceptance.cdp import Browser
from tests.acceptance.conftest import ROOT
from tests.acceptance.test_ci_reports import NEEDS_CHROMIUM, chromium


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    return out


def test_the_site_builds_strictly_with_its_pages(site: Path) -> None:
    assert (site / "index.html").is_file() and (site / "reference" / "commands" / "index.html").is_file()
    assert (site / "search" / "search_index.json").is_file()  # the search box has an index
    assert not list(site.rglob("*.py")) and not list(site.rglob("__pycache__"))  # the build's hook is no file of it


def test_every_command_and_option_has_a_reference_entry(site: Path) -> None:
    page = (site / "reference" / "commands" / "index.html").read_text(encoding="utf-8")
    context = click.Context(cli, info_name="mcpaql-conformance")
    missing: list[str] = []
    for name in cli.list_commands(context):
        command = cli.get_command(context, name)
        assert command is not None
        if f"<code>mcpaql-conformance {name}</code>" not in page:
            missing.append(name)
        for option in (param for param in command.params if isinstance(param, click.Option)):
            if not any(f"<code>{opt}</code>" in page for opt in option.opts):
                missing.append(f"{name} {option.opts[0]}")
    assert missing == []
    assert "Sentinel" not in page  # click's "no default" is said as nothing


def test_every_link_and_image_of_the_site_lands_on_a_file_of_it(site: Path) -> None:
    """MkDocs checks links to pages; a link to a file of the repository (a schema, a fixture) or an
    image path written for the README would be broken on the site: none is."""
    broken: list[str] = []
    for page in site.rglob("*.html"):
        for target in re.findall(r'(?:href|src)="([^"#?]+)', page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:|^//", target):
                continue  # another site (the spec, the theme's home) or a scheme of its own
            resolved = (site / target.lstrip("/") if target.startswith("/") else page.parent / target).resolve()
            if not (resolved.is_file() or (resolved / "index.html").is_file()):
                broken.append(f"{page.relative_to(site)}: {target}")
    assert broken == []


def test_the_reference_pages_are_made_from_the_code(site: Path) -> None:
    from mcpaql_conformance.cli.judge import SCHEMA_KINDS
    from mcpaql_conformance.files.schemas import schema_document
    from mcpaql_conformance.secrecy import MODEL_KEY_VARIABLES

    schemas = (site / "reference" / "schemas" / "index.html").read_text(encoding="utf-8")
    assert all(f"<code>{schema_document(kind)['$id']}</code>" in schemas for kind in SCHEMA_KINDS)
    codes = (site / "reference" / "exit-codes" / "index.html").read_text(encoding="utf-8")
    assert all(f"<td>{code}</td>" in codes for code in (0, 1, 2, 3, 70))
    from mcpaql_conformance.report.rules import contradictions, coverage
    from mcpaql_conformance.verdict.rules import RULES

    requirements = (site / "requirements" / "index.html").read_text(encoding="utf-8")
    total = coverage(RULES)[-1].counts
    assert f"<td>{total['MUST'][0]}/{total['MUST'][1]}</td>" in requirements  # the coverage table, as `rules`
    assert all(f"<code>{rule.id}</code>" in requirements for rule in contradictions(RULES))  # every reading
    environment = (site / "reference" / "environment" / "index.html").read_text(encoding="utf-8")
    assert all(f"<code>{name}</code>" in environment for name in (*MODEL_KEY_VARIABLES, "MCPAQL_CONFORMANCE_DEBUG"))


@NEEDS_CHROMIUM
def test_the_site_in_a_real_browser_loads_navigates_and_searches(site: Path, tmp_path: Path) -> None:
    chromium_path = chromium()
    assert chromium_path is not None
    with served(site) as url, Browser(chromium_path) as browser:
        pages = sorted(path.relative_to(site).parent.as_posix() for path in site.rglob("index.html"))
        for page in pages:  # every page loads without a console error or an uncaught exception
            browser.open(f"{url}/{'' if page == '.' else page + '/'}")
            assert browser.evaluate("document.querySelector('.md-content h1') !== null"), page
        assert browser.errors == []
        browser.open(f"{url}/")
        (tmp_path / "home.png").write_bytes(browser.screenshot())
        nav = browser.evaluate("[...document.querySelectorAll('.md-nav__link')].map(a => a.textContent.trim())")
        assert {"Home", "Commands", "Exit codes", "JSON schemas", "Environment variables"} <= set(nav)
        browser.evaluate("document.querySelector('a[href=\"reference/commands/\"]').click()")
        assert browser.until("location.pathname.endsWith('/reference/commands/')")
        ready = "document.readyState === 'complete' && document.querySelector('.md-search__input') !== null"
        assert browser.until(ready)
        typed = "(() => { const box = document.querySelector('.md-search__input'); box.focus(); box.value = 'previous';"
        typed += " box.dispatchEvent(new Event('input', {bubbles: true})); return true; })()"
        browser.evaluate(typed)
        assert browser.until("document.querySelectorAll('.md-search-result__item').length") >= 1
        found = browser.evaluate("[...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)")
        assert any("/reference/commands/" in href for href in found), found
        assert browser.errors == []


@NEEDS_CHROMIUM
def test_the_site_shows_the_registry_screenshot_and_an_example_html_report(site: Path, tmp_path: Path) -> None:
    chromium_path = chromium()
    assert chromium_path is not None
    with served(site) as url, Browser(chromium_path) as browser:
        browser.open(f"{url}/")
        shown = "(() => { const img = document.querySelector('img[src$=\"registry.png\"]');"
        shown += " return img !== null && img.complete && img.naturalWidth > 600; })()"
        assert browser.until(shown)
        browser.open(f"{url}/reports/")
        browser.evaluate("document.querySelector('iframe.example-report').scrollIntoView()")
        report = "document.querySelector('iframe.example-report').contentDocument"
        banner = f"(() => {{ const d = {report}; return d && d.readyState === 'complete' ? d.body.innerText : ''; }})()"
        text = browser.until(banner)
        assert "Not conformant at Level 1" in text and "L1.errors.no-leakage" in text, text[:500]
        assert browser.evaluate("document.querySelector('iframe.example-report').getBoundingClientRect().height") > 300
        badges = "[...document.querySelectorAll('img[src$=\".badge.svg\"]')].filter(i => i.naturalWidth > 0).length"
        assert browser.until(badges) == 2
        (tmp_path / "reports.png").write_bytes(browser.screenshot())
        assert browser.errors == []


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` over HTTP on loopback (the search index is fetched: file:// would refuse it)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
