"""Wiring diagram SVG from a hardware profile (no dependencies; the SVG text is written here).

Usage: python hardware/make_diagram.py            # all profiles -> hardware/wiring-<name>.svg
       python hardware/make_diagram.py PROFILE.json OUT.svg
Output is deterministic so tests can check the committed SVGs are current.
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / 'firmware'))
import pinmap as profile  # noqa: E402

RAIL5 = '#d62728'
GND = '#333333'
SIG = '#1f77b4'
DATA = '#2ca02c'


class Svg:
    def __init__(self):
        self.items = []

    def line(self, x1, y1, x2, y2, color=GND, w=1.5, dash=None):
        d = ' stroke-dasharray="%s"' % dash if dash else ''
        self.items.append('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="%g"%s/>'
                          % (x1, y1, x2, y2, color, w, d))

    def poly(self, pts, color=GND, fill='none', w=1.5):
        p = ' '.join('%g,%g' % xy for xy in pts)
        self.items.append('<polyline points="%s" stroke="%s" fill="%s" stroke-width="%g"/>'
                          % (p, color, fill, w))

    def rect(self, x, y, w, h, fill='#ffffff', stroke=GND, rx=4):
        self.items.append('<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s" stroke="%s" stroke-width="1.5"/>'
                          % (x, y, w, h, rx, fill, stroke))

    def circle(self, x, y, r, fill='#ffffff', stroke=GND):
        self.items.append('<circle cx="%g" cy="%g" r="%g" fill="%s" stroke="%s"/>' % (x, y, r, fill, stroke))

    def text(self, x, y, s, size=12, anchor='start', color='#000000', weight='normal'):
        s = s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
        self.items.append('<text x="%g" y="%g" font-size="%g" text-anchor="%s" fill="%s" font-weight="%s">%s</text>'
                          % (x, y, size, anchor, color, weight, s))

    def render(self, w, h, title):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
                'font-family="Helvetica, Arial, sans-serif">\n<title>%s</title>\n'
                '<rect width="100%%" height="100%%" fill="#fafafa"/>\n' % (w, h, w, h, title))
        return head + '\n'.join(self.items) + '\n</svg>\n'


def diode(s, x, y, color=SIG):
    """Vertical diode pointing down (anode on top, at y-6; cathode at y+6)."""
    s.poly([(x - 5, y - 5), (x + 5, y - 5), (x, y + 4), (x - 5, y - 5)], color, fill=color, w=1)
    s.line(x - 5, y + 5, x + 5, y + 5, color, 1.5)


def switch(s, x, y, color=SIG):
    """Push button between (x-10, y) and (x+10, y)."""
    s.circle(x - 8, y, 2, stroke=color)
    s.circle(x + 8, y, 2, stroke=color)
    s.line(x - 9, y - 7, x + 9, y - 7, color, 1.5)
    s.line(x, y - 7, x, y - 12, color, 1.5)


def resistor(s, x, y, length=50, color=DATA):
    n = 6
    step = length / n
    pts = [(x, y)]
    for i in range(n):
        pts.append((x + step * (i + 0.5), y + (-6 if i % 2 == 0 else 6)))
    pts.append((x + length, y))
    s.poly(pts, color)


def capacitor(s, x, y1, y2, label):
    mid = (y1 + y2) / 2
    s.line(x, y1, x, mid - 4, RAIL5)
    s.line(x, mid + 4, x, y2, GND)
    s.line(x - 10, mid - 4, x + 10, mid - 4, GND, 2.5)
    s.poly([(x - 10, mid + 8), (x, mid + 4), (x + 10, mid + 8)], GND, w=2.5)
    s.text(x + 14, mid + 4, label, 11)


def panel(s, x, y, size, pn, p, n):
    px, py, pw, ph, origin, major, serp, base = pn
    s.rect(x, y, size, size, fill='#fff8e6', stroke='#b8860b')
    s.text(x + size / 2, y + 16, 'LED panel %d: %dx%d WS2812B' % (n, pw, ph), 12, 'middle', weight='bold')
    s.text(x + size / 2, y + 31, 'LEDs %d-%d, canvas x %d-%d' % (base, base + pw * ph - 1, px, px + pw - 1),
           11, 'middle')
    s.text(x + size / 2, y + 45, 'DIN at %s, %s-major, %s' % (origin, major,
           'serpentine' if serp else 'progressive'), 11, 'middle')
    # chain path of the first few lines, to show orientation
    cell = (size - 40) / max(pw, ph)
    ox, oy = x + 20, y + 55
    pts = []
    # The firmware's own map (canvas pixel -> chain index), read back for this panel.
    at = {}
    for v in range(ph):
        for u in range(pw):
            at[p.led_map[(py + v) * p.width + px + u] - base] = (u, v)
    for i in range(min(pw * ph, 4 * (ph if major == 'column' else pw))):
        u, v = at[i]
        pts.append((ox + (u + 0.5) * cell * 0.8, oy + (v + 0.5) * cell * 0.55))
    s.poly(pts, '#b8860b', w=1.2)
    s.circle(pts[0][0], pts[0][1], 3.5, fill='#b8860b', stroke='#b8860b')


def diagram(p):
    s = Svg()
    nr, nc = len(p.key_rows), len(p.key_cols)
    W = 1120
    # --- Pico -------------------------------------------------------------
    pins = ([('GP%d' % g, 'ROW%d (out)' % i, SIG) for i, g in enumerate(p.key_rows)] +
            [('GP%d' % g, 'COL%d (in, pull-up)' % i, SIG) for i, g in enumerate(p.key_cols)] +
            [('GP%d' % p.menu_pin, 'MENU (in, pull-up)', SIG),
             ('GP%d' % p.back_pin, 'BACK (in, pull-up)', SIG),
             ('GP%d' % p.data_pin, 'LED DATA (3.3 V)', DATA),
             ('VSYS', '5 V in (via Schottky)', RAIL5), ('GND', 'ground', GND)])
    px0, py0, pitch = 40, 80, 24
    ph = pitch * len(pins) + 20
    s.rect(px0, py0, 170, ph, fill='#e8f5e9', stroke='#2e7d32')
    s.text(px0 + 85, py0 - 10, 'Raspberry Pi Pico', 14, 'middle', weight='bold')
    pin_y = {}
    for i, (name, role, color) in enumerate(pins):
        y = py0 + 22 + i * pitch
        s.text(px0 + 8, y + 4, name, 12, weight='bold')
        s.text(px0 + 55, y + 4, role, 10)
        s.line(px0 + 170, y, px0 + 200, y, color)
        pin_y[role.split(' ')[0]] = y
        pin_y[name] = y
    # --- key matrix -------------------------------------------------------
    mx0, my0 = 330, 70
    cw, rh = 62 if nc > 5 else 80, 70
    s.text(mx0, my0 - 30, 'Key matrix %dx%d: one switch + diode (1N4148) per %s; rows driven low one at a time'
           % (nr, nc, 'pocket' if p.cell_field == 'pockets' else 'point'), 12, weight='bold')
    for c in range(nc):
        x = mx0 + 40 + c * cw
        y_col = pin_y['COL%d' % c]
        # columns are bussed at the bottom then routed to the Pico
        s.line(x, my0, x, my0 + nr * rh + 10 + c * 4, SIG)
        s.text(x, my0 - 8, 'C%d' % c, 11, 'middle')
        s.poly([(x, my0 + nr * rh + 10 + c * 4), (260 + c * 4, my0 + nr * rh + 10 + c * 4),
                (260 + c * 4, y_col), (px0 + 200, y_col)], SIG, w=1)
    for r in range(nr):
        y = my0 + 20 + r * rh
        s.line(mx0 + 10, y + 40, mx0 + 40 + (nc - 1) * cw + 20, y + 40, SIG)
        s.text(mx0 + 40 + (nc - 1) * cw + 26, y + 44, 'R%d' % r, 11)
        s.poly([(mx0 + 10, y + 40), (240 - r * 4, y + 40), (240 - r * 4, pin_y['ROW%d' % r]),
                (px0 + 200, pin_y['ROW%d' % r])], SIG, w=1)
        for c in range(nc):
            x = mx0 + 40 + c * cw
            # column -> switch -> diode (anode at switch, cathode to row) -> row
            s.line(x, y, x + 14, y, SIG, 1)
            switch(s, x + 24, y + 4)
            s.line(x + 34, y + 4, x + 40, y + 4, SIG, 1)
            s.line(x + 40, y + 4, x + 40, y + 24, SIG, 1)
            diode(s, x + 40, y + 29)
            s.line(x + 40, y + 34, x + 40, y + 40, SIG, 1)
            s.circle(x, y, 2, fill=SIG, stroke=SIG)
            s.circle(x + 40, y + 40, 2, fill=SIG, stroke=SIG)
            s.text(x + 24, y - 12, str(r * nc + c), 9, 'middle', '#666666')
    # --- MENU / BACK --------------------------------------------------------
    bx = mx0 + 40 + nc * cw + 60
    for i, name in enumerate(('MENU', 'BACK')):
        y = my0 + 40 + i * 60
        s.text(bx + 20, y - 16, name, 12, 'middle', weight='bold')
        switch(s, bx + 20, y)
        s.line(bx + 30, y, bx + 60, y, GND)
        s.text(bx + 64, y + 4, 'GND', 10)
        s.poly([(bx + 10, y), (bx - 10 - i * 6, y), (bx - 10 - i * 6, 30 + i * 6),
                (225 + i * 4, 30 + i * 6), (225 + i * 4, pin_y[name]), (px0 + 200, pin_y[name])], SIG, w=1)
    # --- LED chain ----------------------------------------------------------
    ly = py0 + ph + 70
    ydata = pin_y['LED']
    s.text(40, ly - 30, 'LED data: Pico 3.3 V -> 74AHCT125 (5 V) -> %d ohm -> panel 0 DIN -> ... ; '
           '%d LEDs, order %s' % (p.series_resistor_ohm, p.n_leds, p.order), 12, weight='bold')
    s.poly([(px0 + 200, ydata), (220, ydata), (220, ly + 30), (260, ly + 30)], DATA)
    s.rect(260, ly, 130, 80, fill='#e3f2fd', stroke=SIG)
    s.text(325, ly + 18, p.level_shifter, 13, 'middle', weight='bold')
    s.text(325, ly + 34, '1A <- GP%d, 1Y -> R' % p.data_pin, 10, 'middle')
    s.text(325, ly + 48, '/1OE = GND, VCC = 5 V', 10, 'middle')
    s.text(325, ly + 62, '100 nF at VCC', 10, 'middle')
    s.line(390, ly + 30, 410, ly + 30, DATA)
    resistor(s, 410, ly + 30)
    s.text(435, ly + 18, '%d ohm' % p.series_resistor_ohm, 11, 'middle')
    s.line(460, ly + 30, 500, ly + 30, DATA)
    size = 200
    prev_out = None
    for n, pn in enumerate(p.panels):
        x = 500 + n * (size + 60)
        panel(s, x, ly - 20, size, pn, p, n)
        s.text(x + 6, ly + 194, 'DIN', 10, color=DATA)
        s.text(x + size - 6, ly + 194, 'DOUT', 10, 'end', color=DATA)
        if prev_out:
            s.poly([prev_out, (prev_out[0] + 30, prev_out[1]), (x - 30, ly + 30), (x, ly + 30)], DATA)
        prev_out = (x + size, ly + 150)
        # power injection on every panel
        s.line(x + 60, ly + size - 20, x + 60, ly + size + 60, RAIL5, 2.5)
        s.line(x + 140, ly + size - 20, x + 140, ly + size + 90, GND, 2.5)
        s.text(x + 64, ly + size + 10, '+5V', 10, color=RAIL5)
        s.text(x + 144, ly + size + 10, 'GND', 10)
    # --- power --------------------------------------------------------------
    py = ly + size + 60
    s.rect(40, py - 20, 170, 70, fill='#ffebee', stroke=RAIL5)
    s.text(125, py, '%g V %.1f A supply' % (p.supply_v, p.supply_ma / 1000), 13, 'middle', weight='bold')
    s.text(125, py + 16, 'firmware cap %d/255' % p.brightness_cap, 10, 'middle')
    s.text(125, py + 30, 'LED budget %d mA' % p.budget_ma, 10, 'middle')
    last = 500 + (len(p.panels) - 1) * (size + 60) + 140
    s.line(210, py, last - 80, py, RAIL5, 2.5)
    s.line(210, py + 30, last, py + 30, GND, 2.5)
    capacitor(s, 470, py, py + 30, '%d uF / 10 V at panel 0 input' % p.bulk_capacitor_uf)
    s.poly([(230, py), (230, pin_y['VSYS']), (px0 + 200, pin_y['VSYS'])], RAIL5, w=1.5)
    s.text(234, py - 6, 'Schottky', 9, color=RAIL5)
    s.poly([(250, py + 30), (250, pin_y['GND']), (px0 + 200, pin_y['GND'])], GND, w=1.5)
    s.text(W - 20, py + 80, 'generated by hardware/make_diagram.py from hardware/profiles/%s.json'
           % p.name, 10, 'end', '#666666')
    return s.render(W, py + 95, 'Bawo Board wiring: %s' % p.name)


def main(argv):
    if len(argv) == 2:
        Path(argv[1]).write_text(diagram(profile.load(argv[0])))
        return
    for path in sorted((HERE / 'profiles').glob('*.json')):
        p = profile.load(str(path))
        out = HERE / ('wiring-%s.svg' % p.name)
        out.write_text(diagram(p))
        print('wrote', out.relative_to(HERE.parent))


if __name__ == '__main__':
    main(sys.argv[1:])
