"""Pictures of the board's LEDs for the players' guides, drawn by the firmware itself.

Usage: python docs/make_pictures.py          # every scene -> docs/pictures/<name>.svg
       python docs/make_pictures.py OUTDIR   # the same files into OUTDIR (the staleness test)

Each scene runs the real firmware (firmware/app.py, view.py, pixels.py) on the simulated board
of firmware_sim/hw_sim.py, starts a real position, presses pockets through App.on_press, lets the
loop settle, and draws the frame's LEDs. Colours are the logical ones (before gamma and the
brightness setting), which is how the LEDs look to the eye. Output is deterministic, so a test
can check that the committed pictures are current.
"""
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / 'firmware'))
sys.path.insert(0, str(ROOT / 'firmware_sim'))
import pinmap as profile  # noqa: E402
import hw_sim  # noqa: E402
import app as A  # noqa: E402
from journal import Journal  # noqa: E402

A.print = lambda *a: None  # the firmware's console chatter

OPENING = "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S"
TAKATA = "2,2,2,2,2,2,2,2/2,0,8,2,2,2,0,4/0,1,0,4,4,0,1,0/3,3,3,3,3,0,0,3 S"  # 001 (12)
COUNTS = "0,1,2,3,4,5,6,7/8,12,16,17,19,24,32,40/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S"
# Ply 6 of a seeded random game (shared_rules.rng.Rng(1)): South's B2+ empties North's front row.
BAWO_LAST = "3,0,2,2,2,2,2,0/4,0,4,4,2,2,1,4/1,2,0,5,6,0,0,0/2,2,2,2,2,2,2,2 S"

# (file name, profile, game, position, pocket presses (cells), caption)
SCENES = (
    ('bawo-start', 'bawo-4x8', 'bawo', None, (),
     'Bawo, the opening: South to move. Blue tint: a capturing turn.'),
    ('bawo-pick', 'bawo-4x8', 'bawo', None, ('A1',),
     'South pressed A1 (white). Blinking green: the legal direction, here only A2, so A1+.'),
    ('bawo-after-a1', 'bawo-4x8', 'bawo', None, ('A1', 'A2'),
     'After A1+, the worked turn of the rules: North to move, a capturing turn.'),
    ('bawo-takata', 'bawo-4x8', 'bawo', TAKATA, (),
     'No start captures: a takata turn. Amber tint on the mover\'s pockets.'),
    ('bawo-counts', 'bawo-4x8', 'bawo', COUNTS, (),
     'Counting seeds (a set-up): 0-7 on the top row; 8, 12, 16, 17, 19, 24, 32, 40 below.'),
    ('bawo-over', 'bawo-4x8', 'bawo', BAWO_LAST, ('B2', 'B1'),
     'South played B2+ and emptied North\'s front row: South wins (green), North loses (red).'),
    ('oware-start', 'bawo-4x8', 'oware', None, (),
     'Oware on the Bawo board: the two middle rows, the stores at the ends (violet).'),
    ('oware-stores', 'bawo-4x8', 'oware', '4,4,4,1,2,1/4,4,4,4,4,3 S:6 N:3 S', (),
     'Oware in play: South to move, South\'s store holds 6, North\'s 3.'),
    ('baghchal-start', 'grid-5x5', 'bagh-chal', None, (),
     'Bagh-Chal: four tigers (orange), 20 goats in hand (the right-hand column).'),
    ('baghchal-pick', 'grid-5x5', 'bagh-chal', 'T...T/.G.G./..G../G...G/T...T H:15 C:0 T', ('a1',),
     'Tigers to move: the tiger on a1 picked, green points are where it can go.'),
    ('menu', 'bawo-4x8', 'bawo', 'menu', (),
     'The menu (MENU button): game, opponent and level, brightness, speed.'),
)

def _cell(game, name):
    """Engine cell index (what the scene's cell_of_key holds) of a pocket or point name
    (Bawo: A1..B8 South's, a1..b8 North's), from the engine's labels."""
    from shared_rules import game as make_game
    g = make_game(game)
    side = 1 if game == 'bawo' and name[0] in 'ab' else 0
    label = name.upper() if game == 'bawo' else name
    for cell in range(g.cells):
        if g.label(cell) == label and (game != 'bawo' or g.owner(cell) == side):
            return cell
    raise ValueError(name)


def run_scene(prof_name, game, position, presses):
    """The settled frame of a scene: (profile, logical RGB per canvas pixel)."""
    prof = profile.load(str(ROOT / 'hardware' / 'profiles' / (prof_name + '.json')))
    board = hw_sim.Board(prof)
    with tempfile.TemporaryDirectory() as tmp:
        j = Journal(tmp, 'docs', log=lambda m: None)
        a = A.App(board, j, 'docs', settings={'game': game, 'speed': 8, 'opponent': 'people',
                                              'brightness': 8, 'level': 3})
        a.boot()
        if position == 'menu':
            a.open_menu()
        else:
            a.new_game(game, position)
        now = board.clock.now

        def settle(ms):
            nonlocal now
            for _ in range(ms):
                now += 1
                board.clock.set(now)
                a.step(now)

        settle(5)
        for name in presses:
            a.on_press(bytes(a.scene.cell_of_key).index(_cell(game, name)))
            settle(5)
        # Let animations end; then stop where blinking cells are lit.
        settle(2000)
        while not a.scene.blink:
            settle(1)
        a.redraw = True
        a.step(now)
        rgb = logical_canvas(board.pixels, prof)
    return prof, rgb


def logical_canvas(px, prof):
    """Logical colour (R, G, B) of each canvas pixel, None where the canvas has no LED."""
    out = []
    for j in range(prof.width * prof.height):
        i = prof.led_map[j]
        if i == 0xFFFF:
            out.append(None)
        else:
            o = 3 * i
            out.append((px.buf[o + px._ro], px.buf[o + px._go], px.buf[o + px._bo]))
    return out


def shown(c):
    """Screen colour of an LED. Tints are logical colours of a few percent (the unlit LEDs of
    the mover's pockets glow, in a room, but a screen shows them as black): colours whose
    brightest channel is below half are drawn up to three times brighter, hues kept."""
    if not any(c):
        return '#262626'
    m = max(c)
    if m < 0x80:
        k = min(3.0, 0x70 / m)
        c = tuple(int(v * k + 0.5) for v in c)
    return '#%02x%02x%02x' % c


def _pos(v, origin, pitch, size, blocks, gap):
    """Picture coordinate of canvas column (row) v: a gap after each block, when blocks touch."""
    if pitch == size and v >= origin:
        v_gaps = min((v - origin) // pitch, blocks)
    else:
        v_gaps = 0
    return v * D + v_gaps * gap


D = 14    # LED pitch in the picture
GAP = 10  # between touching blocks


def svg(prof, rgb, caption, labels):
    pad = 16
    gx = GAP if prof.pitch_x == prof.block_w else 0
    gy = GAP if prof.pitch_y == prof.block_h else 0

    def px(x):
        return pad + _pos(x, prof.x0, prof.pitch_x, prof.block_w, prof.grid_cols, gx)

    def py(y):
        return pad + _pos(y, prof.y0, prof.pitch_y, prof.block_h, prof.grid_rows, gy)

    w = px(prof.width - 1) + D + pad
    h_board = py(prof.height - 1) + D + pad
    h = h_board + 26
    items = []
    # Pocket blocks: a dark square under each block of LEDs, its name at the corner.
    for r in range(prof.grid_rows):
        for c in range(prof.grid_cols):
            x = px(prof.x0 + c * prof.pitch_x)
            y = py(prof.y0 + r * prof.pitch_y)
            items.append('<rect x="%d" y="%d" width="%d" height="%d" rx="4" fill="#1c1c1c"/>'
                         % (x - 2, y - 2, prof.block_w * D + 4, prof.block_h * D + 4))
    for j, c in enumerate(rgb):
        if c is not None:
            items.append('<circle cx="%d" cy="%d" r="5" fill="%s"/>'
                         % (px(j % prof.width) + D // 2, py(j // prof.width) + D // 2, shown(c)))
    for (r, c), t in sorted(labels.items()):
        x = px(prof.x0 + c * prof.pitch_x) + prof.block_w * D
        y = py(prof.y0 + r * prof.pitch_y) + prof.block_h * D + 1
        items.append('<text x="%d" y="%d" font-size="8" fill="#9a9a9a" text-anchor="end">%s</text>'
                     % (x, y + 8 if gy else y, t))
    cap = caption.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
    items.append('<text x="%d" y="%d" font-size="11" fill="#222222">%s</text>' % (pad, h - 9, cap))
    head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
            'font-family="Helvetica, Arial, sans-serif">\n<title>%s</title>\n'
            '<rect width="100%%" height="100%%" fill="#ffffff"/>\n'
            '<rect x="4" y="4" width="%d" height="%d" rx="8" fill="#0d0d0d"/>\n'
            % (w, h, w, h, cap, w - 8, h_board - 8))
    return head + '\n'.join(items) + '\n</svg>\n'


def labels_for(game, prof, position):
    if position == 'menu':
        return {}
    sys.path.insert(0, str(ROOT / 'host'))
    from bawo.sim.layout import labels  # the simulator's pocket names, the same as on screen
    return labels(game, prof.grid_rows, prof.grid_cols)


def main(argv):
    out = Path(argv[1]) if len(argv) > 1 else HERE / 'pictures'
    out.mkdir(parents=True, exist_ok=True)
    for name, prof_name, game, position, presses, caption in SCENES:
        prof, rgb = run_scene(prof_name, game, position, presses)
        (out / (name + '.svg')).write_text(svg(prof, rgb, caption, labels_for(game, prof, position)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
