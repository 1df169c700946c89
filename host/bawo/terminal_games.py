"""Games in the terminal: replaying a record (`bawo show`) and playing one (`bawo play`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from shared_rules import game as make_game, State, winner_name
from shared_rules.errors import RulesError
from shared_rules.record import Record

from . import players
from .sim.draw import draw
from .errors import BawoError
from .advice import best_move, named
from .sim.layout import SIDE_NAMES, result_line
from .text import safe
from .rulestypes import Game

if TYPE_CHECKING:
    from .boardlink import BoardLink
    from .db import Log


def _title(rec: Record) -> str:
    h = rec.header
    bits = [h.get("Id", "(no id)"), h.get("Game", "?")]
    if h.get("Start"):
        bits.append(h["Start"])
    bits.append(
        "result %s%s" % (h.get("Result", "*"), (" (%s)" % h["Reason"]) if h.get("Reason") else "")
    )
    sides = make_game(h.get("Game")).sides
    for side, tag in ((0, h.get("First")), (1, h.get("Second"))):
        n = players.parse(tag)[2]  # the board's hints, 'person (2 hints)'
        if n:
            bits.append(
                "%s had %d hint%s"
                % (SIDE_NAMES.get(sides[side], sides[side]), n, "" if n == 1 else "s")
            )
    return "  ".join(bits)


def show_record(
    rec: Record,
    ply: int | None = None,
    interactive: bool = False,
    out: TextIO | None = None,
    ask: Callable[[str], str] = input,
    style: str = "numbers",
    marks: list[str] | None = None,
) -> int:
    """Print a record's positions; interactive waits for Enter between moves. style: how
    positions are drawn (draw.draw: 'numbers', or the board's LEDs 'color'/'mono')."""
    out = out or sys.stdout
    g = make_game(rec.header.get("Game"))
    state = rec.replay()  # a logged record always replays; a --file one may not (one-line error)
    n = len(rec.moves)
    if ply is not None and not 0 <= ply <= n:
        raise BawoError(
            "ply %d is out of range: this game has %d plies (0 is the start)" % (ply, n)
        )
    s = State(g, rec.header.get("Position"))
    out.write(safe(_title(rec)) + "\n")
    if ply is None:
        out.write(draw(g.name, g.format(s.position), "start", style=style) + "\n")
    if interactive:
        return _step(rec, g, s, state, ask, out, style)
    for k, m in enumerate(rec.moves, 1):
        mover = g.sides[s.turn] if isinstance(s.turn, int) else s.turn
        s.push(m)
        if ply is not None:
            if k == ply:
                break
            continue
        out.write(
            "\n"
            + draw(g.name, g.format(s.position), "ply %d: %s plays %s" % (k, mover, m), style=style)
            + "\n"
        )
        if marks is not None:
            out.write("  [%s]\n" % marks[k - 1])  # bawo analyse's mark of this ply
    if ply is not None:
        out.write(
            draw(
                g.name,
                g.format(s.position),
                "after ply %d%s" % (ply, (": " + rec.moves[ply - 1]) if ply else ""),
                style=style,
            )
            + "\n"
        )
        return 0
    out.write("\n" + _ending(g, state, n) + "\n")
    return 0


def _step(
    rec: Record, g: Game, s: State, final: State, ask: Callable[[str], str], out: TextIO, style: str
) -> int:
    """show's interactive replay: Enter (or n) one ply forward, b one back, q quits."""
    n = len(rec.moves)
    while True:
        k = s.ply
        where = "start" if k == 0 else ("end" if k == n else "ply %d/%d" % (k, n))
        try:
            a = ask("-- %s; Enter: next, b: back, q: quit -- " % where).strip().lower()
        except EOFError:
            return 0
        if a in ("q", "quit"):
            return 0
        if a in ("b", "back", "p"):
            if k == 0:
                out.write("(at the start)\n")
                continue
            s.pop()
            label = "start" if k == 1 else "back to ply %d: %s" % (k - 1, rec.moves[k - 2])
        else:
            if k == n:
                return 0
            mover = g.sides[s.turn] if isinstance(s.turn, int) else s.turn
            s.push(rec.moves[k])
            label = "ply %d: %s plays %s" % (k + 1, mover, rec.moves[k])
        out.write("\n" + draw(g.name, g.format(s.position), label, style=style) + "\n")
        if s.ply == n and a not in ("b", "back", "p"):
            out.write("\n" + _ending(g, final, n) + "\n")


def _ending(g: Game, state: State, n: int) -> str:
    o = state.outcome()
    if o is None:
        return "unfinished after %d plies" % n
    return result_line(g.name, winner_name(g, o), o.reason, g.format(state.position))


def _sure(ask: Callable[[str], str], question: str) -> bool:
    try:
        return ask(question).strip().lower() in ("y", "yes")
    except EOFError:  # no one left to answer
        return True


def _side_index(g: Game, side: str | None) -> int:
    if side is None:
        return 0
    side = side.strip().upper()[:1]
    if side not in g.sides:
        raise BawoError("--as %s: %s sides are %s" % (side, g.name, " or ".join(g.sides)))
    return g.sides.index(side)


def play(
    name: str,
    level: int = 2,
    side: str | None = None,
    seed: int | None = None,
    two_players: bool = False,
    log: Log | None = None,
    ask: Callable[[str], str] = input,
    out: TextIO | None = None,
    style: str = "numbers",
) -> int:
    """Interactive game; stores the finished (or abandoned) game in log if given."""
    out = out or sys.stdout
    g = make_game(name)
    human = _side_index(g, side)
    seed = seed if seed is not None else int(time.time())
    ai = None if two_players else _terminal_ai(g, level, seed, out)
    s = State(g)
    hints = 0
    start = time.strftime("%Y-%m-%dT%H:%M:%S")
    out.write(draw(g.name, g.format(s.position), style=style) + "\n")
    while s.outcome() is None:
        mover = g.sides[s.turn]
        if ai is not None and s.turn != human:
            m = ai.choose(s)
            text = g.move_str(m, s.position)
            s.push(m)
            out.write(
                "\ncomputer (%s) plays %s\n%s\n"
                % (mover, text, draw(g.name, g.format(s.position), style=style))
            )
            continue
        try:
            line = ask("%s to move (? for moves, hint for one): " % mover).strip()
        except EOFError:
            line = "quit"
        if line in ("quit", "q", "exit"):
            if s.ply and not _sure(ask, "end this game here, unfinished? (y/n) "):
                continue
            break
        if line in ("?", "help"):
            out.write("legal: %s\n" % " ".join(s.legal_move_strs()))
            continue
        if line.lower() == "hint":  # the board's hint (BACK held, MENU): bawo.advice
            hints += 1
            out.write("hint %d: %s\n" % (hints, best_move(s, seed)))
            continue
        if line == "undo":
            try:
                s.pop()
                if ai is not None and s.ply and s.turn != human:
                    s.pop()
            except RulesError:
                pass
            out.write(draw(g.name, g.format(s.position), style=style) + "\n")
            continue
        if not line:
            continue
        try:
            s.push(line)
        except RulesError as e:
            out.write("%s\n" % e)
            continue
        out.write(draw(g.name, g.format(s.position), style=style) + "\n")
    o = s.outcome()
    if o is not None:
        out.write("\n%s\n" % result_line(g.name, winner_name(g, o), o.reason, g.format(s.position)))
    if log is not None and s.ply:
        _log_game(log, s, human, level if ai is not None else None, hints, start, out)
    return 0


def _terminal_ai(g: Any, level: int, seed: int, out: TextIO) -> Any:
    """The PC's AI at level for `bawo play`, or None (said) when shared_rules has no AI."""
    try:
        from shared_rules.ai import Player  # noqa: F401  (whether the AI is there)
    except ImportError:
        out.write("(no AI available: two players take turns)\n")
        return None
    if not 1 <= level <= 5:
        raise BawoError("--level %d: levels are 1 (weak) to 5 (strongest)" % level)
    from .solve import host_player

    return host_player(g, level, seed)


def _log_game(
    log: Log, s: State, human: int, level: int | None, hints: int, start: str, out: TextIO
) -> None:
    """The terminal game's record into the log. level: the AI's, None for two people."""
    you = named("you", hints)  # with the hints taken, as the board names its person
    if level is not None:
        ai_name = "computer (level %d)" % level
        players = {
            "First": you if human == 0 else ai_name,
            "Second": you if human == 1 else ai_name,
        }
    else:  # two people: as the board's record of two, when they had help
        players = (
            {"First": named("person", hints), "Second": named("person", hints)} if hints else {}
        )
    rec = Record.from_state(
        s,
        Start=start,
        Device="terminal",
        Id="terminal-%s" % time.strftime("%Y%m%d-%H%M%S"),
        **players,
    )
    log.add(rec, "play")
    out.write("logged as %s\n" % rec.header["Id"])


def _yes(ask: Callable[[str], str], question: str, default: bool) -> bool:
    """ask() a y/n question; Enter or no terminal to ask on (EOF) gives the default."""
    try:
        a = ask(question).strip().lower()
    except EOFError:
        return default
    return default if not a else a.startswith("y")


def _game_on_board(
    link: BoardLink, ask: Callable[[str], str], out: TextIO
) -> dict[str, Any] | None:
    """The board's unfinished game, if the person wants it resumed (a board waiting for this
    PC's move after a Ctrl-C); None for a new game. Never abandons a game without asking."""
    from .boardlink import BoardLinkError

    try:
        cur = link.position(moves=True)
    except BoardLinkError as e:
        if e.code is None:
            raise
        return None  # a board without POSITION: nothing to resume
    if not cur.get("id") or cur.get("mode") != "play" or cur.get("result"):
        return None
    what = "game %s (%s, ply %s)" % (cur["id"], cur.get("game"), cur.get("ply"))
    if cur.get("opponent") in ("host-first", "host-second"):
        if _yes(ask, "%s on the board is waiting for this PC: resume it? [Y/n] " % what, True):
            return cur
        out.write("%s is kept on the board as an unfinished record; starting a new game\n" % what)
        return None
    if _yes(
        ask,
        "the board is in the middle of %s, played by %s: end it there and start a new "
        "game? [y/N] " % (what, cur.get("opponent") or "people"),
        False,
    ):
        return None
    raise BawoError(
        "%s left as it is on the board: finish it there, or run this again and "
        "answer y to start a new game" % what
    )


def play_on_board(
    link: BoardLink,
    name: str,
    level: int = 5,
    side: str | None = None,
    seed: int | None = None,
    out: TextIO | None = None,
    timeout: float | None = None,
    style: str = "numbers",
    ask: Callable[[str], str] = input,
) -> int:
    """`bawo play --board`: a new game on the board over the link; the person presses their
    moves on the board, the host's AI (PC budgets) sends its own with MOVE and the board
    animates them. A game left waiting for this PC (Ctrl-C) is resumed, asking first; a
    game of people on the board is ended only if the person says so. Returns 0 at the
    game's end; timeout (s) without news from the board stops it (None: wait forever)."""
    out = out or sys.stdout
    if not 1 <= level <= 5:
        raise BawoError("--level %d: levels are 1 (weak) to 5 (strongest)" % level)
    link.poll_events(0)  # news from before (another game's start) is not about this game
    cur = _game_on_board(link, ask, out)
    if cur is not None:
        g = make_game(cur["game"])
        human = 1 if cur["opponent"] == "host-first" else 0
        gid = cur["id"]
        try:
            s = State(g, cur.get("root"))
            for m in cur.get("moves") or []:
                s.push(m)
        except RulesError as e:
            raise BawoError(
                "the board's game %s does not replay here (%s): finish it on the board" % (gid, e)
            )
        if len(s.moves) != cur.get("ply") or g.format(s.position) != cur.get("position"):
            raise BawoError(
                "the board did not send the whole of game %s (an old firmware?): "
                "update it with `bawo flash`, or finish the game on the board" % gid
            )
        head = "resuming game %s (%s) at ply %d" % (safe(gid), g.name, s.ply)
    else:
        g = make_game(name)
        human = _side_index(g, side)
        st = link.new_game(name, opponent="host-second" if human == 0 else "host-first")
        gid = st["id"]
        s = State(g, st.get("position") if st.get("ply") == 0 else None)
        head = "game %s on the board" % safe(gid)  # the board's text, escaped
    from .solve import host_player

    ai = host_player(g, level, seed if seed is not None else int(time.time()))
    out.write(
        "%s: you play %s by pressing pockets, the computer (level %d) plays %s\n%s\n"
        % (
            head,
            g.sides[human],
            level,
            g.sides[1 - human],
            draw(g.name, g.format(s.position), style=style),
        )
    )
    out.flush()
    try:
        _play_loop(link, g, s, gid, human, ai, out, timeout, style)
    except KeyboardInterrupt:
        out.write(
            "\nstopped: game %s waits on the board at ply %d; `bawo play --board` resumes it\n"
            % (safe(gid), s.ply)
        )
        out.flush()
        raise
    o = s.outcome()
    out.write(
        "\n%s; the board keeps the record: `bawo sync` fetches it\n"
        % result_line(g.name, winner_name(g, o), o.reason, g.format(s.position))
    )
    return 0


def _play_loop(
    link: BoardLink,
    g: Game,
    s: State,
    gid: str,
    human: int,
    ai: Any,
    out: TextIO,
    timeout: float | None,
    style: str,
) -> None:
    while s.outcome() is None:
        if s.turn != human:
            t0 = time.monotonic()
            m = ai.choose(s)
            text = g.move_str(m, s.position)
            r = link.move(text)  # a board busy thinking is asked again (BoardLink)
            s.push(m)
            out.write(
                "\ncomputer (%s) plays %s (%.2f s)\n%s\n"
                % (
                    g.sides[1 - human],
                    text,
                    time.monotonic() - t0,
                    draw(g.name, g.format(s.position), style=style),
                )
            )
            out.flush()
            if r.get("position") != g.format(s.position):
                raise BawoError("the board's position differs from the host's after %s" % text)
            continue
        got = None
        for ev in link.events(timeout=timeout):
            if ev.get("ev") == "start" and ev.get("id") != gid:
                raise BawoError("a new game was started on the board: this one is left")
            if ev.get("id") == gid and ev.get("ev") == "move" and ev.get("ply") == s.ply + 1:
                got = ev
                break
        if got is None:
            raise BawoError("no move from the board within %s s" % timeout)
        s.push(got["move"])
        out.write(
            "\nyou (%s) played %s\n%s\n"
            % (g.sides[human], got["move"], draw(g.name, g.format(s.position), style=style))
        )
        out.flush()
