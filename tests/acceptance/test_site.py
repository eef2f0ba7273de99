"""The docs site (issue 37): `mkdocs build --strict` builds it (a broken link or an unknown page
fails), and its command reference, generated from the click command tree at build time, has an
entry for every command and every option of each, so that none can go undocumented."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from mcpaql_conformance.cli.group import cli
from tests.acceptance.conftest import ROOT


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
