"""Reports: one renderer per format, chosen by name (each turns a Report into text for one output
target), badges, and saved reports read back (`saved`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports FORMATS at start-up: keep this module light
    from mcpaql_conformance.report.common import RenderOptions
    from mcpaql_conformance.verdict.model import Report

# (report, colour=False, options=None): options lay out the text report (width, findings shown).
Renderer = Callable[..., str]

# format -> (module, function). Modules are imported only when asked for: rich and
# jinja2 are slow to import, and most runs need one format.
_RENDERERS = {
    "text": ("mcpaql_conformance.report.text", "render_text"),
    "json": ("mcpaql_conformance.report.json", "render_json"),
    "markdown": ("mcpaql_conformance.report.markdown", "render_markdown"),
    "junit": ("mcpaql_conformance.report.junit", "render_junit"),
    "html": ("mcpaql_conformance.report.html", "render_html"),
}
FORMATS = tuple(_RENDERERS)


def renderer(name: str) -> Renderer:
    """The renderer for a format name."""
    if name not in _RENDERERS:
        from mcpaql_conformance.errors import ConfigError

        raise ConfigError(f"unknown format {name!r}; valid formats: {', '.join(FORMATS)}")
    module, function = _RENDERERS[name]
    rendered: Renderer = getattr(importlib.import_module(module), function)

    def render(report: Report, color: bool = False, options: RenderOptions | None = None) -> str:
        from mcpaql_conformance.files.jsonio import gc_paused
        from mcpaql_conformance.report.common import DEFAULT_OPTIONS

        # A report of 60,000 tests builds hundreds of thousands of short-lived strings, lists
        # and dicts; collections that walk them all would cost a third of the time.
        with gc_paused(freeze=False):
            return rendered(report, color, options or DEFAULT_OPTIONS)

    return render
