"""`bawo ports` and `bawo sync`: find the board, then copy its finished games into the log."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import BawoError
from ..text import safe
from .common import add_db, add_port, connect, one_line, open_log, out_json, sub

if TYPE_CHECKING:
    from .common import Subs


def add_parser(subs: Subs) -> None:
    """This group's commands, each with its parser and its run function."""
    add_ports(subs)
    add_sync(subs)


def add_ports(subs: Subs) -> None:
    """`bawo ports`: the serial ports that may be a board."""
    s = sub(
        subs,
        "ports",
        "list serial ports that may be a board",
        """List serial ports, boards first (USB vendor 2e8a, Raspberry Pi), and a
            simulator running in the default data dir. Each board is asked which firmware it
            runs (its version, UF2 image or files, the hash of its sources); a port another
            program holds is said to be busy.""",
        """examples:
              bawo ports
              bawo ports --json
              bawo ports --no-ask          list only; talk to no board""",
    )
    s.add_argument("--json", action="store_true", help="print a JSON array")
    s.add_argument(
        "--no-ask", action="store_true", help="do not ask the boards which firmware they run"
    )
    s.set_defaults(func=cmd_ports)


def add_sync(subs: Subs) -> None:
    """`bawo sync`: the board's finished games into the log."""
    s = sub(
        subs,
        "sync",
        "copy finished games from the board into the game log",
        """Fetch every finished game the board has not handed over yet, check each by replaying
            it with the rules, store it in the game log, and only then tell the board it may
            forget it. Safe to interrupt at any point: run it again and nothing is lost or doubled.
            A record that does not replay is kept in quarantine (see `bawo games --quarantine`) and
            left on the board. Another game under an id the log has (two boards with one id) is
            kept beside it as a conflict, `<id>~<hash>` in `bawo games`.""",
        """examples:
              bawo sync
              bawo sync --port /dev/ttyACM0 --db ~/bawo.sqlite
              bawo sync --sim /tmp/bawo-sim      (a running `bawo sim --data /tmp/bawo-sim`)

            exit status: 0 all games synced, 1 some record was quarantined, a conflict, not fetched,
            or an error occurred""",
    )
    add_port(s)
    add_db(s)
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.set_defaults(func=cmd_sync)


def cmd_ports(args: argparse.Namespace) -> int:
    from ..ports import ask_firmware, candidates, default_sim_port

    c = candidates()
    sim_pty = default_sim_port()
    if sim_pty:
        c.append(
            {
                "device": sim_pty,
                "vid": None,
                "pid": None,
                "serial": None,
                "description": "bawo sim (simulated board)",
                "pico": True,
            }
        )
    if not args.no_ask:
        for d in c:
            if d["pico"]:
                d["firmware"] = ask_firmware(d["device"])
    if args.json:
        out_json(c)
        return 0
    if not c:
        print("no serial ports found (a simulated board: `bawo sim`)")
        return 0
    for d in c:
        print(
            safe(
                "%-20s %s:%s  %s%s"
                % (
                    d["device"],
                    d["vid"] or "----",
                    d["pid"] or "----",
                    d["description"] or "",
                    "  <- Raspberry Pi (board?)" if d["pico"] and "firmware" not in d else "",
                )
            )
        )
        if d.get("firmware"):
            print(safe("%-20s runs %s" % ("", d["firmware"])))
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    from ..sim.draw import Bar
    from ..sync import sync
    from ..club.client import held_hook, load_config

    try:
        club = load_config()
    except BawoError as e:  # a damaged club.json never keeps the games on the board
        sys.stderr.write("bawo: warning: %s; syncing without the club\n" % safe(one_line(e)))
        club = None
    log = open_log(args)
    ser, link, info = connect(args)
    try:
        report = sync(link, log, bar=None if args.json else Bar(), held=held_hook(log, club))
    finally:
        ser.close()
        log.close()
    if args.json:
        out_json(report.to_dict())
    else:
        name = info.get("board") or info.get("id") or info.get("device") or "board"
        print(
            safe(
                "%s: %d new game(s) stored, %d already in the log, %d quarantined%s%s (%.1f kB in %.1f s) -> %s"
                % (
                    name,
                    len(report.added),
                    len(report.reacked),
                    len(report.quarantined),
                    ", %d conflict(s) kept" % len(report.conflicts) if report.conflicts else "",
                    ", %d not fetched" % len(report.failed) if report.failed else "",
                    report.bytes / 1000,
                    report.seconds,
                    log.path,
                )
            )
        )
        for gid, err, ply in report.quarantined:
            print(
                safe(
                    "quarantined %s: %s (left on the board; see `bawo games --quarantine`)"
                    % (gid, err)
                )
            )
        for gid, err in report.conflicts:
            print(safe("conflict %s: %s" % (gid, err)))
        for gid, err in report.failed:
            print(safe("not fetched %s: %s (left on the board)" % (gid, err)))
    if club:
        from .club import deliver

        deliver(log.path, club, out=sys.stderr if args.json else sys.stdout)
    return 0 if report.ok() else 1
