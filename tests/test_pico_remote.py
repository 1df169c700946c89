"""A remote game on the emulated Pico (issue 26, item 4): board A is the emulated RP2040 running
the frozen `bawo build-uf2` image, in real time, its person pressing its buttons; board B is a
simulated board (the firmware on the unix port). Each board's PC runs the bridge (what `bawo
club play` runs) to one club server. The Pico's power is cut in the middle of the game (inside
the flash write that journals a move pressed on it, and at another moment): the game resumes.
At the end the club's record, the Pico's record (read over its USB serial port, as `bawo sync`
reads it) and the simulated board's record agree ply by ply, and each move was played once.

These never skip: without Node or the emulator they fail (bawo.pico.PicoError)."""

import os
import threading
import time

import pytest

from shared_rules.record import Record

from _club_helpers import live_server, token_for
from _host_helpers import board_games
from _pico_helpers import frozen_install
from _pico_remote import PicoPc
from _remote_helpers import Pc, Said


@pytest.fixture(scope="module")
def frozen_4x8():
    return frozen_install("bawo-4x8")


def _pico_records(pc):
    """Every record on the Pico, read over its USB serial port as `bawo sync` reads them."""
    from bawo.ports import connect

    ser, link, _info = connect(pc.pico.port, None, timeout=5.0)
    try:
        return [Record.from_text(link.fetch_record(g["id"]).decode()) for g in link.list_games()]
    finally:
        ser.close()


def _sim_records(pc):
    pc.board.kill()
    games = pc.data + "/games"
    return [
        Record.from_text(t)
        for t in board_games(games if os.path.isdir(games) else pc.data).values()
    ]


def play_on_pico(
    tmp_path, files, seed, cut_at=None, cut_again_at=None, resign_at=None, limit_s=150
):
    """The Pico (South, seed) against a simulated board (North, seed + 1) through a club.
    cut_at: the ply of a move pressed on the Pico whose journal write the power cuts half
    way; cut_again_at: the power cut as soon as the Pico has that ply (a move the bridge
    played on it); resign_at: the Pico's person resigns (MENU held 2 s) once the board has
    that ply. Returns what the test checks."""
    from bawo.club import remote_client as api
    from bawo.club.bridge import Bridge, ClubGame

    with live_server(str(tmp_path / "club.sqlite")) as (url, store):
        port = int(url.rsplit(":", 1)[1].strip("/"))
        a = PicoPc(tmp_path, files, port, seed)
        b = None
        try:
            b = Pc(tmp_path, "b", "pico-bbbb%04d" % seed, port, seed + 1)
            pcs = (a, b)
            toks = [token_for(store, pc.board_id) for pc in pcs]
            game = api.seek(a.proxy.url, toks[0], "bawo", "south", b.board_id)["game"]
            firsts = [None, api.accept(b.proxy.url, toks[1], game)]
            firsts[0] = api.state(a.proxy.url, toks[0], game)
            said = [Said(), Said()]
            bridges = [
                Bridge(
                    ClubGame(api, pc.proxy.url, toks[i], game),
                    pc.open_board,
                    str(tmp_path / pc.name / "remote-games.json"),
                    said[i],
                    peer_every=1.0,
                    retry_s=0.3,
                    poll_wait=3,
                )
                for i, pc in enumerate(pcs)
            ]
            a.bridge = bridges[0]
            results = {}

            def run(i):
                try:
                    results[i] = bridges[i].run(firsts[i], timeout=limit_s)
                except Exception as e:  # the assertion below shows it
                    results[i] = e

            threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in (0, 1)]
            for t in threads:
                t.start()
            t0 = time.monotonic()
            while any(t.is_alive() for t in threads):
                assert time.monotonic() - t0 < limit_s, (
                    a.presses,
                    a.cuts,
                    said[0].tail(),
                    said[1].tail(),
                )
                b.read()
                b.person()
                s = a.seen()
                if (
                    s is not None
                    and cut_again_at is not None
                    and s.ply >= cut_again_at
                    and a.faults["power"] < (2 if cut_at else 1)
                ):
                    a.power_cut()
                    continue
                if resign_at is not None and s is not None and s.ply >= resign_at:
                    if a.resigned is None and not bridges[0].board_over:
                        a.resign()
                else:
                    a.person(cut_at)
                time.sleep(0.03)
            for t in threads:
                t.join(30)
            for i in (0, 1):
                assert isinstance(results.get(i), dict), (results.get(i), said[i].tail())
            club = api.state(a.proxy.url, toks[0], game)
            (row,) = [r for r in store.records() if r["rid"] == "remote-%d" % game]
            stored = Record.from_text(store.record(row["seq"])["record"])
            recs = [_pico_records(a), _sim_records(b)]
            return {
                "club": club,
                "stored": stored,
                "recs": recs,
                "pico": a,
                "said": said,
                "bridges": bridges,
                "seconds": time.monotonic() - t0,
            }
        finally:
            a.close()
            if b is not None:
                b.close()


def check_agree(out):
    """The club's game, its stored record and each board's one record of it agree ply by ply;
    each of the Pico's moves is the one its person pressed at that ply."""
    club, stored = out["club"], out["stored"]
    assert club["state"] == "over", club
    assert stored.moves == club["moves"]
    assert (stored.header.get("Result"), stored.header.get("Reason")) == (
        club["result"],
        club["reason"],
    )
    for board_recs in out["recs"]:
        mine = [r for r in board_recs if r.moves == club["moves"]]
        assert len(mine) == 1, ([r.moves for r in board_recs], club["moves"])
        r = mine[0]
        assert (r.header.get("Result"), r.header.get("Reason")) == (
            club["result"],
            club["reason"],
        ), (r.header, club)
    pressed = dict(out["pico"].presses)  # ply -> the move the Pico's person pressed
    for ply in range(1, len(club["moves"]) + 1, 2):
        assert pressed[ply] == club["moves"][ply - 1], (ply, pressed, club["moves"])


def test_a_remote_game_on_the_pico_survives_power_cuts_and_ends_by_the_rules(frozen_4x8, tmp_path):
    # Seed 20: the people's moves end the game by the rules at ply 12, North's (the simulated
    # board's) last move played on the Pico by its bridge. The Pico's power goes half way
    # through journaling its own move at ply 3, and again as soon as it has ply 6.
    out = play_on_pico(tmp_path, frozen_4x8, 20, cut_at=3, cut_again_at=6)
    check_agree(out)
    club, pico = out["club"], out["pico"]
    assert club["reason"] not in ("resign", "agreement", "time"), club
    assert len(club["moves"]) == 12 and club["result"] == "N", club
    assert pico.faults["power"] == 2, pico.cuts
    assert pico.cuts[0].get("busy"), pico.cuts  # the first cut stopped a flash write
    assert out["bridges"][0].faults["board"] >= 2, out["said"][0].tail()
    # The cut write was the move's: torn, the move is pressed again; whole, it was reported.
    again = [p for p, _ in pico.presses].count(3) - 1
    print(
        "pico remote game: %d plies, %d power cuts (the first inside flash command %#x, "
        "the move at ply 3 pressed again %d time(s)), %.1f s"
        % (
            len(club["moves"]),
            pico.faults["power"],
            pico.cuts[0]["busy"].get("cmd"),
            again,
            out["seconds"],
        )
    )


@pytest.mark.slow  # a resign on the keys runs in every run on simulated boards
def test_a_remote_game_on_the_pico_ends_when_its_person_resigns_on_the_buttons(
    frozen_4x8, tmp_path
):
    # MENU held 2 s on the Pico (the resign gesture) once North has played ply 4: the Pico
    # sends the offer, the club ends the game, both bridges END their boards.
    out = play_on_pico(tmp_path, frozen_4x8, 20, resign_at=4)
    check_agree(out)
    club = out["club"]
    assert (club["result"], club["reason"]) == ("N", "resign"), club
    assert len(club["moves"]) >= 4, club
    print("pico remote resign: %d plies, %.1f s" % (len(club["moves"]), out["seconds"]))
