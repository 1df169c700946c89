"""Who played a side of a game, read from a record's First/Second tag: the one place that
parses what the board ('board (level 5)', 'person (2 hints)', 'host') and `bawo play`
('computer (level 3)', 'you', 'you (1 hints)') write there."""

from __future__ import annotations

KINDS = ("board", "host", "person", "computer", "you")
AI = ("board", "computer")  # the kinds whose tag carries the AI's level
LEVELS = range(1, 9)


def parse(tag: str | None) -> tuple[str | None, int | None, int]:
    """(kind, level, hints) of a First/Second tag. kind is one of KINDS or None (another
    name); level is the AI's level (None: unknown, as in records written before levels
    were recorded, or not an AI); hints is the hints a person took (0 when none said)."""
    if not tag:
        return None, None, 0
    tag = tag[:40]
    kind, _, rest = tag.partition(" (")
    if kind not in KINDS:
        return None, None, 0
    level: int | None = None
    hints = 0
    if rest:
        words = rest.rstrip(")").split()
        if len(words) != 2 or rest.count(")") != 1 or not rest.endswith(")"):
            pass
        elif kind in AI and words[0] == "level" and words[1].isdigit() and len(words[1]) == 1:
            level = int(words[1]) if int(words[1]) in LEVELS else None
        elif (
            kind in ("person", "you")
            and words[1] == "hints"
            and words[0].isdigit()
            and len(words[0]) <= 4
        ):
            hints = int(words[0])
    return kind, level, hints


def level_of(first: str | None, second: str | None) -> int | None:
    """The AI's level in a game (the first AI side's), or None if unknown or no AI played."""
    for tag in (first, second):
        kind, level, _ = parse(tag)
        if kind in AI:
            return level
    return None


def played_by_sql(kind: str) -> str:
    """SQL true when `kind` (one of KINDS, never request text) played a side: the tag alone
    or with its parenthesis ('board', 'board (level 5)')."""
    assert kind in KINDS
    return (
        "(instr(record, '[First \"%s\"]') + instr(record, '[First \"%s (') + "
        "instr(record, '[Second \"%s\"]') + instr(record, '[Second \"%s (') > 0)"
        % (kind, kind, kind, kind)
    )


def level_sql(level: int | None) -> str:
    """SQL true when an AI played at `level` (an int in LEVELS), or, for None, when no tag
    states a level (records from before levels were recorded)."""
    if level is None:
        return "(instr(record, ' (level ') = 0)"
    assert level in LEVELS
    return "(instr(record, ' (level %d)\"]') > 0)" % level
