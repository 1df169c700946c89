"""Shared by the `bawo serve` tests and bench/serve.py: the server in a thread, headless
Chromium (Debian's chromium + chromium-driver) through selenium, a simulated board on a pty."""

import os
import shutil
import tempfile
import threading
import time

from bawo.serve import make

ARTIFACTS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "test-artifacts"
)


class Server:
    """`bawo serve` as the command runs it (uvicorn on its own socket), in a thread."""

    def __init__(self, db_path, **kw):
        import uvicorn

        self.app, self.sock, self.cfg, self.url = make(db_path, **kw)
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        self.server.install_signal_handlers = lambda: None
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def browser(download_dir=None):
    """Headless Chromium; the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="bawo-chromium-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        "--user-data-dir=" + profile,
    ):
        opts.add_argument(flag)
    if download_dir:
        opts.add_experimental_option(
            "prefs",
            {"download.default_directory": download_dir, "download.prompt_for_download": False},
        )
    drv = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=opts
    )
    drv.set_page_load_timeout(30)
    drv._bawo_profile = profile
    return drv


def quit_browser(drv):
    try:
        drv.quit()
    finally:
        shutil.rmtree(getattr(drv, "_bawo_profile", ""), ignore_errors=True)


def screenshot(drv, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name + ".png")
    drv.save_screenshot(path)
    return path


def wait_for(fn, timeout=20.0, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.02)


class SimBoard:
    """The real firmware under the MicroPython unix port, its serial port a pty whose path is in
    data/port as `bawo sim` writes it; kill() is an unplugged cable (the pty goes away)."""

    def __init__(self, data, game="bawo", speed=None):
        from bawo import sim

        self.sim = sim
        self.data = data
        self.game = game
        self.relay = sim.PtyRelay()
        self.board = sim.BoardProcess(
            sim.PROFILES[game], data, fake=False, link=self.relay.board_ends(), speed=speed
        )
        self.relay.start()
        with open(os.path.join(data, "port"), "w") as f:
            f.write(self.relay.path + "\n")

    def kill(self):
        self.board.kill()
        self.relay.close()
        try:
            os.remove(os.path.join(self.data, "port"))
        except OSError:
            pass


def press_move(board, position, move, game="bawo"):
    """Press the pockets for move on a real-clock simulated board, as a person does (a press
    lasts 60 ms there: the next one comes after its release); returns time.time() of the last
    press."""
    from bawo import sim

    keys = sim.presses_for(game, position, move, sim.key_of_cell(board.profile_file, game))
    t = None
    for i, k in enumerate(keys):
        if i:
            # The board has taken the press before (idle: its selection shows), however
            # loaded the machine: two presses never overlap.
            board.idle()
        t = time.time()
        board.tap(k)
    return t


def fill_log(path, n, seed=0):
    """n games: 60 real records played out by the rules, each stored under many ids (the Id
    tag rewritten to match), with spread dates, results and players."""
    import sqlite3
    from bawo.db import Log
    from _host_helpers import random_record

    Log(path).close()
    base = [random_record(seed * 100 + i, "base-%02d" % i, max_plies=120) for i in range(60)]
    texts = [r.to_text() for r in base]
    rows = []
    for k in range(n):
        r = base[k % 60]
        gid = "club-%06d" % k
        who = ("board", "person") if k % 3 == 0 else ("person", "person")
        text = texts[k % 60].replace(
            '[Id "%s"]' % r.header["Id"],
            '[Id "%s"]\n[First "%s"]\n[Second "%s"]' % (gid, who[0], who[1]),
        )
        start = "2025-%02d-%02dT%02d:00:00" % (1 + k % 12, 1 + k % 28, k % 24)
        rows.append(
            (
                gid,
                r.header["Game"],
                "club",
                start,
                r.header.get("Result", "*"),
                r.header.get("Reason"),
                len(r.moves),
                "done",
                "import",
                start,
                text,
            )
        )
    db = sqlite3.connect(path)
    with db:
        db.executemany(
            "INSERT INTO games (id, game, device, start, result, reason, plies, status,"
            " source, added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    db.close()
