"""Streamable HTTP with the limits of stdio: one answer is at most MAX_LINE bytes once
decompressed, counted as it arrives (an answer too large is never held whole: reading
stops at the limit, whatever its Content-Length says), and its headers at most what the
HTTP parser holds (100 KB). A gzip body that inflates to gigabytes costs a few megabytes
before it is refused.

The MCP SDK's client is given an httpx2 client of ours whose response hook puts a counting
stream under every response; the stream decodes the body itself (in pieces of bounded size)
so that what it counts is what the SDK would read. A limit reached is one CaptureError for
the capture, however the SDK reports the failed answer (``HttpLimits.faults``). The same stream checks that the body
is UTF-8 (encoding.Utf8Watch), and a request hook puts the invalid bytes of capture's one request
of invalid UTF-8 on the wire (encoding.on_wire).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpcore2
import httpx2

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.live.encoding import StreamCheck, Utf8Watch, on_wire
from mcpaql_conformance.live.process import MAX_LINE

MAX_HEADERS_KB = 100  # the status line and headers of one answer, at most (what h11 may hold unparsed)
# The SDK's own client's timeouts (seconds): connecting, writing; reading (an event stream may idle).
TIMEOUT, READ_TIMEOUT = 30.0, 300.0


class AnswerTooLarge(ConfigError):
    """The server sent an HTTP answer larger than the limit."""


class HttpLimits:
    """The limits of one session; ``faults`` gets the first one the server broke."""

    def __init__(self, faults: list[str], limit: int = MAX_LINE, watch: Utf8Watch | None = None) -> None:
        self.limit = limit
        self.faults = faults
        self.watch = watch if watch is not None else Utf8Watch("streamable-http")

    def client(self) -> httpx2.AsyncClient:
        """An httpx2 client like the SDK's own (its timeouts), with every response counted."""
        connection = httpcore2.AsyncHTTP11Connection  # its default is this limit: kept so, whatever the version
        if getattr(connection, "MAX_INCOMPLETE_EVENT_SIZE", 0) > MAX_HEADERS_KB * 1024:
            connection.MAX_INCOMPLETE_EVENT_SIZE = MAX_HEADERS_KB * 1024
        timeout = httpx2.Timeout(TIMEOUT, read=READ_TIMEOUT)
        return httpx2.AsyncClient(timeout=timeout, event_hooks={"request": [self._raw], "response": [self._count]})

    async def _raw(self, request: httpx2.Request) -> None:
        """Capture's request of invalid UTF-8 with its bytes in place of the mark (its body is
        bytes the SDK encoded whole; no other request holds the mark)."""
        body = request.content if isinstance(request.stream, httpx2.ByteStream) else b""
        sent = on_wire(body)
        if sent is body:
            return
        request.stream = httpx2.ByteStream(sent)
        request._content = sent
        request.headers["Content-Length"] = str(len(sent))

    async def _count(self, response: httpx2.Response) -> None:
        encodings = [
            value.strip().lower()
            for value in response.headers.get_list("content-encoding", split_commas=True)
            if value.strip().lower() != "identity"
        ]
        declared = response.headers.get("content-length", "")
        decoding = httpx2.Response(
            response.status_code, headers=[("content-encoding", value) for value in encodings], stream=response.stream
        )
        if encodings:  # decoded here: what the SDK reads is plain
            del response.headers["content-encoding"]
            with contextlib.suppress(KeyError):
                del response.headers["content-length"]
        # The GET stream of server messages may last the whole session: each of its events is
        # bounded by the SDK (max_sse_event_size), not its total.
        limit = None if response.request.method == "GET" else self.limit
        early = limit is not None and not encodings and declared.isdigit() and int(declared) > limit
        check = StreamCheck(self.watch, lambda: _named(response.request))
        response.stream = _Counted(decoding, 0 if early else limit, self, bool(encodings), check)

    def broken(self, compressed: bool) -> AnswerTooLarge:
        """The error of an answer past the limit (the first one is the session's fault)."""
        shown = " once decompressed" if compressed else ""
        message = (
            f"the server sent an HTTP answer larger than {self.limit // 2**20} MB{shown}"
            f" (answers are capped at {self.limit // 2**20} MB, as over stdio)"
        )
        if not self.faults:
            self.faults.append(message)
        return AnswerTooLarge(message)


class _Counted(httpx2.AsyncByteStream):
    """The decoded body, counted as it is read; past ``limit`` bytes, an error (and no more is read)."""

    def __init__(
        self, decoding: httpx2.Response, limit: int | None, limits: HttpLimits, compressed: bool, check: StreamCheck
    ) -> None:
        self.decoding = decoding
        self.limit = limit
        self.limits = limits
        self.compressed = compressed
        self.check = check

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self.limit == 0:  # its declared length is past the limit: refused before a byte is read
            raise self.limits.broken(self.compressed)
        count = 0
        async for chunk in self.decoding.aiter_bytes():
            count += len(chunk)
            if self.limit is not None and count > self.limit:
                raise self.limits.broken(self.compressed)
            self.check.feed(chunk)
            yield chunk
        self.check.end()

    async def aclose(self) -> None:
        await self.decoding.aclose()


def _named(request: httpx2.Request) -> str | None:
    """The request an answer answers, as the evidence names it (only asked of an answer that is
    not UTF-8): its JSON-RPC method, tool and operation."""
    import orjson

    from mcpaql_conformance.live.process import named_request

    try:
        message = orjson.loads(request.content) if request.method == "POST" else None
    except (orjson.JSONDecodeError, httpx2.RequestNotRead):
        return None
    if isinstance(message, dict):
        return named_request(message.get("method"), message.get("params"))
    return f"{request.method} {request.url.path}"
