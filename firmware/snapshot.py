# The board as the link handler, the simulator and the host read it (App.snapshot): one
# public picture of the App, made on demand.


def take(a, moves=True, legal=False):
    """A new dict: mode ('menu', 'play', 'over'), flash state, selection, message, settings,
    and with a game its name, id, position text ('pos'), side to move, ply, opponent, set-up
    position ('root', only for one), a tournament's seat, result and reason once over; `moves` the moves played,
    `legal` the legal moves' texts."""
    d = {'mode': ('menu', 'play', 'over')[a.mode], 'low': a.journal.low,
         'full': a.full(), 'sel': a.scene.sel, 'flashes': a.flashes,
         'anim': a.anim.on, 'msg': a.message, 'settings': a.settings,
         'games': a.games}
    if a.seat is not None:   # a club tournament's round and table (seat.py)
        d['seat'] = list(a.seat)
        d['card'] = a.card
    se = a.session
    if se is None:
        return d
    s = se.s
    g = se.g
    h = se.header
    d['game'] = g.name
    d['id'] = h['id']
    d['pos'] = g.format(s.position)
    d['ply'] = s.ply
    if moves:
        d['moves'] = s.moves
    if legal:
        d['legal'] = s.legal_move_strs()
    d['turn'] = g.sides[s.turn]
    d['takata'] = a.scene.takata
    d['opponent'] = h.get('opponent', 'people')
    if h.get('position'):
        d['root'] = h['position']
    if se.host_side >= 0:   # a remote game's news as the board shows it (remote.py)
        import remote
        remote.describe(a, d)
    info = getattr(a.opponent, 'last_info', None)
    if info:
        d['ai'] = info
    if a.thinks:
        d['thinks'] = [a.thinks, a.think_ms, a.think_max]
    res = se.result()
    if res is not None:
        d['result'], d['reason'] = res
    return d
