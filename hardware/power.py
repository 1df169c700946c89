"""Power budget per hardware profile, computed with the firmware's own Pixels limiter.

Worst case = every LED full white at the firmware's brightness cap; the limiter then
scales the frame to the profile's LED budget. Prints a Markdown table (pasted into
hardware/README.md; tests check it is current). Usage: python hardware/power.py [profile.json ...]
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / 'firmware'))
import pinmap as profile  # noqa: E402
import pixels  # noqa: E402


class _Measure(pixels.Pixels):
    def _transmit(self, buf):
        pass


def budget(prof):
    px = _Measure(prof)
    px.fill((255, 255, 255))
    n = prof.n_leds
    full = px.estimate_ma(3 * n * 255)
    at_cap = px.estimate_ma(3 * n * px._lut[255])
    px.show()
    total = px.last_ma + prof.mcu_ma
    return {
        'profile': prof.name,
        'leds': n,
        'supply': '%g V %.1f A' % (prof.supply_v, prof.supply_ma / 1000),
        'cap': prof.brightness_cap,
        'full': full,
        'at_cap': at_cap,
        'limited': px.last_ma,
        'budget': prof.budget_ma,
        'mcu': prof.mcu_ma,
        'total': total,
        'headroom': 100 * (prof.supply_ma - total) // prof.supply_ma,
        'scale': px.last_scale,
    }


HEADER = ('| profile | LEDs | supply | brightness cap | all white @255 | all white @cap | '
          'after limiter (budget) | + Pico/keys | worst case | supply headroom |\n'
          '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|')


def table(paths):
    rows = [HEADER]
    for p in paths:
        b = budget(profile.load(str(p)))
        rows.append('| %(profile)s | %(leds)d | %(supply)s | %(cap)d/255 | %(full)d mA | '
                    '%(at_cap)d mA | %(limited)d mA (%(budget)d) | %(mcu)d mA | '
                    '%(total)d mA | %(headroom)d %% |' % b)
    return '\n'.join(rows)


def default_profiles():
    return sorted((HERE / 'profiles').glob('*.json'))


if __name__ == '__main__':
    print(table(sys.argv[1:] or default_profiles()))
