"""The registry as a static site: ``index.html`` (every implementation's latest run; sortable and
filterable by a few lines of inline script, readable without it), a page per implementation
with its history, ``registry.json``, ``registry.md`` and a badge per implementation. No page
loads anything from the network.

The site is built in a new folder beside the target and swapped in at the end, under a lock
(two builds into one folder take turns): a crash leaves the previous site as it was. A target
that holds any file a registry of ours does not (a CNAME, notes of the user's) is refused, and
so is one that holds an input or lies in an input folder, and the root. A link as the
target is followed: the site is built where it points.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from markupsafe import Markup

from mcpaql_conformance import __version__
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.jsonio import dumps, load_json_file, write_atomic
from mcpaql_conformance.registry.collect import KIND, Registry
from mcpaql_conformance.report.badge import BadgeStatus, badge_svg
from mcpaql_conformance.report.templates import environment
from mcpaql_conformance.sanitize import plain

MARKER = "registry.json"
COLUMNS = (
    ("name", "Implementation"), ("version", "Version"), ("spec", "Spec version"), ("level", "Level"),
    ("badge", "Badge"), ("passed", "Passed"), ("warned", "Warned"), ("failed", "Failed"), ("date", "Captured"),
    ("tool", "Tool"),
)  # fmt: skip
NUMERIC = frozenset({"level", "passed", "warned", "failed", "date"})


def site_folder(target: Path) -> Path:
    """Where the site goes: the target made absolute (``-o .`` has a name then), a link followed."""
    return target.resolve() if target.is_symlink() else Path(os.path.abspath(target))


def check_target(target: Path, inputs: list[Path]) -> None:
    """Refuse a target that is an input, holds one, lies in an input folder, is the root, or
    holds something that is no part of a registry of ours."""
    where = plain(str(target))
    resolved = site_folder(target).resolve()
    if resolved.parent == resolved:
        raise ConfigError(f"-o {where}: the root folder cannot hold a registry: give a folder of its own")
    for path in inputs:
        found = path.resolve()
        if path.is_dir() and found in resolved.parents:
            shown = plain(str(path))
            raise ConfigError(f"-o {where}: it lies in the input folder {shown}, which would read it back next time")
        if found == resolved or resolved in found.parents:
            raise ConfigError(
                f"-o {where}: it holds the input {plain(str(path))}: give the registry a folder of its own"
            )
    if target.exists() and not target.is_dir():
        raise ConfigError(f"-o {where}: not a folder")
    if resolved.is_dir() and any(resolved.iterdir()):
        foreign = _foreign(resolved)
        if foreign is not None:
            raise ConfigError(
                f"-o {where}: the folder holds {plain(foreign)}, which is no part of a registry of ours (it would be"
                " deleted with the old site): give an empty or new folder"
            )


def _foreign(folder: Path) -> str | None:
    """The first file a registry of ours would not hold there (None: it is all ours)."""
    marker = folder / MARKER
    try:
        data = load_json_file(marker, "registry") if marker.is_file() else None
    except ConfigError:
        data = None
    if not (isinstance(data, dict) and data.get("kind") == KIND):
        return MARKER if marker.exists() else next(iter(sorted(p.name for p in folder.iterdir())), None)
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not _expected(relative, path):
            return str(relative)
    return None


def _expected(relative: Path, path: Path) -> bool:
    parts = relative.parts
    if path.is_symlink():
        return False
    if len(parts) == 1:
        return parts[0] in (MARKER, "index.html", "registry.md") or (parts[0] in FOLDERS and path.is_dir())
    return len(parts) == 2 and parts[0] in FOLDERS and parts[1].endswith(FOLDERS[parts[0]]) and path.is_file()


FOLDERS = {"implementations": ".html", "badges": ".svg"}


def write_site(registry: Registry, target: Path) -> None:
    """Build the site in a folder beside ``target``, then swap it in (under a lock)."""
    target = site_folder(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _locked(target):
            _build_and_swap(registry, target)
    except OSError as error:
        reason = plain(error.strerror or str(error))
        raise ConfigError(f"cannot write the registry {plain(str(target))} (built beside it first): {reason}") from None


@contextmanager
def _locked(target: Path) -> Iterator[None]:
    """One build at a time into ``target``: the others wait for it."""
    import fcntl

    with open(target.with_name(f".{target.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _build_and_swap(registry: Registry, target: Path) -> None:
    building = target.with_name(f".{target.name}.building-{os.getpid()}")
    old = target.with_name(f".{target.name}.previous-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir()
    try:
        _write_all(registry, building)
        if target.exists():
            target.rename(old)
        try:
            building.rename(target)
        except OSError:
            if old.exists():
                old.rename(target)  # the previous site, back where it was
            raise
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _write_all(registry: Registry, folder: Path) -> None:
    (folder / "implementations").mkdir()
    (folder / "badges").mkdir()
    runs = sum(len(item.runs) for item in registry.implementations)
    context = {
        "implementations": registry.implementations,
        "notes": registry.notes,
        "count": len(registry.implementations),
        "runs": runs,
        "version": __version__,
    }
    markup = environment("markup")
    page = markup.get_template("registry_index.html.j2").render(columns=COLUMNS, numeric=NUMERIC, **context)
    write_atomic(folder / "index.html", page, durable=False)
    for item in registry.implementations:
        detail = markup.get_template("registry_implementation.html.j2").render(item=item, version=__version__)
        write_atomic(folder / "implementations" / f"{item.slug}.html", detail, durable=False)
        status = BadgeStatus(item.latest.badge_label, item.latest.badge, item.latest.colour)
        write_atomic(folder / "badges" / f"{item.slug}.svg", str(Markup(badge_svg(status))), durable=False)
    text = environment("markdown").get_template("registry.md.j2").render(**context)
    write_atomic(folder / "registry.md", text, durable=False)
    write_atomic(folder / MARKER, dumps(registry.as_dict()), durable=False)
