"""A record's end by the players' word (RULES.md section 4): a remote game ends on the
club's decision while its moves go on. The board loads this only for such an end (its
firmware/remote.py); shared_rules.record checks every record it reads with it."""

# Reasons a game ends for while its moves do not end it: the winner for "resign" (the other
# side resigned) and "time" (the other side's flag fell), "draw" for "agreement".
AGREED = ("resign", "agreement", "time")


def end_error(g, result, reason):
    """None if a game `g` whose moves do not end it may end with `result` (a side letter of
    g.sides or "draw") and `reason` (one of AGREED); else what is wrong, as a short phrase."""
    if reason not in AGREED:
        return "reason %r is not one of %s" % (reason, "/".join(AGREED))
    if reason == "agreement":
        return None if result == "draw" else "agreement needs the result draw, not %r" % (result,)
    if result not in g.sides:
        return "%s needs the winner (%s), not %r" % (reason, "/".join(g.sides), result)
    return None
