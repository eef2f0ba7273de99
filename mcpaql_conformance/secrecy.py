"""What must never be shown, written or handed on.

* **Secrets of this process**: model keys, plan secrets, values sent to sensitive parameters,
  credentials in the URLs given. ``register`` them once; ``sanitize.plain`` masks them before it
  cuts any text (so no excerpt shows a secret's prefix) and every ``Redactor`` starts from them
  (so the records, the bundle, the server's stderr and the transcripts never hold one).
* **URLs as shown**: ``masked_url`` keeps the scheme, host, port and path, and masks the password
  (or a user name without one), every query value and the fragment.
* **The server's environment** (``server_environment``): ours, without the model key variables
  (the well-known ones and those the options name), unless the user passes one on purpose.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

from mcpaql_conformance.regex import lazy

MASK = "***"
# A shorter value is too common to mask in every line we print (the Redactor still masks it in
# the evidence, with a warning): "true", "json" and dates are not registered from URLs either.
MIN_SECRET = 4
MIN_QUERY_SECRET = 8
MIN_KEY = 8  # a model key variable's value shorter than this is a placeholder, not a key
# The variables that hold a model provider's key, kept from the server under test: it has no
# business with them, and a hostile server would read them.
MODEL_KEY_VARIABLES = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_API_KEY", "AZURE_API_KEY",
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "COHERE_API_KEY", "CO_API_KEY",
    "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "TOGETHER_API_KEY", "TOGETHERAI_API_KEY", "FIREWORKS_API_KEY",
    "XAI_API_KEY", "PERPLEXITY_API_KEY", "PPLX_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
    "HUGGINGFACEHUB_API_TOKEN", "REPLICATE_API_TOKEN", "VOYAGE_API_KEY", "CEREBRAS_API_KEY", "NVIDIA_API_KEY",
    "DASHSCOPE_API_KEY", "MOONSHOT_API_KEY", "AI21_API_KEY", "ANYSCALE_API_KEY", "OLLAMA_API_KEY",
    "LLAMA_API_KEY", "AWS_BEARER_TOKEN_BEDROCK",
)  # fmt: skip
_SECRET_WORDS = lazy(r"key|token|secret|pass|pwd|auth|sig|cred|session|code|ticket", re.IGNORECASE)


class _Secrets:
    def __init__(self) -> None:
        self.values: set[str] = set()
        self.longest = 0
        self.pattern: re.Pattern[str] | None = None

    def add(self, value: str) -> None:
        if len(value) >= MIN_SECRET and value not in self.values:
            self.values.add(value)
            self.longest = max(self.longest, len(value))
            ordered = sorted(self.values, key=len, reverse=True)  # longest first: no part of one survives
            self.pattern = re.compile("|".join(re.escape(secret) for secret in ordered))


_SECRETS = _Secrets()


def register(value: object) -> None:
    """A secret of this process (a string; numbers as they are written): masked from now on in
    every line ``plain`` makes and by every new Redactor. Values shorter than MIN_SECRET are not."""
    if isinstance(value, str):
        _SECRETS.add(value)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _SECRETS.add(str(value))


def registered() -> frozenset[str]:
    return frozenset(_SECRETS.values)


def forget() -> None:
    """Forget every secret (for tests: one process, many runs)."""
    global _SECRETS
    _SECRETS = _Secrets()


def mask(text: str, limit: int | None = None) -> str:
    """``text`` (its first ``limit`` characters) with every registered secret masked. The cut is
    made after masking, on the original positions: a secret across the cut is masked whole."""
    pattern = _SECRETS.pattern
    if pattern is None:
        return text if limit is None else text[:limit]
    if limit is None or len(text) <= limit:
        return pattern.sub(MASK, text)
    pieces: list[str] = []
    position = 0
    for match in pattern.finditer(text, 0, limit + _SECRETS.longest):
        if match.start() >= limit:
            break
        pieces += [text[position : match.start()], MASK]
        position = match.end()
    if position < limit:
        pieces.append(text[position:limit])
    return "".join(pieces)


def register_url(url: str | None) -> None:
    """Register what a URL carries as credentials: its password (or a user name without one), its
    fragment, and its query values that are named like a secret or long enough to be one."""
    if not url:
        return
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        user, colon, password = userinfo.partition(":")
        register(password if colon else user)
    for name, _, value in (pair.partition("=") for pair in parts.query.split("&") if pair):
        if len(value) >= MIN_QUERY_SECRET or _SECRET_WORDS.search(name):
            register(value)
    if len(parts.fragment) >= MIN_QUERY_SECRET:
        register(parts.fragment)


def masked_url(url: str) -> str:
    """The URL as it may be shown and written: ``http://user:***@host:8080/mcp?token=***``.
    A URL that cannot be parsed is masked from its first ``@`` or ``?`` on all the same."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return _ROUGH_USERINFO.sub(lambda m: m.group(1) + MASK + "@", _ROUGH_QUERY.sub("?" + MASK, url))
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _password = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon and user else f"{MASK}@{host}"
    query = "&".join(_masked_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
    fragment = MASK if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


_ROUGH_USERINFO = lazy(r"(//)[^/?#]*@")
_ROUGH_QUERY = lazy(r"[?#].*", re.DOTALL)
_URL_IN_TEXT = lazy(r"[A-Za-z][A-Za-z0-9+.-]{0,31}://\S+")


def _masked_pair(pair: str) -> str:
    name, equals, _value = pair.partition("=")
    return f"{name}={MASK}" if equals else (MASK if pair else "")


def mask_urls(text: str) -> str:
    """``text`` with every URL in it masked (a command line that names an endpoint)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda match: masked_url(match.group(0)), text)


# In a command line: NAME=value and --option value (or =value) where the name says secret, and
# values shaped like well-known keys and tokens whatever they are given as.
_SECRET_ASSIGNMENT = lazy(
    r"(?P<name>\b[A-Za-z_][A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|AUTH|CREDENTIALS?)[A-Za-z0-9_]*=)"
    r"(?P<value>\S+)",
    re.IGNORECASE,
)
_SECRET_OPTION = lazy(
    r"(?P<name>(?<!\S)--?[A-Za-z0-9-]*(?:key|token|secret|password|passwd|pass|pwd|auth|credentials?)[A-Za-z0-9-]*"
    r"(?:=|\s+))(?P<value>[^\s-]\S*)",
    re.IGNORECASE,
)
_KEY_SHAPES = lazy(r"\b(?:sk-[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{8,}|xox[abpr]-[A-Za-z0-9-]{8,}|AKIA[0-9A-Z]{12,})")


def masked_command(text: str) -> str:
    """A command line or URL as it may be shown by anyone: URLs masked (``masked_url``), the
    values of secret-named assignments and options, and anything shaped like a well-known key."""
    text = mask_urls(text)
    text = _SECRET_ASSIGNMENT.sub(lambda match: match.group("name") + MASK, text)
    text = _SECRET_OPTION.sub(lambda match: match.group("name") + MASK, text)
    return _KEY_SHAPES.sub(MASK, text)


class _Environment:
    def __init__(self) -> None:
        self.withheld: set[str] = set(MODEL_KEY_VARIABLES)
        self.passed: set[str] = set()


_ENVIRONMENT = _Environment()


def withhold(names: Iterable[str | None]) -> None:
    """Keep these variables (a model's or judge's key variable) from the server too; register their values."""
    for name in names:
        if name:
            _ENVIRONMENT.withheld.add(name)
    protect_model_keys()


def pass_through(names: Iterable[str]) -> None:
    """Hand these variables to the server after all (``--pass-env``): the user's choice. Their
    values stay secrets: whatever the server echoes of them is masked."""
    _ENVIRONMENT.passed.update(names)
    protect_model_keys()


def withheld_variables() -> list[str]:
    """The variables the server does not get, of those that are set."""
    withheld = _ENVIRONMENT.withheld - _ENVIRONMENT.passed
    return sorted(name for name in withheld if name in os.environ)


def protect_model_keys() -> None:
    """Register the values of every model key variable that is set (withheld or passed), those
    that look like a key: placeholders such as ``EMPTY`` or ``dummy`` would mask ordinary words
    (the key an endpoint sends is registered whatever its length: ``Endpoint.api_key``)."""
    for name in _ENVIRONMENT.withheld:
        value = os.environ.get(name)
        if value and len(value) >= MIN_KEY:
            register(value)


def server_environment() -> dict[str, str]:
    """The environment the server under test is started with: ours, without the model key
    variables (the one function every spawn takes its environment from). Before it starts, this
    process's own environment is shielded from it (see ``shield_process``)."""
    protect_model_keys()
    withheld = _ENVIRONMENT.withheld - _ENVIRONMENT.passed
    shield_process({name for name in withheld if os.environ.get(name)})
    return {name: value for name, value in os.environ.items() if name not in withheld}


def shield_process(names: set[str]) -> None:
    """On Linux, keep a server from reading the withheld keys in ``/proc/<our pid>/environ``: this
    process becomes non-dumpable (its /proc files are no longer readable by the same user), and
    the values in the environment block it was started with are overwritten. Python's
    ``os.environ`` is a copy made at start: the SDKs still read the keys from it."""
    if not names or sys.platform != "linux":
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end (fields 50 and 51)
        with open("/proc/self/environ", "rb") as environ:
            block = environ.read()
        if not 0 < end - start == len(block) or ctypes.string_at(start, len(block)) != block:
            return  # not the block this process reads as its environment: leave it alone
        offset = 0
        for entry in block.split(b"\0"):
            name, equals, value = entry.partition(b"=")
            if equals and value and name.decode("utf-8", "replace") in names:
                ctypes.memset(start + offset + len(name) + 1, ord("*"), len(value))
            offset += len(entry) + 1
    except (OSError, ValueError, IndexError, AttributeError):
        return


def reset_environment() -> None:
    """Back to the well-known variables only (for tests)."""
    global _ENVIRONMENT
    _ENVIRONMENT = _Environment()
