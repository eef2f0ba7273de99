"""The requirement registry: rules of one document (see model.py).

Three informative feature documents on querying collections: collection querying, aggregations
and relationship queries. Their absolute keywords count as SHOULD unless a core rule or a
conformance test binds them (``anchored_by``); most rules bind only a server that offers the
feature at all.
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
    NOT_RECOMMENDED,
    SHOULD,
    SHOULD_NOT,
    UNSEEN,
    Rule,
)

_CQ = "features/collection-querying"
_AG = "features/aggregations"
_RQ = "features/relationship-queries"


COLLECTION_QUERYING: tuple[Rule, ...] = (
    Rule(f"{_CQ}:1:families-coexist", MAY, "1", "These patterns MAY coexist",
         "A server may offer list_*, search_* and query_* operations side by side.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:1:shared-shapes", SHOULD, "1", "share the same cross-cutting parameter shapes",
         "A server offering several collection families gives their common controls the same shape (judged with "
         "operations §4.4.4 (same-type, same-default): a cross-cutting parameter documented with two types or two "
         "defaults across operations).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:2.1:search-query-name", SHOULD, "2.1", "use query as the canonical text-search parameter",
         "A server's search_* operations take their free text in a parameter named query.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:2.1:list-no-query", SHOULD_NOT, "2.1", "list_* operations SHOULD NOT require query",
         "A server's list_* operations work without a query parameter (judged on what introspection "
         "documents as required).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:2.1:query-dsl", MAY, "2.1", "MAY use query for a structured DSL",
         "A server's query_* operations may take a structured query language or object in query.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:2.1:query-grammar-documented", MUST, "2.1", "MUST document the grammar clearly",
         "A server whose query_* operation takes a grammar explains it in introspection and in examples (its "
         "`query` parameter described, an example using it).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:2.2:filter-object", SHOULD, "2.2", "object whose keys are adapter-defined filter",
         "A server that filters takes filter as an object keyed by its own filter fields (judged on what introspection "
         "documents: `filter` typed as an object).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:2.2:unknown-filter-key", SHOULD, "2.2", "Unsupported filter keys SHOULD produce",
         "A server that filters refuses an unsupported filter key with a validation error.",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:2.3:sort-shortcuts", MAY, "2.3", "MAY accept shortcut forms",
         "A server that sorts may also take shorthand such as sort plus order.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:2.3:shortcuts-documented", SHOULD, "2.3", "document them as compatibility behavior",
         "A server taking sort shorthand documents it as a compatibility form, not the main contract. (Judged on "
         "an `order` parameter documented beside `sort`, and on sort sent as a bare field with order beside it.)",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:2.4:fields-forms", MAY, "2.4", "fields MAY be either",
         "A server's fields parameter may take a preset name or a list of field paths.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:2.4:computed-prefix", SHOULD, "2.4", "SHOULD use the _computed. prefix",
         "A server projects its computed fields through fields under the _computed. prefix (judged on a computed "
         "field its details list: fields naming _computed.NAME is taken).",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:2.4:preset-alias-only", SHOULD, "2.4", "treated as compatibility aliases only",
         "A server that takes a separate preset parameter keeps it only as an alias of fields (judged on what "
         "introspection documents: a `preset` beside `fields`, never instead of it).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:2.5:summary-by-default", SHOULD, "2.5", "SHOULD return summary data by default",
         "A server that aggregates answers an aggregate request with the summary alone unless include_items "
         "is true.",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:2.6:offset-page-variants", MAY, "2.6", "MAY expose offset- or page-based variants",
         "A server may page by limit/offset or page/page_size where its backend favours that.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:2.6:style-documented", MUST, "2.6", "supported style MUST be documented",
         "A server that pages by offset or page says so in introspection.",
         tests=(COMPLETENESS,), anchored_by=COMPLETENESS),
    Rule(f"{_CQ}:2.6:mixed-styles-rejected", SHOULD, "2.6", "Mixed pagination styles in a single request",
         "A server refuses a request that mixes cursor and offset or page pagination (judged where an operation "
         "documents both styles).",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:2.6:cursor-preferred", SHOULD, "2.6", "Cursor pagination SHOULD remain the preferred",
         "A server's new, MCP-AQL-native collection operations page with cursors.",
         not_judged=UNSEEN + "whether an operation is new or native to MCP-AQL shows in no answer"),
    Rule(f"{_CQ}:3:list-controls", SHOULD, "3", "Not required | SHOULD support | SHOULD support",
         "A server's list_* operations support filter and sort.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:list-aggregate", MAY, "3", "MAY support",
         "A server's list_* operations may support aggregate.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:3:list-paging-fields", SHOULD, "3", "MAY support | SHOULD support | SHOULD support",
         "A server's list_* operations support pagination and fields.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:search-query", SHOULD, "3", "SHOULD support as the canonical text parameter",
         "A server's search_* operations take their text in query.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:search-filter-sort", SHOULD, "3", "text parameter | SHOULD support | SHOULD support",
         "A server's search_* operations support filter and sort.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:search-aggregate", SHOULD, "3", "SHOULD support for summary-style searches",
         "A server's search_* operations support aggregate where a search asks for a summary.",
         not_judged=UNSEEN + "which searches are summary-style is the callers' intent, stated in no answer; a "
         "search_* operation that takes `aggregate` is judged by features/aggregations §2-§5"),
    Rule(f"{_CQ}:3:search-paging-fields", SHOULD, "3", "summary-style searches | SHOULD support | SHOULD support",
         "A server's search_* operations support pagination and fields.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:query-grammar", MUST, "3", "MUST document grammar",
         "A server's query_* operations document their query grammar.",
         tests=(DETAILS,), reading="Restates §2.1 (query-grammar-documented) in the capability matrix; same "
         "reading."),
    Rule(f"{_CQ}:3:query-filter-rules", SHOULD, "3", "SHOULD document composition rules",
         "A server's query_* operations document how filter composes with their grammar (a description of "
         "the operation or of `query` speaks of `filter`, or that of `filter` of `query`).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:query-sort", SHOULD, "3", "SHOULD support when meaningful",
         "A server's query_* operations support sort where ordering makes sense.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:query-aggregate", SHOULD, "3", "SHOULD document support when meaningful",
         "A server's query_* operations document whether they aggregate, where that makes sense (judged where "
         "one takes `aggregate`: its details advertise it; where aggregating makes sense is the server's domain).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:query-paging-fields", SHOULD, "3", "when meaningful | SHOULD support | SHOULD support",
         "A server's query_* operations support pagination and fields (judged on what introspection documents: the "
         "control taken as a parameter, or left out where the description names it).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:3:omit-capability", MAY, "3", "An adapter MAY omit a capability",
         "A server may leave out any control of the matrix.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:3:omission-explicit", SHOULD, "3", "make the omission explicit",
         "A server that leaves out a collection control says so in introspection and in the operation's "
         "description (judged on what introspection documents: the control taken as a parameter, or left out where the "
         "description names it).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:4.1:multi-word-consistent", SHOULD, "4.1", "behave consistently with single-word queries",
         "A server that searches treats a query of several words the way it treats one word (judged: a word "
         "given twice finds what it finds once).",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:4.1:or-default", SHOULD, "4.1", "The default interpretation SHOULD be OR",
         "A server that searches matches any of several words unless it documents otherwise (judged: a word and "
         "a word no record holds find what the word alone finds, unless a description says every word counts).",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:4.1:quoted-phrases", MAY, "4.1", "support quoted phrases for exact match",
         "A server that searches may treat quoted text as an exact phrase.",
         not_judged=A_MAY),
    Rule(f"{_CQ}:4.2:grammar-in-description", MUST, "4.2", "grammar MUST be summarized",
         "A server with a structured query grammar summarises it in the operation's description (names "
         "`query` and shows some of its syntax). We read every query_* operation taking `query` as using a "
         "grammar: §1 defines the family by it.",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:4.2:input-type-introspected", MUST, "4.2", "accepted input type MUST be reflected",
         "A server with a structured query grammar declares the type its query input takes in introspection.",
         tests=("L1.introspection.operation-details", COMPLETENESS), anchored_by=COMPLETENESS),
    Rule(f"{_CQ}:4.2:composed-example", SHOULD, "4.2", "At least one example SHOULD show",
         "A server with a structured query grammar gives an example combining it with fields, sort and "
         "pagination (read leniently: with any of those the operation takes).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:5:validation-list", SHOULD, "5", "implementing collection queries SHOULD",
         "A server with collection queries refuses unknown filter keys and sort fields and mixed pagination, "
         "never silently drops an advertised control, and reports what it applied (judged on its items capture probes: "
         "unknown filter keys (§2.2, judged there) and mixed pagination (§2.6); the others are said in no answer a "
         "check can weigh).",
         tests=(COMPLETENESS,)),
    Rule(f"{_CQ}:5:partial-explicit", SHOULD, "5", "make that limitation explicit",
         "A server that implements only part of the query shape says which part, rather than guessing (judged "
         "by §3's capability matrix: a control a list_*, search_* or query_* operation leaves out is named).",
         tests=(DETAILS,)),
    Rule(f"{_CQ}:6:expose-list", SHOULD, "6", "adapters SHOULD expose",
         "A server with collection queries shows in introspection its query parameters, field selection, "
         "aggregation, computed fields, pagination style, filter keys, sort fields and combined examples.",
         tests=(COMPLETENESS, "L2.features.field-selection")),
    Rule(f"{_CQ}:6:grammar-summary", SHOULD, "6", "description SHOULD include a short grammar summary",
         "A server's query_* description with a rich grammar holds a short summary of it and a real example.",
         tests=(DETAILS,), reading="Restates §4.2 (grammar-in-description, composed-example); same reading."),
)  # fmt: skip

AGGREGATIONS: tuple[Rule, ...] = (
    Rule(f"{_AG}:2:subset", MAY, "2", "MAY support a subset",
         "A server that aggregates may offer only some of count, group_by, sum, avg, min and max.",
         not_judged=A_MAY),
    Rule(f"{_AG}:2:expose-functions", SHOULD, "2", "expose the supported functions and fields",
         "A server that aggregates shows in introspection which functions and fields it supports (judged where a READ "
         "operation takes `aggregate`: its aggregation_support lists functions and fields (a server that aggregates "
         "without documenting an `aggregate` parameter breaks introspection §8.1.2 first)).",
         tests=(DETAILS,)),
    Rule(f"{_AG}:2:group-by-combined", MAY, "2", "MAY be combined with one or more summary",
         "A server that aggregates may take group_by together with summary functions in one expression.",
         not_judged=A_MAY),
    Rule(f"{_AG}:2:unsupported-combinations", SHOULD, "2", "document any unsupported combinations",
         "A server that aggregates documents the function combinations it does not accept (judged on group_by with "
         "count over a field the details list as groupable: refused, the details must say which combinations they "
         "leave out).",
         tests=(COMPLETENESS,)),
    Rule(f"{_AG}:2:bare-group-by", NOT_RECOMMENDED, "2", "bare group_by without at least one",
         "A caller should not send group_by without a summary function.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_AG}:3:omit-items", SHOULD, "3", "omit raw items by default",
         "A server that aggregates leaves the rows out of a summary-oriented answer.",
         tests=(COMPLETENESS,)),
    Rule(f"{_AG}:3:include-items-flag", SHOULD, "3", "explicit include_items: true flag",
         "A server that can return rows with summaries does so only when include_items is true (judged where "
         "include_items is documented: a count with it answers the rows; without it none (omit-items)).",
         tests=(COMPLETENESS,)),
    Rule(f"{_AG}:4:ignore-sort", MAY, "4", "MAY ignore it when ordering",
         "A server answering a summary alone may ignore sort when order cannot change it.",
         not_judged=A_MAY),
    Rule(f"{_AG}:4:clients-name-results", SHOULD, "4", "Clients SHOULD use the names defined",
         "A caller picks which summary values come back through the names inside aggregate, not fields.",
         not_judged=ABOUT_CLIENT, subject=CLIENT),
    Rule(f"{_AG}:4:access-control", SHOULD, "4", "respect the same access-control and visibility",
         "A server's aggregates count only what the caller could read anyway.",
         not_judged=UNSEEN + "which records a caller may see is the server's own policy"),
    Rule(f"{_AG}:4:reject-unsupported", SHOULD, "4", "reject unsupported aggregation functions or fields",
         "A server that aggregates refuses an unknown function or field with a structured validation error.",
         tests=(COMPLETENESS,)),
    Rule(f"{_AG}:4:multiple-named", MAY, "4", "Multiple named aggregations MAY appear",
         "A server that aggregates may be asked for several named aggregations in one request.",
         not_judged=A_MAY),
    Rule(f"{_AG}:5:advertise", SHOULD, "5", "advertise aggregation support",
         "A server that aggregates describes its aggregation support in its operation details.",
         tests=(DETAILS,)),
)  # fmt: skip

RELATIONSHIP_QUERIES: tuple[Rule, ...] = (
    Rule(f"{_RQ}:2:domain-controls", MAY, "2", "MAY add domain-specific root identifiers",
         "A server with relationship queries may add its own root identifiers or filters.",
         not_judged=A_MAY),
    Rule(f"{_RQ}:2:stable-vocabulary", SHOULD, "2", "keep the traversal vocabulary stable",
         "A server with relationship queries keeps the standard root, direction, relationship and depth words (judged "
         "on the parameters a relationship query documents: root and direction by those names, and depth and "
         "relationship not under another name (max_depth, relation...)).",
         tests=(DETAILS,)),
    Rule(f"{_RQ}:3:all-sections-default", SHOULD, "3", "If include is omitted",
         "A server answering a relationship query without include returns root, relationships and graph.",
         tests=(COMPLETENESS,)),
    Rule(f"{_RQ}:3:requested-sections", SHOULD, "3", "limit the response to the requested sections",
         "A server answering a relationship query with include returns only the sections named.",
         tests=(COMPLETENESS,)),
    Rule(f"{_RQ}:3:two-shapes", MAY, "3", "MAY describe the same connections",
         "A server may show the same links both as a relationships list and as graph edges.",
         not_judged=A_MAY),
    Rule(f"{_RQ}:4:custom-types", MAY, "4", "define additional relationship types",
         "A server may add relationship types beyond the five standard ones.",
         not_judged=A_MAY),
    Rule(f"{_RQ}:4:custom-types-documented", SHOULD, "4", "document them in introspection",
         "A server that adds relationship types documents them in introspection with explicit meaning (judged on the "
         "types its traversals answer: one beyond the standard five (uses, extends, references, triggers, composes) is "
         "listed in relationship_capabilities).",
         tests=(COMPLETENESS,)),
    Rule(f"{_RQ}:5:max-depth-documented", SHOULD, "5", "document a maximum supported traversal depth",
         "A server with relationship queries documents how deep a traversal may go.",
         tests=(DETAILS,)),
    Rule(f"{_RQ}:5:dedupe-visited", SHOULD, "5", "avoid infinite traversal by deduplicating",
         "A server traversing relationships visits each node once.",
         tests=(COMPLETENESS,)),
    Rule(f"{_RQ}:5:cycle-edge-emitted", SHOULD, "5", "SHOULD still emit the edge",
         "A server traversing a cycle still reports the edge that closes it.",
         not_judged=UNSEEN + "whether the server's data holds a cycle shows only in the edge that closes it: an "
         "edge left out cannot be told from one that does not exist"),
    Rule(f"{_RQ}:5:bounded-expansion", MUST, "5", "MUST prevent unbounded expansion",
         "A server traversing a cycle stops instead of expanding it without end (judged on a traversal 50 levels deep: "
         "it answers, and repeats no edge (an edge met again means a cycle expanded again)).",
         tests=(COMPLETENESS,)),
    Rule(f"{_RQ}:6:advertise", SHOULD, "6", "advertise relationship-query support",
         "A server with relationship queries describes that support in its operation details.",
         tests=(DETAILS,)),
)  # fmt: skip

RULES: tuple[Rule, ...] = (*COLLECTION_QUERYING, *AGGREGATIONS, *RELATIONSHIP_QUERIES)
