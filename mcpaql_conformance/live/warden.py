"""The warden: a small process between the tool and the server it captures.

It starts the server with the stdio it was given and supervises every process the server
starts. On Linux it is a child subreaper (a daemon the server detaches with ``setsid`` or
a double fork is reparented to it, not to init) and has a parent-death signal (it hears of
the tool's end even when the tool is killed with SIGKILL). When it is told to stop
(SIGTERM, SIGHUP, SIGINT) or the tool dies, it stops every descendant: SIGTERM, then
SIGKILL after GRACE seconds, round after round until none is left. Elsewhere it watches
its parent instead, and stops the server's process group.

Internal: ``python -I -S warden.py TOOL_PID ERROR_FD REPORT_FD -- COMMAND...``. If COMMAND
cannot be executed, its errno is written to ERROR_FD (closed without a word once it runs).
At the end, the pids of the processes it stopped that had left the server's process group
(detached daemons, which a signal to the group misses) are written to REPORT_FD. Standard
library only, and imported by nothing: it starts in milliseconds, while the tool imports
the MCP SDK.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE = 1.0  # seconds between SIGTERM and SIGKILL to the server's processes (the tool waits 2)
GIVE_UP = 5.0  # seconds of stopping after which the warden leaves (a fork bomb cannot hold it)
STOPPING = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _living_tree() -> dict[int, list[int]] | None:
    """Parent pid -> pids of the processes that are not zombies, from /proc (None without it)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    tree: dict[int, list[int]] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                data = stat.read()
            fields = data[data.rindex(b")") + 2 :].split()  # the name may hold spaces and parentheses
            state, parent = fields[0], int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            tree.setdefault(parent, []).append(int(entry))
    return tree


def descendants(root: int) -> list[int] | None:
    """Every living descendant of ``root`` (None when processes cannot be listed)."""
    tree = _living_tree()
    if tree is None:
        return None
    found: list[int] = []
    stack = [root]
    while stack:
        for child in tree.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


ENDED: dict[int, int] = {}  # pid -> exit code of every child collected


def _reap() -> None:
    """Collect every child that ended (the server, and orphans reparented to the warden)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        ENDED[pid] = os.waitstatus_to_exitcode(status)


def _kill(pid: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, number)


def stop_all(server: int) -> list[int]:
    """Stop every descendant: SIGTERM to each as it is found, SIGKILL to all after GRACE.
    The pids of those that had left the warden's process group (detached)."""
    start = time.monotonic()
    warned: set[int] = set()
    detached: set[int] = set()
    group = os.getpgid(0)
    while time.monotonic() - start < GIVE_UP:
        _reap()
        pids = descendants(os.getpid())
        if pids is None:  # no /proc: the server's process group is all that can be reached
            _kill(server, signal.SIGTERM)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(os.getpgid(0), signal.SIGTERM if time.monotonic() - start < GRACE else signal.SIGKILL)
            _reap()
            pids = [] if server in ENDED else [server]
        if not pids:
            break
        late = time.monotonic() - start >= GRACE
        for pid in pids:
            if pid not in warned:
                with contextlib.suppress(OSError):
                    if os.getpgid(pid) != group:
                        detached.add(pid)
            if late:
                _kill(pid, signal.SIGKILL)
            elif pid not in warned:
                _kill(pid, signal.SIGTERM)
            warned.add(pid)
        time.sleep(0.02)
    return sorted(detached)


def _start(command: list[str], error_fd: int, mask: set[signal.Signals]) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:  # the server starts as the tool would have started it: default signals, nothing blocked
        for number in (*STOPPING, signal.SIGPIPE, signal.SIGCHLD, signal.SIGXFSZ):
            signal.signal(number, signal.SIG_DFL)
        if mask:
            signal.pthread_sigmask(signal.SIG_SETMASK, set())
        os.set_inheritable(error_fd, False)
        os.execvp(command[0], command)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.write(error_fd, str(exc.errno or 0).encode())
    finally:
        os._exit(127)


def main(argv: list[str]) -> int:
    tool, error_fd, report_fd, command = int(argv[1]), int(argv[2]), int(argv[3]), argv[5:]
    os.set_inheritable(report_fd, False)  # the server never holds it
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    stops: list[int] = []
    for number in STOPPING:
        signal.signal(number, lambda n, _frame: stops.append(n))
    signal.signal(signal.SIGCHLD, lambda _n, _frame: None)  # so that sigtimedwait hears of it
    waiting = hasattr(signal, "sigtimedwait")
    mask = {*STOPPING, signal.SIGCHLD} if waiting else set()
    if mask:
        signal.pthread_sigmask(signal.SIG_BLOCK, mask)
    if os.getppid() != tool:  # the tool ended before the parent-death signal was set
        return 0
    server = _start(command, error_fd, mask)
    os.close(error_fd)
    # The server has its own copies of the pipes; ours would keep them open after it ends.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while not stops and os.getppid() == tool:
        if waiting:
            info = signal.sigtimedwait(mask, 0.5)
            if info is not None and info.si_signo in STOPPING:
                break
        else:
            time.sleep(0.1)
        _reap()
        if server in ENDED and not descendants(os.getpid()):
            break  # the server ended and left nothing running
    detached = stop_all(server)
    with contextlib.suppress(OSError):
        os.write(report_fd, " ".join(str(pid) for pid in detached).encode())
        os.close(report_fd)
    _reap()
    status = ENDED.get(server, 1)
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
