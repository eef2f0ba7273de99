"""The requirement registry: rules of one document (see model.py).

error-codes.md is informative: its MUSTs judge as SHOULD unless a core rule or one of our
conformance tests makes them binding (``anchored_by``); where it restates or contradicts the
core spec, ``reading`` says so and the core wins."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    ACTIONABLE,
    CLIENT,
    MAY,
    MUST,
    SHOULD,
    UNION,
    UNSEEN,
    Rule,
)

TEMPLATES_NOT_CORE = (
    "the spec says otherwise in core §4.6 and §5.3: their example messages word the unknown-parameter and "
    "missing-parameter errors otherwise than these templates"
)
TEMPLATES_READING = (
    "Core §4.6 ('Unknown parameter ... for operation ...') and §5.3 (a missing-parameter message with the "
    "operation appended) depart from the §4.3/§4.5 templates, and the core sets no wording; the core wins: "
    "message wording is advice, judged only for naming what went wrong (L1.errors.actionable)."
)

RULES: tuple[Rule, ...] = (
    # 1.4 Error format
    Rule(
        "error-codes:1.4:structured-error-objects",
        MUST,
        "1.4",
        "use structured error objects",
        "A failure answers an error object with a code and a message.",
        tests=(UNION,),
        reading="Restates core §5.1 (ErrorDetail has code and message); same reading.",
        anchored_by=UNION,
    ),
    Rule(
        "error-codes:1.4:optional-details",
        MAY,
        "1.4",
        "optional details field",
        "An error object is allowed to add a details object with context.",
        not_judged=A_MAY,
        reading="Restates core §5.1 (details is optional); same reading.",
    ),
    # 4.2 Message template conventions
    Rule(
        "error-codes:4.2:follow-templates",
        SHOULD,
        "4.2",
        "message format template",
        "Error messages follow the message template given for their code.",
        not_judged=TEMPLATES_NOT_CORE,
        reading=TEMPLATES_READING,
    ),
    Rule(
        "error-codes:4.2:quote-dynamic-values",
        MUST,
        "4.2",
        "wrapped in single quotes",
        "Values put into a message (a parameter name, an id) stand in single quotes.",
        not_judged=(
            "the spec says otherwise in error-codes §4.5 and §4.7: their own templates leave {param_list}, "
            "{limit_type} and {limit_value} unquoted"
        ),
        reading=(
            "This document's specific templates (§4.5, §4.7, also §5.3's danger level) leave values unquoted; the "
            "specific templates over the general convention: quoting is not required."
        ),
    ),
    Rule(
        "error-codes:4.2:prefix-matches-category",
        MUST,
        "4.2",
        "message prefix MUST match the error category",
        "A message opens in the terms of its code's category (validation, what was not found...).",
        not_judged=(
            "the spec says otherwise in error-codes §5.2-5.4: PERMISSION_ templates open with 'Operation ...' and "
            "CONFIRMATION_REQUIRED (a Permission code) with 'This operation requires confirmation'"
        ),
        reading=(
            "This document's own Permission templates (§5.2-5.4) do not open with a permission context; the "
            "specific templates over the general convention: message prefixes are not judged."
        ),
    ),
    Rule(
        "error-codes:4.2:substitute-upstream-message",
        MAY,
        "4.2",
        "substitute the target API's error message",
        "An adapter is allowed to pass on the target API's own message when it says more.",
        not_judged=A_MAY,
    ),
    Rule(
        "error-codes:4.2:prefer-templates",
        SHOULD,
        "4.2",
        "prefer the template format",
        "Even so, the code's message template is the first choice.",
        not_judged=TEMPLATES_NOT_CORE,
        reading=TEMPLATES_READING,
    ),
    # 4.5 VALIDATION_UNKNOWN_PARAM
    Rule(
        "error-codes:4.5:several-unknown-parameters",
        SHOULD,
        "4.5",
        "multiple unknown parameters are detected",
        "With several unknown parameters the message names them all, or the first with a count of the rest.",
        tests=(ACTIONABLE,),
        reading=(
            "Core §4.6's example names one of two unknown parameters with no count; that is an example, not a rule, "
            "and the core has none on this: the advice here stands (a SHOULD)."
        ),
    ),
    Rule(
        "error-codes:4.5:http-400-422",
        SHOULD,
        "4.5",
        "map to HTTP 400",
        "Over HTTP an unknown-parameter error goes with status 400 or 422.",
        not_judged="not observable from evidence: answers over MCP carry no HTTP status",
    ),
    # 6.2 Mapping algorithm
    Rule(
        "error-codes:6.2:read-upstream-body",
        SHOULD,
        "6.2",
        "examine the target API's response body",
        "An adapter reads the target API's error body to pick the precise validation code.",
        not_judged=UNSEEN + "the target API's status and body stay between it and the adapter: no answer shows "
        "what the adapter read of them",
    ),
    # 7 Implementation requirements
    Rule(
        "error-codes:7.1:must-list",
        MUST,
        "7.1",
        "Implementations MUST",
        "Every failure is a structured error with a code from the registry and a readable message.",
        tests=(UNION, "L1.params.required-enforced", "L1.errors.actionable"),
        reading=(
            "Restates core §5.1 for structure, code and message; its 'codes from the MVP registry' contradicts core "
            "§4.5.3 (VALIDATION_UNKNOWN_FIELD), §9.3.2 (CONFLICT_VERSION_MISMATCH) and §10.3 (extensions): the core "
            "wins, any code of the documented form is accepted."
        ),
        anchored_by=UNION,
    ),
    Rule(
        "error-codes:7.1:should-list",
        SHOULD,
        "7.1",
        "Implementations SHOULD",
        "Errors add details with context, keep the upstream message, and are logged in full.",
        not_judged=(
            'the spec says otherwise in error-codes §1 and core §5.1: `details` is optional there ("MAY provide '
            "additional context\"; `details?`), and the spec's reference bundles of conformant servers answer "
            "errors without it"
        ),
        reading=(
            "Read at the strength of §1 and the core: an error without `details` is allowed. Its other two points, "
            "upstream messages kept and full context logged, happen inside the adapter: not observable."
        ),
    ),
    Rule(
        "error-codes:7.2:client-handling",
        SHOULD,
        "7.2",
        "Client implementations SHOULD",
        "Clients check success first, act on the code and show the message.",
        not_judged="about the client",
        subject=CLIENT,
    ),
)
