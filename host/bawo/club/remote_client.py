"""The PC's client of the club's remote games API (docs/club.md, "Remote games"): what the
bridge (`bawo club play`) calls. Each function returns the club's JSON answer as a dict, or
raises a RemoteError subclass with the HTTP status and the club's message:

* ClubUnreachable: no answer (network, the club down) or 502/503/504 (the club's database
  away): nothing is known to have happened; the same call may be sent again (a move posted
  twice at one ply is idempotent; an offer of a draw twice is one offer).
* PlyConflict (409): the club has another ply; its `ply` says which.
* Refused (422): not a player, not your turn, game over, illegal move: the club's reason.
* RemoteError: anything else (400 bad request, 401 token, 404 no such game, 413, 429).

url: the club's address (http(s)://host[:port]/), token: the board's token.
"""

from __future__ import annotations

import json
from typing import Any

from . import ClubError
from .client import TIMEOUT, check_url, request


class RemoteError(ClubError):
    """The club refused or could not answer a call; status: its HTTP status (None: no answer)."""

    def __init__(self, status, message, answer=None):
        ClubError.__init__(
            self,
            "club: %s" % message if status is None else "club answered %d: %s" % (status, message),
        )
        self.status = status
        self.message = message
        self.answer = answer or {}


class ClubUnreachable(RemoteError):
    """No answer, or the club's database is away (502/503/504): try again later."""


class PlyConflict(RemoteError):
    """409: the club has the game up to `ply` (another move, or a ply not next)."""

    @property
    def ply(self) -> int | None:
        return self.answer.get("ply")


class Refused(RemoteError):
    """422: the club's rules refused it (not a player, turn, over, illegal)."""


def _call(url, token, path, body=None, timeout=TIMEOUT):
    url = check_url(url)
    data = None if body is None else json.dumps(body).encode("utf-8")
    status, ans = request(url, path, token, data, content_type="application/json", timeout=timeout)
    if not isinstance(ans, dict):
        ans = {"error": "the club's answer is not a JSON object"}
    if status == 200:
        return ans
    msg = str(ans.get("error") or "HTTP %s" % status)[:300]
    if status is None or status in (502, 503, 504):
        raise ClubUnreachable(status, msg, ans)
    if status == 409:
        raise PlyConflict(status, msg, ans)
    if status == 422:
        raise Refused(status, msg, ans)
    raise RemoteError(status, msg, ans)


def _gid(game):
    if not isinstance(game, int) or isinstance(game, bool) or game <= 0:
        raise ValueError("a remote game's id is a positive int, not %r" % (game,))
    return game


def seek(
    url: str,
    token: str,
    kind: str,
    side: str = "any",
    opponent: str | None = None,
    clock: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Open a game of `kind` ("bawo", "oware", "bagh-chal"), this board playing `side` (south,
    north or any); opponent: a board id (a challenge only it may accept) or None (anyone);
    clock: None, {"base": s, "inc": s} or {"move": s}. -> {"game": id, "state": "open"}."""
    return _call(
        url,
        token,
        "api/remote/seek",
        {"kind": kind, "side": side, "opponent": opponent, "clock": clock},
    )


def open_seeks(url: str, token: str) -> dict[str, Any]:
    """-> {"seeks": [{"game", "kind", "by", "side", "opponent", "clock", "mine"}]}."""
    return _call(url, token, "api/remote/open")


def accept(url: str, token: str, game: int) -> dict[str, Any]:
    """Take the other side of open game `game`. -> its state."""
    return _call(url, token, "api/remote/%d/accept" % _gid(game), {})


def state(
    url: str,
    token: str,
    game: int,
    after: int = -1,
    wait: float = 0,
    v: int | None = None,
    look: bool = False,
) -> dict[str, Any]:
    """The game's state. wait > 0: a long poll (at most 25 s) that answers when the game has a
    ply past `after` or changed since this board was last told (or since version v, if
    given: the state's "v"). Each call marks this board's PC as here, but a look (a page
    showing the game, not the bridge playing it)."""
    q = "after=%d&wait=%s" % (int(after), repr(float(max(0, min(25, wait)))))
    if v is not None:
        q += "&v=%d" % int(v)
    if look:
        q += "&look=1"
    return _call(url, token, "api/remote/%d?%s" % (_gid(game), q), timeout=TIMEOUT + float(wait))


def post_move(url: str, token: str, game: int, ply: int, move: str) -> dict[str, Any]:
    """Play `move` (text) as ply `ply` (1 = the first). -> {"ply": ply}."""
    return _call(url, token, "api/remote/%d/move" % _gid(game), {"ply": int(ply), "move": move})


def offer(url: str, token: str, game: int, what: str) -> dict[str, Any]:
    """what: "resign", "draw" (accepts the other side's pending offer) or "accept"."""
    return _call(url, token, "api/remote/%d/offer" % _gid(game), {"what": what})


def bind(url: str, token: str, game: int, record_id: str) -> dict[str, Any]:
    """This board's record of the game is `record_id`: when it is synced it is checked
    against the club's moves and attached, not rated again. -> {"game", "record", "seq",
    "status"}."""
    return _call(url, token, "api/remote/%d/bind" % _gid(game), {"record": record_id})
