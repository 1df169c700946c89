"""hardware/: the committed wiring SVGs, README power table and BOM match the profiles."""

import csv
import json
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HW = ROOT / 'hardware'
PROFILES = sorted((HW / 'profiles').glob('*.json'))
sys.path.insert(0, str(HW))


def test_both_builds_have_profiles():
    assert [p.stem for p in PROFILES] == ['bawo-4x8', 'grid-5x5']


@pytest.mark.parametrize('path', PROFILES, ids=lambda p: p.stem)
def test_committed_svg_is_current(path, tmp_path):
    name = json.loads(path.read_text())['name']
    out = tmp_path / 'w.svg'
    subprocess.run([sys.executable, str(HW / 'make_diagram.py'), str(path), str(out)], check=True)
    committed = HW / ('wiring-%s.svg' % name)
    assert committed.read_text() == out.read_text(), 'run python hardware/make_diagram.py'
    doc = xml.dom.minidom.parseString(out.read_text())
    text = ' '.join(t.firstChild.data for t in doc.getElementsByTagName('text') if t.firstChild)
    for word in (
        'Raspberry Pi Pico',
        '74AHCT125',
        '330 ohm',
        '1000 uF',
        'MENU',
        'BACK',
        'GP16',
        'VSYS',
        'LED panel 0',
        'supply',
    ):
        assert word in text, word
    assert ('wiring-%s.svg' % name) in (HW / 'README.md').read_text()


def test_readme_power_table_is_current():
    out = subprocess.run(
        [sys.executable, str(HW / 'power.py')], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert out in (HW / 'README.md').read_text(), (
        'paste python hardware/power.py into hardware/README.md'
    )


def test_power_worst_case_within_supply():
    import power

    for path in PROFILES:
        import pinmap as profile

        p = profile.load(str(path))
        b = power.budget(p)
        assert b['at_cap'] > p.supply_ma  # the limiter is what keeps it safe
        assert b['limited'] <= p.budget_ma
        assert b['total'] < p.supply_ma


def test_bom_rows():
    rows = list(csv.DictReader((HW / 'bom.csv').open()))
    assert set(rows[0]) == {'build', 'part', 'quantity', 'example part number', 'notes'}
    for build, switches, panels in (('bawo-4x8', 32, 2), ('grid-5x5', 25, 1)):
        mine = {r['part']: r for r in rows if r['build'] == build}
        assert int(mine['Tactile switch 12x12 mm']['quantity']) == switches
        assert int(mine['Signal diode']['quantity']) == switches
        assert int(mine['WS2812B panel 16x16 flexible']['quantity']) == panels
        assert '74AHCT125' in mine['Level shifter quad buffer']['example part number']
        assert 'Resistor 330 ohm 1/4 W' in mine and 'Electrolytic capacitor 1000 uF 10 V' in mine
        assert any(part.startswith('Power supply 5 V') for part in mine)


def test_readme_bom_tables_match_bom_csv():
    readme = (HW / 'README.md').read_text().split('## Bill of materials', 1)[1]
    with open(HW / 'bom.csv', newline='') as f:
        rows = list(csv.DictReader(f))
    for build in sorted({r['build'] for r in rows}):
        section = readme.split('### %s\n' % build, 1)[1].lstrip('\n').split('\n\n', 1)[0]
        table = [
            line for line in section.splitlines() if line.startswith('| ') and '---' not in line
        ][1:]
        want = [
            '| %s | %s | %s | %s |'
            % (r['part'], r['quantity'], r['example part number'], r['notes'])
            for r in rows
            if r['build'] == build
        ]
        assert [t.replace('|  |', '| |').rstrip() for t in table] == [
            w.replace('|  |', '| |').rstrip() for w in want
        ], build
