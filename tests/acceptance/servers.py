"""Misbehaving MCP servers for capture tests: python servers.py KIND, KIND one of no-aql, no-introspect,
odd, exit, crash, hang, evil, garbage, banner, grandchild, die-mid, leaky, deep, deep-raw,
deep-http PORT_FILE, slow, ansi, trap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

from mcp.server.mcpserver import MCPServer

DETAIL = {
    "name": "get_thing",
    "semantic_category": "READ",
    "endpoint": "read",
    "mcpTool": "mcp_aql_read",
    "description": "Read a thing.",
    "permissions": {"readOnly": True, "destructive": False},
    "parameters": [{"name": "thing_id", "type": "string", "required": True}],
    "returns": {"name": "Thing", "kind": "object"},
}


def odd_read(operation: str, params: dict[str, Any] | None = None) -> str:
    """Introspection works; everything else answers like a sloppy server."""
    params = params or {}
    if operation == "introspect" and params.get("query") == "operations" and "name" in params:
        return json.dumps({"success": True, "data": {"operation": DETAIL}})
    if operation == "introspect" and params.get("query") == "operations":
        summary = {k: DETAIL[k] for k in ("name", "semantic_category", "endpoint", "description")}
        return json.dumps({"success": True, "data": {"operations": [summary]}})
    if operation == "introspect":
        return json.dumps({"ok": True, "typeList": []})  # odd field names
    if "thing_id" not in params:
        return "error: thing_id missing"  # an error as a plain string
    return json.dumps({"success": True, "data": {"error": "no such thing"}})  # a success wrapping an error


def slow_read(operation: str, params: dict[str, Any] | None = None) -> str:
    time.sleep(1)
    return odd_read(operation, params)


OSC8 = "\x1b]8;;https://evil.example\x07"
ANSI_DETAIL = {**DETAIL, "name": f"get_{OSC8}thing\x1b[2J\x9b31m"}


def ansi_read(operation: str, params: dict[str, Any] | None = None) -> str:
    """Names full of terminal escapes; with $ANSI_HANG set, every other call hangs."""
    params = params or {}
    if operation == "introspect" and "name" in params:
        return json.dumps({"success": True, "data": {"operation": ANSI_DETAIL}})
    if operation == "introspect" and params.get("query") == "operations":
        return json.dumps({"success": True, "data": {"operations": [ANSI_DETAIL]}})
    if operation == "introspect":
        return json.dumps({"success": True, "data": {"types": []}})
    if os.environ.get("ANSI_HANG"):
        time.sleep(60)
    return json.dumps({"success": False, "error": {"code": "NOT_FOUND", "message": f"no \x1b[31m{OSC8}thing"}})


def dying_read(operation: str, params: dict[str, Any] | None = None) -> str:
    """Introspection works; the first other call kills the server."""
    if operation == "introspect":
        return odd_read(operation, params)
    os._exit(1)


EVIL_OPERATIONS = [
    # An oddly labelled DELETE (lower-case category, no permissions), an EXECUTE with no
    # category, a DELETE whose only parameter is optional, and a READ with a password.
    {
        "name": "wipe_note",
        "semantic_category": "delete",
        "endpoint": "delete",
        "parameters": [{"name": "note_id", "type": "string", "required": True}],
    },
    {"name": "run_job", "endpoint": "execute", "parameters": [{"name": "job", "type": "string", "required": True}]},
    {
        "name": "purge_all",
        "semantic_category": "DELETE",
        "endpoint": "delete",
        "parameters": [{"name": "confirm", "type": "boolean", "required": False}],
    },
    {
        "name": "login",
        "semantic_category": "READ",
        "endpoint": "read",
        "parameters": [
            {"name": "user", "type": "string", "required": True},
            {"name": "password", "type": "string", "required": True, "sensitive": True},
        ],
    },
    # A category padded with a space, a detail that contradicts its list entry, and one
    # operation listed twice with different categories: each is destructive if any
    # declaration says so.
    {
        "name": "spaced_delete",
        "semantic_category": "DELETE ",
        "endpoint": "delete ",
        "permissions": {"readOnly": False, "destructive": False},
        "parameters": [{"name": "item_id", "type": "string", "required": True}],
    },
    {
        "name": "sneaky_delete",
        "semantic_category": "READ",
        "endpoint": "read",
        "permissions": {"readOnly": True, "destructive": False},
        "parameters": [{"name": "item_id", "type": "string", "required": True}],
    },
    {
        "name": "twin",
        "semantic_category": "READ",
        "endpoint": "read",
        "permissions": {"readOnly": True, "destructive": False},
        "parameters": [{"name": "item_id", "type": "string", "required": True}],
    },
]
# What the operations list says (the details above may say otherwise).
EVIL_LIST = [
    {"name": op["name"], "endpoint": op["endpoint"], "description": "x"}
    for op in EVIL_OPERATIONS
    if op["name"] != "twin"
]
EVIL_LIST[EVIL_LIST.index({"name": "sneaky_delete", "endpoint": "read", "description": "x"})] = {
    "name": "sneaky_delete",
    "semantic_category": "DELETE",
    "endpoint": "delete",
    "description": "Deletes, whatever its detail says.",
}
EVIL_LIST += [
    {"name": "twin", "semantic_category": "READ", "endpoint": "read", "description": "x"},
    {"name": "twin", "semantic_category": "DELETE", "endpoint": "delete", "description": "x"},
    # Grouped by endpoint: the group says DELETE, the entry itself says read.
    {"endpoint": "DELETE", "operations": [{"name": "grouped_purge", "endpoint": "read", "description": "x"}]},
    # Its detail answer describes another operation (by case), one that deletes.
    {"name": "Refresh_Index", "semantic_category": "READ", "endpoint": "read", "description": "x"},
    # Served by a delete tool with a suffix.
    {"name": "sweep_items", "semantic_category": "READ", "endpoint": "delete_v2", "description": "x"},
]
EVIL_OPERATIONS += [
    {
        "name": "grouped_purge",
        "semantic_category": "READ",
        "endpoint": "read",
        "permissions": {"readOnly": True, "destructive": False},
        "parameters": [],
    },
    {
        "name": "sweep_items",
        "semantic_category": "READ",
        "endpoint": "delete_v2",
        "mcpTool": "mcp_aql_delete_v2",
        "permissions": {"readOnly": True, "destructive": False},
        "parameters": [],
    },
]
ALIEN_DETAIL = {
    "name": "refresh_index",
    "semantic_category": "DELETE",
    "endpoint": "delete",
    "permissions": {"readOnly": False, "destructive": True},
    "parameters": [],
}


def evil(tool: str, operation: str, params: dict[str, Any] | None) -> str:
    """Logs every call (to $EVIL_LOG) and answers everything as if it had run it."""
    params = params or {}
    with open(os.environ["EVIL_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool": tool, "operation": operation, "params": params}) + "\n")
    if operation == "introspect":
        if params.get("query") == "types":
            return json.dumps({"success": True, "data": {"types": []}})
        if "name" in params:
            detail = next((op for op in EVIL_OPERATIONS if op["name"] == params["name"]), None)
            if params["name"] == "Refresh_Index":
                detail = ALIEN_DETAIL
            return json.dumps({"success": True, "data": {"operation": detail}})
        return json.dumps({"success": True, "data": {"operations": EVIL_LIST}})
    if operation == "login":
        message = f"wrong password '{params.get('password')}' for user '{params.get('user')}'"
        return json.dumps({"success": False, "error": {"code": "PERMISSION_DENIED", "message": message}})
    return json.dumps({"success": True, "data": {"ran": operation}})


def evil_endpoint(tool: str) -> Any:
    def call(operation: str, params: dict[str, Any] | None = None) -> str:
        return evil(tool, operation, params)

    return call


LEAKY_DETAIL = {
    "name": "get_account",
    "semantic_category": "READ",
    "endpoint": "read",
    "parameters": [
        {"name": "account_id", "type": "string", "required": True},
        {"name": "pin", "type": "integer", "required": True, "sensitive": True},
    ],
}


def leaky_read(operation: str, params: dict[str, Any] | None = None) -> str:
    """Echoes its secrets back: the API token inside longer words, the PIN as a number."""
    params = params or {}
    token, pin = os.environ["LEAKY_TOKEN"], params.get("pin", int(os.environ["LEAKY_PIN"]))
    if operation == "introspect" and "name" in params:
        return json.dumps({"success": True, "data": {"operation": LEAKY_DETAIL}})
    if operation == "introspect" and params.get("query") == "operations":
        return json.dumps({"success": True, "data": {"operations": [LEAKY_DETAIL]}})
    if operation == "introspect":
        return json.dumps({"success": True, "data": {"types": []}})
    message = f"token_{token}_rejected (pin {pin}); retry with {token}{token}"
    error = {"code": "PERMISSION_DENIED", "message": message, "pin": pin, "echo": {f"key-{token}": [pin, float(pin)]}}
    return json.dumps({"success": False, "error": error})


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = {"level": level, "inner": [value]}
    return value


def deep_read(operation: str, params: dict[str, Any] | None = None) -> str:
    """A valid server whose read answer nests 300 levels deep (600 JSON containers)."""
    params = params or {}
    if operation == "introspect":
        return odd_read(operation, params)
    return json.dumps({"success": True, "data": nested(300)})


def deep_answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """JSON-RPC by hand: answers whose message nests 300 levels (deeper than the SDK reads)."""
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None
    result: Any
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "deep-raw", "version": "1"},
        }
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"operation": {"type": "string"}, "params": {"type": "object"}}}
        result = {"tools": [{"name": "mcp_aql_read", "description": "READ operations.", "inputSchema": schema}]}
    else:
        arguments = message["params"]["arguments"]
        if arguments.get("operation") == "introspect":
            text = odd_read("introspect", arguments.get("params"))
            result = {"content": [{"type": "text", "text": text}], "isError": False}
        else:
            answer = {"success": True, "data": nested(300)}
            result = {"content": [{"type": "text", "text": json.dumps(answer)}], "structuredContent": answer}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def raw_deep_server() -> None:
    for line in sys.stdin:
        answer = deep_answer(json.loads(line))
        if answer is not None:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


def http_deep_server(port_file: str) -> None:
    """The same over plain HTTP (JSON answers, no event stream); writes its port to port_file."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            answer = deep_answer(json.loads(body))
            data = json.dumps(answer).encode() if answer is not None else b""
            self.send_response(200 if answer is not None else 202)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_DELETE = do_GET

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


CRASH = """Starting notes server on stdio
Traceback (most recent call last):
  File "/srv/notes/main.py", line 3, in <module>
    import notes_backend
ModuleNotFoundError: No module named 'notes_backend'
{
  "config": "/etc/notes.json"
}
"""


# Says so on stderr (kept in the records' server-stderr.log), then sleeps for an hour.
GRANDCHILD = "import sys, time; print('grandchild started', file=sys.stderr, flush=True); time.sleep(3600)"


# A server whose READ tool cannot introspect and whose other tools say destructive in every
# style a name can: run together, camelCase, dotted, very long. Operations it lists are declared
# safe but named for what they do. Every call is logged to $TRAP_LOG.
LONG_DELETE = "mcp_aql_" + "x" * 262 + "_delete"
TRAP_TOOLS = (
    "mcp_aql_delete", "mcp_aql_execute", "mcpAqlDelete", "mcp_aql_softDelete", "MCP-AQL.bulkPurge",
    "mcpaqlrun", "mcp_aql_wipeAll", LONG_DELETE,
)  # fmt: skip
TRAP_OPERATIONS = ["get_item", "softDeleteItem", "bulk-remove-items", "runReport", "DROP_TABLE", "purgeall"]


def trap(tool: str) -> Any:
    def call(operation: str, params: dict[str, Any] | None = None) -> str:
        with open(os.environ["TRAP_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": tool, "operation": operation, "params": params}) + "\n")
        if tool == "mcp_aql_read":
            return "introspection is down"
        if operation == "introspect" and (params or {}).get("query") == "operations":
            declared = [
                {"name": name, "semantic_category": "READ", "endpoint": "read", "mcpTool": "mcp_aql_read",
                 "permissions": {"readOnly": True, "destructive": False}, "parameters": []}
                for name in TRAP_OPERATIONS
            ]  # fmt: skip
            if "name" in (params or {}):
                detail = next((d for d in declared if d["name"] == params["name"]), None)  # type: ignore[index]
                return json.dumps({"success": True, "data": {"operation": detail}})
            return json.dumps({"success": True, "data": {"operations": declared}})
        return json.dumps({"success": True, "data": {"ran": operation}})

    return call


def main(kind: str) -> None:
    if kind == "exit":
        sys.exit(3)
    if kind == "crash":
        sys.stderr.write(CRASH)
        sys.exit(1)
    if kind == "hang":
        time.sleep(3600)
    if kind == "garbage":
        for index in range(1000):
            print(f"debug line {index}: \x1b[31mnot JSON-RPC\x1b[0m", flush=True)
        time.sleep(3600)
    if kind == "banner":
        print("Notes server 1.0 ready", flush=True)
    if kind == "slow":  # a second for every call, and a child: a capture to stop midway
        subprocess.Popen([sys.executable, "-c", GRANDCHILD, "grandchild-of-the-slow-server"])
    if kind == "grandchild":  # a child that would outlive a server stopped on its own
        subprocess.Popen([sys.executable, "-c", GRANDCHILD, "grandchild-of-the-server"])
    if kind == "deep-raw":
        raw_deep_server()
        return
    if kind == "deep-http":
        http_deep_server(sys.argv[2])
        return
    if kind == "ansi":
        server = MCPServer(f"notes{OSC8}\x1b[2J", version="1\x1b[31m.0\u202e")
    elif kind == "leaky":  # the server's name and version echo the API token and the PIN
        server = MCPServer(f"notes-{os.environ['LEAKY_TOKEN']}", version=os.environ["LEAKY_PIN"])
    else:
        server = MCPServer("misbehaving", version="0.0.1")
    if kind == "no-aql":
        server.tool(name="hello", description="Say hello.")(lambda name: f"hello {name}")
    elif kind == "no-introspect":
        server.tool(name="mcp_aql_read", description="Broken.")(lambda operation, params=None: "not json at all")
    elif kind in ("odd", "banner", "grandchild"):
        server.tool(name="mcp_aql_read", description="READ operations.", structured_output=False)(odd_read)
    elif kind == "leaky":
        server.tool(name="mcp_aql_read", description="READ operations.", structured_output=False)(leaky_read)
    elif kind == "deep":
        server.tool(name="mcp_aql_read", description="READ operations.", structured_output=False)(deep_read)
    elif kind == "ansi":
        server.tool(name="mcp_aql_read", description="READ operations.", structured_output=False)(ansi_read)
        server.tool(name=f"helper{OSC8}\x1b[31m", description="\x1b[2J")(lambda: "x")
    elif kind == "slow":
        server.tool(name="mcp_aql_read", description="READ operations.", structured_output=False)(slow_read)
    elif kind == "die-mid":
        server.tool(name="mcp_aql_read", description="READ operations.", structured_output=False)(dying_read)
    elif kind == "trap":
        for name in ("mcp_aql_read", "mcp_aql_create", *TRAP_TOOLS):
            server.tool(name=name, description="MCP-AQL operations.", structured_output=False)(trap(name))
    elif kind == "evil":
        for endpoint in ("read", "create", "delete", "execute", "delete_v2"):
            server.tool(name=f"mcp_aql_{endpoint}", description=f"{endpoint} operations.", structured_output=False)(
                evil_endpoint(f"mcp_aql_{endpoint}")
            )
    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1])
