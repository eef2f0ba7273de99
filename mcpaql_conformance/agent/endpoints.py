"""Where a model is and how its key goes: ``PROVIDER:MODEL`` specs, the endpoint (the provider's
own API or a ``--base-url``), which key variable goes where, and the loopback and https rules
that keep a key from going where the options do not say. No SDK is imported here."""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from urllib.parse import urlparse

from mcpaql_conformance import secrecy
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import masked_url

PROVIDERS = ("openai", "anthropic")
DEFAULT_KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
# Where the provider's own API is: given to the SDK when --base-url is not, so that the SDKs'
# OPENAI_BASE_URL and ANTHROPIC_BASE_URL never send a key somewhere the options do not say.
PROVIDER_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


LOCAL_KEY = "not-needed"  # sent where no key is meant to go: local servers (llama.cpp, Ollama, vLLM) take any


class AgentError(ConfigError):
    """The model could not be used (not installed, no key, unreachable, refused): exit 3."""


class ModelTurnFailed(AgentError):
    """One reply failed (no answer in time, or the endpoint refused this conversation): the run
    records it as its error and the other runs go on."""


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str

    @classmethod
    def parse(cls, text: str, option: str = "--model") -> ModelSpec:
        provider, _, model = text.partition(":")
        if provider not in PROVIDERS or not model:
            raise AgentError(
                f"{option} {plain(text)!r}: expected PROVIDER:MODEL with PROVIDER one of {', '.join(PROVIDERS)}"
                " (e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5, openai:local with --base-url)"
            )
        return cls(provider, model)

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


def model_option(text: str, option: str = "--model") -> tuple[ModelSpec, str | None]:
    """``PROVIDER:MODEL`` or ``PROVIDER:MODEL@URL`` (the model's own endpoint): its spec and URL.
    Only an ``@`` that starts an http(s) URL ends the name, so that a name holding ``@`` (a
    dated model, ``claude-x@20250101``) stays whole."""
    found = _OWN_URL.match(text)
    if found is None:
        return ModelSpec.parse(text, option), None
    return ModelSpec.parse(found.group(1), option), found.group(2)


_OWN_URL = re.compile(r"(.+?)@(https?://.*)\Z", re.S | re.I)


@dataclass
class Endpoint:
    """Where a model is and how to reach it.

    The key goes only where it is meant to: the provider's default variable to the provider's
    own API (no ``base_url``); to a ``base_url``, only the variable ``key_variable`` names
    (``--api-key-env``), and never over plain http to a host that is not loopback unless
    ``allow_insecure`` (``--allow-insecure-base-url``). Elsewhere (a keyless local server) the
    placeholder LOCAL_KEY is sent, which is no secret."""

    spec: ModelSpec
    base_url: str | None = None
    key_variable: str | None = None
    timeout: float = 120.0
    allow_insecure: bool = False
    secrets: list[str] = field(default_factory=list)  # the key, for the redactor
    own_url: bool = False  # the URL came with the model (``--model P:M@URL``): it is part of its name

    @property
    def name(self) -> str:
        """How runs, reports and ``--target-model`` name this model: ``openai:gpt-4o-mini``, or with
        its own endpoint ``openai:gemma@http://127.0.0.1:8080/v1`` (credentials masked)."""
        if self.own_url and self.base_url:
            return f"{self.spec}@{masked_url(self.base_url)}"
        return str(self.spec)

    @property
    def url(self) -> str:
        """Where the requests go: ``base_url``, else the provider's own API."""
        return self.base_url or PROVIDER_URLS[self.spec.provider]

    @property
    def variable(self) -> str:
        return self.key_variable or DEFAULT_KEY_VARIABLES[self.spec.provider]

    @property
    def keyless(self) -> bool:
        """Whether the placeholder is sent instead of a key (see ``api_key``)."""
        return self.api_key() == LOCAL_KEY

    def prepare(self) -> None:
        """Before any server starts: the key variable kept from the server's environment, the
        key (and what the base URL carries as credentials) registered as secrets, and where the
        key would go checked (an AgentError, exit 3, when it must not go there)."""
        secrecy.withhold([self.variable])
        secrecy.register_url(self.base_url)
        self.api_key()

    def api_key(self) -> str:
        """The key to send (registered as a secret), or LOCAL_KEY where none is meant to go."""
        variable = self.variable
        if self.base_url is not None and self.key_variable is None:
            # The provider's key is for the provider's API, not for this endpoint. Plain http to
            # a host that is not loopback is refused all the same while it is set: said so, it
            # goes on with the placeholder.
            if os.environ.get(variable) and not self.allow_insecure and not is_private_way(self.base_url):
                raise AgentError(
                    f"refusing plain http to {plain(masked_url(self.base_url))} (not loopback) while ${variable}"
                    " is set: use https, or --allow-insecure-base-url to go on all the same (that key goes"
                    " only to the provider's own API, or to --base-url when --api-key-env names it)"
                )
            return LOCAL_KEY
        key = os.environ.get(variable)
        if not key:
            if self.base_url is not None and is_loopback(self.base_url):
                return LOCAL_KEY
            raise AgentError(
                f"set ${plain(variable)} to the {self.spec.provider} API key (or name another with --api-key-env)"
            )
        secrecy.register(key)
        if key not in self.secrets:
            self.secrets.append(key)
        if self.base_url is not None and not self.allow_insecure and not is_private_way(self.base_url):
            raise AgentError(
                f"refusing to send ${plain(variable)} to {plain(masked_url(self.base_url))} over plain http"
                " (not loopback): use https, or --allow-insecure-base-url to send it all the same"
            )
        return key


def is_private_way(url: str) -> bool:
    """Whether a key may go to ``url``: over https, or to a loopback address."""
    try:
        scheme = urlparse(url).scheme.lower()
    except ValueError:
        return False
    return scheme == "https" or is_loopback(url)


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this machine: ``localhost``, 127.0.0.0/8 or ::1 (also IPv4-mapped);
    ``0.0.0.0`` and names that merely resolve to loopback do not count."""
    try:
        host = (urlparse(url).hostname or "").rstrip(".")
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)
