"""What capture's field-selection calls show (field_tests), and how a `preset` parameter is
documented: each standard preset taken as `fields` (features/field-selection §3.1), a field name
no server has refused rather than ignored (§5.2 item 4), and a `preset` parameter kept only as an
alias beside `fields` (collection-querying §2.4, field-selection §5.2 item 5). SHOULDs: warnings.
A refusal that names another parameter is about a value of ours, and shows nothing."""

from __future__ import annotations

from mcpaql_conformance.evidence.answers import Answer
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.vocabulary import (
    COMPUTED,
    COMPUTED_ANSWERED,
    COMPUTED_FILTER,
    COMPUTED_SORT,
    PRESET_PARAMETER,
    STANDARD_PRESETS,
    UNKNOWN_FIELD_NAME,
)
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import calls_of, cite, kinds_held

PRESETS = "features/field-selection:3.1:standard-presets"
FIELD_NAMES_CHECKED = "features/field-selection:5.2:should-list"
PRESET_ALIAS = "features/collection-querying:2.4:preset-alias-only"
COMPUTED_OBJECT = "features/field-selection:4.4:computed-object"
COMPUTED_PREFIX = "features/collection-querying:2.4:computed-prefix"
COMPUTED_REFUSED = "features/computed-fields:3:reject-unsupported"
COMPUTED_LISTED_RULE = "features/computed-fields:4:advertise"


def field_test_findings(ctx: Context) -> list[str]:
    """A standard preset refused, or a field name no server has answered with success."""
    findings: list[str] = []
    for case, name, kind, _, answer in calls_of(ctx, "field_tests"):
        if kind in STANDARD_PRESETS and answer.refused and not answer.unrelated:
            findings.append(cite(PRESETS, f"{name} refused the standard preset fields {kind!r}: {answer.describe()}"))
        elif kind == UNKNOWN_FIELD_NAME and answer.succeeded:
            text = f"{name} answered fields naming a field it does not have with success, not refusing the name"
            findings.append(cite(FIELD_NAMES_CHECKED, text))
        elif kind == COMPUTED:
            findings += _computed(name, case, answer)
        elif kind in (COMPUTED_SORT, COMPUTED_FILTER) and answer.succeeded:
            what = "a sort" if kind == COMPUTED_SORT else "a filter"
            findings.append(cite(COMPUTED_REFUSED, f"{name} answered {what} on a computed field its details say it "
                                 "cannot take with success, not refusing it"))  # fmt: skip
    return findings


def _computed(name: str, case: JsonObject, answer: Answer) -> list[str]:
    """`fields` naming a computed field the details list: taken (collection-querying §2.4), and its
    value answered inside `_computed` (field-selection §4.4)."""
    request = case.get("request")
    sent = request.get("fields") if isinstance(request, dict) else None
    asked = next((path for path in sent if isinstance(path, str)), "_computed.?") if isinstance(sent, list) else "?"
    if answer.refused and not answer.unrelated:
        return [cite(COMPUTED_PREFIX, f"{name} refused fields naming {plain(asked, max_len=60)}, a computed field its "
                     f"details list: {answer.describe()}")]  # fmt: skip
    data = case["response"].get("data") if answer.succeeded and isinstance(case.get("response"), dict) else None
    items = data.get("items") if isinstance(data, dict) else None
    shown = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else data
    if not isinstance(shown, dict) or (isinstance(items, list) and not items):
        return []
    inside = shown.get("_computed")
    if isinstance(inside, dict) and asked.removeprefix("_computed.") in inside:  # json: a key of the answer
        return []
    return [cite(COMPUTED_OBJECT, f"{name} answered fields naming {plain(asked, max_len=60)} without a `_computed` "
                 "object holding it")]  # fmt: skip


def computed_documentation_findings(ctx: Context) -> list[str]:
    """features/computed-fields §4: a computed value an operation answers (a key of a `_computed`
    object) is one its details list in computed_fields."""
    findings: list[str] = []
    for op, answered in sorted(ctx.computed.items()):
        listed = (ctx.details_by_name.get(op) or {}).get("computed_fields")
        names = {str(e.get("name")) for e in listed if isinstance(e, dict)} if isinstance(listed, list) else set()
        unlisted = sorted(answered - names)
        if unlisted:
            text = (f"{plain(op, max_len=80)} answers computed value(s) {plain(', '.join(unlisted[:5]), max_len=120)} "
                    "its details do not list in computed_fields")  # fmt: skip
            findings.append(cite(COMPUTED_LISTED_RULE, text))
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
    kinds = kinds_held(ctx, "field_tests")
    presets = any(p["name"] == "preset" for op in ctx.operations_in("READ") for p in ctx.parameters_of(op))
    computed = bool(ctx.computed)
    return [*kinds, *([PRESET_PARAMETER] if presets else []), *([COMPUTED_ANSWERED] if computed else [])]
