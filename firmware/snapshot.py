# The board as the link handler, the simulator and the host read it (App.snapshot): one
# public picture of the App, made on demand, its code on the heap only while it is made.
from shared_rules import winner_name


def take(a, moves=True, legal=False):
    """App.snapshot of App `a`."""
    d = {'mode': ('menu', 'play', 'over')[a.mode], 'low': a.journal.low,
         'full': a.full(), 'sel': a.scene.sel, 'flashes': a.flashes,
         'anim': a.anim.on, 'msg': a.message, 'settings': a.settings,
         'games': a.games}
    s = a.s
    if s is None:
        return d
    g = a.g
    h = a.header
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
    info = getattr(a.opponent, 'last_info', None)
    if info:
        d['ai'] = info
    if a.thinks:
        d['thinks'] = [a.thinks, a.think_ms, a.think_max]
    out = s.outcome()
    if out is not None:
        w = winner_name(g, out)
        d['result'] = 'draw' if w is None else w
        d['reason'] = out.reason
    return d
