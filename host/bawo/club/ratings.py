"""Ratings per game kind, recomputed from the club's log: the same log gives the same table.

A rating period is a UTC day (by when the game was played, else when the club got it): within
a day every game counts against the opponent's rating from before the day, as Glicko-2 wants.
A player's Bagh-Chal games as goats and as tigers make one rating. Games are read in one fixed
order (Store.rated_games), so ties and float sums come out the same on every process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from shared_rules import game as make_game

from .glicko2 import Rating, update

PROVISIONAL_RD = 110.0  # lichess's rule: above this the rating is not yet trusted
MAX_RD = 350.0


def _score(result: str, sides: Sequence[str]) -> float | None:
    """South's score, or None for a game with no result."""
    if result == "draw":
        return 0.5
    if result == sides[0]:
        return 1.0
    if result == sides[1]:
        return 0.0
    return None


def recompute(games: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """{game kind: {player: {"rating": Rating, "games": n, "wins", "draws", "losses",
    "history": [(day, r, rd)]}}} from Store.rated_games() rows."""
    sides = {}
    by_kind = {}
    for g in games:
        kind = g["game"]
        if kind not in sides:
            sides[kind] = make_game(kind).sides
        s = _score(g["result"], sides[kind])
        if s is None or g["south"] == g["north"]:
            continue
        day = (g["played"] or g["added"])[:10]
        by_kind.setdefault(kind, []).append((day, g["south"], g["north"], s))
    out = {}
    for kind, rows in by_kind.items():
        table = {}
        i = 0
        while i < len(rows):
            day = rows[i][0]
            period = {}
            while i < len(rows) and rows[i][0] == day:
                _, south, north, s = rows[i]
                for p in (south, north):
                    if p not in table:
                        table[p] = {
                            "rating": Rating(),
                            "games": 0,
                            "wins": 0,
                            "draws": 0,
                            "losses": 0,
                            "history": [],
                        }
                period.setdefault(south, []).append((north, s))
                period.setdefault(north, []).append((south, 1.0 - s))
                i += 1
            before = {p: e["rating"] for p, e in table.items()}
            for p in sorted(table):
                e = table[p]
                played = [(before[o], sc) for o, sc in period.get(p, ())]
                new = update(before[p], played)
                new.rd = min(new.rd, MAX_RD)
                e["rating"] = new
                for _, sc in period.get(p, ()):
                    e["games"] += 1
                    e["wins" if sc == 1.0 else "draws" if sc == 0.5 else "losses"] += 1
                if played:
                    e["history"].append((day, round(new.r, 2), round(new.rd, 2)))
        out[kind] = table
    return out


def leaderboard(table: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows sorted best first: established ratings before provisional ones."""
    rows = []
    for p, e in table.items():
        r = e["rating"]
        rows.append(
            {
                "player": p,
                "rating": round(r.r),
                "rd": round(r.rd),
                "games": e["games"],
                "wins": e["wins"],
                "draws": e["draws"],
                "losses": e["losses"],
                "provisional": r.rd > PROVISIONAL_RD,
            }
        )
    rows.sort(key=lambda x: (x["provisional"], -x["rating"], x["player"]))
    return rows
