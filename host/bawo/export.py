"""Record files: JSON lines, the PGN-like text of RULES.md section 4, and a CSV summary."""
import csv
import io
import json

from shared_rules.errors import RecordError
from shared_rules.record import Record

FORMATS = ("jsonl", "text", "csv")
CSV_FIELDS = ("id", "game", "device", "start", "result", "reason", "plies", "status")


def write(rows, fmt, out):
    """Write log rows (db.Log.games()) to the text stream out."""
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(CSV_FIELDS)
        for r in rows:
            w.writerow([r[k] if r[k] is not None else "" for k in CSV_FIELDS])
        return
    first = True
    for r in rows:
        rec = Record.from_text(r["record"])
        if fmt == "jsonl":
            out.write(json.dumps(rec.to_dict(), ensure_ascii=False) + "\n")
        else:
            if not first:
                out.write("\n")
            out.write(rec.to_text())
        first = False


def read(text):
    """Split a file into records. Yields (where, Record or None, RecordError or None).

    JSON lines if the first non-blank character is '{', else text records, each starting at
    its [Game ...] tag. where names the line, for messages.
    """
    stripped = text.lstrip()
    if stripped.startswith("{"):
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = "line %d" % n
            try:
                d = json.loads(line)
            except ValueError as e:
                yield where, None, RecordError("not a JSON record: %s" % e)
                continue
            try:
                yield where, Record.from_dict(d), None
            except RecordError as e:
                yield where, None, e
        return
    block, start = [], 1
    lines = text.splitlines()
    for n, line in enumerate(lines + ["[Game"], 1):
        if line.startswith("[Game ") or n == len(lines) + 1:
            if any(b.strip() for b in block):
                where = "record at line %d" % start
                try:
                    yield where, Record.from_text("\n".join(block)), None
                except RecordError as e:
                    yield where, None, e
            block, start = [], n
        block.append(line)


def dumps(rows, fmt):
    buf = io.StringIO()
    write(rows, fmt, buf)
    return buf.getvalue()
