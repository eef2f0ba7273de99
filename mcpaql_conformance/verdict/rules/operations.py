"""The requirement registry: rules of one document (see model.py)."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    ABOUT_CLIENT,
    BATCH,
    CLIENT,
    COMPLETENESS,
    DEFINITION,
    DETAILS,
    MAY,
    MUST,
    MUST_NOT,
    NOT_RECOMMENDED,
    OPS_QUERY,
    OPTIONAL,
    RECOMMENDED,
    REQUIRED,
    REQUIRED_ENFORCED,
    SHOULD,
    SNAKE_CASE,
    UNION,
    UNKNOWN_EXPLICIT,
    UNSEEN,
    Rule,
)

# Tests, by the names the catalogue gives them.

PRESERVE_READING = (
    "two captures show a version's references: a reference is the name of a shared parameter an operation "
    "documents (operations §4.4.1, and the legacy `order`) or a $ref path in its details, since §4.4.5 has "
    "introspection expand shared parameters inline; a documented alias is the old name or path standing anywhere "
    "in the operation's new details (a deprecated parameter, an alias list, a description); an operation gone "
    "altogether is no renamed reference"
)

RULES: tuple[Rule, ...] = (
    Rule("operations:1:rfc2119", MUST, "1", "are to be interpreted as described",
         "The document's upper-case keywords carry their RFC 2119 meanings.",
         not_judged="a definition, not a requirement", subject=DEFINITION),
    # 2 Operation input format
    Rule("operations:2.1:input-structure", MUST, "2.1", "follow a consistent input structure",
         "Every operation takes the same request shape: an operation name plus a params object.",
         tests=(OPS_QUERY, DETAILS, COMPLETENESS), anchored_by=COMPLETENESS,
         reading="Restates core §4.1 (OperationInput) and §10.1 (standard request format); the core governs."),
    Rule("operations:2.2:operation-field", REQUIRED, "2.2", "operation to perform",
         "A request names its operation; the adapter refuses one without that field.",
         tests=(DETAILS,),
         reading="Restates core §4.1, which marks `operation` REQUIRED; no test judges it yet."),
    Rule("operations:2.2:params-field", OPTIONAL, "2.2", "Operation-specific parameters",
         "A request may leave the params object out.", not_judged=ABOUT_CLIENT, subject=CLIENT,
         reading="Restates core §4.1 (params optional)."),
    Rule("operations:2.2:operation-defined", MUST, "2.2", "non-empty string matching a defined operation",
         "The operation a request names is a non-empty name the adapter defines; anything else is refused.",
         tests=(DETAILS,)),
    Rule("operations:2.3:multi-location", MAY, "2.3", "MAY support parameter resolution",
         "An adapter may also read parameters given at the top level of the request.",
         not_judged=f"{A_MAY}: top-level parameters beside params",
         reading="Restates core §4.2 (parameters MAY appear at several levels)."),
    Rule("operations:2.3:resolution-order", RECOMMENDED, "2.3", "RECOMMENDED resolution order is",
         "When a parameter is given both in params and at the top level, the params value wins.",
         tests=(UNKNOWN_EXPLICIT,),
         reading="Core §4.2 states this precedence as how resolution works (no keyword); where an adapter "
         "resolves top-level parameters we read the order as the core's, not a mere recommendation."),
    Rule("operations:2.4:case-sensitive", MUST, "2.4", "Operation names MUST be case-sensitive",
         "An operation name written in another letter case is a different, unknown name.",
         tests=(DETAILS,)),
    Rule("operations:2.4:snake-case", MUST, "2.4", "Operation names MUST use snake_case",
         "Operation names are lower snake_case (^[a-z][a-z0-9_]*$).", tests=(OPS_QUERY, DETAILS),
         anchored_by=DETAILS, reading="Restates core §8.5.2 (same MUST and pattern)."),
    # 3 Response format
    Rule("operations:3.1:discriminated-union", MUST, "3.1", "MUST return a discriminated union response",
         "Every answer is a success or a failure told apart by the boolean success field.", tests=(UNION,),
         anchored_by=UNION, reading="Restates core §5.1 and §10.1 (standard response format); the core governs."),
    Rule("operations:3.2:success-shape", MUST, "3.2", "A successful operation MUST return",
         "A success answers success true with the result in data.", tests=(UNION,), anchored_by=UNION,
         reading="Restates core §5.1-5.2."),
    Rule("operations:3.3:failure-shape", MUST, "3.3", "A failed operation MUST return",
         "A failure answers success false with an error object holding code and message.", tests=(UNION,),
         anchored_by=UNION, reading="Restates core §5.1 and §5.3."),
    Rule("operations:3.4:metadata-allowed", MAY, "3.4", "MAY include metadata in responses",
         "An answer may carry metadata beside its payload.", not_judged=f"{A_MAY}: response metadata",
         reading="Restates core §10.3 (response metadata fields as an extension)."),
    Rule("operations:3.4:metadata-underscore", MUST, "3.4", "Metadata fields MUST be prefixed with underscore",
         "Metadata keys of an answer start with an underscore, apart from the payload.",
         tests=(UNION,),
         reading="The normative result schema (core Appendix D) admits no key beyond the spec's own, so a key "
         "without the underscore fails as a MUST of the core; its failure results carry no metadata at all, "
         "where this section allows metadata on any answer: we take this section for underscore keys."),
    # 4 Parameter conventions
    Rule("operations:4.1:snake-case", MUST, "4.1", "All public-facing parameter names MUST use",
         "Parameter names exposed to callers are snake_case.", tests=(SNAKE_CASE,), anchored_by=SNAKE_CASE,
         reading="Restates core §4.3 (same MUST and pattern)."),
    Rule("operations:4.1:camelcase-aliases", MAY, "4.1", "MAY accept camelCase variants as aliases",
         "An adapter may take camelCase spellings of parameters and map them to the snake_case names.",
         not_judged="a MAY: allowed either way: an alias beside its snake_case name never fails the snake_case "
         "test",
         reading="Core §4.6 requires rejecting parameters the operation schema does not define: an alias the "
         "server accepts but introspection does not document is an undocumented parameter "
         "(L1.introspection.completeness fails it), while a camelCase alias beside its snake_case canonical "
         "name does not fail L1.params.snake-case."),
    Rule("operations:4.1:canonical-snake-case", MUST, "4.1", "canonical parameter names MUST be snake_case",
         "Whatever aliases exist, the documented parameter names are snake_case.", tests=(SNAKE_CASE,),
         anchored_by=SNAKE_CASE, reading="Restates core §4.3."),
    Rule("operations:4.2:common-patterns", SHOULD, "4.2", "use consistent patterns for common functionality",
         "Search, pagination, filtering, sorting, field selection and aggregation take the usual names and shapes.",
         tests=("L2.features.field-selection",)),
    Rule("operations:4.3:required-or-optional", MUST, "4.3", "documented as either required or optional",
         "Each parameter's documentation says whether it is required.", tests=(DETAILS,), anchored_by=DETAILS,
         reading="Introspection's parameter entries carry `required` (the detail shape core §7.3 points to); "
         "L1.introspection.operation-details fails an entry without it."),
    Rule("operations:4.4:define-once", SHOULD, "4.4", "define these parameters once",
         "Parameters shared by many operations are defined in one place and reused.",
         not_judged="not observable from evidence: how an adapter defines parameters internally; only the "
         "consistency it yields shows (§4.4.4)"),
    Rule("operations:4.4.2:shared-definitions", SHOULD, "4.4.2", "use a shared definition mechanism",
         "Shared parameters come from one shared definition.",
         not_judged="not observable from evidence: introspection shows definitions expanded, not where they "
         "come from"),
    Rule("operations:4.4.2:preserve-refs", SHOULD, "4.4.2", "SHOULD preserve those existing references",
         "Existing shared-parameter reference paths are kept or aliased, never silently renamed (judged where a "
         "capture is given an earlier one of the same server, capture --previous: each shared parameter and $ref "
         "path an operation of both versions documented is still documented, or named as an alias).",
         tests=(DETAILS,), reading=PRESERVE_READING),
    Rule("operations:4.4.3:pagination-metadata", SHOULD, "4.4.3", "include explicit pagination metadata",
         "A paginated collection answer says how to fetch the next page (judged on a page of one: hasNextPage, "
         "and endCursor where another page follows).", tests=(COMPLETENESS,)),
    Rule("operations:4.4.3:page-info", SHOULD, "4.4.3", "use the pageInfo connection-style metadata",
         "Cursor-paginated operations report their position in a pageInfo object.", tests=(COMPLETENESS,)),
    Rule("operations:4.4.3:omit-totals", MAY, "4.4.3", "MAY omit total_items",
         "Totals may be left out when costly, relying on has-more flags.", not_judged=f"{A_MAY}: totals"),
    Rule("operations:4.4.4:same-name", SHOULD, "4.4.4", "parameter name SHOULD be identical",
         "A parameter shared by operations has one name everywhere (judged on names alike but for case and "
         "separators: book_id, bookId, bookid).", tests=(DETAILS,)),
    Rule("operations:4.4.4:same-type", SHOULD, "4.4.4", "parameter type SHOULD be identical",
         "A parameter shared by operations has one type everywhere (judged on the §4.4.1 cross-cutting "
         "parameters).", tests=(DETAILS,)),
    Rule("operations:4.4.4:same-description", SHOULD, "4.4.4", "SHOULD be semantically equivalent",
         "A shared parameter is described to the same effect on every operation.",
         not_judged=UNSEEN + "descriptions of one parameter differ in wording for many reasons; whether two say "
         "the same is meaning, no reading a check makes"),
    Rule("operations:4.4.4:same-default", SHOULD, "4.4.4", "Default values SHOULD be consistent",
         "A shared parameter has the same default wherever a default applies (judged on page sizes: first, "
         "last, limit, page_size).", tests=(DETAILS,)),
    Rule("operations:4.4.5:expand-inline", SHOULD, "4.4.5", "expanded inline with their full definitions",
         "Introspection shows shared parameters in full, not as references.", tests=(DETAILS,)),
    Rule("operations:4.5:update-input", SHOULD, "4.5", "use a nested input object",
         "UPDATE operations take their changed fields in an input object, identifiers outside it.",
         not_judged="the spec says otherwise in core §4.5: the nested input object is a MUST there",
         reading="Core §4.5 makes the nested `input` object a MUST (with merge and validation rules); the core "
         "wins, so we read this as a MUST judged under the core rule."),
    # 5 Operation schema definition
    Rule("operations:5.1:operation-schema", MUST, "5.1", "defined by a schema that specifies",
         "Every operation has a definition giving its behaviour, parameters and routing.", tests=(DETAILS,),
         anchored_by=DETAILS,
         reading="Core §4.6 presupposes an operation schema, and §10.1 asks each operation's family and "
         "category documented by introspection, whose detail shape shows that definition."),
    Rule("operations:5.1:validate-first", MUST, "5.1", "validate requests against operation schemas",
         "Requests are checked against the operation's definition before anything runs.",
         tests=(REQUIRED_ENFORCED, UNKNOWN_EXPLICIT), anchored_by=UNKNOWN_EXPLICIT,
         reading="Core §4.6 (refuse undefined parameters) and §3.2 (validation before the handler) say the same."),
    Rule("operations:5.1:semantic-category", REQUIRED, "5.1", "Standard semantic category",
         "Each operation definition names one of the five standard categories.", tests=(OPS_QUERY, DETAILS),
         anchored_by=DETAILS,
         reading="Restates core §6.2 and §10.1. The §5.3 and §9.2 example schemas omit it; the table's rule "
         "wins over the examples."),
    Rule("operations:5.1:endpoint", REQUIRED, "5.1", "REQUIRED in semantic endpoint mode",
         "Each operation definition names the endpoint family that receives it.", tests=(OPS_QUERY, DETAILS),
         anchored_by=DETAILS,
         reading="Core §10.1 asks every operation's endpoint family documented via introspection in any mode, "
         "and our introspection tests require `endpoint` on every entry; the core wins over this row's "
         "semantic-mode-only wording."),
    Rule("operations:5.1:description", REQUIRED, "5.1", "Human-readable description",
         "Each operation definition carries a description for people and LLMs.", tests=(OPS_QUERY, DETAILS),
         anchored_by=OPS_QUERY),
    Rule("operations:5.1:params-optional", OPTIONAL, "5.1", "Parameter definitions",
         "An operation definition may omit its parameter definitions.", not_judged=f"{A_MAY}: an operation "
         "without parameters"),
    Rule("operations:5.1:handler-optional", OPTIONAL, "5.1", "Internal handler reference",
         "An operation definition may name an internal handler.", not_judged=f"{A_MAY}: internal field"),
    Rule("operations:5.1:dangerous-optional", OPTIONAL, "5.1", "operation has significant side effects",
         "An operation definition may carry a dangerous flag.", not_judged=f"{A_MAY}: the dangerous flag"),
    Rule("operations:5.2:parameter-fields", MUST, "5.2", "parameter in the params object MUST include",
         "Each parameter definition carries at least its type.", tests=(DETAILS,), anchored_by=DETAILS),
    Rule("operations:5.2:type", REQUIRED, "5.2", "Data type",
         "A parameter definition states its data type.", tests=(DETAILS,), anchored_by=DETAILS),
    Rule("operations:5.2:required-optional", OPTIONAL, "5.2", "Whether parameter is required",
         "A parameter definition may leave out whether it is required (then it is not).",
         not_judged=f"{A_MAY}: in the adapter's own definition",
         reading="Introspection's parameter entries carry `required` (L1.introspection.operation-details "
         "requires it); we read this row as about the adapter's own definition, where absence means false."),
    Rule("operations:5.2:description-optional", OPTIONAL, "5.2", "Human-readable description",
         "A parameter definition may carry a description.", not_judged=f"{A_MAY}: parameter description"),
    Rule("operations:5.2:default-optional", OPTIONAL, "5.2", "Default value if not provided",
         "A parameter definition may give a default.", not_judged=f"{A_MAY}: parameter default"),
    Rule("operations:5.2:extra-properties", MAY, "5.2", "Additional properties MAY be included",
         "A parameter definition may add constraints and mappings (enum, bounds, pattern...).",
         not_judged=f"{A_MAY}: extra parameter properties"),
    Rule("operations:5.4:validation-steps", MUST, "5.4", "Before executing an operation, adapters",
         "Before running, required parameters, types, unknown names and constraints are checked, defaults applied.",
         tests=(REQUIRED_ENFORCED, UNKNOWN_EXPLICIT, "L1.params.defaults"), anchored_by=UNKNOWN_EXPLICIT,
         reading="Step 3 restates core §4.6 (refuse parameters the schema does not define); the core governs."),
    Rule("operations:5.4:validation-errors", MUST, "5.4", "MUST return an error response",
         "A validation failure is answered as a structured error, never an exception.",
         tests=(UNION, REQUIRED_ENFORCED, UNKNOWN_EXPLICIT), anchored_by=UNION,
         reading="Core §4.6 and §10.1 ask the same structured error answer."),
    # 6 Semantic endpoint assignment
    Rule("operations:6.1:by-semantics", MUST, "6.1", "assigned to endpoints based on their semantics",
         "Each operation sits on the endpoint that matches its effect.", tests=(DETAILS,), anchored_by=DETAILS,
         reading="Restates core §6.2 and §10.1 (classify correctly, one family per operation)."),
    Rule("operations:6.1:alternate-profiles", MAY, "6.1", "MAY expose alternate semantic-endpoint profiles",
         "Semantic mode may use endpoint families other than CRUDE if their names state their intent.",
         not_judged=f"{A_MAY}: a non-CRUDE profile", reading="Restates core §3.3 and the core's abstract."),
    Rule("operations:6.2:canonical-verbs", SHOULD, "6.2", "canonical verbs (shown in bold)",
         "Standard operations are named with their endpoint's canonical verb.",
         tests=(DETAILS,),
         reading="Restates core §8.5.1. Core §8.5.2's examples discourage add, find, edit, remove and run, which "
         "this table lists as additional verbs; we read those as allowed only under core §8.5.3."),
    Rule("operations:6.3:validate-endpoint", MUST, "6.3", "validate that operations are invoked via",
         "The adapter checks that an operation arrived at its own endpoint.", tests=(DETAILS,),
         anchored_by=DETAILS, reading="Restates core §6.2 (reject operations at an incorrect endpoint)."),
    Rule("operations:6.3:no-cross-execution", MUST_NOT, "6.3", "MUST NOT execute when called via",
         "An operation sent to another family's endpoint (e.g. CREATE via DELETE) does not run.",
         tests=(DETAILS,), anchored_by=DETAILS, reading="Restates core §6.2."),
    Rule("operations:6.3:mismatch-error", SHOULD, "6.3", "SHOULD return an error",
         "A wrongly routed operation is answered with an error naming the endpoint it belongs to.",
         tests=(DETAILS,),
         reading="Core §6.2 makes the refusal itself a MUST; we read this SHOULD as about the error's form "
         "(the endpoint-mismatch code and the expected endpoint)."),
    Rule("operations:6.4:mark-dangerous", SHOULD, "6.4", "marked with dangerous: true",
         "Operations with serious consequences carry the dangerous flag in their definition.",
         not_judged="not observable from evidence: the flag sits in the adapter's own definition, which the "
         "introspection detail shape does not carry"),
    # 7 Batch operations
    Rule("operations:7.1:batch-optional", MAY, "7.1", "Adapters MAY support batch operations",
         "Batches are optional.",
         not_judged="the spec says otherwise in core §10.1: Level 2 SHOULD implement batch operations "
         "(L2.features.batch)",
         reading="Core §10.1 lists batch operations as a Level 2 SHOULD; we take the core: optional at Level 1, "
         "advised at Level 2."),
    Rule("operations:7.1:batch-format", MUST, "7.1", "When supported, the format MUST be",
         "A batch request is an object whose operations array holds ordinary requests.", tests=(BATCH,)),
    Rule("operations:7.2:batch-results", MUST, "7.2", "include individual results for each operation",
         "A batch answer lists one result per submitted operation, with a summary.", tests=(BATCH,)),
    Rule("operations:7.3:batch-semantics", MUST, "7.3", "MUST follow these semantics",
         "Batches run in order with independent items; overall success is false only for batch-level errors.",
         tests=(BATCH,)),
    Rule("operations:7.3:failure-continues", MUST_NOT, "7.3", "MUST NOT prevent subsequent operations",
         "One failing batch item does not stop the items after it.",
         tests=(BATCH,)),
    Rule("operations:7.4:single-family", SHOULD, "7.4", "constrained to a single endpoint family",
         "Callers put only one endpoint family's operations in a batch.", not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule("operations:7.4:no-mixing", NOT_RECOMMENDED, "7.4", "Mixing operations across endpoints",
         "Callers avoid batches that mix endpoints.", not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule("operations:7.4:reject-mixed", MAY, "7.4", "MAY reject mixed batches",
         "An adapter may refuse a batch that mixes endpoints.", not_judged=f"{A_MAY}: refusing mixed batches"),
    Rule("operations:7.4:route-mixed", MAY, "7.4", "MAY process them with explicit endpoint routing",
         "An adapter may run a mixed batch, routing each item to its own endpoint.",
         not_judged="the spec says otherwise in core §6.2: an operation at an endpoint not its own is rejected",
         reading="Core §6.2 requires rejecting an operation sent to an incorrect endpoint in semantic mode; we "
         "read this as allowed only when each item is routed to its own family, never run at a foreign one."),
    Rule("operations:7.5.2:halt-on-confirmation", SHOULD, "7.5.2", "the batch SHOULD halt",
         "A batch stops at an item needing confirmation and reports what is left to run (judged where a call "
         "answered CONFIRMATION_REQUIRED: capture's batch of it then introspect, on the single tool, runs neither "
         "the gated item nor the next, and gives halted_at and pending_operations).",
         tests=(BATCH,)),
    Rule("operations:7.5.3:continuation", MAY, "7.5.3", "MAY use the pending_operations array",
         "Callers may build the follow-up batch from the pending operations.", not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule("operations:7.5.4:skip-and-continue", MAY, "7.5.4", "MAY implement skip-and-continue behavior",
         "An adapter may skip a gated item and run the rest.", not_judged=f"{A_MAY}: skip-and-continue"),
    Rule("operations:7.5.4:skip-not-recommended", NOT_RECOMMENDED, "7.5.4", "This approach is NOT RECOMMENDED",
         "Skip-and-continue is avoided unless the batch's items are independent (judged as "
         "operations:7.5.2:halt-on-confirmation, on the same batch).",
         tests=(BATCH,),
         reading="Capture's item after the gated one is an introspect, independent of it, and §7.5.2 asks every "
         "batch to halt all the same: running it is the deviation from §7.5.2, judged once there."),
    # 8 Error handling
    Rule("operations:8.1:structured-codes", MUST, "8.1", "categorize errors using structured error codes",
         "Every error carries a machine-readable code for its category.", tests=(UNION, REQUIRED_ENFORCED),
         anchored_by=UNION, reading="Core §5.1 (ErrorDetail.code) and §4.6 (a named code) ask the same."),
    Rule("operations:8.2:structured-errors", MUST, "8.2", "MUST use structured error objects",
         "Error answers hold an error object, not text.", tests=(UNION,), anchored_by=UNION,
         reading="Restates core §5.1 and §5.3."),
    Rule("operations:8.2:code", MUST, "8.2", "machine-readable error code from the",
         "The error object has a code from the error-code taxonomy.", tests=(UNION, REQUIRED_ENFORCED),
         anchored_by=UNION,
         reading="Core §5.1 makes `code` a required ErrorDetail field; membership of the taxonomy is the "
         "informative documents' word."),
    Rule("operations:8.2:message", MUST, "8.2", "human-readable error message",
         "The error object has a message for a person.", tests=(UNION,), anchored_by=UNION,
         reading="Restates core §5.1 (ErrorDetail.message)."),
    Rule("operations:8.2:details", MAY, "8.2", "Additional contextual information",
         "The error object may add details.", not_judged=f"{A_MAY}: error details",
         reading="Restates core §5.1 (details optional)."),
    Rule("operations:8.3:standard-codes", MUST, "8.3", "use standardized error codes",
         "Errors use the standard codes so programs can react to them.", tests=(REQUIRED_ENFORCED,),
         reading="Core names the code for some cases (§4.5.3 VALIDATION_MISSING_PARAM for a missing `input`, "
         "§4.6 VALIDATION_UNKNOWN_PARAM); there the core's MUST applies and a refusal with another code fails. "
         "Elsewhere conformance-testing §3.2 asks only for a \"missing parameter\" error naming the parameter: "
         "another code for a missing parameter warns, as this informative MUST."),
    Rule("operations:8.4:message-guidelines", SHOULD, "8.4", "Error messages SHOULD be",
         "Error messages say how to fix the problem, name the values involved and reveal no secrets.",
         tests=("L1.errors.actionable", "L1.errors.no-leakage")),
    # 9 The introspect operation
    Rule("operations:9.1:introspect", MUST, "9.1", "MUST implement the introspect operation",
         "Every adapter offers introspect as a READ operation on a documented family.",
         tests=(OPS_QUERY, DETAILS), anchored_by=OPS_QUERY,
         reading="Restates core §7.2 and §8.5.4. Core §7.2 names READ as its endpoint; in a non-CRUDE profile "
         "we read READ as its category and its endpoint as the family that carries reads."),
)  # fmt: skip
