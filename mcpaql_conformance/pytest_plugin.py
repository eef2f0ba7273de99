"""A pytest plugin: an adapter's own test suite guards its MCP-AQL conformance.

``pytest --mcpaql-server "python my_server.py"`` (or ``--mcpaql-url URL``, or the same keys in
the ini file) adds one pytest item per conformance test, grouped by category. The first of them
to run starts ``mcpaql-conformance check -f json`` once for the session, in a subprocess (the
server under test never runs inside pytest), and each item reports its test: PASS passes, FAIL
fails with the findings, WARN passes with a :class:`ConformanceWarning` carrying them, SKIP skips
with the reason. A server that cannot be captured is one error, not one failure per test.

Without a server or a URL the plugin adds nothing and runs nothing. The pytest11 entry point
loads this module in every pytest run of an environment that has the tool installed, so it
imports only the standard library and pytest; the checks are imported only when it is active.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT_NAME = "mcpaql-conformance"
MARKER = "mcpaql"
XDIST_GROUP = "mcpaql-conformance"
_STDERR_TAIL = 4000


class ConformanceWarning(UserWarning):
    """A conformance test that warned (a SHOULD not met, or evidence missing). Turn these into
    failures with ``-W error::mcpaql_conformance.pytest_plugin.ConformanceWarning``."""


class ConformanceFailure(Exception):
    """A conformance test that failed; its message is the test and its findings."""


class CheckError(Exception):
    """`check` could not judge the server (it did not start, or an option is wrong)."""


@dataclass(frozen=True)
class Settings:
    server: list[str] | None
    url: str | None
    level: str
    allow_writes: bool
    allow_destructive: bool
    plan: Path | None
    baseline: Path | None
    timeout: float | None
    report: Path | None
    bundle: Path | None
    cwd: Path

    def describe(self) -> str:
        return self.url if self.url else shlex.join(self.server or [])


@dataclass
class Run:
    """The session's one `check`: its report, or why there is none."""

    settings: Settings
    report: dict[str, Any] | None = None
    error: str | None = None
    failed_at: str | None = None
    workdir: Path | None = None
    done: bool = False
    tests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


_RUN = pytest.StashKey[Run]()

_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("server", "COMMAND", "Start this MCP-AQL server (a shell-like command line) and check its conformance."),
    ("url", "URL", "Check the running MCP-AQL server at this streamable-HTTP endpoint instead."),
    ("level", "1|2", "Conformance level to check (default 1)."),
    ("plan", "FILE", "Capture plan (JSON or YAML) for `check --plan`."),
    ("baseline", "FILE", "Baseline of accepted findings for `check --baseline`."),
    ("timeout", "SECONDS", "Seconds each call to the server may take (`check --timeout`)."),
    ("report", "FILE", "Keep the JSON conformance report here."),
    ("bundle", "FILE", "Keep the captured evidence bundle here."),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcpaql-conformance", "MCP-AQL conformance (mcpaql-conformance check)")
    for name, metavar, text in _OPTIONS:
        group.addoption(f"--mcpaql-{name}", dest=f"mcpaql_{name}", metavar=metavar, default=None, help=text)
        parser.addini(f"mcpaql_{name}", f"{text} (--mcpaql-{name} overrides it)", default=None)
    group.addoption(
        "--mcpaql-allow-writes",
        dest="mcpaql_allow_writes",
        action="store_true",
        default=None,
        help="Let check call additive (CREATE) operations too; without it, only read-only operations are called.",
    )
    parser.addini("mcpaql_allow_writes", "Same as --mcpaql-allow-writes.", type="bool", default=False)
    group.addoption(
        "--mcpaql-allow-destructive",
        dest="mcpaql_allow_destructive",
        action="store_true",
        default=None,
        help="Let check call UPDATE, DELETE and EXECUTE operations too (implies --mcpaql-allow-writes; use a"
        " disposable instance).",
    )
    parser.addini("mcpaql_allow_destructive", "Same as --mcpaql-allow-destructive.", type="bool", default=False)


def _setting(config: pytest.Config, name: str) -> tuple[str | None, Path]:
    """An option's value and the folder its relative paths start from: the command line's from
    where pytest was started, the ini file's from the ini file's folder."""
    value = config.getoption(f"mcpaql_{name}")
    if value is not None:
        return str(value), Path(config.invocation_params.dir)
    ini = config.getini(f"mcpaql_{name}")
    base = config.inipath.parent if config.inipath is not None else config.rootpath
    return (str(ini).strip() or None) if ini is not None else None, base


def _path(config: pytest.Config, name: str) -> Path | None:
    value, base = _setting(config, name)
    return (base / value).resolve() if value else None


def _flag(config: pytest.Config, name: str) -> bool:
    """A flag's value: the command line's when given, else the ini file's."""
    flag = config.getoption(f"mcpaql_{name}")
    return bool(flag if flag is not None else config.getini(f"mcpaql_{name}"))


def settings_of(config: pytest.Config) -> Settings | None:
    """The plugin's settings, or None when it is not asked to check a server."""
    server, server_base = _setting(config, "server")
    url, url_base = _setting(config, "url")
    if not server and not url:
        return None
    if server and url:
        raise pytest.UsageError("mcpaql-conformance: give a server command or a URL, not both")
    command = shlex.split(server) if server else None
    if command == []:
        raise pytest.UsageError("mcpaql-conformance: the server command is empty")
    level = _setting(config, "level")[0] or "1"
    if level not in ("1", "2"):
        raise pytest.UsageError(f"mcpaql-conformance: the level is 1 or 2, not {level!r}")
    timeout_text = _setting(config, "timeout")[0]
    timeout = None
    if timeout_text is not None:
        try:
            timeout = float(timeout_text)
        except ValueError:
            timeout = -1.0
        if not 0 < timeout < float("inf"):
            raise pytest.UsageError(
                f"mcpaql-conformance: the timeout is a positive number of seconds, not {timeout_text!r}"
            )
    return Settings(
        server=command,
        url=url,
        level=level,
        allow_writes=_flag(config, "allow_writes"),
        allow_destructive=_flag(config, "allow_destructive"),
        plan=_path(config, "plan"),
        baseline=_path(config, "baseline"),
        timeout=timeout,
        report=_path(config, "report"),
        bundle=_path(config, "bundle"),
        cwd=server_base if server else url_base,
    )


def pytest_configure(config: pytest.Config) -> None:
    settings = settings_of(config)
    if settings is None:
        return
    config.stash[_RUN] = Run(settings)
    config.addinivalue_line("markers", f"{MARKER}: an MCP-AQL conformance test (mcpaql-conformance pytest plugin)")
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): run these tests in one pytest-xdist worker")


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(_RUN, None)
    # kept when check failed: its message names the server's stderr and records in it
    if run is not None and run.workdir is not None and run.error is None:
        shutil.rmtree(run.workdir, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str | None:
    run = config.stash.get(_RUN, None)
    if run is None:
        return None
    return f"mcpaql-conformance: Level {run.settings.level} check of {run.settings.describe()} (at the first test)"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Append one item per conformance test of the level (before -k, -m and --lf select them),
    collected through pytest's own protocol so that counts, reports and hooks see them."""
    if config.stash.get(_RUN, None) is None:
        return
    root = ConformanceSuite.from_parent(session, name=ROOT_NAME, nodeid=ROOT_NAME)
    items.extend(session.genitems(root))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")


class ConformanceSuite(pytest.Collector):
    """The synthetic root of the conformance items: one collector per category of the level."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        from mcpaql_conformance.verdict.runner import categories_for

        level = int(self.config.stash[_RUN].settings.level)
        return [CategoryCollector.from_parent(self, name=c.name, category=c) for c in categories_for(level)]


class CategoryCollector(pytest.Collector):
    """One conformance category: an item per test, or one for all when its tests are made from
    the evidence (Semantic Evaluation)."""

    def __init__(self, *, category: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.category = category

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        dynamic = not self.category.checks
        ids = [check.id for check in self.category.checks] or [f"L{self.category.level}.{_slug(self.name)}"]
        items: list[pytest.Item | pytest.Collector] = []
        for test_id in ids:
            item = ConformanceItem.from_parent(self, name=test_id, category=self.name, dynamic=dynamic)
            item.add_marker(MARKER)
            item.add_marker(pytest.mark.xdist_group(XDIST_GROUP))
            items.append(item)
        return items


class ConformanceItem(pytest.Item):
    """One conformance test of the session's `check` report."""

    def __init__(self, *, category: str, dynamic: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.category = category
        self.dynamic = dynamic

    def setup(self) -> None:
        run = self.config.stash[_RUN]
        if not run.done:
            run.done = True
            try:
                _execute(run)
            except CheckError as exc:
                run.error = str(exc)
                run.failed_at = self.nodeid
            if run.error is not None:  # one error, at the first item; the others skip, naming it
                pytest.fail(run.error, pytrace=False)
        if run.error is not None:
            pytest.skip(f"mcpaql-conformance check did not run: see the error of {run.failed_at}")

    def runtest(self) -> None:
        run = self.config.stash[_RUN]
        tests = run.tests.get(self.category, [])
        mine = [t for t in tests if t.get("id") == self.name] if not self.dynamic else tests
        if not mine:
            pytest.skip(f"the report has no result for {self.name}")
        failed = [t for t in mine if t.get("result") == "FAIL"]
        if failed:
            raise ConformanceFailure("\n\n".join(describe(t) for t in failed))
        for test in mine:
            if test.get("result") == "WARN":
                # no file or line of this module: the warnings summary shows the finding alone
                warnings.warn_explicit(ConformanceWarning(describe(test)), ConformanceWarning, ROOT_NAME, 0)
        if all(t.get("result") == "SKIP" for t in mine):
            from mcpaql_conformance.sanitize import plain

            pytest.skip("; ".join(plain(t.get("detail") or "skipped") for t in mine))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ConformanceFailure | CheckError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.category}: {self.name}"


def describe(test: dict[str, Any]) -> str:
    """A test of the report as a failure or warning message: what it asserts, its verdict, its
    findings one a line, and the spec section. Findings quote the server: each line is made
    plain (no terminal escapes, controls or invisible characters)."""
    from mcpaql_conformance.sanitize import plain

    lines = [f"{plain(test.get('id') or test.get('name'))}: {plain(test.get('name'))} ({plain(test.get('result'))})"]
    findings = [plain(f) for f in test.get("findings") or []]
    if findings:
        lines.append(plain(test.get("lead") or test.get("detail") or ""))
        lines.extend(f"  - {finding}" for finding in findings)
    else:
        lines.append(plain(test.get("detail") or ""))
    if test.get("specRef"):
        lines.append(f"spec: {plain(test['specRef'])}")
    return "\n".join(line for line in lines if line)


def check_command(settings: Settings, report: Path, capture_dir: Path) -> list[str]:
    """The `mcpaql-conformance check` command line the session runs."""
    args = [sys.executable, "-m", "mcpaql_conformance", "check", "-f", "json", "-o", str(report)]
    args += ["--level", settings.level, "--capture-dir", str(capture_dir)]
    if settings.allow_writes:
        args.append("--allow-writes")
    if settings.allow_destructive:
        args.append("--allow-destructive")
    for option, value in (("--plan", settings.plan), ("--baseline", settings.baseline), ("--bundle", settings.bundle)):
        if value is not None:
            args += [option, str(value)]
    if settings.timeout is not None:
        args += ["--timeout", repr(settings.timeout)]
    if settings.url:
        return [*args, "--url", settings.url]
    return [*args, "--", *(settings.server or [])]


def _execute(run: Run) -> None:
    """Run `check` once in a subprocess and keep its report's tests by category."""
    run.workdir = Path(tempfile.mkdtemp(prefix="mcpaql-pytest-"))
    report_path = run.settings.report or run.workdir / "report.json"
    args = check_command(run.settings, report_path, run.workdir / "capture")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PYTEST_ADDOPTS")}
    done = subprocess.run(
        args,
        cwd=run.settings.cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        check=False,
    )
    stderr = done.stderr.strip()
    if len(stderr) > _STDERR_TAIL:
        stderr = "..." + stderr[-_STDERR_TAIL:]
    target = run.settings.describe()
    if done.returncode not in (0, 1, 2):
        raise CheckError(f"mcpaql-conformance check could not judge {target} (exit {done.returncode}):\n{stderr}")
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
        categories = report["categories"]
        run.tests = {str(c["name"]): list(c.get("tests") or []) for c in categories}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CheckError(f"mcpaql-conformance check wrote no readable report for {target} ({exc}):\n{stderr}") from None
    run.report = report


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    run = config.stash.get(_RUN, None)
    if run is None or run.report is None:
        return
    report = run.report
    level = report.get("conformanceLevel")
    line = (
        f"{run.settings.describe()}: conformance level {level if level is not None else 'none'}"
        f" (Level {report.get('requestedLevel')} requested; `check` would exit {report.get('exitCode')})"
    )
    if run.settings.report is not None:
        line += f"; report: {run.settings.report}"
    terminalreporter.write_sep("-", "mcpaql-conformance")
    terminalreporter.write_line(line)
