"""The issue's "done when", as one run (slow: `-m slow`): a club of 3 simulated boards on 3 PCs
(3 bawo data dirs) plays, streams and syncs into one club, on PostgreSQL served by two
processes and on SQLite served by one with no configuration. Chromium shows the three boards
live; the club's log, leaderboard and player pages agree with the boards' records."""

import os
import sqlite3
import subprocess
import threading

import pytest

from _club_pg import server as pg_server
from _club_helpers import token_for
from _host_helpers import bawo_cmd, env_with_path
from test_club_processes import Club, _port

from bawo import sim
from bawo.club.stream import Sender, watcher_class
from bawo.club.store import open_store
from bawo.db import Log
from bawo.ports import connect

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("club_pg")]

PLAYERS = [("Ada", "Bo"), ("Bo", "Chi"), ("Chi", "Ada")]


class Pc:
    """A PC with its board: a simulated board on a pty, a bawo data dir, a game log."""

    def __init__(self, tmp, n):
        self.dir = tmp / ("pc%d" % n)
        self.relay = sim.PtyRelay()
        self.board = sim.BoardProcess(
            "bawo-4x8",
            str(self.dir / "flash"),
            fake=False,
            link=self.relay.board_ends(),
            seed=n + 1,
        )
        self.relay.start()
        threading.Thread(target=self._drain, daemon=True).start()
        self.env = env_with_path()
        self.env["XDG_DATA_HOME"] = str(self.dir / "data")
        self.env.pop("BAWO_DB", None)
        self.db = str(self.dir / "games.sqlite")

    def _drain(self):
        try:
            while self.board.proc.poll() is None:
                self.board.readline(timeout=3600)
        except Exception:
            pass

    def bawo(self, *args):
        r = subprocess.run(
            bawo_cmd() + list(args), capture_output=True, text=True, env=self.env, timeout=120
        )
        assert "Traceback" not in r.stderr, r.stderr
        return r

    def close(self):
        self.relay.stop = True
        self.board.kill()


def _club(tmp_path, engine):
    if engine == "postgresql":
        db = pg_server().fresh()
        return db, [Club(db, _port()), Club(db, _port())]
    db = str(tmp_path / "club.sqlite")
    return db, [Club(db, _port())]


@pytest.mark.parametrize("engine", ["postgresql", "sqlite"])
def test_a_club_of_three_boards(tmp_path, engine):
    from _serve_helpers import browser, quit_browser, wait_for

    db, clubs = _club(tmp_path, engine)
    store = open_store(db)
    pcs = [Pc(tmp_path, n) for n in range(3)]
    drv = None
    links = []
    try:
        for n, pc in enumerate(pcs):
            ser, link, info = connect(pc.relay.path, None, timeout=5.0)
            pc.id = info["board"]
            tok = token_for(store, pc.id)
            store.seat(pc.id, *PLAYERS[n], since="2000-01-01T00:00:00Z")
            r = pc.bawo("club", "join", clubs[n % len(clubs)].url, "--token", tok)
            assert r.returncode == 0, r.stderr
            pc.sender = Sender(clubs[n % len(clubs)].url, tok)
            pc.log = Log(str(tmp_path / ("watch%d.sqlite" % n)))
            pc.w = watcher_class(pc.sender)(pc.log, pc.id, open(os.devnull, "w"), False)
            st = link.new_game("bawo")
            pc.moves = sim.random_moves("bawo", st["position"], 11 + n, 400)
            pc.w.join(link)
            links.append((ser, link))
        drv = browser()
        drv.get(clubs[-1].url + "live")

        def cards():
            return {
                c.get_attribute("data-board"): int(c.get_attribute("data-ply") or 0)
                for c in drv.find_elements("css selector", ".card")
            }

        # The three boards play, a ply each in turn; half way, the page shows all three.
        longest = max(len(pc.moves) for pc in pcs)
        for k in range(longest):
            for pc, (ser, link) in zip(pcs, links):
                if k < len(pc.moves):
                    link.move(pc.moves[k])
                    for ev in link.poll_events(0.0):
                        if pc.w.handle(ev) == "gap":
                            pc.w.join(link)
            if k == 10:
                wait_for(
                    lambda: len(cards()) == 3 and min(cards().values()) >= 5,
                    what="three boards live",
                )
        for pc, (ser, link) in zip(pcs, links):
            for ev in link.poll_events(0.5):
                pc.w.handle(ev)
        wait_for(
            lambda: cards() == {pc.id: len(pc.moves) for pc in pcs},
            timeout=30,
            what="every ply live",
        )
        for ser, _ in links:
            ser.close()
        links = []
        # Each PC syncs its board: into its own log, and on to the club.
        for pc in pcs:
            r = pc.bawo("sync", "--port", pc.relay.path, "--db", pc.db)
            assert r.returncode == 0 and "1 new game(s) stored" in r.stdout, r.stdout + r.stderr
            assert "club: 1 record(s) delivered" in r.stdout, r.stdout
        rows = {r["board"]: r for r in store.records()}
        assert set(rows) == {pc.id for pc in pcs}
        for n, pc in enumerate(pcs):
            with sqlite3.connect(pc.db) as c:
                (text,) = c.execute("SELECT record FROM games").fetchone()
            full = store.record(rows[pc.id]["seq"])
            assert full["record"] == text and full["plies"] == len(pc.moves)
            assert (full["south"], full["north"]) == PLAYERS[n]
        # The leaderboard and the player pages agree with the records.
        drv.get(clubs[0].url + "leaderboard?game=bawo")
        table = {
            tr.find_elements("tag name", "td")[1].text: tr.find_elements("tag name", "td")[4].text
            for tr in drv.find_elements("css selector", "#leaderboard tr")[1:]
        }
        assert table == {"Ada": "2", "Bo": "2", "Chi": "2"}
        for name in ("Ada", "Bo", "Chi"):
            drv.get(clubs[-1].url + "player?name=" + name)
            assert len(drv.find_elements("css selector", "#games tr")) == 3  # header + 2 games
    finally:
        for ser, _ in links:
            ser.close()
        if drv:
            quit_browser(drv)
        for pc in pcs:
            if getattr(pc, "sender", None):
                pc.sender.close(0)
            pc.close()
        for c in clubs:
            c.stop()
        store.close()
