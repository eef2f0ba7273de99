"""Secrets and terminal hygiene at the edges (issue 17, points 2 and 5), through the real CLI.

Our own hostile servers (``servers.py``: ``keys``, ``bad-notify``, ``hostile-http``) and the fake
model API (``tests/fake_llm.py``, which records request headers): model key variables never
reach the server; a key the server learned anyway, printed in a banner, on stderr, in answers
and in a notification, appears nowhere (stdout, stderr, bundle, records, server-stderr.log,
transcripts), not even a prefix cut from an excerpt; URL credentials are masked; a key is not
sent over plain http to a host that is not loopback, nor the provider's key to a --base-url; and
the libraries' log lines reach the terminal as one sanitised line each, never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import DEMO, demo_over_http, http_server, run_cli, warm
from tests.fake_llm import FakeLLM

SERVERS = Path(__file__).with_name("servers.py")
KEYS = (sys.executable, str(SERVERS), "keys")
MODEL_KEY = "sk-proj-QWERTYmodel0123456789abcdef"
JUDGE_KEY = "sk-ant-ASDFGHjudge9876543210fedcba"
OTHER_KEY = "AIzaGEMINIkey-5566778899aabbccdd"
READ_KEY = {"tool_calls": [{"name": "mcp_aql_read", "arguments": {"operation": "get_key", "params": {"key_id": "k"}}}]}


def fragments(secret: str) -> list[str]:
    """The secret and the prefixes an excerpt cut through it would show."""
    return [secret, secret[:12]]


def everything_written(tmp_path: Path, *results: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """Every text the runs printed or wrote: stdout, stderr, and every file under tmp_path (the
    bundle, the records folder with its server-stderr.log, the transcripts)."""
    texts = {f"stdout {i}": r.stdout for i, r in enumerate(results)}
    texts |= {f"stderr {i}": r.stderr for i, r in enumerate(results)}
    for root, _, files in os.walk(tmp_path):
        for name in files:
            path = Path(root) / name
            if path.name != "seen.json":  # what the server saw: asserted on its own
                texts[str(path)] = path.read_text(encoding="utf-8", errors="replace")
                texts[f"name of {path}"] = str(path.relative_to(tmp_path))
    return texts


def assert_nowhere(texts: dict[str, str], *secrets: str) -> None:
    for secret in secrets:
        for fragment in fragments(secret):
            found = [where for where, text in texts.items() if fragment in text]
            assert not found, f"{fragment!r} found in {found}"


def seen(tmp_path: Path) -> dict[str, Any]:
    """The key variables the server had, and what it read of them in our /proc/PID/environ."""
    found = json.loads((tmp_path / "seen.json").read_text())
    parent = found.pop("parent")
    withheld = {name: value for name, value in parent.items() if found.get(name) is None}
    assert all(not value.strip("*") for value in withheld.values()), withheld
    return found  # type: ignore[no-any-return]


def server_env(tmp_path: Path, leak: str, **extra: str) -> dict[str, str]:
    return {"KEYS_SEEN": str(tmp_path / "seen.json"), "KEYS_LEAK": leak, **extra}


def tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.yaml"
    path.write_text(
        "tasks:\n  - _description: Read the key\n    input: Read the key k.\n"
        "    expectedTools: [get_key]\n    intent: The model reads key k.\n"
    )
    return path


# --- the server's environment --------------------------------------------------------------------


def test_model_key_variables_are_kept_from_the_server_and_a_key_it_learned_is_shown_nowhere(tmp_path):
    env = server_env(tmp_path, MODEL_KEY, OPENAI_API_KEY=MODEL_KEY, ANTHROPIC_API_KEY=JUDGE_KEY)
    env["GEMINI_API_KEY"] = OTHER_KEY
    args = ["capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "records")]
    result = run_cli(*args, "--", *warm(*KEYS), env=env)
    assert result.returncode == 0, result.stderr
    assert seen(tmp_path) == dict.fromkeys(
        ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MY_MODEL_KEY", "MY_JUDGE_KEY"]
    )
    texts = everything_written(tmp_path, result)
    assert any(path.endswith("server-stderr.log") for path in texts)
    assert "the server printed a banner before speaking JSON-RPC: 'Keys server ready ..." in result.stderr
    assert_nowhere(texts, MODEL_KEY, JUDGE_KEY, OTHER_KEY)
    log = next(text for path, text in texts.items() if path.endswith("server-stderr.log"))
    assert "starting with the key ***" in log


def test_pass_env_hands_a_key_variable_on_and_what_the_server_echoes_of_it_is_still_masked(tmp_path):
    env = server_env(tmp_path, MODEL_KEY, OPENAI_API_KEY=MODEL_KEY, ANTHROPIC_API_KEY=JUDGE_KEY)
    args = ["capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "records")]
    result = run_cli(*args, "--pass-env", "OPENAI_API_KEY", "--", *warm(*KEYS), env=env)
    assert result.returncode == 0, result.stderr
    assert seen(tmp_path)["OPENAI_API_KEY"] == MODEL_KEY and seen(tmp_path)["ANTHROPIC_API_KEY"] is None
    assert_nowhere(everything_written(tmp_path, result), MODEL_KEY, JUDGE_KEY)


@pytest.mark.parametrize("command", ["agent", "check"])
def test_the_model_and_judge_keys_are_kept_from_the_server_and_never_shown_in_any_phase(tmp_path, command):
    """``agent`` and both phases of ``check --agent``: the server learned both keys (it prints
    them in its banner, on stderr, in answers the model reads, in a notification); the judge's
    reason repeats the model's key."""
    verdict = {"text": json.dumps({"verdict": "pass", "reason": f"it read {MODEL_KEY}"})}
    with FakeLLM(replies=[READ_KEY, {"text": "done"}]) as model, FakeLLM(replies=[verdict]) as judge:
        args = ["--model", "openai:m", "--base-url", model.url + "/v1", "--api-key-env", "MY_MODEL_KEY"]
        args += ["--judge", "openai:j", "--judge-base-url", judge.url + "/v1", "--judge-api-key-env", "MY_JUDGE_KEY"]
        args += ["--runs", "1", "--no-builtin", "--tasks", str(tasks_file(tmp_path))]
        args += ["--bundle", str(tmp_path / "out" / "b.json"), "--transcripts", str(tmp_path / "out" / "t")]
        if command == "check":
            args = ["check", "--agent", "--capture-dir", str(tmp_path / "out" / "records"), "-f", "json", *args]
        else:
            args = ["agent", *args]
        env = server_env(tmp_path, f"{MODEL_KEY} {JUDGE_KEY}", MY_MODEL_KEY=MODEL_KEY, MY_JUDGE_KEY=JUDGE_KEY)
        result = run_cli(*args, "--", *warm(*KEYS), env=env)
    assert result.returncode in ((0, 1, 2) if command == "check" else (0,)), result.stderr
    assert "agent: Read the key run 1/1: 2 turn(s), 1 call(s), answered" in result.stderr
    assert seen(tmp_path)["MY_MODEL_KEY"] is None and seen(tmp_path)["MY_JUDGE_KEY"] is None
    assert [r.headers["authorization"] for r in model.requests] == [f"Bearer {MODEL_KEY}"] * 2  # named: sent
    assert [r.headers["authorization"] for r in judge.requests] == [f"Bearer {JUDGE_KEY}"]
    texts = everything_written(tmp_path / "out", result)
    assert any("transcripts" in path or "/t/" in path for path in texts)
    if command == "check":
        assert any(path.endswith("server-stderr.log") for path in texts)
    assert_nowhere(texts, MODEL_KEY, JUDGE_KEY)
    bundle = json.loads((tmp_path / "out" / "b.json").read_text())
    assert bundle["agent_tests"][0]["runs"][0]["judge"]["reason"] == "it read ***"


# --- where a key goes ------------------------------------------------------------------------------


def test_the_providers_own_key_is_not_sent_to_a_base_url_a_placeholder_is(tmp_path):
    with FakeLLM(replies=[{"text": "done"}]) as fake:
        args = ["agent", "--model", "openai:m", "--base-url", fake.url + "/v1", "--runs", "1", "--no-builtin"]
        args += ["--tasks", str(tasks_file(tmp_path)), "--bundle", str(tmp_path / "out" / "b.json")]
        args += ["--transcripts", str(tmp_path / "out" / "t")]
        result = run_cli(*args, "--", *warm(*KEYS), env=server_env(tmp_path, "", OPENAI_API_KEY=MODEL_KEY))
    assert result.returncode == 0, result.stderr
    assert [r.headers["authorization"] for r in fake.requests] == ["Bearer not-needed"]
    assert seen(tmp_path)["OPENAI_API_KEY"] is None
    assert_nowhere(everything_written(tmp_path / "out", result), MODEL_KEY)


@pytest.mark.parametrize(("command", "named"), [("agent", True), ("check", True), ("agent", False)])
def test_plain_http_to_a_host_that_is_not_loopback_is_refused_while_a_key_is_in_play(tmp_path, command, named):
    """0.0.0.0 is no loopback address (though Linux connects it to this machine: the fake model).
    With --api-key-env the key would go there; with the provider's variable set, it would not
    (only the placeholder), but the way is refused all the same until the user says so."""
    with FakeLLM(replies=[{"text": "done"}]) as fake:
        base = fake.url.replace("127.0.0.1", "0.0.0.0") + "/v1"
        args = [command, *(["--agent"] if command == "check" else []), "--model", "openai:m", "--base-url", base]
        args += ["--api-key-env", "MY_MODEL_KEY"] if named else []
        args += ["--runs", "1", "--no-builtin", "--tasks", str(tasks_file(tmp_path))]
        args += ["--bundle", str(tmp_path / "out" / "b.json"), "--transcripts", str(tmp_path / "out" / "t")]
        args += ["--capture-dir", str(tmp_path / "out" / "records")] if command == "check" else []
        env = server_env(tmp_path, "", **{"MY_MODEL_KEY" if named else "OPENAI_API_KEY": MODEL_KEY})
        refused = run_cli(*args, "--", *warm(*KEYS), env=env)
        assert refused.returncode == 3
        if named:
            assert refused.stderr == (
                f"error: refusing to send $MY_MODEL_KEY to {base} over plain http (not loopback): use https,"
                " or --allow-insecure-base-url to send it all the same\n"
            )
        else:
            assert refused.stderr.startswith(
                f"error: refusing plain http to {base} (not loopback) while $OPENAI_API_KEY is set: use https,"
            )
            assert refused.stderr.count("\n") == 1
        assert fake.requests == [] and not (tmp_path / "seen.json").exists()  # nothing started, nothing sent
        allowed = run_cli(*args, "--allow-insecure-base-url", "--", *warm(*KEYS), env=env)
    assert allowed.returncode in (0, 1, 2), allowed.stderr
    sent = MODEL_KEY if named else "not-needed"
    assert [r.headers["authorization"] for r in fake.requests] == [f"Bearer {sent}"]
    assert_nowhere(everything_written(tmp_path / "out", refused, allowed), MODEL_KEY)


# --- credentials in URLs ----------------------------------------------------------------------------


def test_url_passwords_and_query_values_are_masked_wherever_they_are_written_or_printed(tmp_path):
    with demo_over_http() as url:
        secret_url = url.replace("http://", "http://someone:PASSWORD-4711@") + "?token=TOKEN-0815&v=1"
        args = ["check", "--url", secret_url, "--bundle", str(tmp_path / "b.json")]
        result = run_cli(*args, "--capture-dir", str(tmp_path / "records"), "-f", "json")
    assert result.returncode in (0, 1, 2), result.stderr
    shown = url.replace("http://", "http://someone:***@") + "?token=***&v=***"
    assert f"from {shown} over streamable-http" in result.stderr
    assert json.loads((tmp_path / "b.json").read_text())["description"].startswith(f"Captured from {shown} by ")
    assert_nowhere(everything_written(tmp_path, result), "PASSWORD-4711", "TOKEN-0815")


def test_base_url_credentials_are_masked_in_the_agent_evidence(tmp_path):
    with FakeLLM(replies=[{"text": "done"}]) as fake:
        base = fake.url.replace("http://", "http://user:BASEPASS-1234@") + "/v1?api-key=QUERYKEY-5678"
        args = ["agent", "--model", "openai:m", "--base-url", base, "--runs", "1", "--no-builtin"]
        args += ["--tasks", str(tasks_file(tmp_path)), "--bundle", str(tmp_path / "out" / "b.json")]
        result = run_cli(*args, "--transcripts", str(tmp_path / "out" / "t"), "--", *warm(*DEMO))
    assert result.returncode == 0, result.stderr
    runs = json.loads((tmp_path / "out" / "b.json").read_text())["agent_runs"]
    assert runs[-1]["base_url"] == fake.url.replace("http://", "http://user:***@") + "/v1?api-key=***"
    assert_nowhere(everything_written(tmp_path / "out", result), "BASEPASS-1234", "QUERYKEY-5678")


# --- terminal hygiene -----------------------------------------------------------------------------------


def assert_clean_terminal(stderr: str) -> None:
    assert "\x1b" not in stderr and "\x9b" not in stderr and "\x07" not in stderr
    assert "Traceback" not in stderr and 'File "' not in stderr
    lines = stderr.splitlines()
    assert len(lines) == len(set(lines)), "a line was repeated"
    assert sum(line.startswith("warning: MCP SDK: ") for line in lines) <= 21


def test_notifications_that_fail_validation_are_one_sanitised_line_each_never_a_traceback(tmp_path):
    args = ["capture", "--bundle", str(tmp_path / "b.json"), "--capture-dir", str(tmp_path / "records")]
    result = run_cli(*args, "--", *warm(sys.executable, str(SERVERS), "bad-notify"))
    assert result.returncode == 0, result.stderr
    assert_clean_terminal(result.stderr)
    assert "warning: MCP SDK: Failed to validate notification: notifications/message\n" in result.stderr
    assert "warning: MCP SDK: Failed to validate notification: notifications/progress\n" in result.stderr
    debug = run_cli(
        *args, "--", *warm(sys.executable, str(SERVERS), "bad-notify"), env={"MCPAQL_CONFORMANCE_DEBUG": "1"}
    )
    assert "Traceback (most recent call last):" in debug.stderr  # asked for: there, sanitised all the same
    assert "\x1b" not in debug.stderr and "\x9b" not in debug.stderr


def test_sse_event_names_and_content_types_with_escapes_reach_the_terminal_sanitised(tmp_path):
    with http_server("hostile-http", tmp_path) as url:
        args = ["capture", "--url", url, "--bundle", str(tmp_path / "b.json")]
        result = run_cli(*args, "--capture-dir", str(tmp_path / "records"))
    assert result.returncode in (0, 3), result.stderr
    assert_clean_terminal(result.stderr)
    assert "warning: MCP SDK: Unknown SSE event: evil\n" in result.stderr
    assert "warning: MCP SDK: Unexpected content type: text/html; charset=x\n" in result.stderr
