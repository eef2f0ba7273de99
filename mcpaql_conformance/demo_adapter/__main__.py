"""python -m mcpaql_conformance.demo_adapter [--mode crude|single|both] [--http PORT] [--fault NAME]
[--dialect NAME] [--latency-ms N]"""

from __future__ import annotations

import argparse
import sys

import anyio

from mcpaql_conformance.demo_adapter.adapter import FAULTS
from mcpaql_conformance.demo_adapter.dialects import DIALECTS
from mcpaql_conformance.demo_adapter.server import MODES, build_server, run_stdio


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m mcpaql_conformance.demo_adapter",
        description="A demo MCP-AQL server (an in-memory notes store), conformant unless --fault is given.",
        epilog="faults: "
        + "; ".join(f"{name}: {what}" for name, what in FAULTS.items())
        + ". dialects: "
        + "; ".join(f"{name}: {what}" for name, what in DIALECTS.items()),
    )
    parser.add_argument("--mode", choices=MODES, default="both", help="endpoint mode (default: both)")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp")
    parser.add_argument("--fault", choices=sorted(FAULTS), help="break one rule of the spec on purpose")
    parser.add_argument("--dialect", choices=list(DIALECTS), help="deviate from the spec the way a real server does")
    parser.add_argument("--latency-ms", type=float, default=0.0, metavar="N", help="delay every call by N ms")
    args = parser.parse_args(argv)
    if args.latency_ms < 0 or args.latency_ms != args.latency_ms:
        parser.error("--latency-ms must be a number of milliseconds, 0 or more")
    server = build_server(args.mode, args.fault, args.dialect, args.latency_ms)
    if args.http is None:
        anyio.run(run_stdio, server)
    else:
        print(f"demo adapter on http://127.0.0.1:{args.http}/mcp", file=sys.stderr)
        server.run("streamable-http", host="127.0.0.1", port=args.http)


if __name__ == "__main__":
    main()
