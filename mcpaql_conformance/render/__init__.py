"""Renderers by format name; each turns a Report into text for one output target."""

from __future__ import annotations

from collections.abc import Callable

from mcpaql_conformance.model import Report

Renderer = Callable[[Report, bool], str]
FORMATS = ("text", "json", "markdown")


def renderer(name: str) -> Renderer:
    """Import only the renderer asked for (rich and jinja2 are slow to import)."""
    if name == "json":
        from mcpaql_conformance.render.json import render_json

        return render_json
    if name == "markdown":
        from mcpaql_conformance.render.markdown import render_markdown

        return render_markdown
    if name == "text":
        from mcpaql_conformance.render.text import render_text

        return render_text
    from mcpaql_conformance.errors import ConfigError

    raise ConfigError(f"unknown format {name!r}; valid formats: {', '.join(FORMATS)}")
