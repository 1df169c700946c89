"""firmware/journal.py on MicroPython: records, ids, synced flag, damaged files, full flash."""

import json
import os
import subprocess

from bawo.firmware import micropython_path
from bawo.sim import micropython_binary

SCRIPT = r"""
import os, sys, json
from journal import Journal, seal, unseal
root = sys.argv[1]
logs = []
res = {}
j = Journal(root, 'tb', min_free=0, capacity=100000, log=logs.append)

def game(n_moves):
    h = {'game': 'bawo'}
    gid = j.start(h)
    for i in range(n_moves):
        j.append(i + 1, 'A1+')
    j.finish(gid, '[Game "bawo"]\n[Id "%s"]\n[Result "*"]\n\n1. A1+ B1- *\n' % gid)
    return gid

ids = [game(2) for _ in range(5)]
res['ids'] = ids
res['list'] = list(j.list_games())
data, total, crc = j.record_bytes(ids[0], 0, 1000)
res['chunk'] = [data.decode(), total, crc]
res['part'] = j.record_bytes(ids[0], 5, 7)[0].decode()
res['synced'] = [j.mark_synced(ids[0]), j.mark_synced(ids[1]), j.mark_synced('nope')]
res['synced_list'] = [g['synced'] for g in j.list_games()]
# Damage one record: set aside at the next boot, never a crash.
p = root + '/' + ids[3] + '.rec'
b = bytearray(open(p, 'rb').read()); b[3] ^= 1
open(p, 'wb').write(b)
j = Journal(root, 'tb', min_free=0, capacity=100000, log=logs.append)
res['after_damage'] = [g['id'] for g in j.list_games()]
res['bad'] = sorted([n for n in os.listdir(root) if n.endswith('.bad')])
# Run short of flash: the oldest synced games go first, unsynced ones never.
used = 100000 - j.free_bytes()
j.capacity = used + 300
j.min_free = 1000
j.make_room()
res['low_list'] = [g['id'] for g in j.list_games()]
res['low'] = j.low
# Counter survives deleting everything: ids never repeat.
for n in os.listdir(root):
    if n.endswith('.rec') or n.endswith('.syn'):
        os.remove(root + '/' + n)
j = Journal(root, 'tb', min_free=0, capacity=0, log=logs.append)
res['next_id'] = j.start({'game': 'oware'})
# A damaged counter file: ids still do not repeat (the journal's header is the truth).
open(root + '/counter', 'wb').write(b'garbage')
res['next_id2'] = j.start({'game': 'oware'})
res['statvfs_free'] = j.free_bytes() > 0
res['torn'] = unseal(seal('M 1 A1+')[:-1]) == 'M 1 A1+' and unseal(b'M 1 A1+ 0000') is None
res['logs'] = logs
print(json.dumps(res))
"""


def run_mp(tmp_path, script):
    (tmp_path / "t.py").write_text(script)
    env = dict(os.environ, MICROPYPATH=micropython_path())
    root = tmp_path / "flash"
    root.mkdir()
    out = subprocess.run(
        [micropython_binary(), str(tmp_path / "t.py"), str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1]), root


def test_records_sync_damage_and_space(tmp_path):
    r, root = run_mp(tmp_path, SCRIPT)
    ids = r["ids"]
    assert ids == ["tb-%04d" % i for i in range(1, 6)]
    assert [g["id"] for g in r["list"]] == ids
    g0 = r["list"][0]
    assert g0["game"] == "bawo" and g0["plies"] == 2 and g0["result"] == "*" and not g0["synced"]
    text, total, crc = r["chunk"]
    import zlib

    assert (
        total == len(text) and zlib.crc32(text.encode()) == crc and text.startswith('[Game "bawo"]')
    )
    assert r["part"] == text[5:12]
    assert r["synced"] == [True, True, False]
    assert r["synced_list"] == [True, True, False, False, False]
    assert r["after_damage"] == [ids[0], ids[1], ids[2], ids[4]]
    assert r["bad"] == [ids[3] + ".rec.bad"]
    # Only the two synced games may go, oldest first; three unsynced stay and the board warns.
    assert r["low_list"] == [ids[2], ids[4]] and r["low"] is True
    assert r["next_id"] == "tb-0006" and r["next_id2"] == "tb-0007"
    assert r["statvfs_free"] and r["torn"]
    assert any("set aside" in m for m in r["logs"]) and any("flash low" in m for m in r["logs"])


PRUNED = r"""
import os, sys, json
from journal import Journal
root = sys.argv[1]
j = Journal(root, 'tb', min_free=0, capacity=100000, log=lambda m: None)
ids = []
for _ in range(3):
    gid = j.start({'game': 'bawo'})
    j.append(1, 'A1+')
    j.finish(gid, '[Game "bawo"]\n[Id "%s"]\n[Result "*"]\n\n1. A1+ *\n' % gid)
    j.mark_synced(gid)
    ids.append(gid)
# The flash fills: every synced record is deleted to make room (as make_room does).
j.capacity = 100000 - j.free_bytes() + 10
j.min_free = 5000
j.make_room()
left = sorted(n for n in os.listdir(root) if n.endswith('.rec') or n.endswith('.syn'))
# Then a bad flash page: the counter file no longer matches its CRC.
p = root + '/counter'
b = bytearray(open(p, 'rb').read()); b[0] ^= 1
open(p, 'wb').write(b)
j = Journal(root, 'tb', min_free=0, capacity=0, log=lambda m: None)   # a power-on
print(json.dumps({'ids': ids, 'left': left, 'next': j.start({'game': 'oware'})}))
"""


def test_ids_never_come_again_after_pruning_and_a_damaged_counter(tmp_path):
    """Issue 27: synced records pruned, then the counter damaged: the next game took id 1 again
    and a host that knew that id acked the new game unseen. Its second copy keeps it."""
    r, root = run_mp(tmp_path, PRUNED)
    assert r["ids"] == ["tb-0001", "tb-0002", "tb-0003"]
    assert r["left"] == []  # nothing left on flash that names an id
    assert r["next"] == "tb-0004"
