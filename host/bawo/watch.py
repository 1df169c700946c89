"""`bawo watch`: follow the board's game from its EVENT frames and log every move at once.

The log row (status 'live', then 'watched' when the game ends) is rewritten after each move, so
a game watched to its end survives even if the board's flash fails before the next sync; sync
replaces it with the board's own record (db.Log.add).
"""
import sys
import time

from shared_rules import game as make_game, State, GAMES
from shared_rules.errors import RulesError
from shared_rules.record import Record

from .draw import draw
from .link import LinkError

KINDS = {"baghchal": "bagh-chal", "bagh_chal": "bagh-chal"}


def _kind(d):
    k = d.get("kind") or d.get("game") or "bawo"
    return KINDS.get(k, k)


class Watcher:
    def __init__(self, log, device, out=None, draw_board=True, style="numbers"):
        self.log = log
        self.style = style
        self.device = device
        self.out = out or sys.stdout
        self.draw_board = draw_board
        self.state = None
        self.gid = None
        self.moves_seen = 0

    def say(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def start(self, d):
        kind = _kind(d)
        if kind not in GAMES:
            self.say("board started an unknown game %r: not logged" % kind)
            self.state = None
            return
        self.gid = str(d.get("id") or "%s-live-%d" % (self.device, int(time.time())))
        pos = d.get("start") or d.get("root")
        try:
            self.state = State(make_game(kind), pos if isinstance(pos, str) and pos != "start" else None)
        except RulesError:
            self.state = State(make_game(kind))
        for m in d.get("moves") or []:
            self.state.push(m)
        if not d.get("moves") and isinstance(d.get("position"), str) and self.state.ply == 0:
            # Joined mid-game without the move list: log from the position the board shows.
            try:
                g = self.state.game
                if g.format(g.parse(d["position"])) != g.format(self.state.position):
                    self.state = State(g, d["position"])
            except RulesError:
                pass
        self.say("game %s (%s) %s" % (self.gid, kind, "started" if self.state.ply == 0 else
                                      "in progress, ply %d" % self.state.ply))
        self._show()
        self._store()

    def move(self, d):
        if self.state is None:
            self.say("move %s (no game known: not logged)" % d.get("move"))
            return
        text = d.get("move")
        try:
            mover = self.state.game.sides[self.state.turn]
            self.state.push(text)
        except RulesError as e:
            self.say("board played %s, which does not replay here (%s): the log keeps the moves up to "
                     "ply %d; `bawo sync` will fetch the board's record" % (text, e, self.state.ply))
            self.state = None
            return
        self.say("ply %d: %s plays %s" % (self.state.ply, mover, text))
        board_pos = d.get("position")
        mine = self.state.game.format(self.state.position)
        if isinstance(board_pos, str) and board_pos != mine and "/" in board_pos and " " in board_pos:
            self.say("warning: the board shows %s, the rules give %s" % (board_pos, mine))
        self._show()
        self._store()

    def end(self, d):
        if self.state is not None:
            o = self.state.outcome()
            self.say("game %s over: %s" % (self.gid, d.get("result") or (o and o.reason) or "ended"))
            self._store(final=True)
        self.state = None

    def _show(self):
        if self.draw_board and self.state is not None:
            g = self.state.game
            self.say(draw(g.name, g.format(self.state.position), style=self.style))

    def _store(self, final=False):
        rec = Record.from_state(self.state, Id=self.gid, Device=self.device)
        done = final or self.state.outcome() is not None
        self.log.add(rec, "watch", status="watched" if done else "live")

    def handle(self, ev):
        kind = ev.get("ev")
        if kind == "start":
            self.start(ev)
        elif kind == "move":
            if self.state is None and ev.get("id"):
                self.start({"id": ev["id"], "kind": ev.get("kind"), "moves": ev.get("moves")})
                if ev.get("moves"):
                    return
            self.move(ev)
        elif kind == "end":
            self.end(ev)
        return kind


def watch(link, log, info, draw_board=True, exit_after_game=False, timeout=None, out=None,
          style="numbers"):
    device = str(info.get("board") or info.get("id") or "board")
    w = Watcher(log, device, out, draw_board, style)
    w.say("watching %s (Ctrl-C to stop)" % device)
    try:
        try:
            cur = link.position()
            if cur and cur.get("id") and cur.get("mode") != "over" and not cur.get("result"):
                w.start(cur)
        except LinkError:
            pass  # no game in progress
        for ev in link.events(timeout=timeout):
            if w.handle(ev) == "end" and exit_after_game:
                break
    except KeyboardInterrupt:
        w.say("stopped watching%s" % ((" (game %s logged up to ply %d)" % (w.gid, w.state.ply))
                                      if w.state is not None else ""))
    return 0
