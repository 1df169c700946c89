"""A real PostgreSQL server for the club's tests: Debian's postgresql 15, started once per test
process in a temporary directory and stopped at exit. It refuses to run as root (CI runs as
root), so it runs as the `postgres` user through runuser. Missing binaries FAIL the tests that
need them: `bash tools/install-system-deps.sh` installs them.

Each test gets a schema of its own (search_path in the URL), not a database: a schema costs
a millisecond, a database a tenth of a second."""

import atexit
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse

import pytest

_server = None
_names = itertools.count(1)


def _bindir():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.fail(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
            "run `bash tools/install-system-deps.sh`",
            pytrace=False,
        )
    return os.path.dirname(found[-1])


def _as_user(cmd):
    # As root: run as `postgres`; as another user, run as that user.
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail(
                "no `postgres` user to run PostgreSQL as (root may not): install "
                "Debian's postgresql package",
                pytrace=False,
            )
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self):
        bindir = _bindir()
        self.dir = tempfile.mkdtemp(prefix="bawo-club-pg-")
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        data = self.data = os.path.join(self.dir, "data")
        self.bindir = bindir
        subprocess.run(
            _as_user(
                [
                    os.path.join(bindir, "initdb"),
                    "-D",
                    data,
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                    "-N",
                ]
            ),
            check=True,
            capture_output=True,
            timeout=120,
        )
        self.port = _free_port()
        self._start()

    def _start(self):
        # No TCP: the unix socket in our own dir. fsync off: a test database need not survive
        # a power cut, and it saves the shared disk.
        self.proc = subprocess.Popen(
            _as_user(
                [
                    os.path.join(self.bindir, "postgres"),
                    "-D",
                    self.data,
                    "-k",
                    self.dir,
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=",
                    "-c",
                    "fsync=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "shared_buffers=16MB",
                    "-c",
                    "max_connections=60",
                ]
            ),
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.dir, "log"), "a"),
        )
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.admin_url(), connect_timeout=2).close()
                break
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("PostgreSQL did not start: see %s/log" % self.dir)
                time.sleep(0.05)

    def admin_url(self, options=None):
        q = {"host": self.dir, "port": str(self.port)}
        if options:
            q["options"] = options
        return "postgresql://postgres@/postgres?" + urllib.parse.urlencode(q)

    def fresh(self):
        """The URL of a new, empty schema of its own."""
        import psycopg

        name = "t%d_%d" % (os.getpid(), next(_names))
        with psycopg.connect(self.admin_url(), autocommit=True) as c:
            c.execute("CREATE SCHEMA %s" % name)
        return self.admin_url("-csearch_path=%s" % name)

    def restart(self):
        """Stop the server (fast: its clients are cut off) and start it again, same port."""
        self._halt()
        self._start()

    def stop(self):
        self._halt()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _halt(self):
        if self.proc.poll() is None:
            # Fast shutdown (a plain SIGTERM waits for every client to leave), by pg_ctl as
            # the server's own user: runuser does not pass SIGINT on to it.
            subprocess.run(
                _as_user(
                    [
                        os.path.join(self.bindir, "pg_ctl"),
                        "-D",
                        self.data,
                        "-m",
                        "fast",
                        "-w",
                        "-t",
                        "10",
                        "stop",
                    ]
                ),
                capture_output=True,
                timeout=30,
            )
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def server():
    """The test process's one PostgreSQL server, started on first use."""
    global _server
    if _server is None:
        _server = Server()
        atexit.register(_server.stop)
    return _server


@pytest.fixture(params=["sqlite", "postgresql"])
def club_url(request, tmp_path):
    """A fresh club database on each engine."""
    if request.param == "sqlite":
        return str(tmp_path / "club.sqlite")
    return server().fresh()
