"""Record files: JSON lines, the PGN-like text of RULES.md section 4, and a CSV summary.

JSON lines and text carry every record whole (every tag, the moves): exported and imported
again, a log holds the same games. The CSV is a summary by design: the columns of CSV_FIELDS,
one row a game, no moves and no other tags, so it cannot be imported."""

from __future__ import annotations

import collections
import csv
import io
import json
from collections.abc import Generator, Iterable, Iterator
from typing import IO, Any

from shared_rules.errors import RecordError
from shared_rules.record import Record

from .errors import BawoError
from .text import Writer

FORMATS = ("jsonl", "text", "csv")
CSV_FIELDS = ("id", "game", "device", "start", "result", "reason", "plies", "status")
BOM = b"\xef\xbb\xbf"

# The longest record (a JSON line, or a text record) read from a file. A 400-ply game is
# about 3 kB: this bounds what a hostile or broken file can make the reader hold.
MAX_RECORD = 1 << 20

# What the readers give: a line of a file (number, text or None, error or None); a record
# (where, Record or None, error or None); that with the text of a record that replayed.
Line = tuple[int, str | None, RecordError | None]
Item = tuple[str, Record | None, RecordError | None]
Replayed = tuple[str, Record | None, RecordError | None, str | None]


def _stored_text(r: Any) -> str:
    t = r["record"]
    if isinstance(t, bytes):  # a log written by something else: export what it holds
        t = t.decode("utf-8", "replace")
    return t if t.endswith("\n") else t + "\n"


def write(rows: Iterable[Any], fmt: str, out: Writer) -> int:
    """Write log rows (db.Log.games()) to the text stream out. Every stored record is written,
    whatever it holds: text as stored; as JSON, a record that no longer reads is written as
    {"stored_record": text, "error": why} (which import reports as a failure, nothing more).
    Returns the number of such records."""
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(CSV_FIELDS)
        for r in rows:
            w.writerow([r[k] if r[k] is not None else "" for k in CSV_FIELDS])
        return 0
    first = True
    unreadable = 0
    for r in rows:
        text = _stored_text(r)
        if fmt == "jsonl":
            try:
                d = Record.from_text(text).to_dict()
            except RecordError as e:
                d = {"stored_record": text, "error": str(e)}
                unreadable += 1
            out.write(json.dumps(d, ensure_ascii=False) + "\n")
        else:
            if not first:
                out.write("\n")
            out.write(text)
        first = False
    return unreadable


def _failed(err: RecordError, text: str | None) -> RecordError:
    """err, holding the text of the record that failed (err.text): what import quarantines."""
    err.text = text  # type: ignore[attr-defined]  # shared_rules' error has no hints; set here
    return err


def _lines(f: IO[bytes]) -> Iterator[Line]:
    """(line number, str or None, error or None) of a binary stream, each line at most
    MAX_RECORD bytes (a longer one is skipped, reported once) and decoded as UTF-8 alone.
    A UTF-8 byte order mark before the first line (some editors write one) is dropped."""
    n = 0
    while True:
        b = f.readline(MAX_RECORD + 1)
        if not b:
            return
        n += 1
        if n == 1 and b.startswith(BOM):
            b = b[len(BOM) :]
        if len(b) > MAX_RECORD and not b.endswith(b"\n"):
            while b and not b.endswith(b"\n"):  # the rest of the over-long line
                b = f.readline(MAX_RECORD + 1)
            yield n, None, RecordError("line longer than %d bytes: not a record" % MAX_RECORD)
            continue
        try:
            yield n, b.decode("utf-8").rstrip("\r\n"), None
        except UnicodeDecodeError as e:
            yield (
                n,
                None,
                _failed(
                    RecordError("not UTF-8 text (byte %d of the line)" % (e.start + 1)),
                    b.decode("utf-8", "backslashreplace").rstrip("\r\n"),
                ),
            )


def read(src: IO[bytes] | str) -> Iterator[Item]:
    """Split a file into records, reading it as a stream (memory stays flat whatever its size).
    src: a binary stream, or a str. Yields (where, Record or None, RecordError or None); a
    RecordError's text is the failed record's own text where it has one (err.text).

    JSON lines if the first non-blank character is '{', else text records, each starting at
    its [Game ...] tag. where names the line, for messages. A CSV (what `bawo export -f csv`
    writes) is refused whole: BawoError saying what it lacks.
    """
    if isinstance(src, str):
        src = io.BytesIO(src.encode("utf-8"))
    lines = _lines(src)
    pending: list[Line] = []
    for item in lines:  # the first non-blank line decides the format
        pending.append(item)
        if item[1] is None or item[1].strip():
            break
    first = pending[-1][1] if pending else None
    if first is not None and first.lstrip().startswith("{"):
        yield from _read_jsonl(pending, lines)
    else:
        _not_csv(first)
        yield from _read_text(pending, lines)


def _not_csv(first: str | None) -> None:
    # A first line of comma-separated column names (one word each), neither a tag nor JSON:
    # a CSV's header row. Said plainly, rather than as its first "record" without a [Game]
    # tag. A line of prose before the records ("Club games, 2025") is no header row.
    line = (first or "").strip()
    if line.startswith("[") or "," not in line:
        return
    cols = next(csv.reader([line]))
    if len(cols) < 2 or not all(
        c.strip() and c.strip().replace("_", "").replace("-", "").isalnum() for c in cols
    ):
        return
    raise BawoError(
        "the file is CSV (columns %s), not game records: a record needs its game, "
        "rules version and moves, and a CSV summary (`bawo export -f csv`) holds "
        "no moves; import reads JSON lines or text records, as `bawo export -f "
        "jsonl` or `-f text` writes them" % ", ".join(c.strip()[:20] for c in cols[:8])
    )


def _chain(pending: list[Line], lines: Iterator[Line]) -> Iterator[Line]:
    yield from pending
    yield from lines


def _read_jsonl(pending: list[Line], lines: Iterator[Line]) -> Iterator[Item]:
    for n, line, err in _chain(pending, lines):
        where = "line %d" % n
        if err is not None:
            yield where, None, err
            continue
        assert line is not None  # _lines gives a line or an error
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except RecursionError:
            yield where, None, _failed(RecordError("not a JSON record: nested too deeply"), line)
            continue
        except ValueError as e:
            yield where, None, _failed(RecordError("not a JSON record: %s" % e), line)
            continue
        try:
            yield where, Record.from_dict(d), None
        except RecordError as e:
            yield where, None, _failed(e, line)


def _read_text(pending: list[Line], lines: Iterator[Line]) -> Iterator[Item]:
    # block: the record's lines so far (a line that is not UTF-8 as its escaped text, for the
    # quarantine), None once the record is over-long.
    block: list[str] | None = []
    start, size, err = 1, 0, None
    for n, line, lerr in _chain(pending, lines):
        if line is not None and line.startswith("[Game "):
            yield from _text_record(block, start, err)
            block, start, size, err = [], n, 0, None
        if lerr is not None:
            err = err or RecordError("line %d: %s" % (n, lerr))
            line = getattr(lerr, "text", None)
            if line is None:
                block = None
        if block is None:
            continue
        assert line is not None  # _lines gives a line or an error with its text
        size += len(line) + 1
        if size > MAX_RECORD:
            err = err or RecordError("longer than %d bytes: not a record" % MAX_RECORD)
            block = None
            continue
        block.append(line)
    yield from _text_record(block, start, err)


def _text_record(block: list[str] | None, start: int, err: RecordError | None) -> Iterator[Item]:
    where = "record at line %d" % start
    text = "\n".join(block) if block else None
    if err is not None:
        yield where, None, _failed(err, text)
    elif text is not None and text.strip():
        try:
            yield where, Record.from_text(text), None
        except RecordError as e:
            yield where, None, _failed(e, text)


def replayed(
    items: Iterable[Item], jobs: int = 1, chunk: int = 256
) -> Generator[Replayed, None, None]:
    """(where, rec, err) items of read() -> (where, rec, err, text): err is also a record that
    does not replay, text the record's text once it did. With jobs > 1 the replays (the rules'
    work, nearly all of an import's time) run in that many worker processes, chunk records at
    a time, a bounded number of chunks ahead (memory stays flat), in the order read. With
    jobs == 1, or a file smaller than a chunk, nothing is replayed here: text is None and the
    caller replays (Log.add's check, which skips games already stored)."""
    pool = None
    pending: collections.deque[tuple[list[Any], Any]] = collections.deque()
    buf: list[Any] = []
    try:
        for item in items:
            if jobs <= 1:
                yield item + (None,)
                continue
            buf.append(item)
            if len(buf) < chunk:
                continue
            if pool is None:
                import multiprocessing

                pool = multiprocessing.Pool(jobs, initializer=_worker_start)
            todo = [(r.header, r.moves) for _, r, e in buf if e is None]
            pending.append((buf, pool.apply_async(replay_all, (todo,))))
            buf = []
            while len(pending) > 2 * jobs:
                yield from _merge(*pending.popleft())
        while pending:
            yield from _merge(*pending.popleft())
        for item in buf:
            yield item + (None,)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()


def _worker_start() -> None:
    # Ctrl-C reaches every process of the terminal's group: the importer ends the workers
    # (pool.terminate); one with its own KeyboardInterrupt would print a traceback.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def replay_all(
    recs: list[tuple[dict[str, str], list[str]]],
) -> list[tuple[str | None, str | None, int | None]]:
    """In a worker: [(header, moves)] -> [(text, None, None) or (None, message, ply)]."""
    out: list[tuple[str | None, str | None, int | None]] = []
    for h, moves in recs:
        rec = Record(h, moves)
        try:
            rec.replay()
            out.append((rec.to_text(), None, None))
        except RecordError as e:
            out.append((None, str(e), e.ply))
    return out


def _merge(items: list[Item], result: Any) -> Iterator[Replayed]:
    done = iter(result.get())
    for where, rec, err in items:
        if err is not None:
            yield where, rec, err, None
            continue
        text, msg, ply = next(done)
        yield where, rec, (None if text is not None else RecordError(msg, ply)), text


def dumps(rows: Iterable[Any], fmt: str) -> str:
    buf = io.StringIO()
    write(rows, fmt, buf)
    return buf.getvalue()
