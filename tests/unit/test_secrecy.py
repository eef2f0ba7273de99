"""secrecy: the process's secrets (masked before any cut), masked URLs, the server's environment."""

from __future__ import annotations

import pytest

from mcpaql_conformance import secrecy
from mcpaql_conformance.live.connection import Target, telling_lines
from mcpaql_conformance.live.redact import Redactor
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import MASK, mask, mask_urls, masked_url

KEY = "sk-proj-QWERTY0123456789abcdef"


# --- masked before cut ---------------------------------------------------------------------------


@pytest.mark.parametrize("start", [150, 190, 195, 198, 199, 200, 205])
def test_a_secret_across_the_cut_of_an_excerpt_shows_no_prefix(start: int) -> None:
    secrecy.register(KEY)
    text = "x" * start + KEY + " and more text after it " * 20
    shown = plain(text, max_len=200)
    assert len(shown) <= 200
    assert not any(KEY[:n] in shown for n in range(3, len(KEY) + 1))


def test_a_secret_split_by_escape_sequences_is_masked_too() -> None:
    secrecy.register(KEY)
    assert plain(f"key: {KEY[:10]}\x1b[0m{KEY[10:]}\u200b!") == f"key: {MASK}!"


def test_a_secret_beyond_the_first_cut_of_a_hostile_text_is_masked_whole() -> None:
    secrecy.register(KEY)
    for start in range(7990, 8010):
        text = "\x1b[0m" * (start // 4) + "y" * (start % 4) + KEY + "z" * 100
        assert KEY[:4] not in plain(text, max_len=2000).replace("***", "")


def test_mask_cuts_on_the_original_positions_with_whole_secrets() -> None:
    secrecy.register(KEY)
    text = "ab" + KEY + "cd"
    assert mask(text, 5) == "ab" + MASK
    assert mask(text, 2) == "ab"
    assert mask(text, 100) == "ab" + MASK + "cd"
    assert mask("no secret here", 7) == "no secr"


def test_short_values_are_not_masked_in_every_line_but_by_the_redactor() -> None:
    secrecy.register("abc")
    secrecy.register(482193)
    secrecy.register(True)
    assert secrecy.registered() == frozenset({"482193"})
    assert plain("abc 482193") == f"abc {MASK}"


def test_telling_lines_of_stderr_show_no_prefix_of_a_secret() -> None:
    secrecy.register(KEY)
    line = "Error: " + "s" * 290 + KEY
    assert KEY[:8] not in telling_lines(f"starting\n{line}\n")


def test_every_redactor_starts_from_the_process_secrets_and_adds_to_them() -> None:
    secrecy.register(KEY)
    redactor = Redactor()
    assert redactor.value({"message": f"key {KEY}"}) == {"message": f"key {MASK}"}
    redactor.add_secret("hunter2-password", everywhere=True)
    assert plain("was hunter2-password") == f"was {MASK}"
    assert Redactor().text("hunter2-password and " + KEY) == f"{MASK} and {MASK}"
    redactor.add_secret("probe")  # a value sent to a sensitive parameter: the evidence only
    assert redactor.text("a probe") == f"a {MASK}" and plain("1 probe(s) not sent") == "1 probe(s) not sent"


def test_without_secrets_plain_keeps_its_fast_path() -> None:
    text = "a" * 100
    assert plain(text) is text


# --- URLs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp"),
        ("http://user:PASS@127.0.0.1:1/mcp?token=T", "http://user:***@127.0.0.1:1/mcp?token=***"),
        ("https://TOKEN@example.com/v1", "https://***@example.com/v1"),
        ("https://:PASS@example.com/v1", "https://***@example.com/v1"),
        ("http://h/v1?api-key=K&api-version=2024-01-01&flag", "http://h/v1?api-key=***&api-version=***&***"),
        ("http://h/cb#access_token=A", "http://h/cb#***"),
        ("http://u:p@w@h:1/x", "http://u:***@h:1/x"),
        ("http://u:p@h:notaport/x?k=v", "http://***@h:notaport/x?***"),
        ("http://[::1/x?secret=1", "http://[::1/x?***"),
    ],
)
def test_masked_urls_keep_where_and_hide_credentials(url: str, shown: str) -> None:
    assert masked_url(url) == shown


def test_urls_in_a_command_line_are_masked() -> None:
    command = "npx mcp-remote https://u:PASS@example.com/mcp?key=K --flag"
    assert mask_urls(command) == "npx mcp-remote https://u:***@example.com/mcp?key=*** --flag"
    assert Target(command=tuple(command.split())).describe() == mask_urls(command)
    assert Target(url="http://u:PASS@h/mcp?t=1").describe() == "http://u:***@h/mcp?t=***"


def test_a_urls_credentials_are_registered_as_secrets_but_not_short_ordinary_values() -> None:
    secrecy.register_url("http://user:PASSWORD@h/mcp?token=tok1&format=json&sig=abcdefghijkl&v=1#fragment-long")
    assert secrecy.registered() == frozenset({"PASSWORD", "tok1", "abcdefghijkl", "fragment-long"})
    secrecy.register_url("https://TOKENUSER@h/")
    assert "TOKENUSER" in secrecy.registered()
    secrecy.register_url("http://[::1")  # unparseable: nothing, no error
    secrecy.register_url(None)


# --- the server's environment --------------------------------------------------------------------


def test_the_server_gets_the_environment_without_model_key_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-other-key")
    monkeypatch.setenv("MY_KEY", "named-by-api-key-env")
    monkeypatch.setenv("DEMO_NOTES_PASSPHRASE", "the-servers-own")
    env = secrecy.server_environment()
    assert "OPENAI_API_KEY" not in env and "ANTHROPIC_API_KEY" not in env
    assert env["MY_KEY"] == "named-by-api-key-env" and env["DEMO_NOTES_PASSPHRASE"] == "the-servers-own"
    assert KEY in secrecy.registered()  # a key set is a secret, withheld or not
    secrecy.withhold(["MY_KEY", None])
    assert "MY_KEY" not in secrecy.server_environment()
    assert "named-by-api-key-env" in secrecy.registered()
    secrecy.pass_through(["OPENAI_API_KEY"])
    assert secrecy.server_environment()["OPENAI_API_KEY"] == KEY
    assert secrecy.withheld_variables() == ["ANTHROPIC_API_KEY", "MY_KEY"]
    assert KEY in secrecy.registered()  # passed on: still masked wherever the server echoes it


def test_placeholder_values_of_unused_key_variables_are_not_masked_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    monkeypatch.setenv("GROQ_API_KEY", "gsk_0123456789abcdef")
    secrecy.protect_model_keys()
    assert secrecy.registered() == frozenset({"gsk_0123456789abcdef"})
    assert "OPENAI_API_KEY" not in secrecy.server_environment()  # kept from the server all the same


def test_the_environment_block_this_process_started_with_is_shielded(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import subprocess
    import sys

    script = (
        "import os, sys\n"
        "from mcpaql_conformance import secrecy\n"
        "env = secrecy.server_environment()\n"
        "block = open(f'/proc/{os.getpid()}/environ', 'rb').read()\n"
        "print(b'QWERTY' in block, os.environ['OPENAI_API_KEY'], 'OPENAI_API_KEY' in env)\n"
    )
    if sys.platform != "linux":
        pytest.skip("Linux only")
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert done.stdout == f"False {KEY} False\n"
