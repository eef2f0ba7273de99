"""What capture's field-selection calls show (field_tests), and how a `preset` parameter is
documented: each standard preset taken as `fields` (features/field-selection §3.1), a field name
no server has refused rather than ignored (§5.2 item 4), and a `preset` parameter kept only as an
alias beside `fields` (collection-querying §2.4, field-selection §5.2 item 5). SHOULDs: warnings.
A refusal that names another parameter is about a value of ours, and shows nothing."""

from __future__ import annotations

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.vocabulary import PRESET_PARAMETER, STANDARD_PRESETS, UNKNOWN_FIELD_NAME
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

PRESETS = "features/field-selection:3.1:standard-presets"
FIELD_NAMES_CHECKED = "features/field-selection:5.2:should-list"
PRESET_ALIAS = "features/collection-querying:2.4:preset-alias-only"


def field_test_findings(ctx: Context) -> list[str]:
    """A standard preset refused, or a field name no server has answered with success."""
    findings: list[str] = []
    for case in ctx.bundle.cases("field_tests"):
        answer, kind = classify(case.get("response")), case.get("kind")
        name = plain(case.get("operation"), max_len=80)
        if kind in STANDARD_PRESETS and answer.refused and not answer.unrelated:
            findings.append(cite(PRESETS, f"{name} refused the standard preset fields {kind!r}: {answer.describe()}"))
        elif kind == UNKNOWN_FIELD_NAME and answer.succeeded:
            text = f"{name} answered fields naming a field it does not have with success, not refusing the name"
            findings.append(cite(FIELD_NAMES_CHECKED, text))
    return findings


def preset_alias_findings(ctx: Context) -> list[str]:
    """A READ operation documenting a `preset` parameter but no `fields`: the preset is its control,
    not an alias of fields."""
    return [
        cite(PRESET_ALIAS, f"{plain(op, max_len=80)} takes a `preset` parameter but no `fields`: a preset is meant "
             "as an alias of fields, not a control of its own")
        for op in ctx.operations_in("READ")
        if {"preset"} <= (names := {p["name"] for p in ctx.parameters_of(op)}) and "fields" not in names
    ]  # fmt: skip


def selection_evidence(ctx: Context) -> list[str]:
    """What the run held to judge field selection by (a report's ``evidence``): ``field_tests:KIND``
    for each kind of call, PRESET_PARAMETER where a READ operation documents `preset`."""
    kinds = {f"field_tests:{case.get('kind')}": None for case in ctx.bundle.cases("field_tests")}
    presets = any(p["name"] == "preset" for op in ctx.operations_in("READ") for p in ctx.parameters_of(op))
    return [*kinds, *([PRESET_PARAMETER] if presets else [])]
