# The game in progress read back from cur.jnl at power-on (Journal.read_current): a part of
# the journal that only a power-on uses, loaded for that moment.
from datafiles import CUR, read_line, unseal, move_of, header_of


def read_current(j):
    """Journal.read_current of journal `j`."""
    j.plies = -1
    try:
        f = open(j.path(CUR), 'rb')
    except OSError:
        return None
    header = None
    from shared_rules.movetexts import MoveTexts
    moves = MoveTexts()   # a few bytes a move, in one buffer: a replay's room
    good = 0     # bytes of valid lines so far
    why = None   # set: the journal is set aside for this reason
    torn = False
    with f:
        while True:
            line = read_line(f)
            if not line:
                break
            last = not f.read(1)
            if not last:
                f.seek(good + len(line))
            if line[-1] != 10 or len(line) < 2:
                if last:
                    torn = True  # the line was being written when the power went
                else:
                    why = 'line too long at byte %d' % good
                break
            text = unseal(line[:-1])
            if text is None:
                if last:
                    torn = True  # damaged last line: same as torn (a cut mid-sector)
                else:
                    why = 'damaged line at byte %d' % good
                break
            if header is None:
                header = header_of(text)
                if header is None:
                    why = 'bad header'
                    break
            else:
                m = move_of(text, len(moves) + 1)
                if m is None:
                    why = 'unexpected line %r' % text[:40]
                    break
                moves.append(m)
            good += len(line)
    if why is not None:
        j.set_aside(CUR, why)
        return None
    if header is None:
        # Cut while the header was being written: the game had no move yet.
        j.remove(CUR)
        return None
    if torn:
        j.log('dropped a torn last line')
        try:
            j.write_cur(header, moves)
        except OSError as e:
            # Flash full: the torn tail stays, so the next move must not be appended
            # after it; the app rewrites the whole journal once there is room.
            j.torn = True
            j.log('torn line not cut (%s)' % e)
    if j.find_record(header['id']) is not None:
        # Cut between writing the record and removing the journal: already finished.
        j.remove(CUR)
        return None
    j.plies = len(moves)
    return header, moves
