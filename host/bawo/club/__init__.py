"""`bawo club`: many boards, one club (issue 28).

The club server (`bawo club serve`) keeps a shared game log on SQLite (no configuration) or
PostgreSQL (`--db postgresql://...`), behind one interface (store.py). Every upload is replayed
through shared_rules with the same code `bawo sync` uses (bawo.sync.parse_record, Record.replay)
before anything is stored. PCs join with a board token (`bawo club join`), and `bawo sync`
queues each verified record in the PC's own log file and delivers it (client.py).
"""

from ..errors import BawoError


class ClubError(BawoError, ValueError):
    """Something the club refuses or cannot do: one line a user can act on."""
