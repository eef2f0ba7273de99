"""The requirement registry: rules of one document (see model.py).

endpoint-modes.md is informative: its MUSTs judge as SHOULD unless a core rule or one of our
conformance tests makes them binding (``anchored_by``); where it restates or contradicts the
core spec, ``reading`` says so and the core wins. A run sees the one configuration the server was
started with (§3.1 selects the mode by configuration); what only another configuration shows is
judged where capture started the server again under each (``--configurations``)."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    ABOUT_CLIENT,
    CLIENT,
    DETAILS,
    ENDPOINT_MODES,
    MAY,
    MUST,
    OPS_QUERY,
    SHOULD,
    UNKNOWN_EXPLICIT,
    Rule,
)

NO_ANNOTATIONS = (
    "needs evidence no bundle records yet: the tools' MCP annotations (capture keeps each tool's name, "
    "description and inputSchema only)"
)
STRING_ERROR = (
    "answers `error` as a bare string, where core §5.1 requires an error object {code, message}: the core wins "
    "(a string error fails L1.errors.discriminated-union)."
)


RULES: tuple[Rule, ...] = (
    # 3 Configuration
    Rule(
        "endpoint-modes:3.1:runtime-mode-selection",
        SHOULD,
        "3.1",
        "provide runtime configuration for endpoint mode",
        "The server lets its operator choose the endpoint mode (semantic, single or both) when starting it (judged "
        "with capture --configurations: started with MCP_AQL_ENDPOINT_MODE set to semantic, single, all and crude, "
        "and without it, it lists other tools for some value).",
        tests=(ENDPOINT_MODES,),
        reading=(
            "Judged on the variable §3.1 recommends (crude §4.3 names it too, with crude and single): the one "
            "configuration a tool can set without knowing the server; a server configured only otherwise warns."
        ),
    ),
    Rule(
        "endpoint-modes:3.2:default-crude",
        SHOULD,
        "3.2",
        "default to the standard CRUDE profile",
        "Started with no mode configuration, the server exposes the standard CRUDE profile (judged with capture "
        "--configurations: started with none of the MCP_AQL_ variables, it lists CRUDE tools only).",
        tests=(ENDPOINT_MODES,),
        reading=(
            '"No configuration" is read as none of the MCP_AQL_ variables set: capture changes only those, so a '
            "command that sets the mode by an option must be given without it."
        ),
    ),
    Rule(
        "endpoint-modes:3.3:more-config-methods",
        MAY,
        "3.3",
        "support additional configuration methods",
        "The server may also take its mode from configuration files, an API or environment defaults.",
        not_judged=A_MAY,
    ),
    Rule(
        "endpoint-modes:3.3:active-profile-introspected",
        SHOULD,
        "3.3",
        "document which profile is active",
        "A server with several semantic profiles says which one is active, also through introspection (judged "
        "where `_protocol.profiles` lists two or more: `_protocol.profile` names one of them).",
        tests=(ENDPOINT_MODES,),
    ),
    # 4 Semantic endpoint mode
    Rule(
        "endpoint-modes:4.2:client-selects-family",
        MUST,
        "4.2",
        "clients MUST select the correct endpoint family",
        "With the CRUDE profile a client sends each operation to the tool of its own endpoint.",
        not_judged=ABOUT_CLIENT,
        subject=CLIENT,
    ),
    Rule(
        "endpoint-modes:4.2:wrong-tool-rejected",
        MUST,
        "4.2",
        "the adapter MUST reject the request",
        "With the CRUDE profile the server refuses an operation sent to another endpoint's tool.",
        tests=(DETAILS,),
        reading="Restates core §6.2 and §10.1 (operations sent to a wrong endpoint are rejected). The §4.2 example "
        + STRING_ERROR,
        anchored_by=DETAILS,
    ),
    Rule(
        "endpoint-modes:4.4:alternate-profiles",
        MAY,
        "4.4",
        "define alternate semantic endpoint profiles",
        "A server may expose semantic families of its own instead of CRUDE where they show intent better.",
        not_judged=A_MAY,
        reading="Restates the core's Abstract (alternate semantic endpoint families are allowed); same reading.",
    ),
    Rule(
        "endpoint-modes:4.4:families-mix-categories",
        MAY,
        "4.4",
        "MAY mix multiple semantic categories",
        "One custom endpoint family may hold operations of several semantic categories.",
        not_judged=A_MAY,
    ),
    Rule(
        "endpoint-modes:4.4:one-category-each",
        MUST,
        "4.4",
        "exactly one standardized semantic category",
        "Each operation, whatever its family, declares exactly one of the five semantic categories in introspection.",
        tests=(DETAILS, OPS_QUERY),
        reading=(
            "Restates core §6.2 (exactly one standard semantic category) and §10.1 (documented via "
            "introspection); same reading."
        ),
        anchored_by=DETAILS,
    ),
    Rule(
        "endpoint-modes:4.5:client-chooses-family",
        MUST,
        "4.5",
        "clients MUST choose the correct exposed endpoint family",
        "In semantic mode a client sends each operation to the tool of its own family.",
        not_judged=ABOUT_CLIENT,
        subject=CLIENT,
    ),
    Rule(
        "endpoint-modes:4.5:wrong-family-rejected",
        MUST,
        "4.5",
        "reject operations sent to the wrong semantic",
        "In any semantic profile the server refuses an operation sent to another family's tool.",
        tests=(DETAILS,),
        reading="Restates core §6.2 and §10.1 (operations sent to a wrong endpoint are rejected). The §4.5 example "
        + STRING_ERROR,
        anchored_by=DETAILS,
    ),
    Rule(
        "endpoint-modes:4.6:route-validated",
        MUST,
        "4.6",
        "validate that operations are sent to their assigned",
        "In semantic mode the server checks that each request reached the operation's own endpoint family.",
        tests=(DETAILS,),
        reading="Restates core §3.2 (step 3) and §6.2 (routing is validated, a wrong endpoint refused); same reading.",
        anchored_by=DETAILS,
    ),
    Rule(
        "endpoint-modes:4.7:family-description",
        SHOULD,
        "4.7",
        "include a description listing",
        "Each family's tool description gives its purpose, usual categories, operations and quick-start examples.",
        tests=(DETAILS,),
        reading="Restates the description templates of mcp-integration §2.1.1 (judged there, part by part); "
        "same reading.",
    ),
    Rule(
        "endpoint-modes:4.7:intent-revealing-names",
        SHOULD,
        "4.7",
        "be action-oriented or otherwise intent-revealing",
        "Endpoint family names say what kind of action they hold, not an opaque domain bucket (we judge the "
        "one bucket a check can see: a family named after the resource its operations act on).",
        tests=(DETAILS,),
    ),
    # 5 Single mode
    Rule(
        "endpoint-modes:5.4:unified-description",
        SHOULD,
        "5.4",
        "The unified endpoint SHOULD provide",
        "The single tool's description outlines families or categories, points to introspection, shows quick starts.",
        tests=(DETAILS,),
    ),
    Rule(
        "endpoint-modes:5.5:unknown-operation-structured",
        SHOULD,
        "5.5",
        "return a structured error rather than",
        "An operation name the server does not know is refused with a structured error, never routed by guesswork.",
        tests=("L1.introspection.operation-details",),
        reading=(
            "§8.1 item 3 makes this a MUST; we take this SHOULD (the specific rule over the summary list; the core "
            "says nothing of unknown operations). The example's VALIDATION_UNKNOWN_OPERATION is in no registry "
            "(error-codes §4.1 and mcp §4.1.2 name NOT_FOUND_OPERATION): either code is read as structured."
        ),
    ),
    # 6 Security considerations
    Rule(
        "endpoint-modes:6.4:common-enforcement",
        MUST,
        "6.4",
        "All modes MUST",
        "In every mode the server validates parameters, applies one permission model and its safety tiers, and "
        "confirms destructive operations where it implements confirmation.",
        tests=("L1.params.required-enforced", UNKNOWN_EXPLICIT),
        reading=(
            "Item 1 restates core §4.6 (undefined parameters are rejected); the other items have no core rule "
            "across modes."
        ),
        anchored_by=UNKNOWN_EXPLICIT,
    ),
    # 7 Tool registration
    Rule(
        "endpoint-modes:7.1:tool-annotations",
        SHOULD,
        "7.1",
        "include MCP tool annotations",
        "Each endpoint tool carries MCP annotations hinting at how safe its operations are.",
        tests=(DETAILS,),
    ),
    Rule(
        "endpoint-modes:7.1:conservative-annotations",
        SHOULD,
        "7.1",
        "set annotations conservatively",
        "A family's annotations match the riskiest operation it exposes.",
        tests=(DETAILS,),
    ),
    Rule(
        "endpoint-modes:7.2:extend-input-schema",
        MAY,
        "7.2",
        "extend this schema with additional common properties",
        "An endpoint's input schema may add shared top-level properties such as resource_type, fields or _meta.",
        not_judged=A_MAY,
    ),
    # 8 Conformance requirements
    Rule(
        "endpoint-modes:8.1:conformance-musts",
        MUST,
        "8.1",
        "Conforming implementations MUST",
        "A conforming server offers a mode, enforces semantic routing, refuses unknown operations properly, routes "
        "single-mode calls and enforces permissions alike in every mode.",
        tests=(OPS_QUERY, DETAILS),
        reading=(
            "Items 1-2 restate core §3.3, §6.2 and §10.1; same reading. Item 3 says MUST where §5.5 says SHOULD: "
            "we take §5.5's SHOULD (the specific rule; the core says nothing of unknown operations)."
        ),
        anchored_by=DETAILS,
    ),
    Rule(
        "endpoint-modes:8.2:conformance-shoulds",
        SHOULD,
        "8.2",
        "Conforming implementations SHOULD",
        "A conforming server offers both modes, runtime mode selection, tool annotations, guiding error messages "
        "and its operation-to-family map in introspection.",
        tests=("L2.features.endpoint-modes", "L1.errors.actionable", DETAILS),
        reading=(
            "Item 1 restates core §3.3 (SHOULD support both), which core §10.1 makes a MUST for Level 2; item 5 is "
            "a Level 1 MUST in core §10.1: the core wins (L1.introspection.operation-details fails it). §3.1 "
            "selects the mode by configuration and a run sees one, so L2.features.endpoint-modes credits both "
            "modes only when one configuration exposes both (`all`)."
        ),
    ),
    Rule(
        "endpoint-modes:8.3:conformance-mays",
        MAY,
        "8.3",
        "Conforming implementations MAY",
        "A server may offer the `all` mode, per-endpoint access control, mode-specific audit logs, switching modes "
        "without restart and its own endpoint names.",
        not_judged=A_MAY,
    ),
)
