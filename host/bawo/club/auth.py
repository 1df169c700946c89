"""Secrets of the club: board tokens, admin passwords, sessions, and rate limits.

A board token is 256 random bits shown once; the club keeps its SHA-256 only (a guess of 256
bits is hopeless, so a slow hash buys nothing there). A password is a person's choice, so it
is kept as scrypt (hashlib.scrypt, n=2**14, r=8: 16 MB and ~50 ms a try). Sessions and CSRF
tokens are random too, the session stored hashed in the database so that every club process
knows it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time

TOKEN_PREFIX = "bawo_"
MAX_SECRET = 200  # characters of a token or password we hash at all
SCRYPT = dict(n=2**14, r=8, p=1, maxmem=64 * 1024 * 1024, dklen=32)


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def hash_password(password: str, salt: str | None = None) -> tuple[str, str]:
    salt = salt or secrets.token_hex(16)
    h = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), **SCRYPT)
    return salt, h.hex()


def check_password(password: str, salt: str, expected: str) -> bool:
    if not isinstance(password, str) or len(password) > MAX_SECRET:
        return False
    _, got = hash_password(password, salt)
    return hmac.compare_digest(got, expected)


# The hash checked against when the admin is unknown: a login takes as long either way, so
# timing does not tell which names exist.
UNKNOWN_ADMIN = hash_password("not a password", "00" * 16)


def new_session() -> tuple[str, str, str]:
    """(cookie value, its stored hash, CSRF token)."""
    cookie = secrets.token_urlsafe(32)
    return cookie, token_hash(cookie), secrets.token_urlsafe(24)


class RateLimit:
    """A token bucket a key (an address, a board): `rate` a second, bursts of `burst`.
    Per process (a limit, not a record): two processes allow twice as much, still bounded.
    The table is bounded: past `keys` keys the fullest buckets are forgotten."""

    def __init__(self, rate: float, burst: float, keys: int = 10000) -> None:
        self.rate = float(rate)
        self.burst = float(burst)
        self.keys = keys
        self._b = {}
        self._lock = threading.Lock()

    def allow(self, key: object, cost: float = 1.0) -> bool:
        now = time.monotonic()
        with self._lock:
            level, t = self._b.get(key, (self.burst, now))
            level = min(self.burst, level + (now - t) * self.rate)
            ok = level >= cost
            if ok:
                level -= cost
            self._b[key] = (level, now)
            if len(self._b) > self.keys:
                for k in sorted(self._b, key=lambda k: -self._b[k][0])[: len(self._b) // 2]:
                    del self._b[k]
            return ok
