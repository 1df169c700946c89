"""Remote games (issue 26): two boards in two places play one game through the club.

The club is the judge. A board's PC seeks a game (open to any board, or a challenge to one),
another accepts it; then each PC posts its board's moves and long-polls the other's. Every
move is checked here with shared_rules (the caller's side, its turn, its ply, its legality)
inside one store transaction under the game's lock, so two posts at one ply can never both
extend the game. Resign, a draw agreed and a fallen flag end it here too; the club then keeps
the game as one record (rated once) and each bridge tells its board with END.

This module is the game's logic and its store calls; remote_api.py is the HTTP side. Every
function takes `now`, the time in ms (the club's clock, injectable: tests set it), and
validates everything before it changes anything. Clock times are ms; a flag falls at the
first poll or move that finds the side to move's time used up.
"""

from __future__ import annotations

import datetime
import json
import math
import secrets
import time
from typing import TYPE_CHECKING, Any

from shared_rules import GAMES, RULES_VERSION, State, game as make_game, winner_name
from shared_rules.errors import RulesError
from shared_rules.record import Record

from . import ClubError
from .records import MAX_ID, check_board, verify
from .store import REMOTE_PREFIX as LIVE_PREFIX, check_bound, remote_live_row, utcnow

if TYPE_CHECKING:
    from .store import Store, Tx

SIDES = ("south", "north")
PEER_MS = 10000  # the other board's PC polled within this: it is "here"
LOW_MS = 10000  # a clock under this (or 10 % of its start) is low
MAX_PLIES = 2000  # plies a remote game may have (a long Bawo game is ~400)
MAX_MOVE = 16  # characters of a move
MAX_OPEN = 20  # open seeks a board may have at once
SEEK_TTL_H = 24  # an open seek nobody accepted within this many hours is withdrawn: "expired"
MAX_BASE = 6 * 3600  # seconds of a game clock's base
MAX_INC = 600  # seconds of its increment
MAX_PER_MOVE = 3 * 86400  # seconds a move of a per-move clock (correspondence: days)
MAX_GAME_ID = 2**53


def wall_ms() -> int:
    return int(time.time() * 1000)


class NotFound(ClubError):
    """No such remote game (404)."""


class NotAllowed(ClubError):
    """Not a player, not your turn, game over, an illegal move: 422 with the reason."""


class PlyConflict(ClubError):
    """A ply that is not the next one, or another move at a played ply: 409 with the ply."""

    def __init__(self, msg, ply):
        ClubError.__init__(self, msg)
        self.ply = ply


class BadRequest(ClubError):
    """A body or a parameter that is not what the API takes (400): nothing was read further."""


# -- validation of what a PC sends (before anything is read or changed) -------------------------
def _int(v, lo, hi, what):
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadRequest("%s is a whole number from %d to %d" % (what, lo, hi))
    return v


def _keys(d, allowed, what):
    if not isinstance(d, dict):
        raise BadRequest("%s is a JSON object" % what)
    extra = sorted(k for k in d if k not in allowed)
    if extra:
        raise BadRequest("%s takes only %s (not %r)" % (what, ", ".join(allowed), extra[0][:20]))
    return d


def parse_clock(c: Any) -> dict[str, int] | None:
    """None, {"base": s, "inc": s} (a game clock with a Fischer increment) or {"move": s}."""
    if c is None:
        return None
    if isinstance(c, dict) and "move" in c:
        _keys(c, ("move",), "a per-move clock")
        return {"move": _int(c["move"], 1, MAX_PER_MOVE, "'move' (seconds a move)")}
    _keys(c, ("base", "inc"), "a clock")
    return {
        "base": _int(c.get("base"), 1, MAX_BASE, "'base' (seconds)"),
        "inc": _int(c.get("inc", 0), 0, MAX_INC, "'inc' (seconds)"),
    }


def parse_seek(d: Any) -> tuple[str, str, str | None, dict[str, int] | None]:
    """(kind, side, opponent, clock) of a seek's body."""
    _keys(d, ("kind", "side", "opponent", "clock"), "a seek")
    kind, side, opp = d.get("kind"), d.get("side", "any"), d.get("opponent")
    if not isinstance(kind, str) or kind not in GAMES:
        raise BadRequest(
            "unknown game kind %r: one of %s" % (str(kind)[:20], ", ".join(sorted(GAMES)))
        )
    if side not in ("south", "north", "any"):
        raise BadRequest("'side' is south, north or any")
    if opp is not None:
        try:
            check_board(opp)
        except ClubError as e:
            raise BadRequest("'opponent': %s" % e)
    return kind, side, opp, parse_clock(d.get("clock"))


def parse_move(d: Any) -> tuple[int, str]:
    _keys(d, ("ply", "move"), "a move")
    ply = _int(d.get("ply"), 1, MAX_PLIES, "'ply'")
    m = d.get("move")
    if (
        not isinstance(m, str)
        or not 0 < len(m) <= MAX_MOVE
        or not m.isascii()
        or not m.isprintable()
        or " " in m
    ):
        raise BadRequest("'move' is a move's text (1 to %d characters)" % MAX_MOVE)
    return ply, m


def parse_offer(d: Any) -> str:
    _keys(d, ("what",), "an offer")
    what = d.get("what")
    if what not in ("resign", "draw", "accept"):
        raise BadRequest("'what' is resign, draw or accept")
    return what


def parse_bind(d: Any) -> str:
    _keys(d, ("record",), "a bind")
    rid = d.get("record")
    if not isinstance(rid, str) or not 0 < len(rid) <= MAX_ID or not rid.isprintable():
        raise BadRequest("'record' is the board's id of its record (1 to %d characters)" % MAX_ID)
    return rid


def parse_game_id(text: object) -> int:
    if (
        not isinstance(text, str)
        or not text.isdigit()
        or len(text) > 16
        or not 0 < int(text) <= MAX_GAME_ID
    ):
        raise NotFound("no remote game %s" % str(text)[:20])
    return int(text)


# -- the game's rules ---------------------------------------------------------------------------
def letters(kind: str) -> tuple[str, ...]:
    """The rules' side letters, South's first (Bagh-Chal: goats G are South, tigers T North)."""
    return tuple(make_game(kind).sides)


def _turn(row):
    g = make_game(row["game"])
    return SIDES[State(g, row["position"]).turn]


def _replay(row):
    s = State(make_game(row["game"]), row["start"])
    for m in _moves(row):
        s.push(m, False)
    return s


def _moves(row):
    return row["moves"].split() if row["moves"] else []


def side_of(row: dict[str, Any], board: str) -> str | None:
    if row["south"] == board:
        return "south"
    if row["north"] == board:
        return "north"
    return None


def _other(side):
    return "north" if side == "south" else "south"


# -- clocks -------------------------------------------------------------------------------------
def _spec(row):
    return json.loads(row["clock"]) if row["clock"] else None


def _start_ms(spec):
    return 1000 * (spec["move"] if "move" in spec else spec["base"])


def clock_now(row: dict[str, Any], now: int) -> dict[str, int] | None:
    """{"south": ms, "north": ms} left now (the side to move's clock running since `since`),
    or None for a game without a clock."""
    spec = _spec(row)
    if spec is None or row["south_ms"] is None:
        return None
    left = {"south": row["south_ms"], "north": row["north_ms"]}
    if row["state"] == "playing":
        t = _turn(row)
        left[t] -= max(0, now - row["since"])
    return left


def clock_view(row: dict[str, Any], now: int) -> dict[str, Any] | None:
    left = clock_now(row, now)
    if left is None:
        return None
    start = _start_ms(_spec(row))
    t = _turn(row)
    mine = max(0, left[t])
    return {
        "south_ms": max(0, left["south"]),
        "north_ms": max(0, left["north"]),
        "low": mine < LOW_MS or mine * 10 < start,
        "bar": max(0, min(8, math.ceil(8 * mine / start))),
    }


# -- the store: every change in one transaction under the game's lock ---------------------------
COLS = (
    "id, game, state, by_board, by_side, opponent, south, north, south_name, north_name,"
    " start, position, moves, ply, result, reason, offer, clock, south_ms, north_ms, since,"
    " version, created, updated, record"
)


def _load(t, gid, lock=True):
    if lock:
        t.lock("remote", str(gid))
    row = t.one("SELECT %s FROM remote_games WHERE id=?" % COLS, (gid,))
    if row is None:
        raise NotFound("no remote game %d" % gid)
    if lock and row["state"] == "open" and row["created"] < _seek_cutoff():
        _save(t, row, state="over", reason="expired")
    return row


def _seek_cutoff() -> str:
    # The creation time (utcnow's text, which sorts as time) before which a seek has expired.
    t = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=SEEK_TTL_H)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _expire(t) -> None:
    """Every open seek older than SEEK_TTL_H withdrawn: over, no result, reason "expired"
    (one statement: a seek accepted meanwhile is playing, and that wins)."""
    t.execute(
        "UPDATE remote_games SET state='over', reason='expired', version=version+1, updated=?"
        " WHERE state='open' AND created < ?",
        (utcnow(), _seek_cutoff()),
    )


def _save(t, row, **kw):
    kw["version"] = row["version"] + 1
    kw["updated"] = utcnow()
    keys = sorted(kw)
    t.execute(
        "UPDATE remote_games SET %s WHERE id=?" % ", ".join("%s=?" % k for k in keys),
        [kw[k] for k in keys] + [row["id"]],
    )
    row.update(kw)
    return row


def _peer(t, row, board, now):
    """Whether the other player's PC polled within PEER_MS."""
    side = side_of(row, board)
    if side is None or row[_other(side)] is None:
        return False
    r = t.one(
        "SELECT seen FROM remote_seen WHERE game=? AND board=?", (row["id"], row[_other(side)])
    )
    return r is not None and now - r["seen"] <= PEER_MS


def state_of(t: Tx, row: dict[str, Any], board: str, now: int) -> dict[str, Any]:
    """The state object of the contract, for the caller `board`."""
    mv = _moves(row)
    side = side_of(row, board)
    return {
        "game": row["id"],
        "kind": row["game"],
        "state": row["state"],
        "south": row["south"],
        "north": row["north"],
        "side": side,
        "ply": row["ply"],
        "moves": mv,
        "start": row["start"],
        "position": row["position"],
        "turn": _turn(row),
        "result": row["result"],
        "reason": row["reason"],
        "offer": row["offer"],
        "peer": _peer(t, row, board, now) if side else False,
        "clock": clock_view(row, now),
        "v": row["version"],
        "players": {"south": row["south_name"], "north": row["north_name"]},
    }


def _end(store, t, row, result, reason, now):
    """The game is over: clocks stopped, the record stored (once: rated once)."""
    left = clock_now(row, now)
    kw = {"state": "over", "result": result, "reason": reason, "offer": None}
    if left is not None:
        kw.update(south_ms=max(0, left["south"]), north_ms=max(0, left["north"]), since=now)
    _save(t, row, **kw)
    if row["record"] is None:
        v = verify(row["south"], record_text(row).encode("utf-8"))
        seq = store.insert_record(t, row["south"], v, "ok", row["south_name"], row["north_name"])
        t.execute("UPDATE remote_games SET record=? WHERE id=?", (seq, row["id"]))
        row["record"] = seq
    return row


def record_text(row: dict[str, Any]) -> str:
    """The club's record of an over game: the moves, the result and the reason, its Id
    "remote-<id>", its Start when it was sought, the players in South and North tags."""
    h = {
        "Game": row["game"],
        "Rules": RULES_VERSION,
        "Id": "%s%d" % (LIVE_PREFIX, row["id"]),
        "Start": row["created"].replace("T", " ").rstrip("Z"),
        "Result": row["result"] or "*",
    }
    if row["reason"]:
        h["Reason"] = row["reason"]
    if row["start"]:
        h["Position"] = row["start"]
    h["South"] = row["south_name"] or row["south"]
    h["North"] = row["north_name"] or row["north"]
    return Record(h, _moves(row)).to_text()


def _flag(store, t, row, now):
    """A flag that fell: the game ends, the other side wins on time. True if it did."""
    if row["state"] != "playing":
        return False
    left = clock_now(row, now)
    if left is None:
        return False
    t_side = _turn(row)
    if left[t_side] > 0:
        return False
    sides = letters(row["game"])
    _end(store, t, row, sides[SIDES.index(_other(t_side))], "time", now)
    return True


class Done:
    """What an operation did: its answer, and whether the game changed (then the handler
    wakes the polls of every process and feeds the live stream)."""

    def __init__(self, answer, row=None, changed=False, ready=True, next_ms=None, status=200):
        self.answer = answer
        self.status = status
        self.row = row
        self.changed = changed
        self.ready = ready
        self.next_ms = next_ms


def _name(t, board, side):
    seat = t.one(
        "SELECT south, north FROM seats WHERE board=? ORDER BY since DESC, id DESC LIMIT 1",
        (board,),
    )
    return (seat and seat[side]) or board


def seek(
    store: Store,
    board: str,
    kind: str,
    side: str,
    opponent: str | None,
    clock: dict[str, int] | None,
    now: int,
) -> Done:
    with store.tx() as t:
        t.lock("remote-seek", board)
        if opponent is not None:
            if opponent == board:
                raise NotAllowed("a board cannot challenge itself")
            if t.one("SELECT 1 AS x FROM boards WHERE id=?", (opponent,)) is None:
                raise NotAllowed("no board %s in the club" % opponent)
        _expire(t)
        n = t.one(
            "SELECT COUNT(*) AS n FROM remote_games WHERE by_board=? AND state='open'", (board,)
        )["n"]
        if n >= MAX_OPEN:
            raise NotAllowed("board %s has %d open seeks already" % (board, n))
        g = make_game(kind)
        pos = g.format(g.start())
        row = t.one(
            "INSERT INTO remote_games (game, state, by_board, by_side, opponent, position,"
            " moves, ply, clock, version, created, updated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
            " RETURNING id",
            (
                kind,
                "open",
                board,
                side,
                opponent,
                pos,
                "",
                0,
                json.dumps(clock) if clock else None,
                1,
                utcnow(),
                utcnow(),
            ),
        )
    return Done({"game": row["id"], "state": "open"})


def open_seeks(store: Store, board: str) -> Done:
    with store.tx() as t:
        _expire(t)
    rows = store.query(
        "SELECT id, game, by_board, by_side, opponent, clock FROM remote_games"
        " WHERE state='open' AND (by_board=? OR opponent IS NULL OR opponent=?)"
        " ORDER BY id LIMIT 200",
        (board, board),
    )
    return Done(
        {
            "seeks": [
                {
                    "game": r["id"],
                    "kind": r["game"],
                    "by": r["by_board"],
                    "side": r["by_side"],
                    "opponent": r["opponent"],
                    "clock": json.loads(r["clock"]) if r["clock"] else None,
                    "mine": r["by_board"] == board,
                }
                for r in rows
            ]
        }
    )


def accept(store: Store, gid: int, board: str, now: int) -> Done:
    with store.tx() as t:
        row = _load(t, gid)
        if row["state"] != "open":
            if side_of(row, board):  # accepted already (a retry after a lost answer)
                return Done(state_of(t, row, board, now), row)
            raise NotAllowed("remote game %d is not open" % gid)
        if row["by_board"] == board:
            raise NotAllowed("a board cannot accept its own seek")
        if row["opponent"] is not None and row["opponent"] != board:
            raise NotAllowed("remote game %d is a challenge to another board" % gid)
        mine = {"south": "north", "north": "south"}.get(row["by_side"]) or secrets.choice(SIDES)
        seats = {mine: board, _other(mine): row["by_board"]}
        kw = {
            "state": "playing",
            "south": seats["south"],
            "north": seats["north"],
            "south_name": _name(t, seats["south"], "south"),
            "north_name": _name(t, seats["north"], "north"),
            "since": now,
        }
        spec = _spec(row)
        if spec:
            kw["south_ms"] = kw["north_ms"] = _start_ms(spec)
        _save(t, row, **kw)
        _seen(t, row, board, now)
        return Done(_told(t, row, board, now), row, changed=True)


def _told(t, row, board, now):
    """The state for board, noted as told (it is this call's answer): its next poll waits."""
    st = state_of(t, row, board, now)
    t.execute(
        "UPDATE remote_seen SET told_v=?, told_peer=? WHERE game=? AND board=?",
        (st["v"], int(st["peer"]), row["id"], board),
    )
    return st


def _seen(t, row, board, now):
    """Mark board's PC as seen now; True if it was away before (its opponent's peer flag
    changes)."""
    r = t.one("SELECT seen FROM remote_seen WHERE game=? AND board=?", (row["id"], board))
    if r is None:
        t.execute(
            "INSERT INTO remote_seen (game, board, seen) VALUES (?,?,?)", (row["id"], board, now)
        )
        return True
    t.execute("UPDATE remote_seen SET seen=? WHERE game=? AND board=?", (now, row["id"], board))
    return now - r["seen"] > PEER_MS


def poll(
    store: Store, gid: int, board: str, now: int, after: int, v: int | None, look: bool = False
) -> Done:
    """One look at the game for a long poll: marks the caller's PC seen, lets a flag fall.
    ready: the caller has not been told this state yet (a ply past `after`, another version
    than `v` or than it was last told, another peer flag). next_ms: when a clock will make
    the state change by itself (its flag), for the poll's wait. look: a page's look (the
    PC's `bawo serve`), which neither marks the PC here nor counts as told."""
    with store.tx() as t:
        row = _load(t, gid)
        side = side_of(row, board)
        # Told states are kept for the players and for the seeker of an open game (its poll
        # waits for the accept); another board's poll answers at once unless it names v.
        mine = (side is not None or row["by_board"] == board) and not look
        changed = _flag(store, t, row, now)
        if mine and _seen(t, row, board, now) and side is not None and row["state"] == "playing":
            _save(t, row)  # back after an absence: the opponent hears of it
            changed = True
        st = state_of(t, row, board, now)
        told = None
        if mine:
            told = t.one(
                "SELECT told_v, told_peer FROM remote_seen WHERE game=? AND board=?", (gid, board)
            )
        ready = (
            st["ply"] > after
            or st["v"] != (v if v is not None else told and told["told_v"])
            or (
                told is not None
                and told["told_peer"] is not None
                and bool(told["told_peer"]) != st["peer"]
            )
        )
        if ready and mine:
            t.execute(
                "UPDATE remote_seen SET told_v=?, told_peer=? WHERE game=? AND board=?",
                (st["v"], int(st["peer"]), gid, board),
            )
        nxt = None
        left = clock_now(row, now)
        if left is not None and row["state"] == "playing":
            nxt = max(1, left[st["turn"]])
    return Done(st, row, changed=changed, ready=ready, next_ms=nxt)


def _player(row, board):
    if row["state"] == "open" and row["by_board"] == board:
        raise NotAllowed("remote game %d has not started: nobody accepted it yet" % row["id"])
    side = side_of(row, board)
    if side is None:
        raise NotAllowed("board %s is not a player of remote game %d" % (board, row["id"]))
    return side


def move(store: Store, gid: int, board: str, ply: int, text: str, now: int) -> Done:
    """Play `text` at `ply` for board. Returns Done({"ply"}). A flag that fell meanwhile is
    committed (the game is over) although the move is refused."""
    with store.tx() as t:
        row = _load(t, gid)
        side = _player(row, board)
        have = _moves(row)
        if ply <= len(have):
            s = State(make_game(row["game"]), row["start"])
            for m in have[: ply - 1]:
                s.push(m, False)
            try:
                same = s.move_str(s.parse_move(text)) == have[ply - 1]
            except RulesError:
                same = False
            if same:
                return Done({"ply": ply}, row)
            raise PlyConflict("ply %d is played already (%s)" % (ply, have[ply - 1]), len(have))
        flagged = _flag(store, t, row, now)
        if flagged:  # committed, though the move is refused
            return Done(
                {"error": "remote game %d is over: %s ran out of time" % (gid, _turn(row))},
                row,
                changed=True,
                status=422,
            )
        if row["state"] == "over":
            raise NotAllowed(
                "remote game %d is over (%s, %s)" % (gid, row["result"], row["reason"])
            )
        if ply != len(have) + 1:
            raise PlyConflict("the next ply is %d, not %d" % (len(have) + 1, ply), len(have))
        if _turn(row) != side:
            raise NotAllowed("it is %s's turn, not %s's (this board's)" % (_turn(row), side))
        version = row["version"]
        s = _replay(row)
        try:
            s.push(text, False)
        except RulesError as e:
            raise NotAllowed(
                "illegal move %s: %s" % (text[:MAX_MOVE], " ".join(str(e).split())[:200])
            )
        g = s.game
        mv = have + [s.moves[-1]]
        kw = {"moves": " ".join(mv), "ply": len(mv), "position": g.format(s.position)}
        if row["offer"] == _other(side):
            kw["offer"] = None  # a move declines the opponent's draw offer
        spec = _spec(row)
        if spec and row["south_ms"] is not None:
            left = clock_now(row, now)
            if "move" in spec:
                left = {"south": 1000 * spec["move"], "north": 1000 * spec["move"]}
            else:
                left[side] += 1000 * spec["inc"]
            kw.update(south_ms=left["south"], north_ms=left["north"], since=now)
        _save(t, row, **kw)
        out = s.outcome()
        if out is not None:
            w = winner_name(g, out)
            _end(store, t, row, "draw" if w is None else w, out.reason, now)
        _seen(t, row, board, now)
        # The mover knows its own move: if it had been told all before it, it is told this
        # version too (its next poll waits for the other side instead of answering at once).
        if row["state"] == "playing":  # an end by the rules is news to it
            t.execute(
                "UPDATE remote_seen SET told_v=? WHERE game=? AND board=? AND told_v=?",
                (row["version"], gid, board, version),
            )
        return Done({"ply": len(mv)}, row, changed=True)


def offer(store: Store, gid: int, board: str, what: str, now: int) -> Done:
    with store.tx() as t:
        row = _load(t, gid)
        if row["state"] == "open" and row["by_board"] == board and what == "resign":
            # The seeker withdraws its seek: over before it began, no result, no record.
            _save(t, row, state="over", reason="cancelled")
            return Done(_told(t, row, board, now), row, changed=True)
        side = _player(row, board)
        changed = _flag(store, t, row, now)
        if row["state"] == "over":
            if changed:
                return Done(_told(t, row, board, now), row, changed=True)
            raise NotAllowed(
                "remote game %d is over (%s, %s)" % (gid, row["result"], row["reason"])
            )
        sides = letters(row["game"])
        if what == "resign":
            _end(store, t, row, sides[SIDES.index(_other(side))], "resign", now)
        elif row["offer"] == _other(side):
            _end(store, t, row, "draw", "agreement", now)
        elif what == "accept":
            raise NotAllowed("no draw offer of the other side to accept")
        elif row["offer"] != side:
            _save(t, row, offer=side)
        else:
            return Done(_told(t, row, board, now), row)  # offered already
        return Done(_told(t, row, board, now), row, changed=True)


def bind(store: Store, gid: int, board: str, rid: str) -> Done:
    with store.tx() as t:
        row = _load(t, gid)
        _player(row, board)
        t.lock("record", board, rid)
        other = t.one("SELECT game FROM remote_binds WHERE board=? AND rid=?", (board, rid))
        if other is not None and other["game"] != gid:
            raise NotAllowed("record %s is bound to remote game %d" % (rid, other["game"]))
        mine = t.one("SELECT rid, seq FROM remote_binds WHERE game=? AND board=?", (gid, board))
        if mine is not None and mine["rid"] != rid:
            if mine["seq"] is not None:
                raise NotAllowed(
                    "this game is bound to record %s, which came already" % mine["rid"]
                )
            t.execute("UPDATE remote_binds SET rid=? WHERE game=? AND board=?", (rid, gid, board))
        elif mine is None:
            t.execute(
                "INSERT INTO remote_binds (game, board, rid) VALUES (?,?,?)", (gid, board, rid)
            )
        # The record came before the bind: checked and attached now (no longer rated).
        rec = t.one(
            "SELECT seq, record, status FROM records WHERE board=? AND rid=? AND status='ok'"
            " ORDER BY seq DESC LIMIT 1",
            (board, rid),
        )
        if rec is not None:
            r = Record.from_text(rec["record"])
            why = check_bound(row, r.moves, r.header.get("Result", "*"))
            status = "remote" if why is None else "conflict"
            t.execute("UPDATE records SET status=? WHERE seq=?", (status, rec["seq"]))
            t.execute(
                "UPDATE remote_binds SET seq=?, status=? WHERE game=? AND board=?",
                (rec["seq"], status, gid, board),
            )
        b = t.one(
            "SELECT rid, seq, status FROM remote_binds WHERE game=? AND board=?", (gid, board)
        )
    return Done({"game": gid, "record": b["rid"], "seq": b["seq"], "status": b["status"]})


# -- what the pages and the live stream show ---------------------------------------------------
def live_row(r: dict[str, Any]) -> dict[str, Any]:
    return remote_live_row(r)


def listing(store: Store, limit: int = 50) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(open seeks, games in play or over), newest first, for the club's page."""
    with store.tx() as t:
        _expire(t)
    rows = store.query(
        "SELECT id, game, state, by_board, by_side, opponent, south, north,"
        " south_name, north_name, ply, result, reason, clock, record, updated"
        " FROM remote_games ORDER BY id DESC LIMIT ?",
        (int(limit),),
    )
    for r in rows:
        r["live"] = "%s%d" % (LIVE_PREFIX, r["id"])
        r["clock"] = json.loads(r["clock"]) if r["clock"] else None
    return (
        [r for r in rows if r["state"] == "open"],
        [r for r in rows if r["state"] != "open" and r["south"] is not None],
    )
