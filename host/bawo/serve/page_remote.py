"""The live page's "Remote game" panel (/api/remote): when the board's game is one half of a
club remote game (`bawo club play`, host/bawo/club/bridge.py), what the club says of it (the
opponent, whose turn, whether the opponent's PC is there, a pending draw offer, the clock) and
its buttons: Resign, Offer draw, Accept draw (/api/remote/offer). The page asks the club only;
it never talks to the board for this: the bridge sees the club's end and ENDs the board.

And the "Play a friend far away" panel (/api/remote/seeks): the club's open seeks, each with
the `bawo club play --accept N` command that plays it (the bridge is never run inside serve).

Which club game is the board's: the bridge keeps remote-games.json next to club.json,
{"<club url>#<club game id>@<board id>": "<the board's game id>"}. Everything read from that file and from
the club is checked: the club's game id a whole number in bounds, the board's a game id as the
protocol makes them (never a path), the url the one this PC joined, text shown escaped."""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..errors import BawoError
from ..text import safe
from .request import BadRequest, int_field, json_body, text_field
from .web import api, one_line, site_of

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from .web import Site

GAMES_FILE = "remote-games.json"
MAX_FILE = 256 * 1024  # bytes of remote-games.json read (a game's entry is ~60)
MAX_ENTRIES = 5000  # entries looked at
MAX_CLUB_GAME = 2**31 - 1  # the club's game ids are positive ints
# A board's game id, as firmware/protocol.py's GAME_ID: "<board>-<n>", 6..40 characters.
BOARD_GAME = re.compile(r"^([A-Za-z0-9_-]{1,35})-([0-9]{4,34})$")
SIDES = ("south", "north")
OFFERS = ("resign", "draw", "accept")
WAIT_WORDS = {
    "resign": "resign",
    "agreement": "draw agreed",
    "time": "time",
    "cancelled": "cancelled",
    "expired": "nobody accepted it within a day",
}


class RemoteGame(NamedTuple):
    """One entry of remote-games.json, checked: the club's game, its board and the board's game."""

    url: str  # the club's address, as club.json has it
    club_game: int  # the club's id of the game
    board: str  # the board's id (the board game id's prefix)
    board_game: str  # the board's id of its game


def games_file() -> str:
    """Where the bridge keeps remote-games.json: next to club.json, in the bawo data dir."""
    from ..club.client import config_path

    return os.path.join(os.path.dirname(config_path()), GAMES_FILE)


def club_game_of(key: object, url: str) -> tuple[int, str] | None:
    """(club game id, board id) of a key "<url>#<id>@<board>" of this club, else None."""
    if not isinstance(key, str) or len(key) > 600:
        return None
    head, sep, tail = key.rpartition("#")
    num, _, board = tail.partition("@")
    if not sep or head != url or not num.isascii() or not num.isdigit() or len(num) > 10:
        return None
    n = int(num)
    return (n, board) if 1 <= n <= MAX_CLUB_GAME else None


def board_of(gid: object) -> str | None:
    """The board id a board's game id begins with ("pico-2b" of "pico-2b-0007"), or None if it
    is not a game id as the board makes them."""
    if not isinstance(gid, str) or not 6 <= len(gid) <= 40:
        return None
    m = BOARD_GAME.match(gid)
    return m.group(1) if m else None


def remote_games(url: str, boards: dict[str, Any], path: str | None = None) -> list[RemoteGame]:
    """The checked entries of remote-games.json for the club at url, played by one of boards
    (the boards this PC joined), oldest club game first. A file that is missing, too large or
    not the bridge's: none."""
    path = path or games_file()
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE + 1)
    except OSError:
        return []
    if len(raw) > MAX_FILE:
        return []
    try:
        known = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested past the parser
        return []
    if not isinstance(known, dict):
        return []
    out = []
    for key, gid in list(known.items())[:MAX_ENTRIES]:
        got = club_game_of(key, url)
        board = board_of(gid)
        # The key names the board that played (two boards of one PC may share a game).
        if (
            got is not None
            and board is not None
            and got[1] == board
            and isinstance(boards.get(board), str)
        ):
            out.append(RemoteGame(url, got[0], board, gid))
    return sorted(out, key=lambda r: r.club_game)


def current_board_game(site: Site) -> tuple[str, str | None] | None:
    """(board id, the id of its game or None: no game) when the page follows a board now;
    None when it follows none (not plugged, or its port held by `bawo club play`)."""
    status = site.hub.last.get("status") or {}
    pos = site.hub.last.get("position") or {}
    info = site.bridge.info or {}
    gid, device = pos.get("id"), info.get("device")
    if not status.get("connected") or not isinstance(device, str):
        return None
    return device, gid if isinstance(gid, str) else None


def find_game(site: Site) -> tuple[dict[str, Any], RemoteGame | None, str]:
    """(club config, the remote game the panel shows or None, why none). The board's game when
    the page follows the board; else (the bridge holds the board's port) the newest remote game
    this PC's bridge played with the club it joined."""
    from ..club.client import load_config

    cfg = load_config()
    if cfg is None:
        return {}, None, "this PC joined no club"
    boards = cfg["boards"]
    games = remote_games(cfg["url"], boards)
    cur = current_board_game(site)
    if cur is not None:
        device, gid = cur
        if gid is None:
            return cfg, None, "the board has no game now"
        mine = [r for r in games if r.board_game == gid and r.board == device]
        if not mine:
            return cfg, None, "the board's game is not a club remote game"
        return cfg, mine[-1], ""
    if not games:
        return cfg, None, "no remote game was played from this PC"
    return cfg, games[-1], ""


def _ms(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**12 else None


def _name(v: object) -> str:
    return safe(str(v))[:64] if isinstance(v, str) and v else "?"


def view(r: RemoteGame, st: dict[str, Any]) -> dict[str, Any]:
    """What the panel shows of the club's state st of game r, every field checked, in words."""
    side = st.get("side")
    if side not in SIDES:
        raise BawoError(
            "the club does not count board %s as a player of game %d" % (r.board, r.club_game)
        )
    other = SIDES[1 - SIDES.index(side)]
    got = st.get("players")
    players: dict[str, Any] = got if isinstance(got, dict) else {}
    opp_board = _name(st.get(other))
    opp = _name(players.get(other)) if players.get(other) else opp_board
    state = st.get("state") if st.get("state") in ("open", "playing", "over") else "over"
    turn = st.get("turn") if st.get("turn") in SIDES else None
    offer = st.get("offer") if st.get("offer") in SIDES else None
    out: dict[str, Any] = {
        "game": r.club_game,
        "board": safe(r.board),
        "record": safe(r.board_game),
        "kind": _name(st.get("kind")),
        "state": state,
        "side": side,
        "side_name": side.capitalize(),
        "opponent": opp,
        "opponent_board": opp_board,
        "ply": _ms(st.get("ply")) or 0,
        "peer": st.get("peer") is True,
        "offer": None if offer is None else ("you" if offer == side else "opponent"),
        "clock": None,
        "result": None,
        "turn": None,
    }
    if state == "open":
        out["turn"] = "waiting for an opponent to accept"
    elif state == "playing" and turn is not None:
        out["turn"] = "your move" if turn == side else "%s's move" % opp
    clock = st.get("clock")
    if isinstance(clock, dict):
        mine, theirs = _ms(clock.get(side + "_ms")), _ms(clock.get(other + "_ms"))
        if mine is not None and theirs is not None:
            out["clock"] = {
                "you_ms": mine,
                "opponent_ms": theirs,
                "low": clock.get("low") is True,
                "running": None
                if state != "playing" or turn is None
                else ("you" if turn == side else "opponent"),
            }
    if state == "over":
        res, reason = st.get("result"), st.get("reason")
        why = WAIT_WORDS.get(reason, safe(str(reason))[:40]) if reason else ""
        if res == "draw":
            text = "draw"
        elif isinstance(res, str) and res:
            # The result is a side letter: the winner's side is the first (S, G) or the second.
            won = SIDES[0] if res in ("S", "G") else SIDES[1]
            text = "you win" if won == side else "%s wins" % opp
        else:
            text = "game over"
        if reason == "resign":
            why = "%s resigned" % ("you" if text != "you win" else opp)
        elif reason == "time":
            why = "%s ran out of time" % ("you" if text != "you win" else opp)
        out["result"] = text + (" (%s)" % why if why else "")
    if state != "playing":
        out["actions"] = []
    elif offer == side:  # our offer waits for the opponent: no second one
        out["actions"] = ["resign"]
    else:
        out["actions"] = ["resign", "accept" if offer == other else "draw"]
    return out


def _lookup(site: Site) -> dict[str, Any]:
    """The panel's JSON (in a worker thread: the club is a network call away)."""
    from ..club import ClubError
    from ..club import remote_client as api

    try:
        cfg, r, why = find_game(site)
    except ClubError as e:
        return {"remote": None, "why": one_line(e)}
    if r is None:
        return {"remote": None, "why": why}
    base = {"game": r.club_game, "board": safe(r.board), "record": safe(r.board_game)}
    note = (
        ""
        if current_board_game(site) is not None
        else (
            "As the club has it: this page is not following the board now (bawo club play "
            "holds its port during the game)."
        )
    )
    try:
        st = api.state(cfg["url"], cfg["boards"][r.board], r.club_game, look=True)
        return {"remote": view(r, st), "note": note}
    except api.ClubUnreachable as e:
        return {
            "remote": base,
            "error": "the club cannot be reached (%s): is this PC online? "
            "The page tries again." % safe(e.message)[:200],
        }
    except (ClubError, BawoError, ValueError) as e:
        return {
            "remote": base,
            "error": "the club would not show game %d: %s" % (r.club_game, safe(one_line(e))),
        }


async def api_remote(request: Request) -> Response:
    return JSONResponse(await run_in_threadpool(_lookup, site_of(request)))


def _offer(site: Site, game: int, what: str) -> tuple[int, dict[str, Any]]:
    from ..club import ClubError
    from ..club import remote_client as api

    try:
        cfg, r, why = find_game(site)
    except ClubError as e:
        return 409, {"error": one_line(e)}
    if r is None:
        return 409, {"error": "no remote game to %s: %s" % (what, why)}
    if r.club_game != game:
        return 409, {
            "error": "the board's remote game is now club game %d, not %d: reload the page"
            % (r.club_game, game)
        }
    try:
        st = api.offer(cfg["url"], cfg["boards"][r.board], r.club_game, what)
    except api.ClubUnreachable as e:
        return 502, {
            "error": "the club cannot be reached (%s): nothing was sent; try again"
            % safe(e.message)[:200]
        }
    except api.RemoteError as e:
        return 409, {"error": "the club refused: %s" % safe(e.message)[:300]}
    except ClubError as e:
        return 409, {"error": one_line(e)}
    try:
        return 200, {"remote": view(r, st)}
    except BawoError as e:
        return 409, {"error": one_line(e)}


@api
async def api_remote_offer(request: Request) -> Response:
    """Resign, offer a draw or accept one at the club, with the board's token. The body names
    the club game the page showed: a click never reaches another game."""
    b = await json_body(request)
    what = text_field(b, "what", 8, choices=OFFERS)
    game = int_field(b, "game", 1, MAX_CLUB_GAME)
    if set(b) - {"what", "game"}:
        raise BadRequest("unknown field in the body")
    status, out = await run_in_threadpool(_offer, site_of(request), game, what)
    return JSONResponse(out, status_code=status)


def _seeks() -> dict[str, Any]:
    """The open seeks of the joined club, for each board this PC joined (at most 4)."""
    from ..club import ClubError
    from ..club import remote_client as api
    from ..club.client import load_config

    try:
        cfg = load_config()
    except ClubError as e:
        return {"seeks": [], "error": one_line(e)}
    if cfg is None:
        return {"seeks": [], "why": "this PC joined no club: `bawo club join URL --token T`"}
    seen: dict[int, dict[str, Any]] = {}
    for board, token in list(cfg["boards"].items())[:4]:
        try:
            got = api.open_seeks(cfg["url"], token)
        except api.ClubUnreachable as e:
            return {"seeks": [], "error": "the club cannot be reached (%s)" % safe(e.message)[:200]}
        except ClubError as e:
            return {"seeks": [], "error": one_line(e)}
        for s in (got.get("seeks") or [])[:100]:
            if not isinstance(s, dict):
                continue
            n = s.get("game")
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_CLUB_GAME:
                continue
            clock = s.get("clock") if isinstance(s.get("clock"), dict) else None
            side = s.get("side") if s.get("side") in ("south", "north", "any") else "any"
            seen.setdefault(
                n,
                {
                    "game": n,
                    "kind": _name(s.get("kind")),
                    "by": _name(s.get("by")),
                    "side": side,
                    "mine": s.get("mine") is True,
                    "board": safe(str(board))[:64],
                    "clock": _clock_words(clock),
                    "challenge": s.get("opponent") is not None,
                    "command": "bawo club play --accept %d" % n,
                },
            )
    return {"seeks": [seen[k] for k in sorted(seen)]}


def _clock_words(c: dict[str, Any] | None) -> str:
    if not c:
        return "no clock"
    base, inc, move = _ms(c.get("base")), _ms(c.get("inc")), _ms(c.get("move"))
    if base is not None:
        return "%d min + %d s a move" % (base // 60, inc or 0)
    if move is not None:
        return "%d s a move" % move
    return "a clock"


async def api_seeks(request: Request) -> Response:
    return JSONResponse(await run_in_threadpool(_seeks))


def routes() -> list[Route]:
    return [
        Route("/api/remote", api_remote),
        Route("/api/remote/offer", api_remote_offer, methods=["POST"]),
        Route("/api/remote/seeks", api_seeks),
    ]
