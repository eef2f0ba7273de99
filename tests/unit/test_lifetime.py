"""lifetime: the console process ends at once after a large bundle, with every output flushed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from mcpaql_conformance import lifetime


def run_script(body: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)], capture_output=True, text=True, check=False, timeout=60
    )


def test_finish_ends_at_once_with_the_code_and_flushed_output() -> None:
    run = run_script(
        """
        import atexit, sys
        from mcpaql_conformance import lifetime
        atexit.register(lambda: print("normal shutdown ran"))
        lifetime.enable_fast_exit()
        lifetime.keep_until_exit(["a large document"], lifetime.LARGE_DOCUMENT_BYTES)
        sys.stdout.write("report text without a newline")
        sys.stderr.write("a warning")
        lifetime.finish(2)
        """
    )
    assert run.returncode == 2
    assert run.stdout == "report text without a newline"  # flushed, and no normal shutdown
    assert run.stderr == "a warning"


def test_finish_without_a_large_document_shuts_down_normally() -> None:
    run = run_script(
        """
        import atexit
        from mcpaql_conformance import lifetime
        atexit.register(lambda: print("normal shutdown ran"))
        lifetime.enable_fast_exit()
        lifetime.keep_until_exit(["small"], 10)
        lifetime.finish(1)
        """
    )
    assert run.returncode == 1
    assert run.stdout == "normal shutdown ran\n"


def test_finish_maps_a_message_exit_to_status_1() -> None:
    run = run_script(
        """
        from mcpaql_conformance import lifetime
        lifetime.enable_fast_exit()
        lifetime.keep_until_exit(["doc"], lifetime.LARGE_DOCUMENT_BYTES)
        lifetime.finish("fatal: reason")
        """
    )
    assert (run.returncode, run.stderr) == (1, "fatal: reason\n")


def test_documents_are_kept_only_when_enabled() -> None:
    assert not lifetime._enabled  # library use and tests never keep documents
    lifetime.keep_until_exit(["doc"], lifetime.LARGE_DOCUMENT_BYTES)
    assert lifetime._kept == []


def test_only_the_latest_large_document_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lifetime, "_enabled", True)
    monkeypatch.setattr(lifetime, "_kept", [])
    first, second, small = ["first"], ["second"], ["small"]
    lifetime.keep_until_exit(first, lifetime.LARGE_DOCUMENT_BYTES)
    lifetime.keep_until_exit(second, lifetime.LARGE_DOCUMENT_BYTES + 1)
    lifetime.keep_until_exit(small, lifetime.LARGE_DOCUMENT_BYTES - 1)
    assert lifetime._kept == [second]
