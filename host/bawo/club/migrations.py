"""The club's schema, as numbered migrations: one set for both engines.

A migration is a list of statements; {id} stands for each engine's auto-numbered primary key.
Migrations only ever get appended: a club on any past version is brought up to date on start
(tests/test_club_store.py migrates from every one). Times are ISO 8601 UTC text in both
engines, so what sorts and compares is the same text.
"""

MIGRATIONS = [
    # 1: boards and their records. One row per (board, record id, content hash): the same
    # record again is a duplicate; another content under a taken id is kept as a conflict.
    [
        """CREATE TABLE boards (
            id      TEXT PRIMARY KEY,
            added   TEXT NOT NULL)""",
        """CREATE TABLE records (
            seq     {id},
            board   TEXT NOT NULL REFERENCES boards(id),
            rid     TEXT NOT NULL,
            sha     TEXT NOT NULL,
            status  TEXT NOT NULL,
            game    TEXT NOT NULL,
            result  TEXT NOT NULL,
            reason  TEXT,
            plies   INTEGER NOT NULL,
            start   TEXT,
            played  TEXT,
            first_tag  TEXT,
            second_tag TEXT,
            added   TEXT NOT NULL,
            record  TEXT NOT NULL,
            UNIQUE (board, rid, sha))""",
        "CREATE INDEX records_played ON records (played, board, rid)",
    ],
    # 2: board tokens: only their SHA-256 is kept (a token is 256 random bits, so a fast hash
    # is enough); revoked ones stay, for the record of who uploaded.
    [
        """CREATE TABLE tokens (
            id      {id},
            board   TEXT NOT NULL REFERENCES boards(id),
            hash    TEXT NOT NULL UNIQUE,
            created TEXT NOT NULL,
            revoked TEXT)""",
    ],
    # 3: players, who sits at a board since when, and the names on each record.
    [
        """CREATE TABLE players (
            name    TEXT PRIMARY KEY,
            added   TEXT NOT NULL)""",
        """CREATE TABLE seats (
            id      {id},
            board   TEXT NOT NULL REFERENCES boards(id),
            south   TEXT NOT NULL,
            north   TEXT NOT NULL,
            since   TEXT NOT NULL)""",
        "ALTER TABLE records ADD COLUMN south TEXT",
        "ALTER TABLE records ADD COLUMN north TEXT",
    ],
    # 4: admin accounts (scrypt) and their sessions (only a hash of the cookie is kept, so
    # several processes share them and a stolen database holds no live session).
    [
        """CREATE TABLE admins (
            name    TEXT PRIMARY KEY,
            salt    TEXT NOT NULL,
            hash    TEXT NOT NULL,
            added   TEXT NOT NULL)""",
        """CREATE TABLE sessions (
            hash    TEXT PRIMARY KEY,
            admin   TEXT NOT NULL REFERENCES admins(name),
            csrf    TEXT NOT NULL,
            expires TEXT NOT NULL)""",
    ],
    # 5: each board's game being played, as the club has it (its moves up to `ply`): a PC
    # that lost its connection resumes from there.
    [
        """CREATE TABLE live (
            board   TEXT PRIMARY KEY REFERENCES boards(id),
            rid     TEXT NOT NULL,
            game    TEXT NOT NULL,
            start   TEXT,
            moves   TEXT NOT NULL,
            ply     INTEGER NOT NULL,
            done    INTEGER NOT NULL,
            updated TEXT NOT NULL)""",
    ],
    # 6: tournaments (tournaments.py): their players with their pairing numbers (seed, fixed
    # when round 1 starts), and each round's pairings, a board each, the result from the
    # board's record (record) or from the admin.
    [
        """CREATE TABLE tournaments (
            id      {id},
            name    TEXT NOT NULL UNIQUE,
            game    TEXT NOT NULL,
            system  TEXT NOT NULL,
            rounds  INTEGER NOT NULL,
            created TEXT NOT NULL,
            started TEXT)""",
        """CREATE TABLE entrants (
            tournament INTEGER NOT NULL REFERENCES tournaments(id),
            player  TEXT NOT NULL REFERENCES players(name),
            seed    INTEGER NOT NULL,
            PRIMARY KEY (tournament, player))""",
        """CREATE TABLE pairings (
            id      {id},
            tournament INTEGER NOT NULL REFERENCES tournaments(id),
            round   INTEGER NOT NULL,
            tbl     INTEGER NOT NULL,
            south   TEXT NOT NULL,
            north   TEXT,
            board   TEXT REFERENCES boards(id),
            result  TEXT,
            record  INTEGER REFERENCES records(seq),
            started TEXT NOT NULL,
            UNIQUE (tournament, round, tbl))""",
        "CREATE INDEX pairings_open ON pairings (board, result)",
    ],
    # 7: remote games (remote_games.py): two boards in two places play one game through the club.
    # A seek is a row in state 'open'; its moves are one text (as live.moves); the clock's
    # times are ms (BIGINT), the side to move's clock running since `since`. `version` counts
    # every change a player's poll must hear of. remote_seen: when each board's PC last polled
    # each game (its peer flag) and what it was last told. remote_binds: which of a board's
    # own record ids is this game, and the record that came under it (not rated again).
    [
        """CREATE TABLE remote_games (
            id      {id},
            game    TEXT NOT NULL,
            state   TEXT NOT NULL,
            by_board TEXT NOT NULL REFERENCES boards(id),
            by_side TEXT NOT NULL,
            opponent TEXT,
            south   TEXT REFERENCES boards(id),
            north   TEXT REFERENCES boards(id),
            south_name TEXT,
            north_name TEXT,
            start   TEXT,
            position TEXT NOT NULL,
            moves   TEXT NOT NULL,
            ply     INTEGER NOT NULL,
            result  TEXT,
            reason  TEXT,
            offer   TEXT,
            clock   TEXT,
            south_ms BIGINT,
            north_ms BIGINT,
            since   BIGINT,
            version INTEGER NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            record  INTEGER REFERENCES records(seq))""",
        "CREATE INDEX remote_games_state ON remote_games (state, updated)",
        """CREATE TABLE remote_seen (
            game    INTEGER NOT NULL REFERENCES remote_games(id),
            board   TEXT NOT NULL REFERENCES boards(id),
            seen    BIGINT NOT NULL,
            told_v  INTEGER,
            told_peer INTEGER,
            PRIMARY KEY (game, board))""",
        """CREATE TABLE remote_binds (
            game    INTEGER NOT NULL REFERENCES remote_games(id),
            board   TEXT NOT NULL REFERENCES boards(id),
            rid     TEXT NOT NULL,
            seq     INTEGER REFERENCES records(seq),
            status  TEXT,
            PRIMARY KEY (game, board),
            UNIQUE (board, rid))""",
    ],
]

LATEST = len(MIGRATIONS)
