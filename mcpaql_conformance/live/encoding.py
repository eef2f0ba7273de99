"""The bytes of the wire, where MCP's clients only show text (core §4.7.1: all text is UTF-8, and a
request holding invalid UTF-8 is refused).

Answers: every message a server sends (a stdout line; an HTTP answer's body) is decoded strictly
once; those that are not UTF-8 are counted and the first few kept (``Utf8Watch``), and read on
leniently (each invalid byte as U+FFFD), as before.

Requests: the SDK encodes every request itself, so capture's one request of invalid UTF-8 holds
``MARK`` where the bytes go, and the last step before the wire (the stdio writer, the HTTP
client's request hook) puts ``INVALID`` in its place (``on_wire``). The mark is ASCII, so it
reaches the wire as itself whatever escaping the JSON encoder does; no other request holds it.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Any

from mcpaql_conformance.files.vocabulary import Transport

MARK = "@@mcpaql-conformance:invalid-utf-8@@"
INVALID = b"\xc0\xaf"  # an overlong encoding of '/' (core §4.7.1 names overlong encodings first)
INVALID_SAID = "an overlong encoding of '/' (bytes C0 AF)"
AS_READ = INVALID.decode("utf-8", errors="replace")  # what a lenient reader makes of them
KEPT = 3  # invalid answers kept as evidence
AROUND = 24  # bytes shown before and after an invalid sequence


_MARK_BYTES = MARK.encode("ascii")


def on_wire(data: bytes) -> bytes:
    """``data`` as it goes to the server: ``MARK`` replaced by ``INVALID`` (``data`` itself where it
    holds no mark)."""
    return data.replace(_MARK_BYTES, INVALID) if _MARK_BYTES in data else data


def as_recorded(value: Any) -> Any:
    """A request holding ``MARK`` as the evidence records it: the mark read as a lenient reader
    reads the bytes sent in its place."""
    if isinstance(value, str):
        return value.replace(MARK, AS_READ)
    if isinstance(value, dict):
        return {key: as_recorded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_recorded(item) for item in value]
    return value


class Utf8Watch:
    """What the server sent that is not UTF-8: how many messages were read, how many of them were
    not UTF-8, and the first KEPT (the request sent last before it, where the bytes are, the
    bytes around them in hex). Capture's request of invalid UTF-8 goes on a session of its own,
    so that no answer quoting those bytes back is counted here."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.read = 0
        self.invalid = 0
        self.kept: list[dict[str, Any]] = []

    def decode(self, data: bytes, after: str | None) -> str:
        """One whole message as text: strictly, else leniently, with the invalid one noted."""
        self.count()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.note(data, exc.start, after)
            return data.decode("utf-8", errors="replace")

    def count(self) -> None:
        self.read += 1

    def note(self, data: bytes, at: int, after: str | None, offset: int | None = None) -> None:
        """A message (counted already) not UTF-8, its first invalid byte at ``at`` in ``data`` (at
        ``offset`` in the whole message, where ``data`` is a piece of it)."""
        self.invalid += 1
        if len(self.kept) < KEPT:
            shown = data[max(0, at - AROUND) : at + AROUND]
            where = at if offset is None else offset
            self.kept.append({"after": after, "offset": where, "bytes": shown.hex(" ").upper()})

    def evidence(self) -> dict[str, Any] | None:
        """The bundle's ``answer_encoding`` (None when nothing was read)."""
        if not self.read:
            return None
        return {"transport": self.transport, "answers": self.read, "invalid": self.invalid, "examples": self.kept}


class StreamCheck:
    """One HTTP answer's body, checked as it arrives in pieces (an incremental strict decoder:
    linear, nothing held but a partial character)."""

    def __init__(self, watch: Utf8Watch, after: Callable[[], str | None]) -> None:
        self.watch = watch
        self.after = after  # the request answered, named (asked only of a body that is not UTF-8)
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.offset = 0
        self.failed = False

    def feed(self, chunk: bytes, final: bool = False) -> None:
        if self.failed:
            return
        if not self.offset and chunk:  # a message read (the SDK may stop reading the body before its end)
            self.watch.count()
        try:
            self.decoder.decode(chunk, final)
        except UnicodeDecodeError as exc:
            self.failed = True
            held = len(exc.object) - len(chunk)  # bytes of a character begun in the piece before
            self.watch.note(exc.object, exc.start, self.after(), self.offset - held + exc.start)
            return
        self.offset += len(chunk)

    def end(self) -> None:
        self.feed(b"", final=True)
