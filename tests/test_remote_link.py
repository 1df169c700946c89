"""The host's end of a remote game (BoardLink.peer, BoardLink.end, the offer event) against the
simulated board on its pty, real firmware and real clock; the away timeout lowered through
BAWO_PEER_MS so the test waits for events, never for 10 s."""

import json
import time

import pytest

from bawo import sim
from bawo.boardlink import BoardLinkError
from bawo.ports import connect
from bawo_firmware import protocol as P
from shared_rules.record import Record

PEER_MS = 1500


class Board:
    def __init__(self, flash):
        self.relay = sim.PtyRelay()
        self.proc = sim.BoardProcess(
            "bawo-4x8",
            flash,
            fake=False,
            speed=8,
            link=self.relay.board_ends(),
            extra_env={"BAWO_PEER_MS": str(PEER_MS)},
        )
        self.relay.start()
        self.status = {}

    def wait(self, pred, timeout=20):
        """The board's status lines until one satisfies pred (the board emits one at every
        visible change)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred(self.status):
                return self.status
            try:
                line = self.proc.readline(timeout=max(0.1, deadline - time.monotonic()))
            except sim.SimError:
                break
            if line.startswith("S ") or line.startswith("B "):
                self.status = json.loads(line[2:])
        raise AssertionError("board status never matched: %s" % self.status)

    def close(self):
        self.relay.stop = True
        self.proc.kill()


@pytest.fixture
def board(tmp_path):
    b = Board(str(tmp_path / "flash"))
    yield b
    b.close()


def test_peer_end_and_offers_between_boardlink_and_the_board(board, tmp_path):
    ser, link, info = connect(board.relay.path, None, timeout=3.0)
    try:
        st = link.new_game("oware", opponent="host-second")
        gid = st["id"]
        assert link.peer(True, offer=False, bar=6, low=False) == {}
        board.wait(lambda s: s.get("id") == gid and s.get("away") is False)
        # Bad values are refused before anything is sent; the board refuses what the
        # protocol does not allow (here: a PEER's raw bad payload).
        with pytest.raises(ValueError):
            link.peer(True, bar=9)
        with pytest.raises(BoardLinkError) as e:
            link.request(P.PEER, {"here": 5})
        assert e.value.code == P.E_BAD_PAYLOAD
        # here=0: away at once; silence past the timeout: away; a PEER: back.
        link.peer(False)
        board.wait(lambda s: s.get("away") is True)
        link.peer(True)
        board.wait(lambda s: s.get("away") is False)
        board.wait(lambda s: s.get("away") is True, timeout=PEER_MS / 1000 + 10)
        link.peer(True, offer=True)
        board.wait(lambda s: s.get("away") is False)
        # The person holds BACK 2 s: a draw offer (acceptance) reaches the host as an event.
        # (Held until the event comes: the test waits for it, not for the clock.)
        board.proc.send("p %d" % board.proc.back_key)
        offers = []
        deadline = time.monotonic() + 15
        while not offers and time.monotonic() < deadline:
            offers = [e for e in link.poll_events(0.2) if e.get("ev") == "offer"]
        board.proc.send("r %d" % board.proc.back_key)
        assert offers == [{"ev": "offer", "id": gid, "what": "draw"}], offers
        # The club agreed: END.
        r = link.end("draw", "agreement")
        assert r["mode"] == "over" and r["result"] == {"result": "draw", "reason": "agreement"}
        ends = []
        deadline = time.monotonic() + 5
        while not ends and time.monotonic() < deadline:
            ends = [e for e in link.poll_events(0.2) if e.get("ev") == "end"]
        assert ends == [{"ev": "end", "id": gid, "result": "draw", "reason": "agreement"}]
        # A retry after a lost reply: no host game now; the snapshot says it ended.
        with pytest.raises(BoardLinkError) as e:
            link.end("draw", "agreement")
        assert e.value.code == P.E_NO_GAME
        assert link.position()["result"] == {"result": "draw", "reason": "agreement"}
        with pytest.raises(ValueError):
            link.end("S", "bored")
        # The record replays on the host, with its Result and Reason.
        listed = [g for g in link.list_games() if g["id"] == gid]
        assert (listed[0]["result"], listed[0]["reason"]) == ("draw", "agreement")
        text = link.fetch_record(gid).decode()
        rec = Record.from_text(text[: text.rindex("#crc")] if "#crc" in text else text)
        assert (rec.header["Result"], rec.header["Reason"]) == ("draw", "agreement")
        assert rec.replay().ply == 0
        # `bawo sync` takes it into the log (replayed there), with its result and reason.
        from bawo.db import Log
        from bawo.sync import sync

        log = Log(str(tmp_path / "log.sqlite"))
        rep = sync(link, log)
        assert gid in str([g for g in log.games()]) and rep.listed >= 1, rep
        row = [g for g in log.games() if gid in str(g)][0]
        assert "agreement" in str(row) and "draw" in str(row), row
    finally:
        ser.close()
    # Power cut right after: the board powers on with the game over and its record kept.
    board.close()
    again = Board(str(tmp_path / "flash"))
    try:
        ser, link, info = connect(again.relay.path, None, timeout=3.0)
        try:
            assert link.position()["mode"] == "menu"
            listed = [g for g in link.list_games() if g["id"] == gid]
            assert (listed[0]["result"], listed[0]["reason"]) == ("draw", "agreement")
        finally:
            ser.close()
    finally:
        again.close()


def test_an_old_board_refuses_peer_and_end_with_error_2():
    # What a bridge sees from a board without remote games (a handler without peer and end):
    # ERROR 2, unknown type.
    from _link_helpers import board_link_module

    L = board_link_module()
    BP = L.P  # the protocol module the board's link runs on
    inbox, out = [], []

    class Old:
        def position(self):
            return {"mode": "menu"}

    link = L.Link(lambda: inbox.pop(0) if inbox else None, out.append, Old())
    for seq, typ, pl in (
        (7, BP.PEER, {"here": 1}),
        (8, BP.END, {"result": "S", "reason": "resign"}),
    ):
        inbox.append(BP.encode(seq, typ, pl))
        link.poll()
        [r] = BP.Parser().feed(b"".join(out))
        out.clear()
        assert (r.seq, r.type, r.payload["code"]) == (seq, BP.ERROR, BP.E_UNKNOWN_TYPE), r
