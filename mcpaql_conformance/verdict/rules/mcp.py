"""The requirement registry: rules of one document (see model.py).

mcp-integration.md is informative: its MUSTs judge as SHOULD unless a core rule or one of our
conformance tests makes them binding (``anchored_by``); where it restates or contradicts the
core spec, ``reading`` says so and the core wins. Capture keeps each MCP tool's name,
description and inputSchema (mcp_tools), never its annotations, the isError flag beside a
valid result, or progress notifications."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    CLIENT,
    DETAILS,
    ENDPOINT_MODES,
    MAY,
    MUST,
    MUST_NOT,
    SHOULD,
    UNION,
    Rule,
)

NO_ANNOTATIONS = (
    "needs evidence no bundle records yet: the tools' MCP annotations (capture keeps each tool's name, "
    "description and inputSchema only)"
)
PATTERNS_READING = (
    "The §2.1.1 lead makes the description patterns a MUST while the sentences that give them "
    "(mcp:2.1.1:crude-templates, mcp:2.1.1:custom-template) say SHOULD, and the core says nothing of tool "
    "descriptions; we read the patterns as advice (SHOULD), the specific sentences over the lead."
)
UNION_READING = "Restates core §5.1 and §10.1 (every operation answers the discriminated union); same reading."


RULES: tuple[Rule, ...] = (
    # 1 Introduction
    Rule(
        "mcp:1.4:alternate-families",
        MAY,
        "1.4",
        "define alternate semantic endpoint families",
        "A server may expose semantic families of its own instead of the CRUDE profile.",
        not_judged=A_MAY,
        reading="Restates the core's Abstract (alternate semantic endpoint families are allowed); same reading.",
    ),
    # 2 Tool registration
    Rule(
        "mcp:2.1:introspect-in-descriptions",
        MUST,
        "2.1",
        "include the introspect operation",
        "The server's MCP tool descriptions mention the introspect operation, so agents can start discovering.",
        tests=(DETAILS,),
    ),
    Rule(
        "mcp:2.1.1:follow-a-pattern",
        MUST,
        "2.1.1",
        "follow one of the semantic-endpoint patterns",
        "In semantic mode each endpoint tool's description follows one of the documented description patterns.",
        not_judged=(
            "the spec says otherwise in mcp:2.1.1:crude-templates: the same patterns are only advised there, and "
            "judged as such (L1.introspection.operation-details)"
        ),
        reading=PATTERNS_READING,
    ),
    Rule(
        "mcp:2.1.1:crude-templates",
        SHOULD,
        "2.1.1",
        "tool descriptions SHOULD follow these templates",
        "With the CRUDE profile each endpoint tool's description follows the template of its category (read "
        "by its parts: the operations it serves named, a quick-start call of one of them).",
        tests=(DETAILS,),
        reading=PATTERNS_READING,
    ),
    Rule(
        "mcp:2.1.1:custom-template",
        SHOULD,
        "2.1.1",
        "each tool description SHOULD follow this template",
        "Each custom family's tool description follows the family template (purpose, categories, operations, "
        "example, introspect).",
        tests=(DETAILS,),
        reading=PATTERNS_READING,
    ),
    Rule(
        "mcp:2.1.1:purpose-and-kinds",
        SHOULD,
        "2.1.1",
        "describe both the family purpose",
        "A family's description says what it is for and what kinds of operations it holds, so agents pick a "
        "family before introspecting (the purpose: a sentence opening the description; the kinds are judged "
        "with the templates).",
        tests=(DETAILS,),
    ),
    Rule(
        "mcp:2.2.1:standard-names",
        SHOULD,
        "2.2.1",
        "use these standard tool names",
        "CRUDE endpoint tools are named mcp_aql_create to mcp_aql_execute, the single tool mcp_aql.",
        tests=(DETAILS,),
        reading="Restates the tool names core §3.3 gives (there without a keyword); same reading.",
    ),
    Rule(
        "mcp:2.2.1:explicit-names",
        MAY,
        "2.2.1",
        "use semantically explicit tool names",
        "Custom families may be named by intent, such as mcp_aql_query or mcp_aql_manage.",
        not_judged=A_MAY,
    ),
    Rule(
        "mcp:2.2.1:names-stable",
        SHOULD,
        "2.2.1",
        "SHOULD remain stable within an adapter",
        "A server keeps its custom tool names the same over time (judged with capture --configurations: started "
        "again with the same environment, it lists the same tool names).",
        tests=(ENDPOINT_MODES,),
        reading=(
            "Judged from one start to the next: versions of an adapter are two captures, which `diff` compares "
            "(a tool gone is a breaking change there)."
        ),
    ),
    Rule(
        "mcp:2.2.1:names-introspected",
        MUST,
        "2.2.1",
        "MUST be discoverable via introspection",
        "The tool that serves each operation can be learnt from introspection (its endpoint and mcpTool).",
        tests=(DETAILS,),
        reading="Restates core §10.1 (each operation's exposed endpoint family is documented via introspection).",
        anchored_by=DETAILS,
    ),
    Rule(
        "mcp:2.2.2:names-disambiguated",
        MUST,
        "2.2.2",
        "tool names MUST be disambiguated",
        "Adapters sharing one client session expose tool names that do not collide.",
        not_judged=(
            "not observable from evidence: a capture connects to one adapter; a collision exists only in a "
            "session holding several"
        ),
    ),
    Rule(
        "mcp:2.3:tool-annotations",
        SHOULD,
        "2.3",
        "include MCP tool annotations",
        "Each endpoint tool carries MCP annotations (readOnlyHint, destructiveHint) as permission hints.",
        tests=(DETAILS,),
    ),
    Rule(
        "mcp:2.3:conservative-annotations",
        SHOULD,
        "2.3",
        "set annotations conservatively",
        "A family's annotations match the riskiest operation it exposes.",
        tests=(DETAILS,),
    ),
    # 3 Input schema composition
    Rule(
        "mcp:3.1:operation-required",
        MUST,
        "3.1",
        "use this base input schema",
        "Every MCP-AQL tool's input schema lists `operation` as required.",
        tests=(DETAILS,),
        reading=(
            "An informative MUST no normative text repeats: a schema that leaves `operation` optional still takes "
            "every standard request, so it warns (one that refuses them, mcp:3.1:base-input-schema, fails). "
            "Operations §7.1's batch carries `operations` and no `operation`: a tool whose schema also takes "
            "`operations` may leave `operation` optional."
        ),
    ),
    Rule(
        "mcp:3.1:base-input-schema",
        MUST,
        "3.1",
        "use this base input schema",
        "Every MCP-AQL tool's input schema takes the standard request: a string `operation`, an object `params`.",
        tests=(DETAILS,),
        reading=(
            "Restates core §4.1 and its normative operation-input schema (Appendix D), which core §10.1 makes a "
            "Level 1 MUST (standard request formats); the core wins where they differ. A schema that refuses "
            "standard requests fails; one that takes them but leaves `operation` optional is "
            "mcp:3.1:operation-required's. Types are read leniently: a type list or anyOf that includes string "
            "(for `operation`) or object (for `params`) matches."
        ),
        anchored_by="core:10.1:l1-formats",
    ),
    Rule(
        "mcp:3.2:extend-top-level",
        MAY,
        "3.2",
        "extend the base schema with additional top-level",
        "A tool's input schema may add shared top-level properties such as element_type.",
        not_judged=A_MAY,
        reading="In line with core §4.2 (parameters may also stand at the top level); same reading.",
    ),
    Rule(
        "mcp:3.3:dynamic-enum",
        MAY,
        "3.3",
        "use dynamic enum generation",
        "A tool's schema may enumerate the operation names it accepts.",
        not_judged=A_MAY,
    ),
    Rule(
        "mcp:3.3:enum-trade-off",
        SHOULD,
        "3.3",
        "consider the trade-off between discoverability",
        "Implementers weigh the token cost of enumerating operations against the discoverability it brings.",
        not_judged=(
            "not observable from evidence: a design consideration; the tools show the choice made, not whether "
            "it was weighed"
        ),
    ),
    Rule(
        "mcp:3.4:family-enum",
        MAY,
        "3.4",
        "have a schema that enumerates only operations",
        "In semantic mode each family's schema may enumerate only that family's operations.",
        not_judged=A_MAY,
    ),
    # 4 Error mapping
    Rule(
        "mcp:4.2:no-jsonrpc-codes",
        MUST_NOT,
        "4.2",
        "MUST NOT use these codes",
        "The server never answers a domain-level failure with a JSON-RPC error (-32600 to -32603).",
        tests=(UNION,),
        reading=UNION_READING,
        anchored_by=UNION,
    ),
    Rule(
        "mcp:4.2:domain-errors-as-results",
        MUST,
        "4.2",
        "be returned as CallToolResult with success",
        "Validation, not-found and permission failures come back as a tool result with success false.",
        tests=(UNION,),
        reading=UNION_READING,
        anchored_by=UNION,
    ),
    Rule(
        "mcp:4.3:http-status-mapping",
        SHOULD,
        "4.3",
        "HTTP status codes SHOULD be mapped",
        "A server wrapping an HTTP API turns the API's HTTP statuses into the matching MCP-AQL error codes.",
        not_judged="not observable from evidence: the wrapped API's HTTP status never reaches the answer",
        reading=(
            "error-codes §6.2's algorithm sends 409 and 429 to VALIDATION_INVALID_TYPE where this table gives "
            "CONFLICT_ALREADY_EXISTS and RATE_LIMIT_EXCEEDED; the core is silent. We take this table (error-codes "
            "§3.2 itself gives CONFLICT_ the 409 and RATE_LIMIT_ the 429 range)."
        ),
    ),
    # 5 Progress notifications
    Rule(
        "mcp:5.1:execute-progress",
        SHOULD,
        "5.1",
        "EXECUTE operations SHOULD emit progress notifications",
        "A slow, staged EXECUTE call whose client sent a progress token reports progress notifications. (Judged "
        "where the operation's lifecycle declares progress_reporting: which calls are long is the server's to say.)",
        tests=("L1.introspection.completeness",),
    ),
    Rule(
        "mcp:5.2:client-progress-token",
        MAY,
        "5.2",
        "Clients MAY include a _meta.progressToken",
        "A client may attach a progress token to a request to receive progress updates.",
        not_judged="about the client",
        subject=CLIENT,
    ),
    Rule(
        "mcp:5.2:progress-on-token",
        SHOULD,
        "5.2",
        "Adapters receiving a progress token",
        "Given a progress token, the server reports progress notifications while an EXECUTE call runs. (Judged "
        "as mcp:5.1:execute-progress is.)",
        tests=("L1.introspection.completeness",),
    ),
    Rule(
        "mcp:5.3:mcp-progress-format",
        MUST,
        "5.3",
        "follow the MCP progress notification format",
        "Progress is sent as MCP notifications/progress messages with the token, progress, total and message. "
        "(Judged on the notifications a call carrying a token brought: their progress rises, never past total; "
        "the MCP SDK drops one whose shape or token is wrong before it is seen.)",
        tests=("L1.introspection.completeness",),
    ),
    Rule(
        "mcp:5.5:other-progress",
        MAY,
        "5.5",
        "MAY emit progress notifications",
        "Long READ, CREATE, UPDATE and DELETE calls may report progress too.",
        not_judged=A_MAY,
    ),
    # 6 Multi-adapter deployment
    Rule(
        "mcp:6.2:tool-prefix",
        SHOULD,
        "6.2",
        "support a tool name prefix",
        "The server can prefix its tool names to tell it apart from other adapters (judged with capture "
        "--configurations: started with MCP_AQL_TOOL_PREFIX=zzconf_, every MCP-AQL tool it lists carries it).",
        tests=(ENDPOINT_MODES,),
    ),
    Rule(
        "mcp:6.3:prefix-config-methods",
        SHOULD,
        "6.3",
        "support prefix configuration via",
        "The prefix can be set by environment variable, configuration file or API, the variable winning (judged "
        "on the variable, as mcp:6.2:tool-prefix).",
        tests=(ENDPOINT_MODES,),
        reading=(
            "Judged on MCP_AQL_TOOL_PREFIX, the first of the three and the one §7.2 names: the spec gives no "
            "configuration file a name, and a programmatic API is not observable from outside the server."
        ),
    ),
    Rule(
        "mcp:6.4:prefix-charset",
        MUST,
        "6.4",
        "contain only lowercase letters",
        "A tool name prefix holds only lowercase letters, digits and underscores.",
        tests=(DETAILS,),
    ),
    Rule(
        "mcp:6.4:prefix-underscore",
        MUST,
        "6.4",
        "end with an underscore",
        "A tool name prefix ends with an underscore.",
        tests=(DETAILS,),
    ),
    Rule(
        "mcp:6.4:prefix-short",
        SHOULD,
        "6.4",
        "SHOULD be short",
        "A tool name prefix is shorter than 20 characters.",
        tests=(DETAILS,),
    ),
    Rule(
        "mcp:6.4:prefix-descriptive",
        SHOULD,
        "6.4",
        "descriptive of the adapter's domain",
        "A tool name prefix names the adapter's domain.",
        not_judged="not observable from evidence: whether a prefix names the domain is a judgement of meaning",
    ),
    Rule(
        "mcp:6.5:client-grouping",
        SHOULD,
        "6.5",
        "clients SHOULD",
        "Clients facing several adapters group tools by prefix, introspect each and show operations with their "
        "adapter.",
        not_judged="about the client",
        subject=CLIENT,
    ),
    # 7 Conformance requirements
    Rule(
        "mcp:7.1:conformance-musts",
        MUST,
        "7.1",
        "Conforming implementations MUST",
        "A conforming server names introspect in tool descriptions, takes the base input schema, answers domain "
        "errors as tool results with a fitting isError and keeps tool names unique beside other adapters.",
        tests=(UNION,),
        reading=(
            "Items 2-3 restate core §4.1, §5.1 and §10.1 (standard request and response formats); same reading. "
            "Items 1, 4 and 5 have no core rule."
        ),
        anchored_by=UNION,
    ),
    Rule(
        "mcp:7.2:conformance-shoulds",
        SHOULD,
        "7.2",
        "Conforming implementations SHOULD",
        "A conforming server uses the standard CRUDE tool names, annotations, MCP_AQL_TOOL_PREFIX, EXECUTE "
        "progress and a consistent HTTP error mapping.",
        tests=(DETAILS,),
    ),
    Rule(
        "mcp:7.3:conformance-mays",
        MAY,
        "7.3",
        "Conforming implementations MAY",
        "A server may enumerate operations, extend the input schema, report progress for any call and take the "
        "prefix from more sources.",
        not_judged=A_MAY,
    ),
)
