"""The requirement registry: rules of one document (see model.py).

The core specification (v1.0.0-draft, normative) outside section 8: Abstract, Status of This
Document, sections 1-7, 9 and 10. Section 8 is in core_execution.py."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    ABOUT_CLIENT,
    ACTIONABLE,
    BATCH,
    CLIENT,
    COMPLETENESS,
    CONSTRAINTS_DOCUMENTED,
    CONSTRAINTS_ENFORCED,
    CREATE_READ,
    DEFAULTS,
    DEFINITION,
    DETAILS,
    ENDPOINT_MODES,
    FIELD_SELECTION,
    MAY,
    MUST,
    MUST_NOT,
    NO_LEAKAGE,
    NOT_A_REQUIREMENT,
    OPS_QUERY,
    REQUIRED_ENFORCED,
    SEMANTIC,
    SHOULD,
    SNAKE_CASE,
    TYPES_QUERY,
    UNION,
    UNKNOWN_EXPLICIT,
    UNSEEN,
    UPDATE_PRESERVATION,
    Rule,
)

# Our tests (verdict/checks).
LEVEL1_CORE = (OPS_QUERY, TYPES_QUERY, DETAILS, UNION)  # the tests of the six Level 1 items of §10.1
SUITE = (
    OPS_QUERY, TYPES_QUERY, DETAILS, COMPLETENESS, REQUIRED_ENFORCED, UNKNOWN_EXPLICIT, DEFAULTS, SNAKE_CASE, UNION,
    NO_LEAKAGE, ACTIONABLE, CREATE_READ, UPDATE_PRESERVATION, ENDPOINT_MODES, FIELD_SELECTION, BATCH,
    CONSTRAINTS_ENFORCED, CONSTRAINTS_DOCUMENTED, SEMANTIC,
)  # fmt: skip

# Why a rule is not judged, followed by a specific tail.
MAY_BECAUSE = A_MAY + ": "
UNPLACED = "the spec does not say where this is documented, so introspection's silence shows nothing"

# Readings where another sentence of the spec says otherwise.
UNKNOWN_READING = (
    "conformance-testing §3.2 passes a server that accepts an unknown parameter with a warning; the core wins "
    "(a refusal with VALIDATION_UNKNOWN_PARAM, a warning only with strict_mode disabled per §4.6.2, development "
    "only): our test fails a warning instead of a refusal and a refusal with another code"
)
INPUT_READING = (
    "core §9.3.2's conditional-update example sends `title` beside `id` without `input`; we take §4.5 "
    "(the specific rule over the example)"
)
ENCODING_READING = (
    "the bytes are what is invalid: a request whose JSON text holds an overlong encoding (bytes C0 AF) is the one "
    "sent, since a JSON escape of a lone surrogate is valid UTF-8 text. Such a request is not JSON text either "
    "(RFC 8259 §8.1), so a JSON-RPC parse error (-32700) or invalid-request error (-32600, -32602) from the MCP "
    "layer, before the adapter sees it, counts as the refusal; an MCP-AQL refusal with another code, a success, or "
    "no answer at all (a server that ends the session) fails"
)
BASE64_READING = (
    "binary data is what an answer marks so, by a field holding `base64` beside it (`X_encoding` and `X_content`, "
    "as the section's example has them): nothing else says a string is binary, so unmarked data is not judged; the "
    "marker itself is the metadata the sentence asks for, a media type beside it is not required"
)
MODES_READING = (
    "conformance-testing §2.2 asks for the `crude` semantic mode; we take the core (§10.1, Abstract): any semantic "
    "endpoint family counts, and our test accepts a declared custom family"
)

RULES: tuple[Rule, ...] = (
    # Abstract, Status of This Document
    Rule("core:abstract:alternate-families", MAY, "Abstract", "MAY also define alternate semantic endpoint families",
         "An adapter may offer semantic endpoint families of its own instead of the CRUDE profile.",
         not_judged=MAY_BECAUSE + "a custom family passes when the bundle declares it"),
    Rule("core:status-of-this-document:authoritative", MUST, "Status of This Document",
         "in this document are authoritative",
         "The keyword requirements of this document are the authoritative ones; informative documents yield to it.",
         not_judged=NOT_A_REQUIREMENT, subject=DEFINITION),
    # 2 Terminology
    Rule("core:2.2:rfc-2119", MUST, "2.2", "are to be interpreted as described",
         "The requirement keywords carry their RFC 2119 meanings.",
         not_judged=NOT_A_REQUIREMENT, subject=DEFINITION),
    Rule("core:2.3.3:session-state-ends", MUST_NOT, "2.3.3", "MUST NOT survive session termination",
         "Confirmation tokens, cached introspection, in-progress execution context and warning de-duplication "
         "end with the session. (Judged on a step, on a second connection, of an execution the first left running; "
         "confirmation tokens and caches the run does not hold.)",
         tests=(COMPLETENESS,)),
    Rule("core:2.3.3:tokens-may-persist", MAY, "2.3.3", "MAY explicitly persist tokens across sessions",
         "An adapter may choose to keep confirmation tokens valid from one session to the next.",
         not_judged=MAY_BECAUSE + "tokens may be session-bound or persisted"),
    Rule("core:2.3.3:invalidate-on-end", MUST, "2.3.3", "MUST invalidate all session-scoped state",
         "When a session ends, cleanly or by a dropped transport, the adapter discards all its session-scoped state. "
         "(Judged as core:2.3.3:session-state-ends is: capture's second connection opens once the first closed.)",
         tests=(COMPLETENESS,)),
    Rule("core:2.3.3:executions-end", SHOULD, "2.3.3", "SHOULD transition to failed or cancelled",
         "An execution still running when its session ends moves to failed or cancelled. (Judged where the answer to "
         "that step says the execution's state.)",
         tests=(COMPLETENESS,)),
    Rule("core:2.3.4:may-persist", MAY, "2.3.4", "MAY persist across sessions",
         "Configuration, stored resources, audit logs and finished execution results may outlive a session.",
         not_judged=MAY_BECAUSE + "such data may be kept or not"),
    Rule("core:2.3.5:may-track", MAY, "2.3.5", "MAY track sessions using",
         "An adapter may tell sessions apart by connection id, its own session id or a client's _meta label.",
         not_judged=MAY_BECAUSE + "session tracking is optional"),
    Rule("core:2.3.5:meta-labels-only", MUST, "2.3.5", "treated as labels for logging purposes",
         "What a client puts in _meta is used only to label logs.",
         not_judged=UNSEEN + "what the adapter does internally with _meta values is not in its answers"),
    Rule("core:2.3.5:meta-not-identity", MUST_NOT, "2.3.5", "MUST NOT use client-provided values",
         "A session identity claimed by the client never decides token validation or access. (Judged on a step, on "
         "a second connection, of the execution the first left running, sent with _meta claiming the first session's "
         "id, where introspection reported it: refused without the claim, it is refused with it.)",
         tests=(COMPLETENESS,)),
    Rule("core:2.3.5:session-id-reported", SHOULD, "2.3.5", "included in audit logs and error responses",
         "Audit log entries and error answers carry the session identifier. (Judged on the error answers of a "
         "server whose _protocol reports a session_id; audit logs are not observable.)",
         tests=(ACTIONABLE,)),
    Rule("core:2.3.5:own-session-id", SHOULD, "2.3.5", "SHOULD generate their own identifier",
         "An adapter that tracks sessions makes its own id at initialize and shows it in introspection's _protocol.",
         not_judged=UNSEEN + "whether an adapter tracks sessions is internal, so a _protocol without an id shows "
         "nothing"),
    # 3 Protocol Overview
    Rule("core:3.3:one-mode", MUST, "3.3", "MUST support at least one mode",
         "The server offers the semantic endpoint mode, the single mode, or both.",
         tests=(OPS_QUERY, DETAILS)),
    Rule("core:3.3:both-modes", SHOULD, "3.3", "Implementations SHOULD support both",
         "The server offers both the semantic endpoint mode and the single mode.",
         tests=(ENDPOINT_MODES,)),
    # 4 Request Format
    Rule("core:4.2:multiple-levels", MAY, "4.2", "MAY appear at multiple levels",
         "A parameter may be given inside params or at the top level of the request, params taking precedence.",
         not_judged=MAY_BECAUSE + "top-level resolution is optional (§4.6.1 speaks of it as enabled or not)"),
    Rule("core:4.3:snake-case", MUST, "4.3", "MUST use snake_case naming",
         "Every public parameter name is snake_case.",
         tests=(SNAKE_CASE,),
         reading="core §8.6.3 itself names record_execution_step's nextActionHint and stepDescription in "
         "camelCase: we take the spec's own names there, and ask snake_case of every other parameter."),
    Rule("core:4.5:update-input", MUST, "4.5", "use a nested input object within params",
         "An UPDATE operation takes the fields it changes inside an `input` object in params.",
         tests=(DETAILS,), reading=INPUT_READING),
    Rule("core:4.5:identifiers-in-params", MUST, "4.5", "MUST remain at the params level",
         "The parameters that locate the resource of an UPDATE stay directly in params.",
         tests=(DETAILS,)),
    Rule("core:4.5.1:deep-merge", MUST, "4.5.1", "MUST apply deep-merge semantics",
         "An UPDATE merges `input` into the resource: fields named replace, nested objects merge, arrays replace, "
         "null removes, the rest stays.",
         tests=(UPDATE_PRESERVATION,)),
    Rule("core:4.5.1:merge-result", MUST, "4.5.1", "The resulting state MUST be",
         "The worked example's update leaves the nested sibling key untouched and the array replaced whole. (Judged "
         "on an array of strings the update cycle's record kept, sent as one new element: the read gives that "
         "alone; nested objects stay with core:4.5.1:deep-merge's preserved fields.)",
         tests=(UPDATE_PRESERVATION,)),
    Rule("core:4.5.2:null-removes", MUST, "4.5.2", "clients MUST set its value to null",
         "A client removes a field by sending it as null in `input`.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule("core:4.5.3:validate-input", MUST, "4.5.3", "MUST validate the input object",
         "The adapter checks an UPDATE's `input` against the rules listed under it.",
         tests=(REQUIRED_ENFORCED,)),
    Rule("core:4.5.3:input-present", MUST, "4.5.3", "The input field MUST be present",
         "A request to an UPDATE operation carries `input`.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule("core:4.5.3:missing-input-rejected", MUST, "4.5.3", "reject requests missing input",
         "An UPDATE without `input` is refused with VALIDATION_MISSING_PARAM.",
         tests=(REQUIRED_ENFORCED,)),
    Rule("core:4.5.3:input-object", MUST, "4.5.3", "MUST be an object when present",
         "An `input` that is not an object is refused.",
         tests=(REQUIRED_ENFORCED,)),
    Rule("core:4.5.3:input-fields-validated", MUST, "4.5.3", "validated against the resource schema",
         "Each field in `input` is checked against the resource's schema.",
         tests=(REQUIRED_ENFORCED,)),
    Rule("core:4.5.3:unknown-field", SHOULD, "4.5.3", "Unknown fields within input SHOULD",
         "A field in `input` that the resource lacks is refused with VALIDATION_UNKNOWN_FIELD.",
         tests=(REQUIRED_ENFORCED,)),
    Rule("core:4.5.3:no-identifier-in-input", MUST_NOT, "4.5.3", "Identifier parameters MUST NOT appear",
         "The identifiers of an UPDATE are never inside `input`; one found there is refused.",
         tests=(REQUIRED_ENFORCED,)),
    Rule("core:4.6:unknown-rejected", MUST, "4.6", "reject requests containing parameters not defined",
         "A request carrying a parameter the operation does not define is refused.",
         tests=(UNKNOWN_EXPLICIT,), reading=UNKNOWN_READING),
    Rule("core:4.6:unknown-param-code", MUST, "4.6", "MUST return a VALIDATION_UNKNOWN_PARAM error",
         "The refusal of an unknown parameter has the code VALIDATION_UNKNOWN_PARAM.",
         tests=(UNKNOWN_EXPLICIT,), reading=UNKNOWN_READING),
    Rule("core:4.6.2:strict-mode-option", MAY, "4.6.2", "MAY implement a strict_mode configuration option",
         "An adapter may have a strict_mode setting.",
         not_judged=MAY_BECAUSE + "the setting is optional and not introspectable"),
    Rule("core:4.6.2:lenient-warnings", MAY, "4.6.2", "MAY log warnings for unknown parameters",
         "With strict_mode off, in development, an adapter may warn about unknown parameters instead of refusing.",
         not_judged=MAY_BECAUSE + "only with strict_mode disabled"),
    Rule("core:4.6.2:default-rejects", MUST, "4.6.2", "the default behavior MUST be rejection",
         "Unless strict_mode is explicitly disabled, unknown parameters are refused.",
         tests=(UNKNOWN_EXPLICIT,), reading=UNKNOWN_READING),
    Rule("core:4.6.2:clients-assume-strict", SHOULD, "4.6.2", "assume strict validation is enabled",
         "Clients count on unknown parameters being refused, never on leniency.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule("core:4.7.1:utf-8", MUST, "4.7.1", "text MUST be encoded as UTF-8",
         "All text exchanged is UTF-8 (judged on every message the server sends, each decoded strictly once as "
         "capture reads it: a stdout line, an HTTP answer's body).",
         tests=(UNION,)),
    Rule("core:4.7.1:invalid-utf-8", MUST, "4.7.1", "reject requests containing invalid UTF-8",
         "A request with malformed UTF-8 is refused with VALIDATION_INVALID_ENCODING (judged on introspect sent "
         "with an overlong encoding in a string, capture's last call).",
         tests=(COMPLETENESS,), reading=ENCODING_READING),
    Rule("core:4.7.1:null-bytes", SHOULD, "4.7.1", "reject strings containing null bytes",
         "A string holding U+0000 is refused unless the parameter is documented to allow it.",
         tests=(COMPLETENESS,)),
    Rule("core:4.7.2:iso-8601", MUST, "4.7.2", "Dates and timestamps MUST use",
         "Dates and timestamps are written in ISO 8601.",
         tests=(COMPLETENESS,)),
    Rule("core:4.7.2:utc", SHOULD, "4.7.2", "use UTC (Z suffix) for timestamps",
         "Timestamps in answers are given in UTC with the Z suffix.",
         tests=(COMPLETENESS,)),
    Rule("core:4.7.2:timezone-documented", MUST, "4.7.2", "document timezone handling for date-only values",
         "The adapter documents how it treats time zones for dates without a time.",
         not_judged=UNSEEN + UNPLACED),
    Rule("core:4.7.3:big-numbers-as-strings", SHOULD, "4.7.3", "SHOULD use string representation",
         "Numbers needing more precision than a double are sent as strings.",
         not_judged=UNSEEN + "which values need more than double precision is domain knowledge no answer states"),
    Rule("core:4.7.3:string-number-convention", SHOULD, "4.7.3", "document their conventions for distinguishing",
         "The adapter documents how a string-encoded number is told from an ordinary string.",
         not_judged=UNSEEN + UNPLACED),
    Rule("core:4.7.3:string-number-documented", MUST, "4.7.3", "document when string representation is required",
         "The adapter documents which numeric parameters must be sent as strings.",
         not_judged=UNSEEN + UNPLACED),
    Rule("core:4.7.4:base64", MUST, "4.7.4", "Binary data MUST be encoded as base64",
         "Binary content travels as padded standard base64 with its encoding and media type alongside (judged on "
         "the answers: data a field marks base64, `file_encoding: base64` beside `file_content`, is of the standard "
         "alphabet with its `=` padding).",
         tests=(COMPLETENESS,), reading=BASE64_READING),
    Rule("core:4.7.4:alternative-binary", MAY, "4.7.4", "MAY support alternative binary handling",
         "An adapter may also take binary data another way, such as URL references or multipart.",
         not_judged=MAY_BECAUSE + "base64 alone is enough"),
    Rule("core:4.7.4:alternative-documented", MUST, "4.7.4", "MUST document this behavior via introspection",
         "Any other binary handling an adapter offers is described in introspection.",
         not_judged=UNSEEN + "an adapter's other ways of taking binary data do not show unless it says so"),
    Rule("core:4.7.5:enforce-limits", MUST, "4.7.5", "MUST enforce payload size limits",
         "The adapter caps request, response, string, array and nesting sizes (judged on nesting: a value "
         "deeper than the 64 levels any configuration allows).",
         tests=(COMPLETENESS,)),
    Rule("core:4.7.5:too-large-error", MUST, "4.7.5", "return a VALIDATION_PAYLOAD_TOO_LARGE error",
         "An over-limit request is refused with VALIDATION_PAYLOAD_TOO_LARGE naming the limit in its details.",
         tests=(COMPLETENESS,)),
    Rule("core:4.7.5:limits-documented", MUST, "4.7.5", "document their configured limits via",
         "The adapter documents its configured limits, in introspection or its own documentation.",
         not_judged=UNSEEN + "documentation outside introspection counts, so introspection's silence shows nothing"),
    Rule("core:4.7.5:limits-in-protocol", SHOULD, "4.7.5", "SHOULD expose limits in protocol metadata",
         "The limits appear in introspection's _protocol.limits so clients can check requests first.",
         tests=(OPS_QUERY,)),
    Rule("core:4.7.6:null-vs-omitted", MAY, "4.7.6", "MAY have different semantics",
         "In a request, leaving a field out and sending it as null may mean different things.",
         not_judged=MAY_BECAUSE + "the two may mean the same or differ"),
    Rule("core:4.7.6:null-documented", MUST, "4.7.6", "document null semantics for parameters",
         "Where null and omission differ for a parameter, the adapter documents it.",
         not_judged=UNSEEN + "where the distinction matters is internal, and " + UNPLACED),
    # 6 Endpoint Families
    Rule("core:6.2:one-category", MUST, "6.2", "assigned exactly one standard semantic category",
         "Each operation has exactly one of CREATE, READ, UPDATE, DELETE, EXECUTE.",
         tests=(OPS_QUERY, DETAILS)),
    Rule("core:6.2:one-family", MUST, "6.2", "routed to exactly one exposed endpoint family",
         "In semantic mode each operation is served by exactly one endpoint family.",
         tests=(DETAILS,)),
    Rule("core:6.2:wrong-endpoint-rejected", MUST, "6.2", "reject operations sent to incorrect endpoints",
         "In semantic mode an operation sent to another family's endpoint is refused.",
         tests=(DETAILS,)),
    # 7 Introspection
    Rule("core:7.2:introspect", MUST, "7.2", "MUST implement the introspect operation",
         "Every adapter answers the introspect operation.",
         tests=(OPS_QUERY, TYPES_QUERY)),
    # 9 Type System
    Rule("core:9.2:types-discoverable", MUST, "9.2", "MUST be discoverable via the introspect",
         "The adapter's own types are listed by introspect with query types.",
         tests=(TYPES_QUERY,)),
    Rule("core:9.3.1:concurrency-documented", MUST, "9.3.1", "MUST document their concurrency behavior",
         "The adapter documents how it handles concurrent requests.",
         not_judged=UNSEEN + "introspection's _protocol.concurrency is a MAY (§9.3.3), so its absence shows nothing"),
    Rule("core:9.3.2:optimistic-concurrency", SHOULD, "9.3.2", "SHOULD implement optimistic concurrency control",
         "An adapter allowing concurrent writes offers ETags or versions, if_match, and CONFLICT_VERSION_MISMATCH. "
         "(Judged where _protocol.concurrency lets writes run concurrently, fully-concurrent or resource-locked: an "
         "UPDATE takes if_match, and one naming no version is refused with CONFLICT_VERSION_MISMATCH.)",
         tests=("L1.roundtrip.update-preservation",)),
    Rule("core:9.3.3:concurrency-metadata", MAY, "9.3.3", "MAY expose concurrency behavior via introspection",
         "An adapter may state its concurrency behaviour in introspection's _protocol.",
         not_judged=MAY_BECAUSE + "the metadata is optional"),
    # 10 Conformance
    Rule("core:10.1:l1-one-mode", MUST, "10.1", "support at least one endpoint mode",
         "Level 1: the server offers the semantic or the single endpoint mode.",
         tests=(OPS_QUERY, DETAILS)),
    Rule("core:10.1:l1-introspect", MUST, "10.1", "MUST implement the introspect operation",
         "Level 1: the server answers introspect.",
         tests=(OPS_QUERY, TYPES_QUERY)),
    Rule("core:10.1:l1-formats", MUST, "10.1", "use standard request/response formats",
         "Level 1: requests and answers take the standard shapes (answers the success/error union).",
         tests=(UNION,)),
    Rule("core:10.1:l1-classify", MUST, "10.1", "classify operations correctly into standard",
         "Level 1: every operation carries the right standard semantic category.",
         tests=(OPS_QUERY, DETAILS)),
    Rule("core:10.1:l1-document-routing", MUST, "10.1", "document each operation's exposed endpoint family",
         "Level 1: introspection gives each operation's endpoint family and semantic category.",
         tests=(OPS_QUERY, DETAILS)),
    Rule("core:10.1:l1-wrong-endpoint", MUST, "10.1", "reject operations sent to wrong endpoints",
         "Level 1: in semantic mode an operation sent to the wrong endpoint is refused.",
         tests=(DETAILS,)),
    Rule("core:10.1:l2-meets-l1", MUST, "10.1", "MUST meet Level 1 requirements",
         "Level 2: everything Level 1 asks holds.",
         tests=LEVEL1_CORE, gathers=True),
    Rule("core:10.1:l2-both-modes", MUST, "10.1", "support both semantic and single endpoint modes",
         "Level 2: the server offers both a semantic endpoint mode and the single mode.",
         tests=(ENDPOINT_MODES,), reading=MODES_READING),
    Rule("core:10.1:l2-passes-suite", MUST, "10.1", "pass the conformance test suite",
         "Level 2: the server passes the conformance tests.",
         tests=SUITE, gathers=True),
    Rule("core:10.1:l2-field-selection", SHOULD, "10.1", "SHOULD implement field selection",
         "Level 2: the server supports field selection.",
         tests=(FIELD_SELECTION,)),
    Rule("core:10.1:l2-batch", SHOULD, "10.1", "SHOULD implement batch operations",
         "Level 2: the server supports batch operations.",
         tests=(BATCH,)),
    Rule("core:10.2:claiming", MUST, "10.2", "claiming MCP-AQL conformance MUST",
         "A server claiming conformance states its level and documents its operations and extensions.",
         tests=(OPS_QUERY, DETAILS, COMPLETENESS)),
    Rule("core:10.3:extensions-allowed", MAY, "10.3", "MAY extend MCP-AQL with additional",
         "An implementation may add features and response metadata of its own.",
         not_judged=MAY_BECAUSE + "extensions are optional"),
    Rule("core:10.3:extensions-documented", MUST, "10.3", "Extensions MUST be documented",
         "Every extension an implementation adds is documented.",
         tests=(COMPLETENESS,)),
    Rule("core:10.3:extensions-no-conflict", MUST_NOT, "10.3", "MUST NOT conflict with core specification",
         "No extension changes what the core specification prescribes.",
         not_judged=UNSEEN + "an answer does not show which behaviour is an extension; a conflict shows as a breach "
         "of the core rule it breaks"),
)  # fmt: skip
