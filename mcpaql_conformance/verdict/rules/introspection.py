"""The requirement registry: rules of one document (see model.py).

introspection.md is informative: its MUSTs judge as SHOULD unless a core rule or one of our
conformance tests makes them binding (``anchored_by``); where it restates or contradicts the
core spec, ``reading`` says so and the core wins."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    CLIENT,
    COMPLETENESS,
    DETAILS,
    MAY,
    MUST,
    MUST_NOT,
    NO_LEAKAGE,
    OPS_QUERY,
    REQUIRED_ENFORCED,
    SHOULD,
    SHOULD_NOT,
    Rule,
)

UNKNOWN_REJECTED = (
    "Core §4.6 makes rejection a MUST (VALIDATION_UNKNOWN_PARAM; a warning only with strict_mode off, "
    "core §4.6.2), where this section lets a server accept with a warning; the core wins: rejection is the rule, "
    "a warning instead of the refusal fails (only strict_mode off, in development, may warn)."
)

RULES: tuple[Rule, ...] = (
    # 3 Response structures
    Rule(
        "introspection:3.1:discriminated-union",
        MUST,
        "3.1",
        "standard MCP-AQL discriminated response format",
        "Every introspect answer is a {success, data} or {success, error} result.",
        tests=("L1.errors.discriminated-union", OPS_QUERY, "L1.introspection.types-query"),
        reading="Restates core §5.1 (every operation returns the discriminated union); same reading.",
        anchored_by="L1.errors.discriminated-union",
    ),
    Rule(
        "introspection:3.4.1:mask-sensitive",
        SHOULD,
        "3.4.1",
        "clients SHOULD mask input",
        "Clients hide what the user types for a parameter flagged sensitive.",
        not_judged="about the client",
        subject=CLIENT,
    ),
    # 4 Operation discovery
    Rule(
        "introspection:4.1:endpoint-family-name",
        SHOULD,
        "4.1",
        "lowercase endpoint-family name",
        "In the CRUDE profile an operation's endpoint reads create/read/update/delete/execute, not the tool name.",
        tests=(DETAILS,),
    ),
    Rule(
        "introspection:4.1.1:protocol-version",
        MUST,
        "4.1.1",
        "spec version (semver format)",
        "The operations list's _protocol metadata carries the spec version as a semantic version.",
        tests=(OPS_QUERY,),
        anchored_by=OPS_QUERY,
    ),
    Rule(
        "introspection:4.1.1:protocol-conformance",
        SHOULD,
        "4.1.1",
        "Conformance level",
        "The _protocol metadata states the conformance level (level-1 or level-2).",
        tests=(OPS_QUERY,),
    ),
    Rule(
        "introspection:4.1.1:protocol-mode",
        SHOULD,
        "4.1.1",
        "Endpoint mode",
        "The _protocol metadata states the endpoint mode (semantic, single or all).",
        tests=(OPS_QUERY,),
    ),
    Rule(
        "introspection:4.1.1:protocol-capabilities",
        MAY,
        "4.1.1",
        "Feature flags for optional capabilities",
        "The _protocol metadata is allowed to carry capability flags.",
        not_judged=A_MAY,
    ),
    Rule(
        "introspection:4.1.1:mode-semantic",
        SHOULD,
        "4.1.1",
        "current introspection metadata SHOULD report",
        "The CRUDE profile reports its mode as semantic, not the older crude.",
        tests=(OPS_QUERY,),
        reading="Agrees with core §3.3 and §10.1, where CRUDE is a profile of the semantic endpoint mode.",
    ),
    Rule(
        "introspection:4.1.1:query-language-metadata",
        MAY,
        "4.1.1",
        "expose richer query-language metadata",
        "Operation details are allowed to describe computed fields, aggregations and relationships.",
        not_judged=A_MAY,
    ),
    Rule(
        "introspection:4.3:unknown-operation-null",
        MUST,
        "4.3",
        "return a success response with null data",
        "Asking for the details of an operation that does not exist succeeds with a null operation.",
        tests=("L1.introspection.operation-details", "L1.introspection.types-query"),
        anchored_by="L1.introspection.operation-details",
        reading="The normative introspection schema (core Appendix D) answers a detail query with the details "
        "or null, and §8.1 item 9 lists null for an unknown operation or type among the MUSTs that "
        "conformance-testing §2.1 makes binding for Level 1; we judge it as a MUST, for types as for "
        "operations, as item 9 says.",
    ),
    # 5 Type discovery
    Rule(
        "introspection:5.3:protocol-types",
        SHOULD,
        "5.3",
        "include in their type registry",
        "The type list includes the protocol types (SemanticCategory, OperationResult and the others named here).",
        tests=("L1.introspection.types-query",),
        reading=(
            "Core §9.1 names two protocol types (SemanticCategory, OperationResult) where this section names six; "
            "the core wins: the test looks for those two, and for any protocol type an operation returns."
        ),
    ),
    # 6 Implementation guidance
    Rule(
        "introspection:6.1:single-source",
        SHOULD,
        "6.1",
        "single source of truth",
        "Operation definitions live in one place that introspection is derived from.",
        not_judged="not observable from evidence: how an adapter stores its definitions is internal",
    ),
    Rule(
        "introspection:6.3:utility-methods",
        MAY,
        "6.3",
        "provide utility methods",
        "An implementation is allowed to offer grouping and summary helpers for docs and tools.",
        not_judged=A_MAY,
    ),
    # 7 Token efficiency
    Rule(
        "introspection:7.3:caching",
        SHOULD,
        "7.3",
        "Implementations SHOULD",
        "Introspection answers are cached per session, stay the same within it and are dropped when it ends "
        "(judged: a list a batch asks for again is the list introspect gave first; how long a cache lives "
        "shows in no answer).",
        tests=(OPS_QUERY,),
    ),
    # 8.1 MUST requirements
    Rule(
        "introspection:8.1:must-list",
        MUST,
        "8.1",
        "Conforming implementations MUST",
        "The server implements introspect (READ) with operations and types queries, lists and details in the "
        "documented shapes, accurate parameters and null for unknown names (its _protocol item: "
        "introspection:8.1:protocol-object).",
        tests=(OPS_QUERY, "L1.introspection.types-query", DETAILS, COMPLETENESS),
        reading=(
            "Restates core §7.2 and §10.1 (introspect is mandatory; endpoint family and category are documented); "
            "type details and null for unknown names have no core rule."
        ),
        anchored_by=OPS_QUERY,
    ),
    Rule(
        "introspection:8.1:protocol-object",
        MUST,
        "8.1",
        "implementations MUST",
        "The operations list carries a _protocol object with at least the spec version.",
        tests=(OPS_QUERY,),
        reading="An informative MUST that no conformance test makes binding and the core does not ask (its "
        "§4.7.5 and §9.3.3 show _protocol as optional metadata), so a list without _protocol warns; once "
        "_protocol is there, a version that is no semantic version fails (introspection:4.1.1:protocol-version).",
    ),
    Rule(
        "introspection:8.1.1:accurate",
        MUST,
        "8.1.1",
        "accurately reflect the actual parameter names",
        "Introspection shows the parameter names, types and behaviour the server really accepts.",
        tests=(COMPLETENESS, REQUIRED_ENFORCED),
        anchored_by=COMPLETENESS,
    ),
    Rule(
        "introspection:8.1.1:names-match",
        MUST,
        "8.1.1",
        "Parameter names in introspection",
        "The documented parameter names are the ones the handler takes.",
        tests=(COMPLETENESS,),
        anchored_by=COMPLETENESS,
    ),
    Rule(
        "introspection:8.1.1:types-match",
        MUST,
        "8.1.1",
        "Parameter types in introspection",
        "The documented parameter types are the ones the handler takes.",
        tests=(COMPLETENESS,),
        anchored_by=COMPLETENESS,
    ),
    Rule(
        "introspection:8.1.1:required-match",
        MUST,
        "8.1.1",
        "Required/optional status in introspection",
        "A parameter documented as required really is required, and one documented optional really is optional.",
        tests=(REQUIRED_ENFORCED, COMPLETENESS),
        anchored_by=REQUIRED_ENFORCED,
    ),
    Rule(
        "introspection:8.1.2:complete",
        MUST,
        "8.1.2",
        "ensure introspection completeness",
        "Introspection documents every parameter of every operation.",
        tests=(COMPLETENESS,),
        anchored_by=COMPLETENESS,
    ),
    Rule(
        "introspection:8.1.2:accepted-documented",
        MUST,
        "8.1.2",
        "Every parameter accepted by the handler",
        "No parameter is accepted that introspection leaves out.",
        tests=(COMPLETENESS,),
        anchored_by=COMPLETENESS,
    ),
    Rule(
        "introspection:8.1.2:required-true",
        MUST,
        "8.1.2",
        "appear with required: true",
        "A parameter the handler needs is flagged required.",
        tests=(COMPLETENESS, REQUIRED_ENFORCED),
        anchored_by=COMPLETENESS,
    ),
    Rule(
        "introspection:8.1.2:optional-false",
        MUST,
        "8.1.2",
        "appear with required: false",
        "A parameter the handler can do without is flagged not required.",
        tests=(REQUIRED_ENFORCED,),
        anchored_by=REQUIRED_ENFORCED,
    ),
    Rule(
        "introspection:8.1.2:feature-parameters",
        MUST,
        "8.1.2",
        "Feature parameters",
        "Cross-cutting parameters such as fields, limit and offset are documented with their types.",
        tests=(COMPLETENESS, DETAILS),
        anchored_by=COMPLETENESS,
    ),
    Rule(
        "introspection:8.1.3:no-internals",
        MUST_NOT,
        "8.1.3",
        "expose internal implementation details",
        "Error answers show nothing of how the server is built.",
        tests=(NO_LEAKAGE,),
        anchored_by=NO_LEAKAGE,
    ),
    Rule(
        "introspection:8.1.3:no-language-errors",
        MUST_NOT,
        "8.1.3",
        "programming language error messages",
        "Error messages carry no raw runtime exception text.",
        tests=(NO_LEAKAGE,),
        anchored_by=NO_LEAKAGE,
    ),
    Rule(
        "introspection:8.1.3:no-stack-traces",
        MUST_NOT,
        "8.1.3",
        "include stack traces",
        "Error messages carry no stack trace.",
        tests=(NO_LEAKAGE,),
        anchored_by=NO_LEAKAGE,
    ),
    Rule(
        "introspection:8.1.3:no-class-names-paths",
        MUST_NOT,
        "8.1.3",
        "internal class/object names or file paths",
        "Error messages name no internal class, object or source file.",
        tests=(NO_LEAKAGE,),
        anchored_by=NO_LEAKAGE,
    ),
    # 8.2 SHOULD requirements
    Rule(
        "introspection:8.2:should-list",
        SHOULD,
        "8.2",
        "Conforming implementations SHOULD",
        "Introspection gives examples, parameter descriptions and defaults, each listed operation's family and "
        "category, the protocol types, and lists introspect itself; answers are cached.",
        tests=(OPS_QUERY, DETAILS),
    ),
    Rule(
        "introspection:8.2.1:explicit-unknown",
        SHOULD,
        "8.2.1",
        "handle unrecognized parameters explicitly",
        "An unknown parameter gets an error or a warning, never nothing.",
        tests=("L1.params.unknown-explicit",),
        reading=UNKNOWN_REJECTED,
    ),
    Rule(
        "introspection:8.2.1:not-silent",
        SHOULD_NOT,
        "8.2.1",
        "silently ignore parameters",
        "A parameter the server does not know is never dropped without a word.",
        tests=("L1.params.unknown-explicit",),
        reading=UNKNOWN_REJECTED,
    ),
    Rule(
        "introspection:8.2.2:constraints",
        SHOULD,
        "8.2.2",
        "document element-type-specific constraints",
        "Introspection discloses the constraints that hold for particular element types (judged on read-only "
        "fields, as introspection:8.2.2:read-only-append-only).",
        tests=("L2.constraints.documented",),
    ),
    Rule(
        "introspection:8.2.2:read-only-append-only",
        SHOULD,
        "8.2.2",
        "Read-only or append-only fields",
        "Fields that cannot be changed, or only added to, are marked so in introspection (judged on the constraint "
        "cases: a field capture found refused in `input` is flagged readOnly or described as read-only).",
        tests=("L2.constraints.documented",),
    ),
    Rule(
        "introspection:8.2.2:nesting",
        SHOULD,
        "8.2.2",
        "Required nesting",
        "Where a value must sit under a nested key, introspection says where (judged where a refusal says so, "
        '"must be in metadata.tags": introspection names the dotted path, or documents the key holding the value).',
        tests=("L2.constraints.documented",),
        reading=(
            "A nesting only the server knows shows where it says so: judged on every refusal the run recorded that "
            "tells where a value belongs; a run whose refusals name none is judged on none of it (SKIP)."
        ),
    ),
    Rule(
        "introspection:8.2.2:not-applicable",
        SHOULD,
        "8.2.2",
        "don't apply to certain element types",
        "Introspection notes the element types an operation does not serve (judged where a refusal says an "
        "operation does not apply to an element type: its details name that type in a sentence that limits it).",
        tests=("L2.constraints.documented",),
        reading=(
            "Which types an operation does not serve shows where the server says so: judged on every refusal the "
            "run recorded that says an operation does not apply to an element type; calling each operation with "
            "each type is not done (a write per type), and a run whose refusals name none is judged on none of it."
        ),
    ),
    Rule(
        "introspection:8.2.3:actionable",
        SHOULD,
        "8.2.3",
        "include actionable information",
        "An error says what went wrong, what to do, and which operation to use.",
        tests=("L1.errors.actionable", "L1.params.unknown-explicit"),
    ),
    Rule(
        "introspection:8.2.4:deprecation-notice",
        SHOULD,
        "8.2.4",
        "with a deprecation notice",
        "A deprecated parameter stays listed and is marked deprecated (judged on the parameters an answer warns "
        "are deprecated: capture keeps the answer to its call of every documented parameter where it warns so).",
        tests=(DETAILS,),
    ),
    Rule(
        "introspection:8.2.4:migration-guidance",
        SHOULD,
        "8.2.4",
        "include migration guidance",
        "A deprecated parameter's description says what to use instead (names another parameter, or says use or "
        "instead).",
        tests=(DETAILS,),
    ),
    # 8.3 MAY requirements
    Rule(
        "introspection:8.3:may-list",
        MAY,
        "8.3",
        "Conforming implementations MAY",
        "A server is allowed custom types, extra metadata, more query types, paged lists, doc helpers and field "
        "selection on introspection.",
        not_judged=A_MAY,
    ),
)
