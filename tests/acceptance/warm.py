"""Warm starts for the test servers: the MCP SDK imported once per pytest worker, not once per server.

Importing the MCP SDK takes a second or more (it builds its protocol models for every protocol
version), and the acceptance tests start hundreds of servers whose start-up is not what they
are about. A *zygote* (``python warm.py --serve SOCKET``) imports the SDK and the servers'
modules once; a *launcher* (``python warm.py SOCKET python -m module ARGS...`` or ``... python
script.py ARGS...``, where the script may be a console script such as ``mcpaql-conformance``)
starts in milliseconds (standard library only), hands the zygote its standard streams, working
directory, arguments and environment, and the zygote forks a child that runs the server on
those streams, as ``python -m``/``python script.py`` would have. The command line starts warm
too, for the shell commands of the documentation tests (``conftest.warm_path``).

What the server's caller sees is unchanged: the server reads and writes the streams it was given,
sees the environment it was given, and its exit status is the launcher's. A signal to the
launcher (SIGTERM, SIGINT, SIGHUP) is passed on to the server; a launcher killed outright
(SIGKILL) takes the server with it (the zygote sees its connection close). Without a zygote (the
socket is gone), the launcher runs the command itself.

Not for the tests whose point is the process itself (its tree, its lifetime, its signals): the
child is the zygote's, not the launcher's, so those start the real command (``conftest.DEMO``).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import sys

PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_HEADER = struct.Struct("!I")


def _send(connection: socket.socket, message: bytes, fds: list[int] | None = None) -> None:
    data = _HEADER.pack(len(message)) + message
    if fds:
        socket.send_fds(connection, [data], fds)
    else:
        connection.sendall(data)


def _receive_exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _line(connection: socket.socket) -> str:
    (size,) = _HEADER.unpack(_receive_exactly(connection, _HEADER.size))
    return _receive_exactly(connection, size).decode()


# -- the launcher -------------------------------------------------------------------------------


def launch(path: str, command: list[str]) -> None:
    """Have the zygote at ``path`` run ``command`` on this process's streams; exit as it exits."""
    # python -m module ..., or python FILE ... (a script, a console script such as mcpaql-conformance)
    runnable = len(command) > 1 and ((command[1] == "-m" and len(command) > 2) or os.path.isfile(command[1]))
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if not runnable:
            raise OSError("not a form the zygote runs")
        connection.connect(path)
    except OSError:
        os.execv(command[0], command)  # no zygote, or not a module or script: the command itself
    request = json.dumps({"argv": command[1:], "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    _send(connection, request, [0, 1, 2])
    child = int(_line(connection))
    for number in PASSED_ON:
        signal.signal(number, lambda number, _frame: os.kill(child, number))
    # The server holds the streams now: without our copies, its end is the end of them.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    try:
        status = _line(connection)
    except (EOFError, OSError):
        os._exit(1)
    kind, value = status.split()
    if kind == "signal":
        signal.signal(int(value), signal.SIG_DFL)
        os.kill(os.getpid(), int(value))
    os._exit(int(value))


# -- the zygote ---------------------------------------------------------------------------------


def serve(path: str, modules: list[str]) -> None:
    """Import ``modules``, then fork a server for each launcher that connects, until the parent goes."""
    import importlib

    for module in modules:
        importlib.import_module(module)
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".part")
    listener.listen(64)
    os.rename(path + ".part", path)  # ready once it has its name
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}  # pid -> its launcher's connection
    while os.getppid() == parent:
        for key, _ in selector.select(timeout=0.05):
            if key.fileobj is listener:
                connection, _ = listener.accept()
                pid = _fork(connection, listener, children)
                children[pid] = connection
                selector.register(connection, selectors.EVENT_READ, pid)
            else:  # a launcher went away (killed): its server goes too
                _kill(key.data, signal.SIGKILL)
                selector.unregister(key.fileobj)
        _reap(children, selector)
    for pid in children:
        _kill(pid, signal.SIGKILL)


def _kill(pid: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, number)


def _reap(children: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = children.pop(pid, None)
        if connection is None:
            continue
        if os.WIFSIGNALED(status):
            told = f"signal {os.WTERMSIG(status)}"
        else:
            told = f"exit {os.waitstatus_to_exitcode(status)}"
        with contextlib.suppress(OSError):
            _send(connection, told.encode())
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(connection)
        connection.close()


def _fork(connection: socket.socket, listener: socket.socket, children: dict[int, socket.socket]) -> int:
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)  # the streams come with the first bytes
    while len(data) < _HEADER.size:
        data += _receive_exactly(connection, _HEADER.size - len(data))
    (size,) = _HEADER.unpack(data[: _HEADER.size])
    data = data[_HEADER.size :]
    if len(data) < size:
        data += _receive_exactly(connection, size - len(data))
    request = json.loads(data)
    pid = os.fork()
    if pid == 0:  # the server
        try:
            listener.close()
            for other in children.values():
                other.close()
            connection.close()
            _run(request, fds)
        finally:
            os._exit(70)
    for fd in fds:
        os.close(fd)
    try:
        _send(connection, str(pid).encode())
    except OSError:  # the launcher was killed before it heard of its server: the server goes now
        _kill(pid, signal.SIGKILL)
    return pid


def _run(request: dict[str, object], fds: list[int]) -> None:
    """In the forked child: become the server ``request`` describes, on the streams ``fds``."""
    import runpy
    import traceback

    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a Python process starts
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 (the process's own streams)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115
    os.chdir(str(request["cwd"]))
    environment = request["env"]
    assert isinstance(environment, dict)
    os.environ.clear()
    os.environ.update(environment)
    argv = [str(part) for part in request["argv"]]  # type: ignore[attr-defined]
    code = 0
    try:
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            sys.path[0] = os.getcwd()
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if stop.code is not None and not isinstance(stop.code, int):
            print(stop.code, file=sys.stderr)
    except KeyboardInterrupt:
        code = 130
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(sys.argv[2], sys.argv[3:])
    else:
        launch(sys.argv[1], sys.argv[2:])
