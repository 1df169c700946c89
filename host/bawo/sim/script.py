"""Scripted players: the menu's settings and the moves of a game, pressed as a person would."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from .board import BoardProcess, SimError, build_mpy, is_flashed
from .layout import key_of_cell, level_cell, presses_for
from .render import digits, render


def choose_settings(board, game, opponent="people", speed=None, level=None):
    """Press the menu pockets for game/opponent/speed/level (the menu must be showing)."""
    from shared_rules import GAMES  # noqa: F401 - the names below are shared_rules' names
    st = board.status
    prof = json.loads(Path(board.profile_file).read_text())
    cols = prof["grid"]["cols"]
    key = lambda r, c: r * cols + c  # noqa: E731 - the profiles list cells row-major
    cells = prof.get("pockets") or prof.get("points")
    at = {tuple(rc): k for k, rc in enumerate(cells)}
    games = st["games"]
    if game not in games:
        raise SimError("game %s does not fit profile %s (it plays %s)"
                       % (game, prof["name"], ", ".join(games)))
    board.tap(at[(0, games.index(game))])
    if opponent is not None:
        board.tap(at[(1, ("people", "board-second", "board-first").index(opponent))])
    if speed is not None:
        board.tap(at[(3, min(speed, min(8, cols)) - 1)])
    if level is not None:
        rc = level_cell(prof["grid"]["rows"], cols, level)
        if rc is None:
            raise SimError("profile %s has no room for the level in its menu" % prof["name"])
        board.tap(at[rc])
    del key
    return board.idle()


def play_moves(board, game, moves, on_move=None):
    """Enter text moves by presses; returns the final status. Stops at the game's end."""
    cells = key_of_cell(board.profile_file, game)
    st = board.status
    for mv in moves:
        if st.get("result"):
            break
        ply = st["ply"]
        for k in presses_for(game, st["pos"], mv, cells):
            board.tap(k)
        st = board.idle()
        if st["ply"] != ply + 1 or st["moves"][-1] != mv:
            raise SimError("the board did not take move %s at ply %d (position %s)"
                           % (mv, st["ply"] + 1, st["pos"]))
        if on_move:
            on_move(st)
    return st


def play_vs_board(board, game, person_move, on_move=None, limit=2000):
    """The person's side by presses, person_move(status) -> move text (None: stop), the
    board's side by its AI; returns the final status."""
    cells = key_of_cell(board.profile_file, game)
    st = board.status
    while not st.get("result") and st["ply"] < limit:
        mv = person_move(st)
        if mv is None:
            break
        ply = st["ply"]
        for k in presses_for(game, st["pos"], mv, cells):
            board.tap(k)
        st = board.idle()       # idle again once the board has answered and animated it
        if st["ply"] <= ply or st["moves"][ply] != mv:
            raise SimError("the board did not take move %s at ply %d (position %s)"
                           % (mv, ply + 1, st["pos"]))
        if on_move:
            on_move(st)
    return st


def random_person(game, seed):
    """person_move for play_vs_board: seeded random legal moves."""
    from shared_rules import game as make_game
    g = make_game(game)
    rng = random.Random(seed)

    def choose(st):
        pos = g.parse(st["pos"])
        return g.move_str(rng.choice(sorted(g.legal_moves(pos))), pos)
    return choose


def random_moves(game, position, seed, limit, start=0):
    """A seeded random continuation of `position` (text), as move texts."""
    from shared_rules import game as make_game, State
    rng = random.Random(seed)
    s = State(make_game(game), position)
    out = []
    while len(out) < limit and s.legal_moves:
        m = rng.choice(sorted(s.legal_moves))
        out.append(s.move_str(m))
        s.push(m)
    return out


def _script_moves(args):
    if args.moves:
        return args.moves.split()
    if args.script:
        words = []
        for line in Path(args.script).read_text().splitlines():
            line = line.split("#", 1)[0]
            for w in line.split():
                if not (w.endswith(".") and w[:-1].isdigit()):
                    words.append(w)
        return words
    return None


def _mpy_for(args, data):
    """A dir of compiled firmware when --heap/--mpy asks for one, else None. A Pico runs the
    deployed .mpy files: compiling the sources would need heap it does not spend. A flashed
    data dir already holds them."""
    if not (args.mpy or args.heap) or is_flashed(data):
        return None
    import tempfile
    return build_mpy(tempfile.mkdtemp(prefix="bawo-mpy-"))


def _scripted(args, data, moves, rnd):
    env = {}
    if args.heap:
        env["BAWO_HEAP"] = "1"
    if args.demo:
        # The demo's games are synced and listed next: they start at this PC's time, as on a
        # board a host set the clock of (otherwise PLAYED says "unknown").
        import time
        env["BAWO_TIME"] = str(int(time.time()))
    ai_vs_ai = args.ai_vs_ai
    opponent = args.opponent or "people"
    level = args.level
    if ai_vs_ai:
        # Not a menu choice: the settings come in by the environment, the menu keeps them.
        env.update({"BAWO_OPPONENT": "board-both", "BAWO_LEVEL": str(level or 5)})
        opponent = None
    mpy = _mpy_for(args, data)
    board = BoardProcess(args.profile, data, fake=True, seed=args.seed, speed=args.speed,
                         heap=args.heap, extra_env=env, mpy_dir=mpy)
    try:
        st = board.status
        if st["mode"] == "play":
            # A game was in progress on this flash: it resumed; archive it with MENU twice.
            board.menu()
            board.idle()
        st = choose_settings(board, args.game, opponent, args.speed,
                             level if opponent and opponent != "people" else None)

        def progress(s):
            if not args.headless and not args.quiet:
                for k in range(progress.ply, s["ply"]):
                    print("  ply %3d  %-6s %s" % (k + 1, s["moves"][k],
                                                  s["pos"] if k + 1 == s["ply"] else ""))
                progress.ply = s["ply"]
        progress.ply = 0
        board.menu()
        if ai_vs_ai:
            st = board.idle(timeout=600)   # the board plays both sides to the end
            progress(st)
        elif opponent != "people":
            st = board.idle()
            progress(st)
            if rnd is not None:
                person = random_person(args.game, args.seed)
                left = [rnd]

                def person_move(s):
                    left[0] -= 1
                    return person(s) if left[0] >= 0 else None
            else:
                script = list(moves)

                def person_move(s):
                    return script.pop(0) if script else None
            st = play_vs_board(board, args.game, person_move, progress)
        else:
            st = board.idle()
            if rnd is not None:
                moves = random_moves(args.game, st["pos"], args.seed, rnd)
            st = play_moves(board, args.game, moves, progress)
        frame = board.get_frame()
        if not args.headless:
            from ..draw import _narrow, style_for
            if sys.stdout.isatty() and _narrow(sys.stdout):
                print(digits(frame, board.profile_file, st))
            else:
                print(render(frame, board.profile_file, st, color=style_for(sys.stdout) == "color"))
        result = st.get("result")
        if result:
            from ..draw import result_line
            print("result: %s after %d plies; record %s in %s"
                  % (result_line(args.game, None if result == "draw" else result, st.get("reason"),
                                 st.get("pos")), st["ply"], st.get("id"), data))
        else:
            print("no result yet after %d plies: %s" % (st["ply"], st["pos"]))
        if st.get("thinks"):
            n, total, most = st["thinks"]
            print("board's AI: %d moves, %.3f s a move on average, %.3f s the longest (this PC)"
                  % (n, total / n / 1000, most / 1000))
        if "peak" in st:
            print("heap: peak gc.mem_alloc %d bytes (%.1f KB), live after gc.collect() %.1f KB"
                  % (st["peak"], st["peak"] / 1024, st["live"] / 1024))
        board.quit()
        return 0
    except BaseException:
        board.kill()
        raise

