"""The requirement registry: rules of one document (see model.py)."""

from __future__ import annotations

from mcpaql_conformance.verdict.rules.model import (
    A_MAY,
    DETAILS,
    ENDPOINT_MODES,
    MAY,
    MUST,
    OPS_QUERY,
    SHOULD,
    Rule,
)

RULES: tuple[Rule, ...] = (
    Rule("crude:1.3:alternate-families", MAY, "1.3", "MAY instead expose alternate semantic",
         "An adapter may use endpoint families other than CRUDE when they fit its API better.",
         not_judged=f"{A_MAY}: a non-CRUDE profile", reading="Restates the core's abstract and §3.3."),
    Rule("crude:2.4:delete-confirmation", MAY, "2.4", "MAY require confirmation",
         "DELETE operations may ask for confirmation first.", not_judged=f"{A_MAY}: confirmation of deletes"),
    Rule("crude:3.3:tool-annotations", SHOULD, "3.3", "SHOULD include permission hints",
         "The MCP tools are registered with read-only and destructive hints.",
         tests=(DETAILS,)),
    Rule("crude:3.4:confirmation", MAY, "3.4", "MAY require explicit confirmation for",
         "Deletes, externally visible executes and critical updates may ask for confirmation.",
         not_judged=f"{A_MAY}: confirmation"),
    Rule("crude:4.3:one-mode", MUST, "4.3", "MUST support at least one mode",
         "The adapter offers semantic endpoints or a single endpoint, at least one of them.",
         tests=(OPS_QUERY,), anchored_by=OPS_QUERY, reading="Restates core §3.3 and §10.1 (same MUST)."),
    Rule("crude:4.3:both-modes", SHOULD, "4.3", "SHOULD support both modes",
         "The adapter offers both modes, chosen by configuration at run time.", tests=(ENDPOINT_MODES,),
         reading="Restates core §3.3 (SHOULD); core §10.1 makes both modes a MUST for Level 2. Run-time "
         "configuration is this document's addition and is not judged."),
    Rule("crude:5.1:one-endpoint", MUST, "5.1", "routed to exactly one endpoint",
         "Every operation belongs to exactly one endpoint.", tests=(DETAILS,), anchored_by=DETAILS,
         reading="Restates core §6.2 (one family per operation in semantic endpoint mode)."),
    Rule("crude:5.1:reject-wrong-endpoint", MUST, "5.1", "reject operations sent to incorrect endpoints",
         "An operation sent to an endpoint not its own is refused.", tests=(DETAILS,), anchored_by=DETAILS,
         reading="Restates core §6.2. The §5.2 route-mismatch example gives `error` as a bare string; core §5.1 "
         "requires a structured {code, message} error and we take the core (L1.errors.discriminated-union "
         "fails a string error)."),
    Rule("crude:6.5:canonical-verbs", SHOULD, "6.5", "canonical verbs that adapters SHOULD use",
         "Standard operations are named with their endpoint's canonical verb.",
         tests=(DETAILS,),
         reading="Restates core §8.5.1 (same verbs, SHOULD)."),
    Rule("crude:6.5:non-canonical", MAY, "6.5", "MAY be used when domain semantics",
         "Other verbs may be used where the domain calls for them.", not_judged=f"{A_MAY}: non-canonical verbs",
         reading="Restates core §8.5.3."),
    Rule("crude:6.6:document-classification", MUST, "6.6", "document their operation classification via",
         "Introspection shows how each operation is classified.", tests=(OPS_QUERY, DETAILS),
         anchored_by=OPS_QUERY, reading="Restates core §10.1 and §10.2 (document operations via introspection)."),
    Rule("crude:6.6:endpoint-discoverable", MUST, "6.6", "endpoint MUST be discoverable",
         "Introspection tells which endpoint each operation uses.", tests=(OPS_QUERY, DETAILS),
         anchored_by=DETAILS, reading="Restates core §10.1 (each operation's endpoint family via introspection)."),
    Rule("crude:7.1:profile-musts", MUST, "7.1", "Implementations exposing the CRUDE profile MUST",
         "A CRUDE adapter offers the five endpoints or one, routes and refuses by category, sets accurate "
         "permission flags and offers introspect as a READ.", tests=(OPS_QUERY, DETAILS), anchored_by=DETAILS,
         reading="Items 2, 3 and 5 restate core §6.2, §7.2 and §8.5.4; item 4 matches the flag table of core §6.1."),
    Rule("crude:7.2:profile-shoulds", SHOULD, "7.2", "Implementations exposing the CRUDE profile SHOULD",
         "A CRUDE adapter offers both modes, configurable, confirms destructive calls, logs executes and "
         "annotates its tools.", tests=(ENDPOINT_MODES,),
         reading="Item 1 restates core §3.3 (SHOULD); core §10.1 makes both modes a MUST for Level 2."),
    Rule("crude:7.3:profile-mays", MAY, "7.3", "Conforming implementations MAY",
         "A CRUDE adapter may add operations, permission levels, access lists, confirmations and rate limits.",
         not_judged=f"{A_MAY}: optional extras"),
)  # fmt: skip
