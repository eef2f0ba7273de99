"""Markdown report (jinja2): every value is escaped by the environment's finalize hook."""

from __future__ import annotations

import functools
from typing import Any

import jinja2

from mcpaql_conformance.model import Report
from mcpaql_conformance.render.badge import badge_status
from mcpaql_conformance.render.common import verdict_line
from mcpaql_conformance.render.escape import Trusted, markdown


def _finalize(value: Any) -> str:
    # Escaping in finalize means a template cannot forget it.
    return markdown(value)


@functools.cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("mcpaql_conformance.render", "templates"),
        autoescape=False,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


def badge_markdown(report: Report) -> Trusted:
    status = badge_status(report)
    return Trusted(f"![{status.label}: {status.message}]({status.shields_url()})")


def render_markdown(report: Report, color: bool = False) -> str:
    template = environment().get_template("report.md.j2")
    return template.render(
        report=report, summary=report.summary, badge=badge_markdown(report), verdict=verdict_line(report)
    )
