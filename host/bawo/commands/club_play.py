"""`bawo club play`: play another club board from this PC's board (club/bridge.py does it)."""

from __future__ import annotations

import argparse
import os
import re
import sys

from ..club import ClubError
from ..text import safe
from .common import add_port, connect

CLOCK = re.compile(r"^(\d{1,3})\+(\d{1,3})$")
WAIT_S = 20


def clock_arg(text: str) -> dict:
    """argparse type: MINUTES+INCREMENT, e.g. 10+5 (Fischer: each move adds 5 s)."""
    m = CLOCK.match(text)
    if not m or not 1 <= int(m.group(1)) <= 180 or int(m.group(2)) > 60:
        raise argparse.ArgumentTypeError(
            "%r: a clock is MINUTES+SECONDS, 1 to 180 minutes and 0 to 60 s a move (10+5)"
            % text[:40]
        )
    return {"base": int(m.group(1)) * 60, "inc": int(m.group(2))}


def per_move_arg(text: str) -> dict:
    try:
        s = int(text)
    except ValueError:
        s = 0
    if not 5 <= s <= 3600:
        raise argparse.ArgumentTypeError("%r: seconds a move, 5 to 3600" % text[:40])
    return {"move": s}


def add_play(cs: argparse._SubParsersAction) -> None:
    from shared_rules import GAMES

    s = cs.add_parser(
        "play",
        help="play a friend's board far away, through the club",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play a game between this PC's board and another board of the club. Each "
        "person presses their moves on their own board; the other's moves arrive "
        "through the club and are sown on this board. If the board, its USB or the "
        "network drops, run this again (or wait: it waits for them) and the game "
        "goes on at the last move both boards have.",
        epilog="examples:\n"
        "  bawo club play --list                     open challenges and seeks\n"
        "  bawo club play bawo --opponent pico-2b    challenge board pico-2b (you South)\n"
        "  bawo club play oware --side any           a seek anyone may accept\n"
        "  bawo club play bawo --clock 10+5          with a clock: 10 min, 5 s a move\n"
        "  bawo club play --accept 7                 accept challenge or seek 7\n"
        "  bawo club play --game 7                   go on with game 7 (after a restart)\n"
        "on the board: MENU held 2 s offers to resign, BACK held 2 s offers (or accepts)\n"
        "a draw; see docs/visual-language.md",
    )
    s.add_argument("kind", nargs="?", choices=sorted(GAMES), help="the game to challenge or seek")
    s.add_argument(
        "--side",
        choices=("south", "north", "any"),
        default="south",
        help="your side (south moves first; Bagh-Chal: goats); default south",
    )
    s.add_argument("--opponent", metavar="BOARD", help="challenge this board only")
    g = s.add_mutually_exclusive_group()
    g.add_argument(
        "--clock",
        type=clock_arg,
        metavar="M+S",
        help="a clock per side: M minutes, S seconds added a move",
    )
    g.add_argument(
        "--per-move",
        type=per_move_arg,
        metavar="S",
        dest="clock",
        help="a clock of S seconds a move",
    )
    w = s.add_mutually_exclusive_group()
    w.add_argument("--accept", type=int, metavar="N", help="accept challenge or seek N")
    w.add_argument("--game", type=int, metavar="N", help="go on with game N")
    w.add_argument("--list", action="store_true", help="list the open challenges and seeks")
    s.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="give up after S seconds without the board (default: wait)",
    )
    add_port(s)
    s.set_defaults(func=cmd_play)


def _token(args: argparse.Namespace) -> tuple[str, str, str]:
    from ..club.client import load_config

    cfg = load_config()
    if cfg is None:
        raise ClubError("this PC joined no club: `bawo club join URL --token T`")
    ser, link, info = connect(args)
    board = str(info.get("board") or "")
    ser.close()
    token = cfg["boards"].get(board)
    if token is None:
        raise ClubError(
            "board %s has not joined the club: `bawo club join` with its token" % safe(board)
        )
    return cfg["url"], token, board


def cmd_play(args: argparse.Namespace) -> int:
    from ..club import remote_client as api
    from ..club.bridge import Bridge, ClubGame
    from ..club.client import config_path

    url, token, board = _token(args)
    if args.list:
        for s in api.open_seeks(url, token)["seeks"]:
            print(
                safe(
                    "%4d  %-10s %s plays %s%s%s"
                    % (
                        s["game"],
                        s["kind"],
                        "you" if s.get("mine") else s["by"],
                        s["side"],
                        ", challenging " + s["opponent"] if s.get("opponent") else "",
                        ", clock" if s.get("clock") else "",
                    )
                )
            )
        return 0
    if args.accept is not None:
        st = api.accept(url, token, args.accept)
        game = args.accept
    elif args.game is not None:
        game = args.game
        st = api.state(url, token, game)
    else:
        if args.kind is None:
            raise ClubError("which game? `bawo club play bawo`, or --accept N, --game N, --list")
        got = api.seek(url, token, args.kind, args.side, args.opponent, args.clock)
        game = got["game"]
        print(
            safe(
                "game %d: waiting for %s to accept (they run `bawo club play --accept %d`)"
                % (game, args.opponent or "another board", game)
            ),
            flush=True,
        )
        st = api.state(url, token, game)
    while st.get("state") == "open":
        st = api.state(url, token, game, after=st.get("ply", 0), wait=WAIT_S)
    if st.get("side") not in ("south", "north"):
        # Over before anyone accepted it: withdrawn, or a day passed (the club's SEEK_TTL_H).
        print(
            safe("game %d ended before anyone accepted it (%s)" % (game, st.get("reason"))),
            file=sys.stderr,
        )
        return 1
    club = ClubGame(api, url, token, game)
    games_file = os.path.join(os.path.dirname(config_path()), "remote-games.json")
    print(
        safe(
            "game %d: %s, you play %s on board %s against %s"
            % (
                game,
                st["kind"],
                st["side"],
                board,
                st["north" if st["side"] == "south" else "south"],
            )
        ),
        flush=True,
    )
    bridge = Bridge(club, lambda: connect(args)[1], games_file, sys.stdout)
    try:
        end = bridge.run(st, timeout=args.timeout)
    except KeyboardInterrupt:
        print("\nstopped: the game waits at the club; `bawo club play --game %d` goes on" % game)
        raise
    res = end.get("result")
    print(
        safe(
            "game over: %s (%s)"
            % ("a draw" if res == "draw" else "%s wins" % res, end.get("reason"))
        )
    )
    return 0
