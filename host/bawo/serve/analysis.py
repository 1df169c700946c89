"""The game page's analysis marks: bawo.analyse run on demand with the budget `bawo analyse`
uses (its defaults), one game at a time on a worker thread, the result kept in memory per
game id. Bawo values are exact within the budget; Oware and Bagh-Chal marks are estimates."""

from __future__ import annotations

import collections
import threading
from typing import Any

from shared_rules import has_book
from shared_rules.errors import RecordError, RulesError
from shared_rules.record import Record

from .. import analyse as A

KEEP = 200  # analysed games kept in memory (the oldest dropped first)


class Analyses:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.run_lock = threading.Lock()  # one analysis at a time: the solver takes a core
        self.cache: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()

    def get(self, gid: str) -> dict[str, Any]:
        with self.lock:
            e = self.cache.get(gid)
            return dict(e) if e else {"state": "none"}

    def start(self, gid: str, record_text: str) -> dict[str, Any]:
        """Start analysing a game (once); returns its entry as get() does."""
        with self.lock:
            e = self.cache.get(gid)
            if e is not None and e["state"] != "error":
                return dict(e)
            try:
                rec = Record.from_text(record_text)
                rec.replay()
            except (RecordError, RulesError) as err:
                e = {"state": "error", "error": "the record does not replay: %s" % err}
                self._put(gid, e)
                return dict(e)
            e = {
                "state": "queued",
                "done": 0,
                "total": len(rec.moves) + 1,
                "estimate": not has_book(rec.header.get("Game")),
            }
            self._put(gid, e)
        threading.Thread(target=self._run, args=(gid, rec), daemon=True).start()
        return dict(e)

    def _put(self, gid: str, e: dict[str, Any]) -> None:
        self.cache[gid] = e
        self.cache.move_to_end(gid)
        while len(self.cache) > KEEP:
            old = next(iter(self.cache))
            if self.cache[old]["state"] in ("queued", "running"):
                break
            self.cache.popitem(last=False)

    def _run(self, gid: str, rec: Record) -> None:
        def progress(i: int, n: int) -> None:
            with self.lock:
                e = self.cache.get(gid)
                if e is not None:
                    e.update(state="running", done=i, total=n)

        try:
            with self.run_lock:
                marks = A.analyse(rec, progress=progress)
            for x in marks:  # the page's words: the ply's mark, the position's value before it
                x["text"] = A.mark_text(x)
                x["value_text"] = (
                    A.score_text(x.get("game"), x["side"], x["score"])
                    if x.get("estimate")
                    else A.value_text(x["side"], x["before"])
                )
            upd: dict[str, Any] = {"state": "done", "marks": marks, "curve": A.curve(marks)}
        except Exception as err:  # a solver failure: said on the page, the server goes on
            upd = {
                "state": "error",
                "error": "the analysis stopped: %s" % " ".join(str(err).split())[:200],
            }
        with self.lock:
            e = self.cache.get(gid)
            if e is not None:
                e.update(upd)
                if upd["state"] == "done":
                    e["done"] = e["total"]
