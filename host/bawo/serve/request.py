"""What a request may make the server read and compute: the one reader of a JSON body (its
size and nesting bounded before parsing, every field checked after) and the one gate for the
rules' work (its own few threads, off the event loop, a bounded queue).

A bad body is a BadRequest: the route answers 400 with its one line, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from starlette.requests import ClientDisconnect

if TYPE_CHECKING:
    from starlette.requests import Request

T = TypeVar("T")

MAX_BODY = 4096  # bytes of a JSON body (the page's largest is ~60)
MAX_DEPTH = 4  # nesting of [ and { (the page sends one flat object)
RULES_THREADS = 2  # the rules' work at once: the other routes keep the default pool
RULES_QUEUE = 16  # requests waiting for those threads; past them: 503, "busy"


class BadRequest(ValueError):
    """A body or field the server refuses: one line for the user."""


class Gone(Exception):
    """The client went away before its body arrived: nobody to answer."""


class Busy(Exception):
    """The rules' threads and their queue are full."""


def json_depth(raw: str) -> int:
    """The deepest nesting of [ and { in JSON text, outside strings."""
    depth = most = 0
    in_str = esc = False
    for ch in raw:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            most = max(most, depth)
            if most > MAX_DEPTH:
                break
        elif ch in "]}":
            depth -= 1
    return most


def _finite(text: str) -> float:
    v = float(text)
    if v != v or v in (float("inf"), float("-inf")):
        raise BadRequest("a number in the body is too large")
    return v


def _no_constant(name: str) -> Any:
    raise BadRequest("%s is not a number JSON allows" % name)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (a dict), read at most MAX_BODY bytes. BadRequest if the
    body is too large, not UTF-8, not JSON, nested too deep or not an object; Gone if the
    client disconnected first."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise BadRequest("the request body is over %d bytes" % MAX_BODY)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise BadRequest("the request body is over %d bytes" % MAX_BODY)
            chunks.append(chunk)
    except ClientDisconnect:
        raise Gone()
    try:
        raw = b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the request body is not UTF-8 text")
    if json_depth(raw) > MAX_DEPTH:
        raise BadRequest("the request body is nested more than %d deep" % MAX_DEPTH)
    try:
        body = json.loads(raw, parse_float=_finite, parse_constant=_no_constant)
    except ValueError as e:
        if isinstance(e, BadRequest):
            raise
        raise BadRequest("the request body is not JSON (%s)" % str(e).split(":")[0])
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


def text_field(
    body: dict[str, Any],
    name: str,
    most: int,
    default: str | None = None,
    choices: Collection[str] | None = None,
) -> str:
    """body[name] as a non-empty string of at most `most` printable ASCII characters (what
    every move and game name is), one of choices if given."""
    v = body.get(name, default)
    if (
        not isinstance(v, str)
        or not v
        or len(v) > most
        or not all(" " <= ch <= "~" for ch in v)
        or (choices is not None and v not in choices)
    ):
        raise BadRequest("give %s" % name if v is None else "bad %s" % name)
    return v


def int_field(body: dict[str, Any], name: str, lo: int, hi: int, default: int | None = None) -> int:
    """body[name] as a whole number lo..hi (not a bool, not a float)."""
    v = body.get(name, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise BadRequest(
            "give %s" % name if v is None else "bad %s: expected %d..%d" % (name, lo, hi)
        )
    return v


class Gate:
    """The rules' own threads, one Gate an app: a flood of expensive requests waits for
    those (or is told "busy"), and the pages, the live stream and the board's routes keep
    the event loop and the default threads."""

    def __init__(self, threads: int = RULES_THREADS, queue: int = RULES_QUEUE) -> None:
        self.threads = threads
        self.queue = queue
        # Made in the app's event loop, on first use.
        self.limiter: anyio.CapacityLimiter | None = None
        self.waiting = 0  # requests holding or waiting for a thread (the loop's only)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) on one of the rules' threads; Busy if the queue is full."""
        if self.limiter is None:
            self.limiter = anyio.CapacityLimiter(self.threads)
        if self.waiting >= self.threads + self.queue:
            raise Busy()
        self.waiting += 1
        try:
            return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)
        finally:
            self.waiting -= 1
