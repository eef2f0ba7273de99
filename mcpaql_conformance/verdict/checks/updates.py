"""The UPDATE input pattern (core §4.5): what introspection documents and how the server answers.

- An UPDATE operation takes the fields it changes in a nested ``input`` object within ``params``
  (core §4.5): its details document an ``input`` parameter of type object.
- An UPDATE request without ``input`` is refused with ``VALIDATION_MISSING_PARAM`` (core §4.5.3
  item 1); one that carries an identifier inside ``input`` is refused (item 5). Capture sends
  these only where UPDATE operations may be called (``--allow-destructive``) and records them in
  ``update_input_tests``.
"""

from __future__ import annotations

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.identifiers import named_identifier
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.named import NamedTypes
from mcpaql_conformance.evidence.where import update_input_label
from mcpaql_conformance.files import vocabulary
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

UPDATE_INPUT = "core:4.5:update-input"
IDENTIFIERS_IN_PARAMS = "core:4.5:identifiers-in-params"
MISSING_INPUT = "core:4.5.3:missing-input-rejected"
IDENTIFIER_IN_INPUT = "core:4.5.3:no-identifier-in-input"
MISSING_PARAM_CODE = "VALIDATION_MISSING_PARAM"
OBJECT_TYPES = frozenset({"object", "dict", "map", "record", "json"})


def update_input_documentation(details: list[JsonObject], named: NamedTypes) -> tuple[list[str], list[str]]:
    """(failures, warnings): an UPDATE operation whose details document no ``input`` object
    (valid details only). A named type is what its TypeDetails say (``ItemUpdateInput``, listed
    as an object, is one); a name the server describes nowhere cannot be shown to be one."""
    failures: list[str] = []
    warnings: list[str] = []
    for detail in details:
        if detail.get("semantic_category") != "UPDATE":
            continue
        name = plain(detail["name"])
        parameter = next((p for p in detail["parameters"] if p.get("name") == "input"), None)
        if parameter is not None and len(detail["parameters"]) == 1:
            failures += _locator_inside(name, parameter)
        if parameter is None:
            changed = [plain(p["name"]) for p in detail["parameters"] if p.get("required") is not True][:4]
            said = f" (its fields are flat in params: {', '.join(changed)})" if changed else ""
            failures.append(cite(UPDATE_INPUT, f"{name}: an UPDATE operation documents no `input` object{said}"))
        elif str(parameter.get("type", "")).strip().lower() not in OBJECT_TYPES:
            written = plain(str(parameter.get("type")), max_len=80)
            is_object = named.is_object(parameter)
            if is_object is None:
                text = f"{name}: `input` is documented as {written!r}, a type the server does not describe"
                warnings.append(cite(UPDATE_INPUT, f"{text}: not shown to be an object (list it in introspect types)"))
            elif not is_object:
                kind = named.kind(parameter.get("type"))
                said = f"{written!r}, a type of kind {kind}" if kind else repr(written)
                failures.append(cite(UPDATE_INPUT, f"{name}: `input` is documented as {said}, not an object"))
    return failures, warnings


def _locator_inside(name: str, parameter: JsonObject) -> list[str]:
    """core §4.5: what locates the resource stays in params. An UPDATE whose only parameter is
    `input`, documenting an identifier among its fields, locates the resource from inside it."""
    fields = parameter.get("fields")
    names = [f.get("name") for f in fields if isinstance(f, dict)] if isinstance(fields, list) else []
    inside = [plain(field) for field in names if isinstance(field, str) and named_identifier(field)]
    if not inside:
        return []
    text = f"{name}: the resource is located by {', '.join(inside[:3])} inside `input`, not by a parameter in params"
    return [cite(IDENTIFIERS_IN_PARAMS, text)]


def update_input_findings(ctx: Context) -> tuple[list[str], list[str], int]:
    """(failures, warnings, judged) of the UPDATE calls capture sent without ``input`` or with an
    identifier inside it."""
    failures: list[str] = []
    warnings: list[str] = []
    cases = ctx.bundle.cases("update_input_tests")
    for case in cases:
        rule, code = _EXPECTED.get(str(case.get("kind")), _EXPECTED[vocabulary.IDENTIFIER_IN_INPUT])
        label = update_input_label(case)
        answer = classify(case.get("response"))
        if answer.refused and (code is None or answer.code == code) and not answer.unrelated:
            continue
        if answer.refused and answer.unrelated:
            warnings.append(cite(rule, f"{label}: not shown: refused for another reason ({answer.describe()})"))
        elif answer.refused:
            found = f"error code {answer.code}" if answer.code else f"no error code ({answer.describe()})"
            failures.append(cite(rule, f"{label}: refused with {found}, not {code}"))
        elif answer.succeeded:
            failures.append(cite(rule, f"{label}: the update succeeded"))
        else:
            failures.append(cite(rule, f"{label}: not refused as core §4.5.3 requires ({answer.describe()})"))
    return failures, warnings, len(cases)


# Per kind of update_input_tests case: the rule of core §4.5.3 it shows, and the code the refusal
# must carry (None: any refusal).
_EXPECTED: dict[str, tuple[str, str | None]] = {
    vocabulary.MISSING_INPUT: (MISSING_INPUT, MISSING_PARAM_CODE),
    vocabulary.IDENTIFIER_IN_INPUT: (IDENTIFIER_IN_INPUT, None),
    vocabulary.INPUT_NOT_OBJECT: ("core:4.5.3:input-object", None),
    vocabulary.INPUT_WRONG_TYPE: ("core:4.5.3:input-fields-validated", None),
    vocabulary.INPUT_UNKNOWN_FIELD: ("core:4.5.3:unknown-field", "VALIDATION_UNKNOWN_FIELD"),
}
