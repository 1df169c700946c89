"""End to end over real ptys: firmware/link.py under the MicroPython unix port <-> BoardLink."""

import serial
import pytest

from _link_helpers import P, Wire, host_link


@pytest.fixture
def wire():
    w = Wire()
    w.start_board("link", "2000")
    port = serial.Serial(port=w.host_port_name, baudrate=115200, timeout=0.05)
    yield w, port
    port.close()
    err = w.proc.stderr
    w.close()
    if err is not None:
        tail = err.read().decode(errors="replace")
        assert "Traceback" not in tail, tail


def test_session_over_pty(wire):
    w, port = wire
    link = host_link.BoardLink(port, timeout=2.0, retries=3)
    info = link.hello()
    assert info["board"] == "fake-01" and info["proto"] == P.VERSION
    link.set_time(1_750_000_000)

    games = link.list_games()  # 30 games: several LIST pages, with debug prints in between
    assert [g["id"] for g in games] == ["fake-01-%04d" % i for i in range(1, 31)]

    seen = []
    rec = link.fetch_record("fake-01-0003", progress=lambda done, total: seen.append((done, total)))
    expected = bytes(((3 * 31 + i * 7) & 0xFF) for i in range(2000))
    assert rec == expected
    assert len(seen) == 4 and seen[-1] == (2000, 2000)

    link.ack_game("fake-01-0003")
    assert [g for g in link.list_games() if g["id"] == "fake-01-0003"][0]["synced"] is True

    with pytest.raises(host_link.BoardLinkError) as e:
        link.fetch_record("fake-01-0077")
    assert e.value.code == P.E_NO_GAME and "error 4" in str(e.value)

    # A damaged request: the board NAKs it, the host resends.
    w.corrupt_to_board = 1
    assert link.new_game("oware")["id"] == "fake-01-0099"
    assert w.corrupted == ["to_board"] and link.stats["naks_received"] == 1

    # A damaged reply: the host NAKs it, the board resends.
    w.corrupt_to_host = 1
    pos = link.move("a1")
    assert pos["plies"] == 1 and "to_host" in w.corrupted
    assert link.stats["naks_sent"] >= 1

    with pytest.raises(host_link.BoardLinkError) as e:
        link.move("bad")
    assert e.value.code == P.E_ILLEGAL_MOVE

    # poll_events returns once any event is in: the move's may follow in a later read.
    evs = []
    for _ in range(50):
        evs += link.poll_events(0.2)
        if len(evs) >= 2:
            break
    kinds = [e["ev"] for e in evs]
    assert kinds[:2] == [P.EV_START, P.EV_MOVE], evs


def test_no_board_gives_actionable_error():
    w = Wire()  # nothing on the board end
    try:
        port = serial.Serial(port=w.host_port_name, timeout=0.05)
        link = host_link.BoardLink(port, timeout=0.2, retries=1)
        with pytest.raises(host_link.BoardLinkError, match="firmware is running"):
            link.hello()
        port.close()
    finally:
        w.close()
