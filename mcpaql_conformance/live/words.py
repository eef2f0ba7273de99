"""What names and descriptions say an operation does: danger words, verbs that change state,
verbs that add. Read in every case style, at any length and in linear time; what they say can
only add to what an operation needs (``safety.py``), never lift it."""

from __future__ import annotations

import re
from typing import Any

from mcpaql_conformance.evidence.reading import name_words
from mcpaql_conformance.live.levels import READ_ONLY, Need, Permission, strictest
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain

# Danger words. A stem is found anywhere inside a word, so run-together names say it too
# (``softdelete``, ``bulkremove``, ``mcpaqlpurge``); a short verb at the start or end of a
# word, or as the whole word (``runjob``, ``autorun``, ``killall``); a few only as a whole word,
# since too many ordinary words end or start with them (``model``, ``platform``).
DANGER_STEMS = (
    "delete", "deletion", "remove", "removal", "purge", "destroy", "destruct", "execute", "erase", "wipe", "truncate",
    "unlink", "obliterate", "shred", "nuke", "terminate", "uninstall", "deprovision", "overwrite", "revoke", "expunge",
    "evict", "unregister", "deregister",
)  # fmt: skip
DANGER_VERBS = ("exec", "run", "drop")  # word start or end: execjob, rerun, tabledrop
DANGER_PREFIXES = ("kill", "clear", "reset", "flush", "rmdir")  # word start only: killall (not skill)
DANGER_WORDS = frozenset({"del", "rm", "eval", "spawn", "shell", "sudo"})
# Ordinary words that begin with a short verb but do nothing: never a reason on their own.
HARMLESS = frozenset(
    {"runtime", "runtimes", "running", "runner", "runners", "runway", "dropdown", "dropdowns", "droplet",
     "droplets", "execution", "executions", "executor", "executors", "clearance"}
)  # fmt: skip
# Name prefixes that run into the first word of a name (``mcpaqlrun``, ``MCPAQLUPDATE``): read past them.
NAME_PREFIXES = ("mcpaql", "mcp", "aql")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Verbs that change state (what UPDATE and EXECUTE do, or an effect outside the server) and
# verbs that add (what CREATE does). Those that are seldom nouns count wherever they stand in
# a name (also run into another word: ``bulkupdate``, ``sendmessage``); those that are often
# nouns (``get_block``, ``list_post``) only where a name's verb stands: its first word, the word
# after a namespace (``github_merge_pr``), the last word of a name that does not start with a
# verb (``portfolio_sync``), a word after ``or``/``and``/``then``.
STATE_VERBS = _words(
    "update modify rename replace upsert mutate unpublish submit send approve reject accept decline dismiss"
    " enable disable toggle activate deactivate unarchive unblock unlock unassign assign reassign subscribe"
    " unsubscribe unfollow unstar unpin unmute mute kick restart reboot migrate configure reconfigure increment"
    " decrement revert undo redo promote demote provision rotate renew authorize deauthorize buy sell refund"
    " cancel abort pause save put apply cleanup prune invalidate vacuum detach suspend acknowledge snooze"
    " escalate invoke withdraw deposit resync redeploy reindex rebuild regenerate recalculate recompute"
    " reload rollout unmount disconnect unwatch upvote downvote"
)
STATE_NOUN_VERBS = _words(
    "set change edit patch move push write post share email invite block ban lock mark flag star pin like follow"
    " vote comment reply transfer charge order book reserve schedule trigger start stop close reopen launch"
    " dispatch release commit import export archive restore grant deny request ask prompt confirm verify login"
    " logout signup signin upgrade downgrade rollback shutdown transition tag label store sync publish merge"
    " deploy install notify pay react retry resume clean empty void call process index train checkout resolve"
    " refresh halt boot seed mount connect join leave watch review rate sign ack fire emit backup"
)
ADDITIVE_VERBS = _words(
    "create add insert append generate compose make attach enqueue bookmark clone duplicate fork"
)  # fmt: skip
ADDITIVE_NOUN_VERBS = _words("new register upload copy draft record log snapshot")
READ_VERBS = _words(
    "get list search find read fetch query lookup describe show view count browse retrieve introspect inspect"
    " explain check validate preview download discover diff compare summarize summarise stat status"
)
_KNOWN = READ_VERBS | STATE_VERBS | STATE_NOUN_VERBS | ADDITIVE_VERBS | ADDITIVE_NOUN_VERBS
_JOINS = frozenset({"or", "and", "then"})
# What may follow a verb run into another word without making it a new word (``enabled``,
# ``acceptance``, ``sellers``): such a word is not the verb.
_SUFFIXES = _words(
    "s es ed d er ers ing ings ance ances ence ment ments able ability al ation ations lation ee ees ier iers or ors"
    " ter ters ive ives ity ful ly"
)
_RUN_TOGETHER = 4  # a verb this long or longer is read inside a run-together word


def danger_word(name: Any) -> str | None:
    """The word that makes a tool, endpoint family or operation name destructive, if any, found
    in every case style (``mcp_aql_delete``, ``mcpAqlDelete``, ``mcp-aql.softDelete``,
    ``MCP_AQL_SOFTDELETE``) and at any length, in linear time."""
    for word in name_words(name):
        if dangerous(word):
            return word
        for prefix in NAME_PREFIXES:
            if word.startswith(prefix) and len(word) > len(prefix) and dangerous(word[len(prefix) :]):
                return word
    return None


def dangerous(word: str) -> bool:
    """Whether one lower-case word says destructive."""
    if word in HARMLESS:
        return False
    if word in DANGER_WORDS or any(stem in word for stem in DANGER_STEMS):
        return True
    if any(word.startswith(verb) or word.endswith(verb) for verb in DANGER_VERBS):
        return True
    return any(word.startswith(prefix) for prefix in DANGER_PREFIXES)


def unprefixed_words(name: Any) -> list[str]:
    """A name's lower-case words, each read past a prefix run into it (``MCPAQLUPDATE``: update)."""
    found = []
    for word in name_words(name):
        prefix = next((p for p in NAME_PREFIXES if word.startswith(p) and len(word) > len(p)), None)
        if word not in NAME_PREFIXES:
            found.append(word[len(prefix) :] if prefix is not None else word)
    return found


def name_need(name: Any) -> Need:
    """What a name says calling it may do: a danger or state-changing word (destructive), an
    additive word (writes), or nothing (read-only as far as the name goes)."""
    word = danger_word(name)
    if word is not None:
        return Need(Permission.DESTRUCTIVE, f"its name {plain(name, max_len=80)} says {word!r}")
    words = unprefixed_words(name)
    slots = _verb_slots(words)
    for level, anywhere, at_verb in (
        (Permission.DESTRUCTIVE, STATE_VERBS, STATE_NOUN_VERBS),
        (Permission.WRITES, ADDITIVE_VERBS, ADDITIVE_NOUN_VERBS),
    ):
        for index, word in enumerate(words):
            said = word if word in anywhere or (index in slots and word in at_verb) else _run_together(word, anywhere)
            if said is not None:
                return Need(level, f"its name {plain(name, max_len=80)} says {said!r}")
    return READ_ONLY


def _run_together(word: str, verbs: frozenset[str]) -> str | None:
    """A verb run into the start or the end of a word (``sendmessage``, ``bulkupdate``), not a
    word made from it (``enabled``, ``acceptance``)."""
    if len(word) <= _RUN_TOGETHER or word in _KNOWN:
        return None
    for verb in verbs:
        if len(verb) < _RUN_TOGETHER:
            continue
        if word.startswith(verb) and len(word) - len(verb) >= 3 and word[len(verb) :] not in _SUFFIXES:
            return verb
        if word.endswith(verb) and len(word) - len(verb) >= 3:
            return verb
    return None


def _verb_slots(words: list[str]) -> set[int]:
    """Where a name's verb may stand (see STATE_VERBS)."""
    if not words:
        return set()
    slots = {0}
    if words[0] not in _KNOWN:
        slots |= {1, len(words) - 1}
    slots |= {i + 1 for i, word in enumerate(words) if word in _JOINS}
    return slots


def harmful(value: Any) -> bool:
    """Whether a documented value asks for something done (``push``, ``apply``, ``delete``,
    ``create``), as a direction or mode parameter's value may."""
    return isinstance(value, str) and bool(name_need(value))


# --- descriptions ------------------------------------------------------------------------------

MAX_DESCRIPTION = 2000  # characters of a description read (a hostile one may be megabytes)
MAX_WORDS = 400  # words of one sentence read
_SENTENCE = lazy(r"[^.!?;:\n]+")
_DESCRIPTION_WORD = lazy(r"[A-Za-z']+")
# Words that may come before a sentence's verb: "This operation updates ...", "Use it to sync ...",
# "Warning - wipes ...".
_LEADING = _words(
    "this the it its operation tool endpoint will also then first to we you can may be used use simply just"
    " please that which warning note caution important danger beware notice careful attention"
)
# Words after which a verb in its base form is said to be done: "... and removes", "will delete".
_BEFORE_VERB = _words("and then also or will to can may might would could should must")
_NEGATIONS = _words("not never no without doesn't don't won't cannot can't nothing neither nor")
# Plurals of verbs seldom used as nouns that are nouns all the same: "Lists the latest updates".
_PLURAL_NOUNS = _words("updates deposits refunds upvotes downvotes rollouts cleanups puts buys")
_IRREVERSIBLE = lazy(r"cannot be undone|can't be undone|irreversib|permanently", re.IGNORECASE)


def description_need(description: Any) -> Need:
    """What a description says an operation does, in linear time over its first MAX_DESCRIPTION
    characters (one text, or a list of texts): the verb that leads each sentence ("Deletes",
    "Syncs the portfolio", "This operation updates"); a verb seldom a noun, or a danger word,
    said anywhere ("Lists notes, then deletes the old ones", "returns and removes") unless it
    is negated ("never modifies"); and words of no return ("permanently", "cannot be undone")."""
    if isinstance(description, list):
        description = " ".join(text for text in description[:20] if isinstance(text, str))
    if not isinstance(description, str):
        return READ_ONLY
    text = description[:MAX_DESCRIPTION]
    irreversible = _IRREVERSIBLE.search(text)
    if irreversible is not None:
        return Need(Permission.DESTRUCTIVE, f"its description says {irreversible.group(0).lower()!r}")
    needs = []
    for sentence in _SENTENCE.findall(text):
        for verb in _said_verbs([word.lower() for word in _DESCRIPTION_WORD.findall(sentence)[:MAX_WORDS]]):
            need = name_need(verb)
            if need:
                needs.append(Need(need.level, f"its description says {verb!r}"))
    return strictest(needs)


def _said_verbs(words: list[str]) -> list[str]:
    """The verbs a sentence says are done, in their base form."""
    lead = next((index for index, word in enumerate(words[:8]) if word not in _LEADING), None)
    found = []
    for index, word in enumerate(words):
        if any(w in _NEGATIONS for w in words[max(0, index - 3) : index]):
            continue  # "does not delete"
        if index == lead and word.endswith("ing") and _participle(word):  # "Syncing the portfolio"
            found.append(_stem(word))
            continue
        if _participle(word):  # "Deleted notes are kept", "lists running jobs"
            continue
        base = _base_form(word)
        if index == lead:
            found.append(base)
            continue
        seldom_noun = base in STATE_VERBS or base in ADDITIVE_VERBS or dangerous(base)
        said = (base != word and word not in _PLURAL_NOUNS) or (index > 0 and words[index - 1] in _BEFORE_VERB)
        if seldom_noun and said:
            found.append(base)
    return found


def _participle(word: str) -> bool:
    """A verb's participle (``deleted``, ``synced``, ``stopped``, ``running``), which describes
    what is read rather than what is done; not a verb that merely ends so (``shred``)."""
    return _stem(word) != word


def _stem(word: str) -> str:
    """The verb a participle is made of (``deleting`` delete, ``stopped`` stop), else the word."""
    for suffix in ("ing", "ed", "d"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            doubled = stem[:-1] if stem[-1] == stem[-2] else ""
            found = next((c for c in (doubled, stem + "e", stem) if c and (c in _KNOWN or dangerous(c))), None)
            if found is not None:
                return found
    return word


def _base_form(word: str) -> str:
    """``updates`` update, ``syncs`` sync, ``copies`` copy, ``pushes`` push."""
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + replacement
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word
