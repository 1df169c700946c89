# The settings menu, drawn on the pocket grid: one row per setting, one pocket per choice.
# Row 0 game, row 1 opponent, row 2 brightness, row 3 animation speed; the board's level
# (1-5) follows the opponents on row 1 where the grid is wide enough, else it has row 4.
# In Bawo the fifth level is gold: "perfect" (docs/ai.md), as South from the opening the
# proved book, which never loses.
# MENU starts a new game with the choices shown; BACK returns to the game in progress.
from appconst import OPPONENTS
from shared_rules import color as game_color, has_book

OPP_COLORS = (0xE0E0E0, 0x3070FF, 0x30E0E0)
BAR_COLOR = 0xE0E0E0
SPEED_COLOR = 0x30E030
LEVEL_COLOR = 0xFF3080
PERFECT_COLOR = 0xFFC000
AI_LEVELS = 5
DIM = 0x080808

START = 1   # what a press means (Menu.key)
BACK = 2
CHOSE = 3
REFUSED = 4

ROW_GAME = 0
ROW_OPP = 1
ROW_BRIGHT = 2
ROW_SPEED = 3
LEVELS = 8  # brightness and speed levels (fewer if the grid is narrower)


class Menu:
    def __init__(self, profile, games, settings):
        self.profile = profile
        self.games = games                 # names playable on this profile
        self.s = settings                  # dict: game, opponent, brightness, speed
        self.levels = min(LEVELS, profile.grid_cols)
        self.level_at = level_at(profile.grid_rows, profile.grid_cols)
        if self.s.get('game') not in games:
            self.s['game'] = games[0]

    def options(self, row):
        if row == ROW_GAME:
            return len(self.games)
        if row == ROW_OPP:
            return len(OPPONENTS)
        if row in (ROW_BRIGHT, ROW_SPEED):
            return self.levels
        return 0

    def key(self, key, keys):
        """What a press means while the menu is open: START (MENU: a game with the choices
        shown), BACK (to the game in progress), CHOSE (a pocket chose something), REFUSED
        (a pocket that chooses nothing), or None."""
        if key == keys.menu:
            return START
        if key == keys.back:
            return BACK
        if key < self.profile.n_keys:
            r, c = self.profile.positions[key]
            return CHOSE if self.press(r, c) else REFUSED
        return None

    def press(self, row, col):
        """A pocket press in the menu: True if it chose something."""
        s = self.s
        lv = self._level_col(row, col)
        if lv:
            s['level'] = lv
            return True
        if col >= self.options(row):
            return False
        if row == ROW_GAME:
            s['game'] = self.games[col]
        elif row == ROW_OPP:
            s['opponent'] = OPPONENTS[col]
        elif row == ROW_BRIGHT:
            s['brightness'] = col + 1
        elif row == ROW_SPEED:
            s['speed'] = col + 1
        return True

    def draw_start(self, view):
        """What MENU in the menu shows at once: every pocket dark but the chosen game's, while
        the game's rules load (~70 ms on a Pico) and its start position is drawn."""
        p = self.profile
        keep = (ROW_GAME, self.games.index(self.s['game']))
        for key in range(p.n_keys):
            if tuple(p.positions[key]) != keep:
                view.cell(key, 0)

    def _level_col(self, row, col):
        # The level (1..5) a pocket of the level bar stands for, else 0.
        la = self.level_at
        if la is None or row != la[0] or not la[1] <= col < la[1] + AI_LEVELS:
            return 0
        return col - la[1] + 1

    def draw(self, view):
        p = self.profile
        s = self.s
        view.dirty = True   # a frame for every draw, as when every block was repainted
        for key in range(p.n_keys):
            row, col = p.positions[key]
            lv = self._level_col(row, col)
            if lv:
                c = PERFECT_COLOR if lv == AI_LEVELS and has_book(s['game']) else LEVEL_COLOR
                view.choice(key, c, lv <= s.get('level', 3), lv)
                continue
            n = self.options(row)
            if col >= n:
                view.cell(key, 0)
                continue
            if row == ROW_GAME:
                on = self.games[col] == s['game']
                view.choice(key, game_color(self.games[col]), on)
            elif row == ROW_OPP:
                on = OPPONENTS[col] == s['opponent']
                view.choice(key, OPP_COLORS[col], on)
            else:
                level = s['brightness'] if row == ROW_BRIGHT else s['speed']
                c = BAR_COLOR if row == ROW_BRIGHT else SPEED_COLOR
                view.choice(key, c, col < level, col + 1)


def level_at(rows, cols):
    """(row, first column) of the level bar on a rows x cols grid, or None if it has no room
    (the simulator's scripted presses read it too)."""
    if cols >= len(OPPONENTS) + AI_LEVELS:
        return ROW_OPP, len(OPPONENTS)
    if rows > ROW_SPEED + 1 and cols >= AI_LEVELS:
        return ROW_SPEED + 1, 0
    return None

