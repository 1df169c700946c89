"""A remote game end to end: two simulated boards, each on its own PC's bridge (what `bawo club
play` runs), play one game through a club while the test cuts each board's power, its USB
cable and its PC's network to the club at random moments. At the end both boards' records
and the club's game agree ply by ply, and every move was played once."""

import os
import random
import time

import pytest

from _club_helpers import live_server
from _club_pg import club_url  # noqa: F401  (fixture)
from _host_helpers import board_games
from _remote_helpers import Match

from shared_rules.record import Record


FAULTS = ("power", "usb", "net")


def _board_records(pc):
    pc.board.kill()
    games = pc.data + "/games"
    return [
        Record.from_text(t)
        for t in board_games(games if os.path.isdir(games) else pc.data).values()
    ]


def play_remote(
    tmp_path,
    db,
    seed,
    faults,
    resign_at=None,
    kind="bawo",
    limit_s=240,
    draw_at=None,
    stop_at=None,
    clock=None,
):
    """Play a remote game between two simulated boards through the club at db, cutting in
    `faults` faults at random moments. Returns (the club's state, each board's records, the
    faults by kind, what each bridge said)."""
    rng = random.Random(seed)
    with live_server(db) as (url, store):
        port = int(url.rsplit(":", 1)[1].strip("/"))
        m = Match(tmp_path, port, store, seed, kind, limit_s, clock)
        try:
            done = 0
            back = []  # (when, pc, what) to undo
            resigned = None
            drew = {}
            t0 = time.monotonic()
            while m.playing() and time.monotonic() - t0 < limit_s:
                m.step()
                now = time.monotonic()
                for item in [x for x in back if x[0] <= now]:
                    back.remove(item)
                    getattr(item[1], item[2])()
                ply = max(pc.status.get("ply", 0) for pc in m.pcs)
                if done < faults and not back and rng.random() < 0.08:
                    pc = rng.choice(m.pcs)
                    what = rng.choice(FAULTS)
                    if what == "power":
                        pc.power_cut()
                    elif what == "usb":
                        pc.usb_cut()
                        back.append((now + rng.uniform(0.3, 2.0), pc, "usb_back"))
                    else:
                        pc.net_cut()
                        back.append((now + rng.uniform(0.3, 2.0), pc, "net_back"))
                    done += 1
                if draw_at is not None and ply >= draw_at and not back:
                    # Each person offers a draw (the second offer accepts the first); again
                    # on a board that lost its offer to a power cut.
                    for pc in m.pcs:
                        if pc.status.get("offered") != "draw" and now - drew.get(pc.name, -9) > 6:
                            pc.paused = True
                            pc.board.offer_draw()
                            drew[pc.name] = now
                if stop_at is not None and ply >= stop_at:
                    for pc in m.pcs:
                        pc.paused = True  # nobody moves: the mover's clock runs out
                if resign_at is not None and ply >= resign_at and not back:
                    # The gesture again if a power cut took it before the board sent it.
                    if resigned is None or (
                        now - resigned[1] > 6 and resigned[0].status.get("offered") != "resign"
                    ):
                        pc = resigned[0] if resigned else rng.choice(m.pcs)
                        pc.board.resign()
                        resigned = (pc, now)
                time.sleep(0.03)
            for _, pc, what in back:
                getattr(pc, what)()
            for t in m.threads:
                t.join(30)
            for i in (0, 1):
                assert isinstance(m.results.get(i), dict), (m.results.get(i), m.said[i].tail())
            club = m.club_state()
            recs = [_board_records(pc) for pc in m.pcs]
            counts = {k: sum(pc.faults[k] for pc in m.pcs) for k in FAULTS}
            for pc, out in zip(m.pcs, m.said):
                out.seen = pc.seen  # what each board showed at least once
            return club, recs, counts, m.said
        finally:
            m.close()


def check_agree(club, recs):
    """Each board holds exactly one record of the game, and it is the club's, ply by ply."""
    assert club["state"] == "over", club
    for board_recs in recs:
        mine = [r for r in board_recs if r.moves == club["moves"]]
        assert len(mine) == 1, ([len(r.moves) for r in board_recs], len(club["moves"]))
        r = mine[0]
        assert r.header.get("Result") == club["result"], (r.header, club)
        assert r.header.get("Reason") == club["reason"], (r.header, club)


def test_a_remote_game_with_faults_ends_by_resignation(tmp_path, club_url):  # noqa: F811
    """Both engines: six faults, then a person resigns on the board's keys."""
    club, recs, counts, said = play_remote(tmp_path, club_url, 3, faults=6, resign_at=6)
    check_agree(club, recs)
    assert club["reason"] == "resign", club
    assert sum(counts.values()) >= 6, counts


@pytest.mark.slow  # the rules' end runs in every run on the Pico (test_pico_remote.py)
def test_a_remote_game_with_faults_plays_to_the_rules_end(tmp_path):
    # Seed 18's people end the game by the rules in about 12 plies.
    club, recs, counts, said = play_remote(tmp_path, str(tmp_path / "club.sqlite"), 18, faults=6)
    check_agree(club, recs)
    assert club["reason"] not in ("resign", "agreement", "time"), club
    assert sum(counts.values()) >= 6, counts


def test_a_draw_agreed_on_the_boards_keys_and_a_flag_on_the_club(tmp_path):
    """Both people hold BACK: the game is drawn by agreement on the club and on both boards.
    Then a game with a clock of 5 s a move where nobody moves: the flag falls on the club,
    the side to move's board blinked low first, and both boards end the game on time."""
    club, recs, counts, said = play_remote(
        tmp_path / "draw", str(tmp_path / "draw.sqlite"), 7, faults=0, draw_at=4
    )
    check_agree(club, recs)
    assert (club["result"], club["reason"]) == ("draw", "agreement"), club
    db = str(tmp_path / "flag.sqlite")
    club, recs, counts, said = play_remote(
        tmp_path / "flag", db, 9, faults=0, stop_at=3, clock={"move": 5}
    )
    check_agree(club, recs)
    assert club["reason"] == "time" and club["ply"] == 3, club
    loser = 1 if club["result"] == "S" else 0  # North (board b) was to move at ply 3
    assert club["turn"] == ("north" if loser == 1 else "south"), club
    assert "low time" in said[loser].seen  # 5 s a move is low time: the board blinked it


@pytest.mark.slow
@pytest.mark.parametrize("seed", [21, 22])
def test_fifty_faults_in_remote_games(tmp_path, seed):
    """PostgreSQL, Oware (longer games than Bawo's random ones): games one after another
    until fifty faults or more were cut in, each game checked whole."""
    from _club_pg import server

    total = {k: 0 for k in FAULTS}
    n = 0
    while sum(total.values()) < 50:
        n += 1
        club, recs, counts, said = play_remote(
            tmp_path / ("game%d" % n),
            server().fresh(),
            seed * 100 + n,
            faults=60,
            kind="oware",
            limit_s=900,
        )
        check_agree(club, recs)
        for k in FAULTS:
            total[k] += counts[k]
    assert all(total[k] >= 10 for k in FAULTS), total
