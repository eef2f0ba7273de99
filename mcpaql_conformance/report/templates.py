"""The jinja2 environments: escaping is the environment's job, so no template can forget it."""

from __future__ import annotations

import functools
from typing import Any

import jinja2
from markupsafe import Markup, escape

from mcpaql_conformance.regex import lazy
from mcpaql_conformance.report.escape import markdown
from mcpaql_conformance.sanitize import plain


def _markup_safe(value: Any) -> Any:
    # Autoescaping (HTML/XML) then handles < > & and quotes; plain() first removes what
    # XML 1.0 cannot carry at all and what no reader should see (controls, escapes, bidi).
    if value is None:
        return ""
    if isinstance(value, Markup) or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    return plain(str(value), max_len=20000)  # strings, paths and anything else a template shows


# Option names and test ids: a browser would break them at their hyphens.
_UNBREAKABLE = lazy(r"--[A-Za-z0-9][A-Za-z0-9-]*|\bL[12]\.[A-Za-z0-9_.-]*[A-Za-z0-9_]")


def _words(value: Any) -> Markup:
    """Escaped text in which option names and test ids never wrap (HTML only)."""
    text = str(escape(_markup_safe(value)))
    return Markup(_UNBREAKABLE.sub(lambda match: f'<span class="nw">{match.group()}</span>', text))


@functools.cache
def environment(kind: str) -> jinja2.Environment:
    """``markdown`` (finalize = markdown escape) or ``markup`` (HTML/XML autoescape)."""
    loader = jinja2.PackageLoader("mcpaql_conformance.report", "templates")
    options: dict[str, Any] = {
        "loader": loader,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
        "undefined": jinja2.StrictUndefined,
    }
    from mcpaql_conformance.report.cited import shown_findings

    if kind == "markdown":
        environment = jinja2.Environment(autoescape=False, finalize=markdown, **options)
    else:
        environment = jinja2.Environment(autoescape=True, finalize=_markup_safe, **options)
        environment.filters["words"] = _words
    environment.filters["shown"] = shown_findings  # each finding with the rule it is about
    return environment
