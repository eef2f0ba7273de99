"""The requirement registry: rules of one document (see model.py).

Four informative feature documents: pagination, field selection, warnings and computed fields.
Their absolute keywords count as SHOULD unless a core rule or a conformance test binds them
(``anchored_by``); most rules bind only a server that offers the feature at all.
"""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    ABOUT_CLIENT,
    CLIENT,
    COMPLETENESS,
    DETAILS,
    MAY,
    MUST,
    RECOMMENDED,
    SHOULD,
    SHOULD_NOT,
    UNION,
    UNSEEN,
    Rule,
)

_PG = "features/pagination"
_FS = "features/field-selection"
_WN = "features/warnings"
_CF = "features/computed-fields"

PAGINATION: tuple[Rule, ...] = (
    Rule(f"{_PG}:2.3:invalid-combinations", MUST, "2.3", "combinations MUST return a validation error",
         "A server that paginates refuses contradictory cursor parameters (first with last, after without "
         "first, first with before...) with a validation error.",
         tests=("L1.introspection.completeness",)),
    Rule(f"{_PG}:3.1:page-info", MUST, "3.1", "responses MUST include a pageInfo object",
         "A server that pages with cursors puts a pageInfo object in every paginated answer.",
         tests=("L1.introspection.completeness",)),
    Rule(f"{_PG}:4.1:connection-shape", SHOULD, "4.1", "return a connection-style response",
         "A server that pages with cursors answers in the connection shape: items (or edges) beside pageInfo.",
         tests=(COMPLETENESS,)),
    Rule(f"{_PG}:4.5:compat-metadata", MAY, "4.5", "MAY return pagination metadata",
         "A server paging by page or offset may report its window in a pagination object, not pageInfo.",
         not_judged=A_MAY),
    Rule(f"{_PG}:5.1:list-search-paginate", SHOULD, "5.1", "operation types SHOULD support pagination",
         "A server's list_* and search_* operations (and query_elements) offer pagination.",
         not_judged="the spec says otherwise in features/pagination §5.1 (table): its Required column says "
         "Yes for every listed operation",
         reading="The §5.1 table marks pagination Required for each list and search operation, the sentence "
         "above it says SHOULD; we take SHOULD: the document is informative and the core asks for no pagination."),
    Rule(f"{_PG}:5.2:default-page-size", RECOMMENDED, "5.2", "Implementation-defined (RECOMMENDED: 20)",
         "A server that paginates, asked for no page size, is advised to return pages of 20 items (judged on a "
         "page that says another follows, or holds more than 20).",
         tests=(COMPLETENESS,)),
    Rule(f"{_PG}:5.3:max-page-size", SHOULD, "5.3", "enforce a maximum page size",
         "A server that paginates caps how many items one page may hold (judged: a page of 1000 holds no more "
         "than the maximum the operation documents).",
         tests=(COMPLETENESS,)),
    Rule(f"{_PG}:5.3:max-100", RECOMMENDED, "5.3", "RECOMMENDED maximum: 100 items",
         "A paginating server's page cap is advised to be 100 items.",
         tests=(COMPLETENESS,)),
    Rule(f"{_PG}:5.3:clamp-not-reject", SHOULD, "5.3", "SHOULD be clamped to the maximum",
         "A page request above the cap is served at the cap instead of being refused.",
         tests=(COMPLETENESS,)),
    Rule(f"{_PG}:6.1:must-list", MUST, "6.1", "supporting pagination MUST",
         "A server that paginates takes first/after/last/before, answers pageInfo with both has-page flags "
         "(and both end cursors when items come back), refuses invalid combinations with an error code, and "
         "keeps one stable order across the pages of a walk (judged on capture's walk: first: 1 gives at most one "
         "item, `after` its endCursor another item, and the rest as features/pagination §2.3 and §3.1 (judged there) "
         "say).",
         tests=(COMPLETENESS,)),
    Rule(f"{_PG}:6.2:should-list", SHOULD, "6.2", "supporting pagination SHOULD",
         "A server that paginates gives totalCount when cheap, caps the page size, pages both ways, uses "
         "opaque URL-safe cursors and declares its pagination in introspection (judged on its page cap (§5.3, judged "
         "there) and its cursors (§6.4); totalCount is a MAY-like 'when cheap' no answer can weigh).",
         tests=(COMPLETENESS,)),
    Rule(f"{_PG}:6.3:may-list", MAY, "6.3", "supporting pagination MAY",
         "A server that paginates may add edges, expiring or cross-session cursors, sorting, and window "
         "metadata such as returned.",
         not_judged=A_MAY),
    Rule(f"{_PG}:6.4:cursor-properties", MUST, "6.4", "Cursors MUST be",
         "A paginating server's cursors are opaque, URL-safe, and stable (one cursor always resumes at the "
         "same place).",
         tests=(COMPLETENESS,),
         reading="The §6.4 encoding example uses btoa, plain Base64 whose alphabet is not URL-safe in general; "
         "we take the rule over the example: a cursor holds only URL-safe characters."),
    Rule(f"{_PG}:6.4:cursor-qualities", SHOULD, "6.4", "Cursors SHOULD be",
         "A paginating server's cursors resist tampering, stay short, and need no session state on the server.",
         not_judged=UNSEEN + "signatures and server-side cursor state are internal to the server"),
)  # fmt: skip

FIELD_SELECTION: tuple[Rule, ...] = (
    Rule(f"{_FS}:1.2:optional-feature", MAY, "1.2", "MAY implement it for Level 2",
         "A server may offer field selection; it is a Level 2 feature.",
         not_judged="the spec says otherwise in core §10.1: Level 2 SHOULD implement field selection, which "
         "L2.features.field-selection judges",
         reading="Core §10.1 asks a Level 2 server to implement field selection (SHOULD) and conformance §2.2 "
         "lists it among Level 2 requirements; the core wins: a Level 2 server without it is warned."),
    Rule(f"{_FS}:2.2:preset-alias", MAY, "2.2", "also accept a preset parameter",
         "A server with field selection may also take a preset parameter as an older alias.",
         not_judged=A_MAY),
    Rule(f"{_FS}:2.2:prefer-fields", SHOULD, "2.2", "rather than introducing a separate control",
         "A server with field selection takes presets through fields (fields: \"minimal\"), not its own control.",
         tests=("L2.features.field-selection",)),
    Rule(f"{_FS}:3.1:standard-presets", SHOULD, "3.1", "SHOULD support these presets",
         "A server with field selection offers the minimal, standard and full presets (judged: each, given as "
         "fields, is taken, not refused).",
         tests=(COMPLETENESS,)),
    Rule(f"{_FS}:3.3:custom-presets", MAY, "3.3", "define additional presets",
         "A server with field selection may add presets of its own domain.",
         not_judged=A_MAY),
    Rule(f"{_FS}:3.3:custom-discoverable", SHOULD, "3.3", "Custom presets SHOULD be discoverable",
         "Any domain-specific preset a server adds is listed in its introspection.",
         not_judged=UNSEEN + "an undocumented custom preset cannot be told from an unknown name"),
    Rule(f"{_FS}:4.4:computed-object", SHOULD, "4.4", "appear under the _computed object",
         "A server that computes requested derived fields returns them inside a _computed object (judged on a "
         "computed field its details list, asked for by fields).",
         tests=(COMPLETENESS,)),
    Rule(f"{_FS}:5.1:must-list", MUST, "5.1", "implementing field selection MUST",
         "A server with field selection takes fields on READ operations, treats minimal/standard/full given "
         "there as presets, resolves dotted paths and keeps their nesting in the answer.",
         tests=("L2.features.field-selection",)),
    Rule(f"{_FS}:5.2:should-list", SHOULD, "5.2", "implementing field selection SHOULD",
         "A server with field selection implements the three presets, documents selectable and _computed. "
         "fields, selects on search results too, checks field names, and takes preset only as a legacy alias.",
         tests=(COMPLETENESS,),
         reading="§4.3 has a requested field that an item lacks skipped without error, while this asks for "
         "names to be validated; we read validation against the type's known fields, skipping for fields a "
         "given item happens to lack. Judged on what answers show: the presets (§3.1, judged there) and a "
         "field name no server has refused; documenting fields and _computed. paths is judged by §5.3."),
    Rule(f"{_FS}:5.3:discoverable", SHOULD, "5.3", "Field selection options SHOULD be discoverable",
         "A server with field selection lets introspection show its selection options.",
         tests=("L2.features.field-selection",)),
)  # fmt: skip

_DEDUP = "Server-Side Deduplication"
_CLIENT_DEDUP = "Client-Side Deduplication"
_DEDUP_TABLE = "Deduplication Recommendations"
_SSD = f"{_WN}:server-side-deduplication"  # ids: the title section, in kebab case
_CSD = f"{_WN}:client-side-deduplication"
_DRT = f"{_WN}:deduplication-recommendations"

WARNINGS: tuple[Rule, ...] = (
    Rule(f"{_WN}:1.2:clients-may-ignore", MAY, "1.2", "Clients MAY ignore warnings",
         "A client may disregard warnings and still work.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_WN}:2.3:not-in-errors", SHOULD_NOT, "2.3", "SHOULD NOT be included in error responses",
         "A server that raises warnings leaves them out of failure answers.",
         not_judged="the spec says otherwise in features/warnings:6.1:success-only: there the same point is "
         "a MUST",
         reading="§6.1 (features/warnings:6.1:success-only) says MUST for the same point and the core's "
         "result schema (Appendix D) admits no warnings beside an error; we take the MUST."),
    Rule(f"{_WN}:3.2:numeric-mapping", SHOULD, "3.2", "SHOULD use this numeric mapping",
         "A server that ranks warning severities as numbers maps high to 0, medium to 1 and low to 2.",
         not_judged=UNSEEN + "answers carry severity words; any numeric ranking stays inside the server"),
    Rule(f"{_WN}:3.2:severity-optional", MAY, "3.2", "Implementations MAY omit severity",
         "A server may leave severity out of a warning (medium is then assumed).",
         not_judged=A_MAY),
    Rule(f"{_WN}:3.2:high-sparingly", SHOULD, "3.2", "use high sparingly",
         "A server that raises warnings reserves the high severity for rare, urgent conditions (judged on the "
         "run's warnings: of three conditions or more, most high warns).",
         tests=(UNION,)),
    Rule(f"{_WN}:3.2:stable-severity", SHOULD_NOT, "3.2", "SHOULD NOT change a warning's severity",
         "A server gives one condition the same severity on every request that raises it (judged on every "
         "answer of the run: one code with the same details at two severities).",
         tests=(UNION,)),
    Rule(f"{_WN}:5.1:clients-must", MUST, "5.1", "Clients MUST",
         "A client takes answers with warnings as successes and tolerates codes it does not know.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_WN}:5.1:clients-should", SHOULD, "5.1", "Clients SHOULD",
         "A client logs warnings, shows them to users and brings quota warnings forward.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_WN}:5.1:clients-may", MAY, "5.1", "Clients MAY",
         "A client may act on, filter or group warnings.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_WN}:6.1:success-only", MUST, "6.1", "supporting warnings MUST",
         "A server that raises warnings puts them only in successful answers, always as an array of objects "
         "each with a code and a message, and uses its codes consistently.",
         tests=("L1.errors.discriminated-union",), anchored_by="L1.errors.discriminated-union",
         reading="§2.3 (features/warnings:2.3:not-in-errors) says only SHOULD NOT about warnings on failures; "
         "we take this MUST, which the core's result schema (Appendix D) supports."),
    Rule(f"{_WN}:6.2:should-list", SHOULD, "6.2", "supporting warnings SHOULD",
         "A server that raises warnings adds details, uses the standard codes, warns only about actionable "
         "conditions and merges similar warnings (judged: details on every warning; which codes apply and "
         "which conditions are actionable are the server's domain).",
         tests=(UNION,)),
    Rule(f"{_WN}:6.3:may-list", MAY, "6.3", "supporting warnings MAY",
         "A server that raises warnings may let clients mute codes, keep a history, tune thresholds and audit.",
         not_judged=A_MAY),
    Rule(f"{_WN}:6.4:at-most-ten", SHOULD, "6.4", "limit warnings to 10 per response",
         "A server puts no more than ten warnings in one answer.",
         tests=(UNION,)),
    Rule(f"{_WN}:6.4:most-important", SHOULD, "6.4", "implementations SHOULD include the most important",
         "When more warnings apply than fit, a server keeps the most important ones.",
         not_judged=UNSEEN + "the warnings a server left out of an answer are not in it, so which ones "
         "applied cannot be compared with those kept"),
    Rule(f"{_WN}:6.4:meta-warning", MAY, "6.4", "include a meta-warning about suppressed",
         "A server may add one warning saying that others were left out.",
         not_judged=A_MAY),
    Rule(f"{_SSD}:deduplicate", SHOULD, _DEDUP, "deduplicate warnings before including them",
         "A server removes duplicate warnings before answering.",
         tests=(UNION,), reading="Its first item is exact-duplicates (judged there); same reading."),
    Rule(f"{_SSD}:exact-duplicates", SHOULD, _DEDUP, "collapsed to a single instance",
         "A server lists warnings that share code and details only once.",
         tests=(UNION,)),
    Rule(f"{_SSD}:semantic-duplicates", MAY, _DEDUP, "Semantic duplicates",
         "A server may also merge same-code warnings whose details differ only slightly.",
         not_judged=A_MAY),
    Rule(f"{_SSD}:occurrence-count", MAY, _DEDUP, "add an occurrence_count field",
         "A server that merges warnings may count the merged occurrences in the warning.",
         not_judged=A_MAY),
    Rule(f"{_CSD}:client-dedup", MAY, _CLIENT_DEDUP, "Clients MAY implement additional deduplication",
         "A client may further suppress repeated warnings by session, time window or code.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_DRT}:single-request", SHOULD, _DEDUP_TABLE, "Server SHOULD deduplicate identical warnings",
         "Within one answer a server lists identical warnings once.",
         tests=(UNION,), reading="Restates server-side deduplication (exact-duplicates); same reading."),
    Rule(f"{_DRT}:batch-summary", SHOULD, _DEDUP_TABLE, "collapse per-item warnings into summary",
         "A server merges the warnings of a batch's items into a summary (judged: two items of one batch "
         "carrying the same warning).",
         tests=(UNION,)),
    Rule(f"{_DRT}:client-session", MAY, _DEDUP_TABLE, "Client MAY deduplicate across requests",
         "A client may drop warnings it already saw on earlier requests.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_DRT}:client-expiry", SHOULD, _DEDUP_TABLE, "Client SHOULD use time-based expiration",
         "A long-running client lets its memory of seen warnings expire over time.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
)  # fmt: skip

COMPUTED_FIELDS: tuple[Rule, ...] = (
    Rule(f"{_CF}:3:filter-sort-allowed", MAY, "3", "allow computed fields in other query-language controls",
         "A server may let filter and sort use computed fields it can evaluate cheaply.",
         not_judged=A_MAY),
    Rule(f"{_CF}:3:reject-unsupported", SHOULD, "3", "reject those requests clearly",
         "A server that cannot filter or sort on a computed field refuses such a request instead of "
         "ignoring the control.",
         tests=(COMPLETENESS,)),
    Rule(f"{_CF}:4:advertise", SHOULD, "4", "advertise computed fields in operation detail",
         "A server with computed fields lists them (type, filterable, sortable) in its operation details (judged "
         "on its answers: each key of a `_computed` object it answers is listed in computed_fields).",
         tests=(DETAILS,)),
)  # fmt: skip

RULES: tuple[Rule, ...] = (*PAGINATION, *FIELD_SELECTION, *WARNINGS, *COMPUTED_FIELDS)
