"""`bawo sim`'s entry: the options, then the interactive board (console.py), a scripted
run (below) or the emulated Pico (pico_console.py). The top of the terminal board's one-way
flow: model (process, layout, relay, script's players) -> render (leds, draw) -> terminal."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from .draw import narrow, style_for
from .process import BoardProcess, SimError, default_data_dir, lock_data_dir, mpy_dir_for
from .layout import PROFILES, result_line
from .leds import digits, render
from .script import (
    choose_settings,
    play_moves,
    play_vs_board,
    random_moves,
    random_person,
    script_moves,
)
from .console import run_interactive


class Options:
    """What `bawo sim` is asked to do: run()'s keyword arguments, handed to its modes.
    seed None: one from the clock, printed (a run is repeated with --seed)."""

    def __init__(
        self,
        game: str | None = None,
        profile: str | None = None,
        data: str | None = None,
        seed: int | None = None,
        speed: int | None = None,
        headless: bool = False,
        quiet: bool = False,
        heap: str | None = None,
        moves: str | None = None,
        script: str | None = None,
        random: int | None = None,
        demo: bool = False,
        ai_vs_ai: bool = False,
        opponent: str | None = None,
        level: int | None = None,
        pico: bool = False,
        mpy: bool = False,
        uf2: str | None = None,
    ) -> None:
        self.game, self.profile, self.data, self.seed, self.speed = game, profile, data, seed, speed
        self.headless, self.quiet, self.heap, self.moves, self.script = (
            headless,
            quiet,
            heap,
            moves,
            script,
        )
        self.random, self.demo, self.ai_vs_ai, self.opponent = random, demo, ai_vs_ai, opponent
        self.level, self.pico, self.mpy, self.uf2 = level, pico, mpy, uf2


def clock_seed() -> int:
    """A seed from the clock: each run another game unless --seed repeats one."""
    return time.time_ns() // 1000 % 1000000


def run(**options: Any) -> int:
    """`bawo sim`: options are Options' keywords (game, profile, data, moves, random, ...).
    Interactive unless moves, script, random, demo or ai_vs_ai make it scripted."""
    o = Options(**options)
    # Interactive, game/opponent/level choose in the board's menu (None: the menu's own
    # choices, kept on its flash); scripted, they are what is played.
    interactive = (
        o.moves is None and o.script is None and o.random is None and not o.demo and not o.ai_vs_ai
    )
    if not interactive or o.pico:
        o.game = o.game or "bawo"
    if not o.profile:
        o.profile = PROFILES[o.game or "bawo"]
    if o.seed is None:
        o.seed = clock_seed()
        # Said where the seed chooses the game: random plies, or the board's AI playing.
        if o.random is not None or o.demo or o.ai_vs_ai or o.opponent not in (None, "people"):
            print(
                "bawo sim: seed %d (--seed %d plays this game again)" % (o.seed, o.seed), flush=True
            )
    if o.uf2 is not None and not o.pico:
        raise SimError("--uf2 boots an image on the emulated Pico: it goes with --pico")
    data = o.data or default_data_dir()
    os.makedirs(data, exist_ok=True)
    lock = lock_data_dir(data)
    try:
        if o.pico:
            from . import pico_console

            return pico_console.run(o, data)
        moves = script_moves(o)
        rnd = o.random
        if o.demo:
            rnd = 100000
            if o.speed is None:
                o.speed = 8
        if interactive:
            return run_interactive(o, data)
        return run_scripted(o, data, moves or [], rnd)
    finally:
        os.close(lock)


def run_scripted(args: Any, data: str, moves: list[str], rnd: int | None) -> int:
    """--moves, --script, --random, --demo, --ai-vs-ai: the board plays on a lockstep clock,
    pockets pressed by the script; prints the moves, the last frame and the result."""
    env: dict[str, str] = {}
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
    mpy = mpy_dir_for(args, data)
    board = BoardProcess(
        args.profile,
        data,
        fake=True,
        seed=args.seed,
        speed=args.speed,
        heap=args.heap,
        extra_env=env,
        mpy_dir=mpy,
    )
    try:
        st = board.status
        if st["mode"] == "play":
            # A game was in progress on this flash: it resumed; archive it with MENU twice.
            board.menu()
            board.idle()
        st = choose_settings(
            board,
            args.game,
            opponent,
            args.speed,
            level if opponent and opponent != "people" else None,
        )

        shown = 0  # the plies printed

        def progress(s: Any) -> None:
            nonlocal shown
            if not args.headless and not args.quiet:
                for k in range(shown, s["ply"]):
                    print(
                        "  ply %3d  %-6s %s"
                        % (k + 1, s["moves"][k], s["pos"] if k + 1 == s["ply"] else "")
                    )
                shown = s["ply"]

        board.menu()
        if ai_vs_ai:
            st = board.idle(timeout=600)  # the board plays both sides to the end
            progress(st)
        elif opponent != "people":
            st = board.idle()
            progress(st)
            if rnd is not None:
                person = random_person(args.game, args.seed)
                left = [rnd]

                def person_move(s: Any) -> str | None:
                    left[0] -= 1
                    return person(s) if left[0] >= 0 else None
            else:
                script = list(moves)

                def person_move(s: Any) -> str | None:
                    return script.pop(0) if script else None

            st = play_vs_board(board, args.game, person_move, progress)
        else:
            st = board.idle()
            if rnd is not None:
                moves = random_moves(args.game, st["pos"], args.seed, rnd)
            st = play_moves(board, args.game, moves, progress)
        _report(board, args, st, data)
        board.quit()
        return 0
    except BaseException:
        board.kill()
        raise


def _report(board: BoardProcess, args: Any, st: Any, data: str) -> None:
    """A scripted run's end: the last frame, the result, the board's AI's times, its heap."""
    frame = board.get_frame()
    if not args.headless:
        if sys.stdout.isatty() and narrow(sys.stdout):
            print(digits(frame, board.profile_file, st))
        else:
            print(render(frame, board.profile_file, st, color=style_for(sys.stdout) == "color"))
    result = st.get("result")
    if result:
        print(
            "result: %s after %d plies; record %s in %s"
            % (
                result_line(
                    args.game,
                    None if result == "draw" else result,
                    st.get("reason"),
                    st.get("pos"),
                ),
                st["ply"],
                st.get("id"),
                data,
            )
        )
    else:
        print("no result yet after %d plies: %s" % (st["ply"], st["pos"]))
    if st.get("thinks"):
        n, total, most = st["thinks"]
        print(
            "board's AI: %d moves, %.3f s a move on average, %.3f s the longest (this PC)"
            % (n, total / n / 1000, most / 1000)
        )
    if "peak" in st:
        print(
            "heap: peak gc.mem_alloc %d bytes (%.1f KB), live after gc.collect() %.1f KB"
            % (st["peak"], st["peak"] / 1024, st["live"] / 1024)
        )
