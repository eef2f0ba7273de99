"""Every shell command of README.md, CONTRIBUTING.md and every page of the docs site (docs/)
works verbatim after the quick start, and running them leaves the checkout as it was.

A ```sh block runs line by line (a trailing backslash continues a line) from the project's
root, with the quick start's virtual environment active. A line ending in ``# exit N``
must exit N; every other line must exit 0. The line before a block may mark it:
``<!-- docs: slow -->`` runs only with MCPAQL_DOCS_SLOW=1 (installs, benchmarks, the
acceptance tests), ``<!-- docs: skip: why -->`` never runs (the test suite itself).

A block of one command followed at once by a ```text block shows what that command prints: each
line shown is a whole line of its output (stdout, then stderr), in the order shown; a line ``...``
(indented or not) stands for any number of lines left out.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

import pytest

from tests.acceptance.conftest import IN_THE_CHECKOUT, ROOT, warm_path

DOCUMENTS = (
    "README.md",
    "CONTRIBUTING.md",
    *sorted(str(page.relative_to(ROOT)) for page in (ROOT / "docs").rglob("*.md")),
)
_BLOCK = re.compile(
    r"(?:^<!-- docs: (?P<mark>[^>]*?) -->\n)?^```sh\n(?P<body>.*?)^```$(?:\n\n```text\n(?P<shown>.*?)^```$)?",
    re.M | re.S,
)
_EXIT = re.compile(r"#\s*exit (\d+)\s*$")


@dataclass(frozen=True)
class Block:
    document: str
    line: int
    mark: str
    commands: tuple[tuple[str, int], ...]  # (command, expected exit code)
    shown: tuple[str, ...] = ()  # what its one command prints, as the document shows it

    @property
    def name(self) -> str:
        return f"{self.document}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for document in DOCUMENTS:
        text = (ROOT / document).read_text()
        for match in _BLOCK.finditer(text):
            lines = match.group("body").replace("\\\n", " ").splitlines()
            commands = []
            for line in lines:
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                expected = _EXIT.search(line)
                commands.append((line, int(expected.group(1)) if expected else 0))
            line_number = text.count("\n", 0, match.start("body"))
            mark = (match.group("mark") or "").strip()
            shown = tuple(match.group("shown").splitlines()) if match.group("shown") and len(commands) == 1 else ()
            found.append(Block(document, line_number, mark, tuple(commands), shown))
    return found


def test_the_documents_have_commands_and_every_mark_is_known():
    found = blocks()
    assert sum(len(block.commands) for block in found) >= 12
    assert {block.mark.split(":")[0] for block in found} <= {"", "slow", "skip"}
    assert any(block.document == "CONTRIBUTING.md" for block in found)


def checkout_state() -> str | None:
    """What git sees as changed or untracked-and-not-ignored (None outside a git checkout)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return status.stdout if status.returncode == 0 else None


def environment() -> dict[str, str]:
    """The shell after the quick start: its virtual environment active, no colour forced."""
    venv = ROOT / ".venv"
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "PYTHONPATH")}
    env["PATH"] = f"{warm_path(venv / 'bin')}{os.pathsep}{env.get('PATH', '')}"  # its commands start warm
    env["VIRTUAL_ENV"] = str(venv)
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


@IN_THE_CHECKOUT
@pytest.mark.parametrize("block", blocks(), ids=lambda block: block.name)
def test_every_documented_command_works_and_leaves_the_checkout_clean(block: Block):
    if block.mark.startswith("skip"):
        pytest.skip(block.mark)
    if block.mark == "slow" and not os.environ.get("MCPAQL_DOCS_SLOW"):
        pytest.skip("slow: set MCPAQL_DOCS_SLOW=1 to run it")
    if not (ROOT / ".venv" / "bin" / "mcpaql-conformance").exists():
        pytest.skip("no .venv: the documents assume the quick start's environment")
    before = checkout_state()
    for command, expected in block.commands:
        result = subprocess.run(
            ["bash", "-c", command], cwd=ROOT, env=environment(), capture_output=True, text=True, timeout=900
        )
        assert result.returncode == expected, (
            f"{block.name}: {command}\nexit {result.returncode}, expected {expected}\n"
            f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
        missing = not_printed(block.shown, result.stdout + result.stderr)
        assert missing is None, f"{block.name}: {command}\nshown but not printed: {missing!r}\n{result.stdout[-3000:]}"
    assert checkout_state() == before, f"{block.name} changed the checkout"


def not_printed(shown: tuple[str, ...], output: str) -> str | None:
    """The first line a document shows that the output does not print in that order (None: all do)."""
    printed = iter(line.rstrip() for line in output.splitlines())
    for line in shown:
        if line.strip() == "...":
            continue
        if not any(line.rstrip() == candidate for candidate in printed):
            return line
    return None


def test_a_shown_output_must_be_printed_in_order():
    output = "a\nb\nc\n"
    assert not_printed(("a", "...", "c"), output) is None
    assert not_printed(("  ...", "b"), output) is None
    assert not_printed(("c", "a"), output) == "a"
    assert not_printed(("b", "d"), output) == "d"
    assert not_printed(("a  ",), output) is None  # trailing spaces are no difference


def test_the_pages_show_what_their_commands_print():
    shown = {block.document for block in blocks() if block.shown}
    assert {"README.md", "docs/getting-started.md"} <= shown


def test_the_first_screen_shows_the_three_jobs_and_links_the_spec():
    first_screen = (ROOT / "README.md").read_text().split("## Quick start")[0]
    assert "https://github.com/MCPAQL/spec" in first_screen
    for job in ("mcpaql-conformance test ", "mcpaql-conformance check ", "mcpaql-conformance badge "):
        assert job in first_screen, job


def test_developer_material_lives_in_contributing():
    readme = (ROOT / "README.md").read_text()
    guide = (ROOT / "CONTRIBUTING.md").read_text()
    for heading in ("## Where we deliberately differ", "## How the code is organised", "## Adding a check"):
        assert heading in guide and heading not in readme
    assert "Tried, measured and rejected" in guide and "Tried, measured and rejected" not in readme
    assert "[CONTRIBUTING.md](CONTRIBUTING.md)" in readme


def test_the_readme_comes_in_the_order_a_user_needs_it():
    headings = re.findall(r"^## (.+)$", (ROOT / "README.md").read_text(), re.M)
    order = ["Quick start", "What it prints", "Commands", "Exit codes", "In CI", "Documentation", "Contributing"]
    assert [heading for heading in headings if heading in order] == order


def test_trying_the_tool_writes_only_ignored_files():
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    for default in ("/out/", "/captured-bundle.json", "/capture/"):
        assert default in ignored, default


def anchors(document: str) -> set[str]:
    """GitHub's anchors for a document's headings: lower case, punctuation dropped, spaces to dashes."""
    headings = re.findall(r"^#+ (.+)$", (ROOT / document).read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_every_link_to_a_section_lands_on_a_heading():
    for document in DOCUMENTS:
        text = (ROOT / document).read_text()
        for target, anchor in re.findall(r"\]\(((?:[A-Z]+\.md)?)#([\w-]+)\)", text):
            assert anchor in anchors(target or document), f"{document}: {target}#{anchor}"


def test_the_readme_is_a_front_door_whose_badges_say_what_the_code_says():
    from mcpaql_conformance import SPEC_VERSION

    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 260  # a screen or two; the manual is the docs site
    shown = SPEC_VERSION.replace("-", "--")  # shields.io's escape for a dash
    assert f"MCP--AQL%20spec-{shown}-" in readme
    requires = re.search(r'^requires-python = ">=(\d+\.\d+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert requires and f"python-{requires.group(1)}%2B-" in readme
    assert "licence-MIT-" in readme and 'license = "MIT"' in (ROOT / "pyproject.toml").read_text()
    for page in (ROOT / "docs").rglob("*.md"):  # every page of the site is one click away
        linked = f"docs/{page.relative_to(ROOT / 'docs').as_posix()}"
        linked = "CONTRIBUTING.md" if page.name == "contributing.md" else linked  # the page shows the file
        assert f"]({linked}" in readme, page


def test_every_command_has_a_line_in_the_readme_and_the_getting_started_table():
    import click

    from mcpaql_conformance.cli.group import cli

    names = cli.list_commands(click.Context(cli, info_name="mcpaql-conformance"))
    readme = (ROOT / "README.md").read_text().split("## Commands", 1)[1].split("\n## ", 1)[0]
    started = (ROOT / "docs" / "getting-started.md").read_text().split("## Commands", 1)[1].split("\n## ", 1)[0]
    for name in names:
        assert re.search(rf"^\|[^|]*`{re.escape(name)}`", readme, re.M), f"README: {name}"
        assert f"| `{name}` |" in started, f"getting started: {name}"
