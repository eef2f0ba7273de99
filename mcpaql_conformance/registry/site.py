"""The registry as a static site: ``index.html`` (every implementation's latest run; sortable and
filterable by a few lines of inline script, readable without it), a page per implementation
with its history, ``registry.json``, ``registry.md`` and a badge per implementation. No page
loads anything from the network.

The site is built in a new folder beside the target and swapped in at the end: a crash leaves
the previous site as it was. A target folder that holds something else than a registry we
built (and is not empty) is refused, and so is one that holds an input.
"""

from __future__ import annotations

import os
import shutil
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
NUMERIC = frozenset({"level", "passed", "warned", "failed"})


def check_target(target: Path, inputs: list[Path]) -> None:
    """Refuse a target that is an input, holds one, or holds something that is no registry."""
    where = plain(str(target))
    resolved = target.resolve()
    for path in inputs:
        found = path.resolve()
        if found == resolved or resolved in found.parents:
            raise ConfigError(
                f"-o {where}: it holds the input {plain(str(path))}: give the registry a folder of its own"
            )
    if target.exists() and not target.is_dir():
        raise ConfigError(f"-o {where}: not a folder")
    if target.is_dir() and any(target.iterdir()) and not _ours(target):
        raise ConfigError(f"-o {where}: the folder holds files that are no registry of ours: give an empty or new one")


def _ours(folder: Path) -> bool:
    marker = folder / MARKER
    try:
        data = load_json_file(marker, "registry") if marker.is_file() else None
    except ConfigError:
        return False
    return isinstance(data, dict) and data.get("kind") == KIND


def write_site(registry: Registry, target: Path) -> None:
    """Build the site in a folder beside ``target``, then swap it in."""
    building = target.with_name(f".{target.name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    try:
        _write_all(registry, building)
        old = target.with_name(f".{target.name}.previous-{os.getpid()}")
        if target.exists():
            target.rename(old)
        building.rename(target)
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
