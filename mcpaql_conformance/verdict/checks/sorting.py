"""Sort shortcuts (features/collection-querying §2.3, a SHOULD): `sort` as `{field, order}` is the
contract; a shortcut such as a bare field name with `order` beside it may be taken, documented as
compatibility behaviour. Judged on what introspection documents (an `order` parameter beside `sort`)
and on capture's call sending the shortcut to an operation that documents none (``sort_tests``)."""

from __future__ import annotations

from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.base import calls_of, cite, kinds_held
from mcpaql_conformance.verdict.textmatch import identifiers_folded

SHORTCUTS = "features/collection-querying:2.3:shortcuts-documented"
# What a description says to mark a form as compatibility behaviour.
COMPATIBILITY = frozenset({"compatibility", "compatible", "shorthand", "shortcut", "alias", "legacy", "deprecated"})


def sort_findings(ctx: Context) -> list[str]:
    """Each operation taking a sort shortcut its introspection does not call compatibility behaviour."""
    findings: list[str] = []
    for name in ctx.details_by_name:
        parameters = {p["name"]: p for p in ctx.parameters_of(name)}
        if "sort" in parameters and "order" in parameters and not _compatibility(ctx, name):  # json: names
            findings.append(cite(SHORTCUTS, f"{name} documents `order` beside `sort` as part of its contract, not as a "
                                 "compatibility shortcut of sort {field, order}"))  # fmt: skip
    for call in calls_of(ctx, "sort_tests"):
        name = str(call.case.get("operation"))
        if call.answer.succeeded and not _compatibility(ctx, name):
            findings.append(cite(SHORTCUTS, f"{call.name} took sort as a bare field name with order beside it, a "
                                 "shortcut its introspection does not document"))  # fmt: skip
    return findings


def sort_evidence(ctx: Context) -> list[str]:
    """``sort_tests:shorthand`` where capture sent the shortcut."""
    return kinds_held(ctx, "sort_tests")


def _compatibility(ctx: Context, operation: str) -> bool:
    """The operation's description, or its `sort`'s or `order`'s, calls a form compatibility behaviour."""
    detail = ctx.details_by_name.get(operation) or {}
    texts = [str(detail.get("description") or "")]
    texts += [str(p.get("description") or "") for p in ctx.parameters_of(operation) if p["name"] in ("sort", "order")]
    return any(identifiers_folded(text) & COMPATIBILITY for text in texts)
