"""The game log's commands: `bawo games`, `show`, `export`, `import`, `verify`."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import textwrap
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any, TextIO

from ..errors import BawoError
from ..text import SafeWriter, Writer, json_safe, safe
from .common import (
    Counted,
    add_db,
    add_filters,
    add_style,
    count_arg,
    db_path,
    name_unreadable,
    one_line,
    open_input,
    open_log,
    out_json,
    out_json_list,
    positive_arg,
    record_from_args,
    style,
    sub,
)

if TYPE_CHECKING:
    from ..db import Log
    from .common import Subs


def add_parser(subs: Subs) -> None:
    """This group's commands, each with its parser and its run function."""
    add_games(subs)
    add_show(subs)
    add_export(subs)
    add_import(subs)
    add_verify(subs)


def add_games(subs: Subs) -> None:
    """`bawo games`: list the log."""
    s = sub(
        subs,
        "games",
        "list the games in the log",
        """List logged games in the order they were played (PLAYED, local time); games
            whose start time is unknown (the board's clock was not set) come last.""",
        """examples:
              bawo games
              bawo games --game oware --since 2025-01-01 --result S
              bawo games --json | jq '.[].id'
              bawo games --quarantine      records that did not replay

            exit status: 0, 1 some row of the log could not be read (named on stderr)""",
    )
    add_db(s)
    add_filters(s)
    s.add_argument("--quarantine", action="store_true", help="list quarantined records instead")
    s.add_argument("--where", action="store_true", help="print the game log's path and exit")
    s.add_argument("--json", action="store_true", help="print a JSON array")
    s.set_defaults(func=cmd_games)


def add_show(subs: Subs) -> None:
    """`bawo show`: replay a game in the terminal."""
    s = sub(
        subs,
        "show",
        "replay a logged game in the terminal",
        """Replay a game from the log: Enter (or n, space) shows the next move, b steps
            back, q quits; in a terminal each key acts at once.
            ID may be a unique prefix of the game id. Each position is drawn as the board's
            LEDs show it (the firmware's own drawing, as in `bawo sim`), then the position
            string and whose turn it is; when the output is not a terminal or NO_COLOR is set,
            as a grid of numbers instead (--numbers always, --leds never).""",
        """examples:
              bawo show pico-1a2b-0007
              bawo show pico-1a2b-0007 --all     every position, no pauses
              bawo show pico-1a2b-0007 --ply 12  the position after ply 12
              bawo show --file game.txt           a record file instead of the log""",
    )
    s.add_argument("id", nargs="?", help="game id (or unique prefix)")
    s.add_argument("--file", metavar="FILE", help="show the first record of FILE instead")
    s.add_argument("--all", action="store_true", help="print every position without waiting")
    s.add_argument("--ply", type=count_arg, metavar="N", help="only the position after ply N")
    s.add_argument(
        "--analyse", action="store_true", help="note `bawo analyse`'s mark under each ply"
    )
    add_style(s)
    add_db(s)
    s.set_defaults(func=cmd_show)


def add_export(subs: Subs) -> None:
    """`bawo export`: write games to a file."""
    s = sub(
        subs,
        "export",
        "write logged games to a file",
        """Export games as JSON lines (one record object per line), as text records
            (RULES.md section 4, PGN-like) or as a CSV summary. JSON lines and text carry
            every record whole, every tag and move: `bawo import` of them gives back the
            same games. The CSV is a summary by design, one row a game with the columns id,
            game, device, start, result, reason, plies, status: no moves and no other tags,
            so it cannot be imported. A row of the log that cannot be read is named on
            stderr and skipped; the others are written.""",
        """examples:
              bawo export > games.jsonl
              bawo export --format text -o games.txt
              bawo export --format csv --game bawo --since 2025-01-01 -o bawo.csv

            exit status: 0 every game written, 1 some row of the log could not be read""",
    )
    s.add_argument("-f", "--format", choices=("jsonl", "text", "csv"), default="jsonl")
    s.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    s.add_argument(
        "--analyse",
        action="store_true",
        help="add `bawo analyse`'s marks: a comment per ply (text), a marks field (jsonl)",
    )
    add_filters(s)
    add_db(s)
    s.set_defaults(func=cmd_export)


def add_import(subs: Subs) -> None:
    """`bawo import`: add records from a file."""
    s = sub(
        subs,
        "import",
        "add records from a file to the log",
        """Read records (JSON lines or text, as `bawo export` writes them), replay each,
            and add the good ones to the log; a game already there is skipped, another game
            under a taken id is kept beside it as a conflict, a record that does not read or
            replay is quarantined as it was in the file, with a one-line reason. The file is
            read as a stream (any size), the replays run in one process per CPU, and progress
            goes to stderr. Ctrl-C stops it: what was stored so far is kept and said. A CSV
            summary (`bawo export -f csv`) has no moves and cannot be imported.""",
        """examples:
              bawo import games.jsonl
              bawo import friend.txt --db club.sqlite

            exit status: 0 every record was good, 1 some record failed or was a conflict,
            130 interrupted""",
    )
    s.add_argument("file", help="record file (- for stdin)")
    s.add_argument(
        "--jobs",
        type=positive_arg,
        metavar="N",
        help="replay records in N processes (default: one per CPU; 1: in this one)",
    )
    add_db(s)
    s.set_defaults(func=cmd_import)


def add_verify(subs: Subs) -> None:
    """`bawo verify`: replay records, store nothing."""
    s = sub(
        subs,
        "verify",
        "check records by replaying them",
        """Replay each record of FILE with the rules and print OK or the failing ply and why.
            Nothing is stored.""",
        """examples:
              bawo verify games.jsonl
              bawo export | bawo verify -

            exit status: 0 all OK, 1 some record failed""",
    )
    s.add_argument("file", help="record file (- for stdin)")
    s.add_argument("--json", action="store_true", help="one JSON object per record")
    s.set_defaults(func=cmd_verify)


def cmd_games(args: argparse.Namespace) -> int:
    if args.where:
        print(safe(db_path(args)))
        return 0
    if not args.quarantine:
        return list_games(db_path(args), args.game, args.since, args.until, args.result, args.json)
    log = open_log(args, readonly=True)
    try:
        rows = log.quarantined()
    finally:
        log.close()
    items = [{k: r[k] for k in ("id", "error", "ply", "source", "added")} for r in rows]
    bad = name_unreadable(log)
    if args.json:
        out_json(items)
        return 1 if bad else 0
    for d in items:
        print(
            safe(
                "%-22s ply %-4s %s  (%s, %s)"
                % (
                    d["id"],
                    d["ply"] if d["ply"] is not None else "-",
                    " ".join(str(d["error"]).split()),
                    d["source"],
                    d["added"][:10],
                )
            )
        )
    if not items:
        print("no quarantined records")
    return 1 if bad else 0


def _status_note(row: dict[str, Any]) -> str:
    if row["status"] == "live":
        return "  (live)"
    if row["status"] == "conflict":  # db.conflict_id: "<id>~<hash>"
        return "  (conflict: another game has id %s)" % row["id"].rsplit("~", 1)[0]
    return ""


def list_games(
    db: str,
    game: str | None = None,
    since: str | None = None,
    until: str | None = None,
    result: str | None = None,
    as_json: bool = False,
) -> int:
    """`bawo games`: the games of the log at db, oldest first, filtered as asked. On a
    terminal the lines fit its width; to a pipe, one line a game, as scripts read it."""
    from ..db import Log, row_dict, played_text

    log = Log(db, readonly=True)
    width = _terminal_width()
    try:
        rows = Counted(log.select(game, since, until, result))
        if as_json:
            out_json_list(row_dict(r) for r in rows)
        else:
            for r in rows:
                if rows.n == 1:
                    print(
                        _game_line(
                            ("ID", "GAME", "PLAYED", "RESULT", "PLIES", "REASON"), width, True
                        )
                    )
                print(
                    _game_line(
                        (
                            safe(r["id"]),
                            safe(r["game"]),
                            played_text(r["start"]),
                            safe(r["result"]),
                            str(r["plies"]),
                            safe((r["reason"] or "") + _status_note(r)),
                        ),
                        width,
                    )
                )
    finally:
        log.close()
    bad = name_unreadable(log)
    if as_json:
        return 1 if bad else 0
    if not rows.n:
        print(
            _fit(
                safe(
                    "no games in %s%s"
                    % (
                        log.path,
                        " matching the filters" if (game or since or until or result) else "",
                    )
                ),
                width,
            )
        )
    else:
        print(_fit("%d game(s), oldest first; PLAYED is local time" % rows.n, width))
    return 1 if bad else 0


# `bawo games`' table: ID, GAME, PLAYED, RESULT, PLIES, then REASON to the end of the line.
_TABLE = "%-24s %-9s %-16s %-6s %5s  "


_TABLE_WIDTH = 66


_REASON_ROOM = 16  # narrower than the table and this much of a reason: one block a game


def _terminal_width() -> int | None:
    """The terminal's width when stdout is one, else None (no wrapping: a pipe's reader
    takes a line a game)."""
    import shutil

    try:
        if not sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    return max(20, shutil.get_terminal_size().columns)


def _fit(text: str, width: int | None, indent: str = "") -> str:
    """text wrapped at its spaces to width (None: as it is); a word is never cut."""
    if width is None or len(text) <= width:
        return text
    return "\n".join(
        textwrap.wrap(
            text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
        )
    )


def _game_line(cells: tuple[str, ...], width: int | None, header: bool = False) -> str:
    """One game of `bawo games` (cells already safe to print): the table's line, its reason
    wrapped under the REASON column; on a terminal too narrow for that, a block: the id,
    then the rest wrapped below it."""
    if width is None or width >= _TABLE_WIDTH + _REASON_ROOM:
        line = (_TABLE % cells[:5] + cells[5]).rstrip()
        return _fit(line, width, " " * _TABLE_WIDTH)
    if header:
        return _fit("ID, then GAME PLAYED RESULT PLIES REASON", width)
    rest = "%s  %s  %s  %s plies  %s" % cells[1:]
    return cells[0] + "\n" + _fit("  " + rest.rstrip(), width, "  ")


def cmd_show(args: argparse.Namespace) -> int:
    from ..terminal_games import show_record

    rec = record_from_args(args)
    interactive = not args.all and args.ply is None and sys.stdin.isatty()
    marks = None
    if getattr(args, "analyse", False):
        from ..analyse import analyse, mark_text

        marks = [mark_text(x) for x in analyse(rec)]
    if not interactive:
        return show_record(rec, ply=args.ply, style=style(args), marks=marks)
    from ..termkeys import single_keys

    with single_keys(sys.stdin) as ask:  # b, q and Enter act at once, no Enter after them
        return show_record(rec, interactive=True, ask=ask, style=style(args), marks=marks)


def _input_size(path: str) -> int | None:
    try:
        return os.path.getsize(path) if path != "-" and os.path.isfile(path) else None
    except OSError:
        return None


class Progress:
    """Import progress on stderr: a live line on a terminal, else a line every `every` s."""

    def __init__(self, stream: TextIO, total_bytes: int | None = None, every: float = 30.0) -> None:
        import time

        self.stream, self.total, self.every = stream, total_bytes, every
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.t0 = self._last = time.monotonic()
        self.shown = False

    def update(self, games: int, done_bytes: int | None = None) -> None:
        import time

        now = time.monotonic()
        if now - self._last < (0.2 if self.live else self.every):
            return
        self._last = now
        rate = games / max(now - self.t0, 1e-9)
        pct = (
            (" (%d%% of the file)" % (100 * done_bytes // self.total))
            if self.total and done_bytes is not None
            else ""
        )
        line = "import: %d games read%s, %.0f games/s" % (games, pct, rate)
        if self.live:
            self.stream.write("\r" + line + "\033[K")
            self.shown = True
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.live and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


def cmd_export(args: argparse.Namespace) -> int:
    write: Callable[[Iterable[Any], str, Writer], int]
    if getattr(args, "analyse", False):
        from ..analyse import write_marked as write
    else:
        from ..export import write
    log = open_log(args, readonly=True)
    try:
        rows = Counted(log.select(args.game, args.since, args.until, args.result))
        if args.output:
            try:
                with open(args.output, "w", encoding="utf-8", newline="") as f:
                    bad = write(rows, args.format, f)
            except OSError as e:
                raise BawoError("cannot write %s: %s" % (args.output, e.strerror or e))
        else:
            bad = write(
                rows, args.format, SafeWriter(sys.stdout) if sys.stdout.isatty() else sys.stdout
            )
    finally:
        log.close()
    skipped = name_unreadable(log)
    if args.output:
        print(
            safe(
                "%d game(s) written to %s%s"
                % (
                    rows.n,
                    args.output,
                    ("; %d unreadable row(s) skipped, named above" % skipped) if skipped else "",
                )
            ),
            file=sys.stderr,
        )
    if bad:
        print(
            "bawo: warning: %d stored record(s) no longer read as records: written as "
            "{\"stored_record\": ..., \"error\": ...}" % bad,
            file=sys.stderr,
        )
    return 1 if skipped else 0


def cmd_import(args: argparse.Namespace) -> int:
    import time
    from ..db import ADDED, SAME, REPLACED, CONFLICT
    from ..export import read, replayed
    from shared_rules.errors import RecordError

    counts = {"added": 0, "duplicate": 0, "conflict": 0, "failed": 0}
    name = safe(args.file)
    with open_input(args.file) as src:
        log = open_log(args)
        before = (log.count(), log.count("quarantine"))
        progress = Progress(sys.stderr, _input_size(args.file))
        n = 0
        where = stored = None
        log.batch(True)
        committed = time.monotonic()
        jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
        items = replayed(read(src), max(1, min(jobs, 64)))
        try:
            for where, rec, err, text in items:
                n += 1
                if err is None:
                    assert rec is not None  # read() gives a record or its error
                    try:
                        outcome, rid = log.add(
                            rec, "import", check=None if text else rec.replay, text=text
                        )
                    except RecordError as e:
                        err = e
                if err is not None:
                    # The record as it was read (a JSON line, a text record), else as parsed.
                    log.quarantine(
                        rec if rec is not None else (getattr(err, "text", None) or where),
                        str(err),
                        getattr(err, "ply", None),
                        "import",
                    )
                    print(safe("%s %s: %s" % (args.file, where, one_line(err))))
                    counts["failed"] += 1
                elif outcome in (ADDED, REPLACED):
                    counts["added"] += 1
                elif outcome == SAME:
                    counts["duplicate"] += 1
                elif outcome == CONFLICT:
                    print(
                        safe(
                            "%s %s: another game with id %s is in the log: kept beside it as %s"
                            % (args.file, where, rid.rsplit("~", 1)[0], rid)
                        )
                    )
                    counts["conflict"] += 1
                if n % 256 == 0:
                    now = time.monotonic()
                    if now - committed > 0.5:  # other writers (sync, watch) wait at most this
                        log.commit()
                        committed = now
                    progress.update(n, _tell(src))
        except KeyboardInterrupt:
            # Ctrl-C: what was checked is kept (below) and said in one line; the workers
            # ignore the signal (export.replayed) and end with the pool.
            stored = before
        finally:
            items.close()
            progress.finish()
            _end_batch(log)
            if stored is not None:
                stored = (log.count() - before[0], log.count("quarantine") - before[1])
            log.close()
    if stored is not None:
        sys.stderr.write(
            safe(
                "bawo: import interrupted%s: %d game(s) added and %d failed "
                "record(s) quarantined are kept in %s; run it again for the rest "
                "(games already in the log are skipped)"
                % (" after %s" % where if where else "", stored[0], stored[1], log.path)
            )
            + "\n"
        )
        return 130
    print(
        "%s: %d added, %d already in the log, %s%d failed -> %s"
        % (
            name,
            counts["added"],
            counts["duplicate"],
            "%d conflict(s) kept, " % counts["conflict"] if counts["conflict"] else "",
            counts["failed"],
            safe(log.path),
        )
    )
    return 1 if counts["failed"] or counts["conflict"] else 0


def _end_batch(log: Log) -> None:
    try:
        log.batch(False)  # what was checked is kept, even when interrupted
    except sqlite3.Error:
        pass


def _tell(src: IO[bytes] | Any) -> int | None:
    try:
        return src.tell()
    except (OSError, ValueError, AttributeError):
        return None


def cmd_verify(args: argparse.Namespace) -> int:
    from ..export import read
    from shared_rules.errors import RecordError

    bad = n = 0
    with open_input(args.file) as src:
        for where, rec, err in read(src):
            n += 1
            rid = rec.header.get("Id", "-") if rec is not None else "-"
            if err is None:
                assert rec is not None  # read() gives a record or its error
                try:
                    rec.replay()
                except RecordError as e:
                    err = e
            if args.json:
                d = {"where": where, "id": rid, "ok": err is None}
                if err is not None:
                    d.update(ply=getattr(err, "ply", None), error=str(err))
                else:
                    assert rec is not None
                    d.update(
                        game=rec.header.get("Game"),
                        plies=len(rec.moves),
                        result=rec.header.get("Result", "*"),
                    )
                print(json_safe(json.dumps(d, ensure_ascii=False)))
            elif err is None:
                assert rec is not None
                print(
                    safe(
                        "OK    %-18s %-22s %-9s %4d plies  %s"
                        % (
                            where,
                            rid,
                            rec.header.get("Game"),
                            len(rec.moves),
                            rec.header.get("Result", "*"),
                        )
                    )
                )
            else:
                ply = getattr(err, "ply", None)
                print(
                    safe(
                        "FAIL  %-18s %-22s %s%s"
                        % (where, rid, ("ply %d: " % ply) if ply else "", err)
                    )
                )
            bad += err is not None
    if not args.json:
        print("%d record(s), %d OK, %d failed" % (n, n - bad, bad))
    if n == 0:
        raise BawoError("%s holds no record" % args.file)
    return 1 if bad else 0
