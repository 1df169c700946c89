"""Statistics drawn as inline SVG (no image files): results over time, win rate by side with
95% Wilson intervals, game length, most common openings. Per game and per opponent (who played
each side: the records' First/Second tags) and per level of the AI (bawo.players parses the tags)."""

from __future__ import annotations

import math
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from shared_rules import GAMES, game_class

from .. import players as P

COLORS = {"first": "#e8a33d", "second": "#4aa3df", "draw": "#9a9a9a", "open": "#666"}
OPENING_SAMPLE = 20000  # the newest games read for openings and opponents


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float, float]:
    if n == 0:
        return 0.0, 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return p, max(0.0, c - h), min(1.0, c + h)


def _svg(w: int, h: int, body: str, title: str) -> Markup:
    return Markup(
        '<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">%s</svg>'
        % (w, h, escape(title), body)
    )


def _text(
    x: float, y: float, s: object, anchor: str = "start", size: int = 12, cls: str = ""
) -> str:
    return '<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d" class="%s">%s</text>' % (
        x,
        y,
        anchor,
        size,
        cls,
        escape(str(s)),
    )


def bars(
    title: str,
    items: Sequence[tuple[str, float]],
    color: str = "#4aa3df",
    w: int = 560,
    unit: str = "",
) -> dict[str, Any] | None:
    """Horizontal bars: items = [(label, value)]."""
    if not items:
        return None
    row = 22
    h = 20 + row * len(items)
    top = max(v for _, v in items) or 1
    body = []
    for i, (lab, v) in enumerate(items):
        y = 10 + i * row
        bw = (w - 200) * v / top
        body.append(_text(130, y + 14, lab, "end"))
        body.append(
            '<rect x="138" y="%d" width="%.1f" height="16" fill="%s"/>' % (y + 2, bw, color)
        )
        body.append(_text(142 + bw, y + 14, "%s%s" % (v, unit)))
    return {"title": title, "svg": _svg(w, h, "".join(body), title)}


def timeline(title: str, months: dict[str, Counter[str]]) -> dict[str, Any] | None:
    """Stacked columns per month: first side's wins, second side's wins, draws."""
    if not months:
        return None
    keys = sorted(months)[-24:]
    w, h, left, bottom = 560, 250, 40, 30
    top = max(sum(months[k].values()) for k in keys) or 1
    cw = (w - left - 10) / len(keys)
    body = [
        '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>'
        % (left, h - bottom, w - 5, h - bottom),
        _text(left - 4, 42, top, "end", 11),
        _text(left - 4, h - bottom, 0, "end", 11),
    ]
    for i, k in enumerate(keys):
        y: float = h - bottom
        for part in ("first", "second", "draw"):
            v = months[k].get(part, 0)
            bh = (h - bottom - 38) * v / top
            y -= bh
            body.append(
                '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %d</title></rect>'
                % (left + i * cw + 1, y, max(1.0, cw - 2), bh, COLORS[part], escape(k), part, v)
            )
        if len(keys) <= 12 or i % 3 == 0:
            body.append(_text(left + i * cw + cw / 2, h - 10, k[2:], "middle", 10))
    body.append(_legend(left, 14))
    return {"title": title, "svg": _svg(w, h, "".join(body), title)}


def _legend(x: int, y: int) -> str:
    out = []
    for i, (part, name) in enumerate(
        (("first", "first side wins"), ("second", "second side wins"), ("draw", "draw"))
    ):
        out.append(
            '<rect x="%d" y="%d" width="10" height="10" fill="%s"/>'
            % (x + i * 150, y - 9, COLORS[part])
        )
        out.append(_text(x + 14 + i * 150, y, name, size=12))
    return "".join(out)


def winrates(title: str, rows: Sequence[tuple[str, float, int]]) -> dict[str, Any] | None:
    """rows: [(label, wins, games)]: each rate with its 95% interval."""
    rows = [r for r in rows if r[2] > 0]
    if not rows:
        return None
    w, row = 560, 26
    h = 30 + row * len(rows)
    x0, x1 = 170, w - 60
    body = []
    for t in (0, 0.5, 1):
        x = x0 + (x1 - x0) * t
        body.append('<line x1="%.1f" y1="8" x2="%.1f" y2="%d" stroke="#ccc"/>' % (x, x, h - 14))
        body.append(_text(x, h - 2, "%d%%" % (t * 100), "middle", 10))
    for i, (lab, k, n) in enumerate(rows):
        p, lo, hi = wilson(k, n)
        y = 22 + i * row
        body.append(_text(x0 - 8, y + 4, "%s (%d)" % (lab, n), "end"))
        body.append(
            '<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333" stroke-width="2"/>'
            % (x0 + (x1 - x0) * lo, y, x0 + (x1 - x0) * hi, y)
        )
        body.append(
            '<circle cx="%.1f" cy="%d" r="5" fill="%s"/>' % (x0 + (x1 - x0) * p, y, COLORS["first"])
        )
        body.append(_text(x1 + 6, y + 4, "%.0f%%" % (100 * p), size=11))
    return {"title": title, "svg": _svg(w, h, "".join(body), title)}


def _players(record: str) -> tuple[str | None, str | None]:
    def tag(name: str) -> str | None:
        i = record.find('[%s "' % name)
        if i < 0:
            return None
        j = record.find('"]', i)
        return record[i + len(name) + 3 : j][:20]

    return tag("First"), tag("Second")


def _opening(record: str, n: int = 2) -> str:
    i = record.find("\n\n")
    toks = [t for t in record[i + 2 : i + 200].split() if not t[0].isdigit() or "." not in t]
    return " ".join(toks[:n])


def charts(db: sqlite3.Connection, game: str | None = None) -> list[dict[str, Any]]:
    # Results and lengths count finished games only: an unfinished one ('*', a live game
    # among them) has no result and no length yet. Its opening was played: that counts.
    where, args = ("WHERE game=?", [game]) if game else ("", [])
    done = "%s %s result != '*'" % (where, "AND" if where else "WHERE")
    out: list[dict[str, Any] | None] = []
    sides = {name: tuple(game_class(name).sides) for name in GAMES}
    months: defaultdict[str, Counter[str]] = defaultdict(Counter)
    per_game: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for g, month, result, n in db.execute(
        "SELECT game, substr(COALESCE(NULLIF(start, ''), added), 1, 7) AS m, result, COUNT(*) "
        "FROM games %s GROUP BY game, m, result" % done,
        args,
    ):
        first, second = sides.get(g, ("S", "N"))
        part = (
            "first"
            if result == first
            else "second"
            if result == second
            else "draw"
            if result == "draw"
            else None
        )
        if part:
            months[month][part] += n
            per_game[g][part] += n
    out.append(timeline("Results by month%s" % (" (%s)" % game if game else ""), months))
    rates = []
    for g in sorted(per_game):
        c = per_game[g]
        total = sum(c.values())
        first, second = sides.get(g, ("S", "N"))
        rates.append(("%s %s wins" % (g, first), c["first"], total))
        rates.append(("%s %s wins" % (g, second), c["second"], total))
    out.append(winrates("Win rate by side (95% interval)", rates))
    lengths: Counter[str] = Counter()
    for bucket, n in db.execute(
        "SELECT (plies / 20) * 20, COUNT(*) FROM games %s GROUP BY 1 ORDER BY 1" % done, args
    ):
        lengths["%d-%d" % (bucket, bucket + 19)] = n
    out.append(bars("Game length (plies, finished games)", list(lengths.items())[:20]))
    openings: Counter[str] = Counter()
    opp: defaultdict[str, Counter[str]] = defaultdict(Counter)
    by_level: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for g, result, rec in db.execute(
        "SELECT game, result, record FROM games %s ORDER BY rowid DESC LIMIT %d"
        % (where, OPENING_SAMPLE),
        args,
    ):
        openings["%s: %s" % (g, _opening(rec))] += 1
        if result == "*":
            continue
        first, second = _players(rec)
        fs, ss = sides.get(g, ("S", "N"))
        if first or second:
            kinds = [P.parse(first)[0] or first, P.parse(second)[0] or second]
            key = "%s vs %s" % (kinds[0] or "?", kinds[1] or "?")
            opp[key]["games"] += 1
            opp[key]["first"] += result == fs
            ai = [k in P.AI for k in kinds]
            if ai[0] != ai[1]:  # the AI against a person: its level's record
                lv = P.level_of(first, second)
                key = "level %d" % lv if lv else "level unknown"
                by_level[key]["games"] += 1
                by_level[key]["won"] += result == (fs if ai[0] else ss)
    out.append(
        bars(
            "Most common openings (newest %d games)" % OPENING_SAMPLE,
            openings.most_common(10),
            COLORS["open"],
        )
    )
    out.append(
        winrates(
            "First side's win rate by players",
            [(k, c["first"], c["games"]) for k, c in sorted(opp.items())],
        )
    )
    out.append(
        winrates(
            "The AI's win rate by level, against a person (newest %d games)" % OPENING_SAMPLE,
            [(k, c["won"], c["games"]) for k, c in sorted(by_level.items())],
        )
    )
    return [c for c in out if c]
