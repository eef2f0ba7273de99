"""The commands about many servers: `registry` (a static site built from saved reports) and
`check-many` (`check` every server a TOML file lists, several at a time, then the registry)."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.sanitize import plain


@click.command("registry")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--output", "-o", required=True, type=click.Path(path_type=Path), help="The site's folder.")
def registry_command(inputs: tuple[Path, ...], output: Path) -> int:
    """Build a conformance registry from saved JSON reports (of `test`, `check`, a suite, or the
    reference runner): one page for many servers (conformance-testing §6.3).

    \b
      mcpaql-conformance registry out/reports -o out/registry

    Writes OUTPUT/index.html (every implementation's latest run: level, badge, counts, the spec
    version tested against; sortable and filterable), a page per implementation with every run
    and the verdicts that changed between runs, registry.json (`schema registry`), registry.md
    and a badge per implementation. A folder is read at any depth (its *.json files that are
    no report are skipped, and listed); a file named here that is no report is an error
    (exit 3). The site is built beside OUTPUT and swapped in at the end.
    """
    from mcpaql_conformance.registry.collect import build
    from mcpaql_conformance.registry.site import check_target, write_site

    paths = list(inputs)
    for path in paths:
        if not path.exists():
            raise ConfigError(f"{plain(str(path))}: no such file or folder")
    check_target(output, paths)
    registry = build(paths)
    write_site(registry, output)
    for note in registry.notes:
        click.echo(f"warning: {note}", err=True)
    runs = sum(len(item.runs) for item in registry.implementations)
    shown = click.format_filename(output)
    click.echo(
        f"wrote a registry of {len(registry.implementations)} implementation(s), {runs} run(s) to {shown}", err=True
    )
    return 0


# --- check-many ------------------------------------------------------------------------------

SERVER_KEYS = frozenset(
    {"name", "command", "url", "level", "plan", "allow_writes", "allow_destructive", "timeout", "overall_timeout"}
)
GRACE = 60.0  # seconds past a server's overall timeout before its check is stopped from outside


@dataclass(frozen=True)
class Server:
    name: str
    command: tuple[str, ...]
    url: str | None
    level: int
    plan: Path | None
    allow_writes: bool
    allow_destructive: bool
    timeout: float
    overall_timeout: float
    folder: Path  # the servers file's: the command runs there, a plan's path is relative to it

    def arguments(self, report: Path, capture: Path) -> list[str]:
        args = ["check", "--level", str(self.level), "-f", "json", "-o", str(report), "--capture-dir", str(capture)]
        args += ["--timeout", f"{self.timeout:g}", "--overall-timeout", f"{self.overall_timeout:g}"]
        args += ["--allow-writes"] * self.allow_writes + ["--allow-destructive"] * self.allow_destructive
        args += ["--plan", str(self.plan)] if self.plan is not None else []
        return [*args, "--url", self.url] if self.url is not None else [*args, "--", *self.command]


def load_servers(path: Path) -> list[Server]:
    """The servers a TOML file lists (``[[server]]`` tables, with ``[defaults]`` for all)."""
    from mcpaql_conformance.files.jsonio import read_bytes

    source = plain(str(path))
    try:
        data = tomllib.loads(read_bytes(path, "servers").decode("utf-8"))  # a FIFO or device: refused
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not TOML: {plain(str(error))}") from None
    unknown = sorted(set(data) - {"defaults", "server"})
    if unknown:
        raise ConfigError(f"{source}: unknown table {plain(unknown[0])!r}; expected [defaults] and [[server]]")
    defaults = data.get("defaults", {})
    entries = data.get("server")
    if not isinstance(defaults, dict):
        raise ConfigError(f"{source}: [defaults] must be a table")
    unknown = sorted(set(defaults) - SERVER_KEYS)
    if unknown:
        raise ConfigError(
            f"{source}: [defaults]: unknown key {plain(unknown[0])!r}; known: {', '.join(sorted(SERVER_KEYS))}"
        )
    if not isinstance(entries, list) or not entries or not all(isinstance(entry, dict) for entry in entries):
        raise ConfigError(f"{source}: expected at least one [[server]] table (and only tables there)")
    folder = path.resolve().parent  # what a plan's path is relative to, and where commands run
    servers = [
        _server({**defaults, **entry}, f"{source}: server {index + 1}", folder) for index, entry in enumerate(entries)
    ]
    names = [server.name for server in servers]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"{source}: two servers are named {plain(repeated[0])!r}: give each a name of its own")
    return servers


def _server(entry: Any, where: str, folder: Path) -> Server:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a table")
    unknown = sorted(set(entry) - SERVER_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {plain(unknown[0])!r}; known: {', '.join(sorted(SERVER_KEYS))}")
    command, url = entry.get("command"), entry.get("url")
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as error:  # an unbalanced quote
            raise ConfigError(f"{where}.command: {plain(str(error))}") from None
    if (command is None) == (url is None):
        raise ConfigError(f"{where}: give either command or url")
    if command is not None and not (isinstance(command, list) and command and all(isinstance(c, str) for c in command)):
        raise ConfigError(f"{where}.command: expected a command line (a string or a list of strings)")
    if url is not None and not isinstance(url, str):
        raise ConfigError(f"{where}.url: expected a string")
    name = entry.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", name):
        raise ConfigError(f"{where}.name: expected a name of letters, digits, '.', '_' and '-' (a file name)")
    level = entry.get("level", 1)
    if level not in (1, 2) or isinstance(level, bool):
        raise ConfigError(f"{where}.level: expected 1 or 2")
    flags = {key: entry.get(key, False) for key in ("allow_writes", "allow_destructive")}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigError(f"{where}.{key}: expected true or false")
    timeout, overall = _seconds(entry, "timeout", 20.0, where), _seconds(entry, "overall_timeout", 600.0, where)
    plan = entry.get("plan")
    if plan is not None and not isinstance(plan, str):
        raise ConfigError(f"{where}.plan: expected a path")
    return Server(name, tuple(command or ()), url, int(level), folder / plan if plan else None,
                  flags["allow_writes"], flags["allow_destructive"], timeout, overall, folder)  # fmt: skip


def _seconds(entry: dict[str, Any], key: str, default: float, where: str) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 86_400:
        raise ConfigError(f"{where}.{key}: expected a number of seconds above 0")
    return float(value)


@dataclass(frozen=True)
class Checked:
    server: Server
    exit_code: int
    report: Path | None
    said: str  # the check's last line on stderr, when it gave no report


class Children:
    """The check processes running now: stopped with check-many (Ctrl-C, SIGTERM), which they
    would otherwise outlive in sessions of their own."""

    def __init__(self) -> None:
        self.running: set[subprocess.Popen[str]] = set()
        self.lock = threading.Lock()

    def add(self, process: subprocess.Popen[str]) -> None:
        with self.lock:
            self.running.add(process)

    def discard(self, process: subprocess.Popen[str]) -> None:
        with self.lock:
            self.running.discard(process)

    def stop_all(self) -> None:
        with self.lock:
            for process in self.running:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)


def check_one(server: Server, folder: Path, children: Children | None = None) -> Checked:
    """`check` of one server in a process of its own (its own capture folder and time limit):
    whatever happens to it, the others go on."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    report = folder / "reports" / server.name / f"{stamp}.json"  # every run kept: the registry's history
    capture = folder / "captures" / server.name / stamp
    report.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "mcpaql_conformance", *server.arguments(report, capture)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=server.folder,
    )
    if children is not None:
        children.add(process)
    try:
        _, stderr = process.communicate(timeout=server.overall_timeout + GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return Checked(server, 3, None, f"stopped after {server.overall_timeout + GRACE:g} s")
    finally:
        if children is not None:
            children.discard(process)
    lines = [line for line in (stderr or "").splitlines() if line.strip()]
    found = report if report.is_file() and process.returncode in (0, 1, 2) else None
    return Checked(server, process.returncode, found, plain(lines[-1] if lines else "", max_len=300))


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM as Ctrl-C: the checks are stopped, not left running


@click.command("check-many")
@click.argument("servers_file", metavar="SERVERS.toml", type=click.Path(path_type=Path))
@click.option("--output", "-o", required=True, type=click.Path(path_type=Path), help="Reports, captures, registry.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=2, show_default=True, help="Checks at once.")
def check_many_command(servers_file: Path, output: Path, jobs: int) -> int:
    """`check` every server SERVERS.toml lists, JOBS at a time, then build the registry.

    \b
      mcpaql-conformance check-many servers.toml --jobs 4 -o out/fleet

    \b
    SERVERS.toml:
      [defaults]                  # optional: for every server
      level = 1
      [[server]]
      name = "notes"              # letters, digits, . _ -: the report's file name
      command = "python -m mcpaql_conformance.demo_adapter"   # or a list; or url = "http://..."
      level = 2                   # plan, allow_writes, allow_destructive, timeout, overall_timeout

    Commands run in the servers file's folder, and a plan's path is relative to it.

    Each check runs in its own process with its own capture folder and time limit; one that
    fails never stops the others. OUTPUT/reports/NAME/ keeps the JSON report of every run (the
    registry's history), OUTPUT/captures/NAME/ the call records, OUTPUT/registry the registry of
    every report there. Exit: the worst of the checks
    (0 all conformant, 1 a MUST failed, 2 only warnings), 3 when a server could not be checked.
    """
    from mcpaql_conformance.registry.collect import build
    from mcpaql_conformance.registry.site import check_target, write_site

    servers = load_servers(servers_file)
    output = Path(os.path.abspath(output))
    if output.parent == output or (output.exists() and not output.is_dir()):
        raise ConfigError(
            f"-o {plain(str(output))}: give a folder of its own (it holds reports, captures, the registry)"
        )
    check_target(output / "registry", [servers_file])
    (output / "reports").mkdir(parents=True, exist_ok=True)
    children = Children()
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(check_one, server, output, children) for server in servers]
            try:
                results = [future.result() for future in futures]
            except KeyboardInterrupt:
                for future in futures:
                    future.cancel()
                children.stop_all()
                raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    for result in results:
        said = "" if result.report is not None else f": no report ({result.said or 'the check said nothing'})"
        click.echo(f"{result.server.name}: exit {result.exit_code}{said}", err=True)
    registry = build([output / "reports"])
    registry.notes += [f"{r.server.name}: not checked ({r.said or 'exit ' + str(r.exit_code)})" for r in results
                       if r.report is None]  # fmt: skip
    write_site(registry, output / "registry")
    click.echo(f"registry: {click.format_filename(output / 'registry' / 'index.html')}", err=True)
    codes = {result.exit_code for result in results}
    return next((code for code in (3, 1, 2) if code in codes), 3 if codes - {0, 1, 2} else 0)
