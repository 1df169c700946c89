# Hardware profile: the only place that names pins and geometry (hardware/profiles/*.json).
# Everything is validated once at load so a wiring mistake fails at boot with the field
# named, and every per-frame lookup (pixel -> LED index, pocket -> LEDs) is precomputed.
import json
from array import array

SCHEMA = 1
NO_LED = 0xFFFF
ORIGINS = ('top-left', 'top-right', 'bottom-left', 'bottom-right')
MAJORS = ('row', 'column')
ORDERS = ('GRB', 'RGB')
DIAGONALS = ('none', 'even', 'all')
# GPIOs a Pico exposes on its header (23-25 and 29 are used on the board itself).
PICO_GPIOS = tuple(range(0, 23)) + (26, 27, 28)


class ProfileError(ValueError):
    pass


def _fail(path, what):
    raise ProfileError("profile field '%s': %s" % (path, what))


def _get(d, key, path):
    if not isinstance(d, dict):
        _fail(path, 'expected an object')
    if key not in d:
        _fail(_join(path, key), 'missing')
    return d[key]


def _join(path, key):
    return key if not path else path + '.' + key


def _int(d, key, path, lo, hi):
    v = _get(d, key, path)
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or v > hi:
        _fail(_join(path, key), 'expected an integer in %d..%d, got %r' % (lo, hi, v))
    return v


def _num(d, key, path, lo, hi):
    v = _get(d, key, path)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < lo or v > hi:
        _fail(_join(path, key), 'expected a number in %s..%s, got %r' % (lo, hi, v))
    return v


def _str(d, key, path):
    v = _get(d, key, path)
    if not isinstance(v, str) or not v:
        _fail(_join(path, key), 'expected a non-empty string, got %r' % (v,))
    return v


def _bool(d, key, path):
    v = _get(d, key, path)
    if not isinstance(v, bool):
        _fail(_join(path, key), 'expected true or false, got %r' % (v,))
    return v


def _choice(d, key, path, choices):
    v = _get(d, key, path)
    if v not in choices:
        _fail(_join(path, key), 'expected one of %s, got %r' % (', '.join(choices), v))
    return v


def _list(d, key, path, lo, hi):
    v = _get(d, key, path)
    if not isinstance(v, list) or len(v) < lo or len(v) > hi:
        _fail(_join(path, key), 'expected a list of %d..%d items' % (lo, hi))
    return v


def _gpio(v, path, used):
    if isinstance(v, bool) or v not in PICO_GPIOS:
        _fail(path, 'expected a Pico GPIO number (0-22, 26-28), got %r' % (v,))
    if v in used:
        _fail(path, 'GPIO %d already used by %s' % (v, used[v]))
    used[v] = path
    return v


def _gpios(d, key, path, used, lo, hi):
    items = _list(d, key, path, lo, hi)
    p = _join(path, key)
    return [_gpio(g, '%s[%d]' % (p, i), used) for i, g in enumerate(items)]


class Profile:
    def __init__(self, data):
        if not isinstance(data, dict):
            _fail('', 'expected a JSON object at the top level')
        schema = _get(data, 'schema', '')
        if schema != SCHEMA:
            _fail('schema', 'expected %d, got %r' % (SCHEMA, schema))
        self.name = _str(data, 'name', '')
        self.board = _choice(data, 'board', '', ('pico',))
        games = _list(data, 'games', '', 1, 16)
        for i, g in enumerate(games):
            if not isinstance(g, str) or not g:
                _fail('games[%d]' % i, 'expected a game name')
        self.games = tuple(games)
        used = {}
        self._load_grid(data)
        self._load_keys(data, used)
        self._load_leds(data, used)
        self._load_power(data)

    # -- keys ----------------------------------------------------------------
    def _load_grid(self, data):
        grid = _get(data, 'grid', '')
        self.grid_rows = _int(grid, 'rows', 'grid', 1, 16)
        self.grid_cols = _int(grid, 'cols', 'grid', 1, 16)

    def _load_keys(self, data, used):
        k = _get(data, 'keys', '')
        self.key_rows = _gpios(k, 'rows', 'keys', used, 1, 16)
        self.key_cols = _gpios(k, 'cols', 'keys', used, 1, 16)
        self.diodes = _bool(k, 'diodes', 'keys')
        self.debounce_ms = _int(k, 'debounce_ms', 'keys', 1, 500)
        self.n_keys = len(self.key_rows) * len(self.key_cols)
        b = _get(data, 'buttons', '')
        self.menu_pin = _gpio(_get(b, 'menu', 'buttons'), 'buttons.menu', used)
        self.back_pin = _gpio(_get(b, 'back', 'buttons'), 'buttons.back', used)
        # Bawo profiles call the cells pockets, Bagh-Chal ones points; same meaning:
        # key index (row * n_cols + col of the switch matrix) -> logical (row, col).
        field = 'pockets' if 'pockets' in data else 'points'
        cells = _list(data, field, '', self.n_keys, self.n_keys)
        self.cell_field = field
        self.positions = []
        seen = {}
        for i, rc in enumerate(cells):
            # The field's name is formatted only for a message (this runs at every power-on).
            if not isinstance(rc, list) or len(rc) != 2:
                _fail('%s[%d]' % (field, i), 'expected [row, col]')
            r, c = rc
            if not (isinstance(r, int) and 0 <= r < self.grid_rows
                    and isinstance(c, int) and 0 <= c < self.grid_cols):
                _fail('%s[%d]' % (field, i), 'expected [row, col] inside the %dx%d grid, got %r'
                      % (self.grid_rows, self.grid_cols, rc))
            if (r, c) in seen:
                _fail('%s[%d]' % (field, i), 'cell %r also used by key %d' % (rc, seen[(r, c)]))
            seen[(r, c)] = i
            self.positions.append((r, c))
        self._key_at = seen

    def key_at(self, row, col):
        """Key index of logical cell (row, col), or -1."""
        return self._key_at.get((row, col), -1)

    # -- LEDs ----------------------------------------------------------------
    def _load_leds(self, data, used):
        L = _get(data, 'leds', '')
        self.data_pin = _gpio(_get(L, 'data_pin', 'leds'), 'leds.data_pin', used)
        self.order = _choice(L, 'order', 'leds', ORDERS)
        w = self.width = _int(L, 'width', 'leds', 1, 256)
        h = self.height = _int(L, 'height', 'leds', 1, 256)
        ls = _get(L, 'level_shifter', 'leds')
        self.level_shifter = _str(ls, 'part', 'leds.level_shifter')
        self.series_resistor_ohm = _int(ls, 'series_resistor_ohm', 'leds.level_shifter', 0, 10000)
        self.bulk_capacitor_uf = _int(ls, 'bulk_capacitor_uf', 'leds.level_shifter', 0, 100000)
        lmap = array('H', [NO_LED] * (w * h))
        base = 0
        panels = _list(L, 'panels', 'leds', 1, 16)
        self.panels = []
        for n, pd in enumerate(panels):
            p = 'leds.panels[%d]' % n
            pw = _int(pd, 'width', p, 1, 256)
            ph = _int(pd, 'height', p, 1, 256)
            px = _int(pd, 'x', p, 0, w - 1)
            py = _int(pd, 'y', p, 0, h - 1)
            origin = _choice(pd, 'origin', p, ORIGINS)
            major = _choice(pd, 'major', p, MAJORS)
            serp = _bool(pd, 'serpentine', p)
            if px + pw > w or py + ph > h:
                _fail(p, 'panel at (%d, %d) size %dx%d does not fit the %dx%d canvas'
                      % (px, py, pw, ph, w, h))
            # Chain position of each pixel (u across, v down the panel), computed inline: this
            # runs once per LED at every power-on (512 on the 4x8 board), where a call per
            # pixel cost ~45 ms on a Pico.
            flip_u = origin.endswith('right')
            flip_v = origin.startswith('bottom')
            by_row = major == 'row'
            for v in range(ph):
                vv = ph - 1 - v if flip_v else v
                row0 = (py + v) * w + px
                for u in range(pw):
                    uu = pw - 1 - u if flip_u else u
                    if by_row:
                        pos = pw - 1 - uu if serp and vv & 1 else uu
                        k = vv * pw + pos
                    else:
                        pos = ph - 1 - vv if serp and uu & 1 else vv
                        k = uu * ph + pos
                    i = row0 + u
                    if lmap[i] != NO_LED:
                        _fail(p, 'overlaps another panel at pixel (%d, %d)' % (px + u, py + v))
                    lmap[i] = base + k
            self.panels.append((px, py, pw, ph, origin, major, serp, base))
            base += pw * ph
        self.n_leds = base
        self.led_map = lmap
        self._load_blocks(L)
        self._load_lines(L)

    def led_index(self, x, y):
        """LED chain index of canvas pixel (x, y), or NO_LED where no LED sits."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.led_map[y * self.width + x]
        return NO_LED

    def _load_blocks(self, L):
        b = _get(L, 'block', 'leds')
        bw = self.block_w = _int(b, 'w', 'leds.block', 1, 64)
        bh = self.block_h = _int(b, 'h', 'leds.block', 1, 64)
        self.pitch_x = _int(b, 'pitch_x', 'leds.block', bw, 64)
        self.pitch_y = _int(b, 'pitch_y', 'leds.block', bh, 64)
        self.x0 = _int(b, 'x0', 'leds.block', 0, 255)
        self.y0 = _int(b, 'y0', 'leds.block', 0, 255)
        self.blocks = []
        w = self.width
        lmap = self.led_map
        for k in range(len(self.positions)):
            x, y = self.block_origin(k)
            leds = array('H', [0] * (bw * bh))
            j = 0
            inside = 0 <= x and x + bw <= w and 0 <= y and y + bh <= self.height
            for dy in range(bh):
                row = (y + dy) * w + x
                for dx in range(bw):
                    # led_index, inline (512 calls at every power-on)
                    i = lmap[row + dx] if inside else self.led_index(x + dx, y + dy)
                    if i == NO_LED:
                        _fail('leds.block', 'block of %s %d at pixel (%d, %d) has no LED'
                              % (self.cell_field, k, x + dx, y + dy))
                    leds[j] = i
                    j += 1
            self.blocks.append(leds)

    def block_origin(self, key):
        r, c = self.positions[key]
        return self.x0 + c * self.pitch_x, self.y0 + r * self.pitch_y

    def block_center(self, key):
        x, y = self.block_origin(key)
        return x + self.block_w // 2, y + self.block_h // 2

    def _load_lines(self, L):
        # Bagh-Chal style board lines between cell centres, rasterised once here.
        self.line_leds = array('H')
        if 'lines' not in L:
            return
        ln = L['lines']
        ortho = _bool(ln, 'orthogonal', 'leds.lines')
        diag = _choice(ln, 'diagonals', 'leds.lines', DIAGONALS)
        centers = {}
        for k in range(self.n_keys):
            centers[self.block_center(k)] = 1
        pixels = {}
        for k in range(self.n_keys):
            r, c = self.positions[k]
            steps = []
            if ortho:
                steps += [(0, 1), (1, 0)]
            if diag == 'all' or (diag == 'even' and (r + c) % 2 == 0):
                steps += [(1, 1), (1, -1)]
            for dr, dc in steps:
                n = self.key_at(r + dr, c + dc)
                if n < 0:
                    continue
                x0, y0 = self.block_center(k)
                x1, y1 = self.block_center(n)
                steps_n = max(abs(x1 - x0), abs(y1 - y0))
                for s in range(1, steps_n):
                    # Exact for the horizontal, vertical and 45-degree lines used here.
                    pixels[(x0 + (x1 - x0) * s // steps_n,
                            y0 + (y1 - y0) * s // steps_n)] = 1
        for xy in sorted(pixels):
            if xy not in centers:
                i = self.led_index(xy[0], xy[1])
                if i != NO_LED:
                    self.line_leds.append(i)

    # -- power ---------------------------------------------------------------
    def _load_power(self, data):
        p = _get(data, 'power', '')
        self.supply_v = _num(p, 'supply_v', 'power', 3, 24)
        self.supply_ma = _int(p, 'supply_ma', 'power', 100, 100000)
        self.budget_ma = _int(p, 'budget_ma', 'power', 50, self.supply_ma)
        self.brightness_cap = _int(p, 'brightness_cap', 'power', 1, 255)
        self.led_ma_per_channel = _num(p, 'led_ma_per_channel', 'power', 1, 100)
        self.led_idle_ma = _num(p, 'led_idle_ma', 'power', 0, 10)
        self.mcu_ma = _int(p, 'mcu_ma', 'power', 0, 2000)
        # budget_ma is what the LED limiter may draw; the MCU and keys come on top.
        if self.led_idle_ma * self.n_leds >= self.budget_ma:
            _fail('power.budget_ma', 'below the idle draw of %d LEDs' % self.n_leds)
        if self.budget_ma + self.mcu_ma > self.supply_ma:
            _fail('power.budget_ma', 'budget plus mcu_ma exceeds supply_ma %d' % self.supply_ma)


# A profile's values the running board reads (keys, pixels, view, app): the rest is the
# loader's, and the hardware documents'.
BOARD_FIELDS = ('name', 'games', 'grid_rows', 'grid_cols', 'key_rows', 'key_cols', 'diodes',
                'debounce_ms', 'n_keys', 'menu_pin', 'back_pin', 'positions', 'data_pin',
                'order', 'width', 'height', 'n_leds', 'led_map', 'blocks', 'line_leds',
                'block_w', 'block_h', 'pitch_x', 'pitch_y', 'x0', 'y0', 'brightness_cap',
                'led_ma_per_channel', 'led_idle_ma', 'budget_ma', 'supply_ma', 'mcu_ma')


class Tables:
    """BOARD_FIELDS of a loaded profile as plain attributes: it keeps no method of this
    module's, so the loader's bytecode leaves the heap once the board is built."""


def tables(prof):
    t = Tables()
    for k in BOARD_FIELDS:
        setattr(t, k, getattr(prof, k))
    return t


def loads(text):
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ProfileError('profile is not valid JSON: %s' % (e,))
    return Profile(data)


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ProfileError('profile %s cannot be read: %s' % (path, e))
    return loads(text)
