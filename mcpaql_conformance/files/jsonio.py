"""The one JSON loader and the one atomic writer of the project."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.lifetime import keep_until_exit
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import UNSEEN, UNSEEN_RANGES, plain

_UTF8_BOM = b"\xef\xbb\xbf"
_BYTE_OFFSET = lazy(r"\(byte (\d+)\)")


@contextlib.contextmanager
def gc_paused(freeze: bool = True) -> Iterator[None]:
    """Pause the cyclic GC while building many objects, then (``freeze``) freeze them.

    Parsing a 100 MB bundle, or judging its 100,000 operations, creates millions of
    objects and would trigger many collections that walk every object just created;
    freezing moves a parsed tree out of later collections. JSON trees and the checks'
    indexes hold no reference cycles: reference counting frees them all the same.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))  # fmt: skip


def read_bytes(path: Path, what: str) -> bytes:
    """Read a regular file, turning every OS failure into one clear ConfigError. A FIFO, socket
    or device is refused at once (reading one could block forever)."""
    shown = plain(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError
            kind = next((name for test, name in _KINDS if test(mode)), None)
            if kind is not None:
                raise ConfigError(f"{shown}: is {kind}, not a {what} file")
            return handle.read()
    except FileNotFoundError:
        raise ConfigError(f"{what} not found: {shown}") from None
    except IsADirectoryError:
        raise ConfigError(f"{shown}: is a directory, expected a {what} file") from None
    except PermissionError:
        raise ConfigError(f"{shown}: cannot read {what}: permission denied") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read {what}: {plain(exc.strerror or str(exc))}") from None


def parse_json(data: bytes, source: str) -> Any:
    """Parse JSON bytes; errors name the source, line and column."""
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) > 1 and 0 in (data[0], data[1])):
        raise ConfigError(f"{source}: UTF-16 is not supported; save the file as UTF-8")
    if not data or data.isspace():
        raise ConfigError(f"{source}: file is empty, expected JSON")
    try:
        with gc_paused():
            document = _decode(data)
    except UnicodeDecodeError:
        raise ConfigError(_encoding_problem(data, source) or f"{source}: not valid UTF-8") from None
    except RecursionError:
        raise ConfigError(f"{source}: invalid JSON: nested too deeply") from None
    except msgspec.DecodeError as exc:  # msgspec 0.23 says bad UTF-8 so too, not as UnicodeDecodeError
        raise ConfigError(_encoding_problem(data, source) or _describe_decode_error(data, source, str(exc))) from None
    keep_until_exit(document, len(data))
    return document


# msgspec decodes large documents about twice as fast as orjson from a cold
# process, with less memory (measured: 64k-operation bundle, 0.85 s vs 2.1 s).
_decode = msgspec.json.Decoder().decode


def _line_column(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def _encoding_problem(data: bytes, source: str) -> str | None:
    """Where ``data`` stops being UTF-8 (line, column, byte offset), or None when it is UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _line_column(data, exc.start)
        return f"{source}:{line}:{column}: not valid UTF-8 (byte offset {exc.start})"
    return None


def _describe_decode_error(data: bytes, source: str, message: str) -> str:
    """Locate a syntax error. msgspec's messages are terse and some have no position;
    orjson, asked only on this error path, names the reason, line and column."""
    import orjson

    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {plain(exc.msg)}"
    except RecursionError:
        return f"{source}: invalid JSON: nested too deeply"
    match = _BYTE_OFFSET.search(message)
    if match is None:  # e.g. "Number out of range - at `$[...]`"
        return f"{source}: invalid JSON: {plain(message.split(' - at ', 1)[0])}"
    line, column = _line_column(data, int(match.group(1)))
    reason = message.split(":", 1)[-1].split("(byte", 1)[0].strip()
    return f"{source}:{line}:{column}: invalid JSON: {plain(reason)}"


COMPACT_BYTES = 8_000_000  # a file this large is decoded compactly (files.compact)


def load_json_file(path: Path, what: str) -> Any:
    """Read and parse one JSON file (the project's single JSON loader). A large one is decoded
    compactly (``files.compact``: equal parts shared, its text released as it is read); one that
    is not valid JSON is read again to say where (the compact decode has let its text go)."""
    source = plain(str(path))
    box = [read_bytes(path, what)]
    size = len(box[0])
    if size < COMPACT_BYTES or box[0][:64].lstrip()[:1] not in (b"{", b"["):
        return parse_json(box.pop(), source)
    from mcpaql_conformance.files.compact import decode_owned

    try:
        with gc_paused():
            document = decode_owned(box)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError, ValueError):
        return parse_json(read_bytes(path, what), source)  # the same refusal, named and located
    keep_until_exit(document, size)
    return document


@functools.cache
def _utf8_pattern(ranges: tuple[tuple[int, int], ...]) -> re.Pattern[bytes]:
    """The characters of ``ranges`` in UTF-8, as one bytes pattern: all but the last byte
    literal, the last as a class. Scanning the encoded JSON for them is about twice as fast
    as scanning the decoded text, and almost every JSON output has none."""
    tails: dict[bytes, list[int]] = {}
    for low, high in ranges:
        for code in range(low, high + 1):
            encoded = chr(code).encode()
            tails.setdefault(encoded[:-1], []).append(encoded[-1])
    branches = []
    for head, lasts in sorted(tails.items()):
        spans: list[list[int]] = []
        for last in sorted(lasts):
            if spans and last == spans[-1][1] + 1:
                spans[-1][1] = last
            else:
                spans.append([last, last])
        ends = b"".join(b"\\x%02x" % a + (b"-\\x%02x" % b if b != a else b"") for a, b in spans)
        branches.append(b"".join(b"\\x%02x" % byte for byte in head) + b"[" + ends + b"]")
    return re.compile(b"|".join(branches))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON escapes are UTF-16: a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def dumps(data: Any, *, indent: bool = True) -> str:
    """The one JSON writer: every JSON output (reports, bundles, plans, records, schemas,
    drift, badges) is this text. Exact strings, with the characters no reader sees (controls,
    bidi, invisible: ``sanitize.UNSEEN``) written as ``\\u`` escapes, which are the same value
    to a JSON reader. Indented (or one line for ``indent=False``), ending in a newline.
    Lone surrogates (file names that are not UTF-8) are written as U+FFFD."""
    import orjson

    option = orjson.OPT_INDENT_2 if indent else 0
    try:
        raw = orjson.dumps(data, option=option)
    except orjson.JSONEncodeError as exc:
        if "surrogates" not in str(exc):
            raise
        raw = orjson.dumps(_without_surrogates(data), option=option)
    text = raw.decode()
    if not _utf8_pattern(UNSEEN_RANGES).search(raw):  # built on first use
        return text + "\n"
    return UNSEEN.sub(_escape, text) + "\n"


_LONE_SURROGATE = lazy("[\ud800-\udfff]")


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value if value.isascii() else _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(key): _without_surrogates(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_without_surrogates(item) for item in value]
    return value


# Files the running command reads (device, inode) -> how to name them: ``write_atomic``
# never replaces one (see ``refuse_overwriting_inputs``).
_INPUTS: dict[tuple[int, int], str] = {}

PathOption = tuple[str, Path | None]


def refuse_overwriting_inputs(
    outputs: Iterable[PathOption], inputs: Iterable[PathOption], *, stdout: bool = False
) -> None:
    """Refuse, before anything is written, an output that is one of the command's inputs.

    ``outputs`` and ``inputs`` are (how the user named it, path) pairs, such as ("-o", path)
    or ("--plan", path); None and ``-`` (stdout) are skipped. An input folder stands for
    every ``*.json`` file in it and below. Files are compared by device and inode, through
    symbolic links, hard links and other spellings of the path (``./b.json``, another case
    on a case-insensitive file system); an output that is a device or a FIFO (``/dev/stdout``
    on a terminal or pipe, ``/dev/null``) is not a file this tool replaces. Two outputs that
    are the same file are refused too, and (``stdout``: the command prints its output) a
    standard output redirected to an input (``>> b.json``). Every input is also remembered,
    so that no later write of this command (a file named after an operation, a record) can
    replace one either."""
    known: dict[tuple[int, int], str] = {}
    for label, path in inputs:
        for file in _input_files(path):
            identity = _identity(file)
            if identity is not None:
                shown = plain(str(file))
                known.setdefault(identity, f"the input {shown}" + (f" ({label})" if label else ""))
    _INPUTS.update(known)
    if stdout:
        _refuse_stdout()
    written: dict[object, str] = {}
    for label, path in outputs:
        if path is None or str(path) == "-":
            continue
        shown = f"{label} {plain(str(path))}".strip()
        try:
            found = os.stat(path)
        except (OSError, ValueError):
            found = None
        if found is not None and not stat.S_ISREG(found.st_mode):
            continue  # a folder (refused when written), a device or a FIFO: nothing replaced
        if found is not None and (found.st_dev, found.st_ino) in _INPUTS:
            raise ConfigError(f"{shown} would overwrite {_INPUTS[(found.st_dev, found.st_ino)]}: choose another path")
        key = (found.st_dev, found.st_ino) if found is not None else _new_file_key(path)
        if key in written:
            raise ConfigError(f"{written[key]} and {shown} are the same file: give each output its own path")
        written[key] = shown


def forget_inputs() -> None:
    """A new run of a command: the inputs an earlier one remembered are not this one's."""
    _INPUTS.clear()


def _refuse_stdout() -> None:
    try:
        found = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no standard output, or not a file
        return
    if stat.S_ISREG(found.st_mode) and (found.st_dev, found.st_ino) in _INPUTS:
        raise ConfigError(
            f"standard output is {_INPUTS[(found.st_dev, found.st_ino)]}: redirect it elsewhere, or use -o FILE"
        )


def _input_files(path: Path | None) -> Iterator[Path]:
    if path is None or str(path) == "-":
        return
    if path.is_dir():
        yield from (file for file in path.rglob("*.json") if file.is_file())
    else:
        yield path


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None  # not there (the loader says so) or not a path at all
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def _new_file_key(path: Path) -> object:
    """Where a file that does not exist yet will be: its folder's identity and its name."""
    target = Path(os.path.realpath(path.expanduser()))
    try:
        folder = os.stat(target.parent)
    except OSError:
        return ("path", str(target))
    return ("in", folder.st_dev, folder.st_ino, target.name)


def input_named(path: Path) -> str | None:
    """``the input NAME (OPTION)`` when ``path`` is a file this command reads, else None."""
    identity = _identity(path)
    return _INPUTS.get(identity) if identity is not None else None


def _refuse_input(path: Path, existing: os.stat_result | None, shown: str) -> None:
    """The last guard: a write never replaces a file the command reads."""
    if existing is not None and _INPUTS and (existing.st_dev, existing.st_ino) in _INPUTS:
        raise ConfigError(f"{shown} would overwrite {_INPUTS[(existing.st_dev, existing.st_ino)]}: choose another path")


def write_atomic(path: Path, text: str, durable: bool = True) -> None:
    """Write an output file so that readers see the old file or the whole new one, never half.

    Through a symbolic link, the link's target is replaced and the link stays. A character
    device or a FIFO (``/dev/stdout``, ``/dev/null``, a pipe) is written to directly: only
    regular files are replaced. A replaced file keeps its permissions; a missing folder is
    created. ``durable``: also
    force the file to disk first (off for the many small capture records)."""
    shown = plain(str(path))
    path = path.expanduser()
    try:
        existing = os.stat(path)  # through any link: what will be written to
    except (FileNotFoundError, NotADirectoryError):  # not there yet (its folder may not be either)
        existing = None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot write output: {plain(exc.strerror or str(exc))}") from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise ConfigError(f"{shown}: is a directory, expected an output file")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        _write_through(path, text, shown)  # /dev/stdout, a pipe, /dev/null: opened as named
        return
    _refuse_input(path, existing, shown)
    target = Path(os.path.realpath(path))  # a regular file (or none yet): replace the link's target
    make_folder(target.parent, shown)
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o644
    _replace(target, text, durable, mode, shown)


def make_folder(directory: Path, shown: str) -> None:
    """Create an output's folder and its parents when missing (as ``--junitxml`` does)."""
    if directory.is_dir():
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = plain(exc.strerror or str(exc))
        raise ConfigError(
            f"{shown}: cannot write output: cannot create folder {plain(str(directory))}: {reason}"
        ) from None


def _write_through(target: Path, text: str, shown: str) -> None:
    """Write into a device or FIFO as it is (replacing it would break it)."""
    try:
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot write output: {plain(exc.strerror or str(exc))}") from None


def _replace(target: Path, text: str, durable: bool, mode: int, shown: str) -> None:
    import tempfile  # only commands that write files pay for this import

    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot write output: {plain(exc.strerror or str(exc))}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise ConfigError(f"{shown}: cannot write output: {plain(exc.strerror or str(exc))}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
