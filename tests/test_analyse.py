"""`bawo solve` and `bawo analyse`: values, winning moves, the mistake of games whose values
plain minimax settles independently."""

import functools
import json
import sys
from pathlib import Path

import pytest

from shared_rules import game, State
from shared_rules.record import Record
from bawo import cli
from bawo.analyse import analyse
from bawo.proofcheck import check, read_strategy
from bawo.solve import solve, WIN

sys.path.insert(0, str(Path(__file__).parent))
from test_solve import brute, endgames  # noqa: E402

G = game('bawo')


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@functools.lru_cache(maxsize=None)
def lost_games(n):
    """Games from set-up positions that minimax settles as won for the side to move, whose
    first ply is a move minimax settles as losing; then the opponent plays the solver's
    proved strategy and the loser its first legal move to the end. Returns (record, the
    moves minimax settles as winning and as losing in the start position)."""
    out = []
    for before in range(2, 9):
        for pos in endgames(20, before, seed=100 + before):
            if brute(pos, 4) is not True:
                continue
            child_values = {m: brute(G.play(pos, m), 3) for m in G.legal_moves(pos)}
            losing = [m for m, v in child_values.items() if v is True]
            if not losing:
                continue
            winning = (
                set(G.move_str(m) for m, v in child_values.items() if v is False),
                set(G.move_str(m) for m in losing),
            )
            s = State(G, G.format(pos))
            s.push(G.move_str(losing[0]))
            r = solve(s.position, max_nodes=20000, all_moves=False)
            assert r.value == WIN
            while s.outcome() is None:
                p = s.position
                m = r.strategy[p.key()] if p.turn != pos.turn else G.legal_moves(p)[0]
                s.push(G.move_str(m))
            rec = Record.from_state(s)
            assert rec.header['Result'] == G.sides[1 - pos.turn]
            out.append((rec, winning))
            if len(out) == n:
                return out
    return out


def test_analyse_marks_the_losing_ply_of_games_with_known_values():
    games = lost_games(3)
    assert len(games) == 3
    for rec, winning in games:
        marks = analyse(rec, max_nodes=20000, max_seconds=5)
        first = marks[0]
        assert first['before'] == 'win' and first['after'] == 'loss' and first['mistake'], first
        wins, losses = winning
        assert first['missed'] and wins <= set(first['winning']), (first, winning)
        assert not losses & set(first['winning']), (first, winning)
        # After the mistake the winner never lets the win go, so it is the only one.
        assert [x['ply'] for x in marks if x['mistake']] == [1]
        loser = first['side']
        for x in marks[1:]:
            assert x['before'] == ('loss' if x['side'] == loser else 'win'), x


def test_analyse_cli_on_a_file(tmp_path, capsys):
    rec, _ = lost_games(3)[0]
    f = tmp_path / 'g.txt'
    f.write_text(rec.to_text())
    rc, out, err = run(capsys, 'analyse', '--file', str(f), '--max-seconds', '5')
    assert rc == 0, err
    assert 'the game was lost at ply 1 (' in out
    rc, out, err = run(capsys, 'analyse', '--file', str(f), '--json')
    assert rc == 0 and json.loads(out)[0]['mistake'] is True


def test_analyse_follows_the_book_from_the_opening():
    # South follows the book for 10 plies: every South position is won, every North lost,
    # with no search (the book's proof is checked from each position).
    s = State(G)
    from bawo.solve import open_book

    bk = open_book()
    while s.ply < 10:
        p = s.position
        m = bk.lookup(p.key()) if p.turn == 0 else G.legal_moves(p)[-1]
        s.push(G.move_str(m))
    marks = analyse(Record.from_state(s), max_nodes=1, max_seconds=1)
    assert [x['before'] for x in marks] == ['win', 'loss'] * 5
    assert not any(x['mistake'] for x in marks)


def test_solve_cli_writes_a_strategy_that_checks(tmp_path, capsys):
    pos = endgames(1, 9, seed=11)[0]
    tree = tmp_path / 'tree.txt'
    rc, out, err = run(capsys, 'solve', G.format(pos), '--tree', str(tree), '--json')
    assert rc == 0, err
    d = json.loads(out)
    r = solve(pos)
    assert d['value'] == r.value and d['winning'] == [G.move_str(m) for m in r.winning]
    side = G.sides.index(d['proof']['winner'])
    strategy = read_strategy(G, tree.read_text().splitlines())
    assert check(G, pos, lambda p: strategy.get(p.key()), side)[0] == d['proof']['decisions']


@pytest.mark.parametrize(
    'argv, words',
    [
        (['solve'], 'give a POSITION or --opening'),
        (['solve', '--opening', '2,2 S'], 'give a POSITION or --opening'),
        (['solve', '1,2,3 S'], 'bad position'),
        (
            ['solve', '0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2 S'],
            'already over',
        ),
        (['analyse'], 'which game?'),
    ],
)
def test_solve_and_analyse_errors_are_one_line(argv, words, capsys):
    rc, out, err = run(capsys, *argv)
    assert rc == 1 and words in err and err.count('\n') == 1, err


@pytest.mark.parametrize('cmd', ['solve', 'analyse'])
def test_help_has_examples(cmd, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main([cmd, '--help'])
    assert e.value.code == 0 and 'examples:' in capsys.readouterr().out


def _logged(tmp_path):
    from bawo.db import Log

    rec, _ = lost_games(3)[0]
    rec.header['Id'] = 'test-0001'
    db = str(tmp_path / 'g.sqlite')
    log = Log(db)
    log.add(rec, 'import')
    log.close()
    return rec, db


def test_export_analyse_writes_a_mark_per_ply_and_imports_back(tmp_path, capsys):
    from bawo.export import read

    rec, db = _logged(tmp_path)
    rc, out, err = run(capsys, 'export', '--analyse', '--format', 'text', '--db', db)
    assert rc == 0, err
    assert out.count('{') == len(rec.moves) and ' throws it away, ' in out.split('{', 2)[1]
    [(where, back, error)] = list(read(out))
    assert error is None and back.moves == rec.moves  # the comments do not change the record
    rc, out, err = run(capsys, 'export', '--analyse', '--db', db)
    d = json.loads(out)
    assert len(d['marks']) == len(rec.moves) and d['marks'][0]['mistake'] is True
    rc, out, err = run(capsys, 'export', '--analyse', '--format', 'csv', '--db', db)
    assert rc == 1 and 'jsonl or text' in err


def test_show_analyse_notes_the_mistake(tmp_path, capsys):
    rec, db = _logged(tmp_path)
    rc, out, err = run(capsys, 'show', 'test-0001', '--all', '--numbers', '--analyse', '--db', db)
    assert rc == 0, err
    assert (
        out.count('  [') == len(rec.moves)
        and ' throws it away, ' in out
        and '  [North can force a win: ' in out
    )


def test_a_comment_left_open_is_refused():
    from shared_rules.errors import RecordError

    with pytest.raises(RecordError, match='not closed'):
        Record.from_text('[Game "bawo"]\n\n1. A3- {won\n')


def test_solve_book_rebuilds_the_committed_book(tmp_path, capsys):
    # The committed firmware/bawo_book.bin is what `bawo solve --opening --book` builds.
    out_file = tmp_path / 'book.bin'
    rc, out, err = run(capsys, 'solve', '--opening', '--book', str(out_file))
    assert rc == 0, err
    assert 'book: 1375 South moves, 743 North replies' in out
    committed = Path(__file__).resolve().parent.parent / 'firmware' / 'bawo_book.bin'
    assert out_file.read_bytes() == committed.read_bytes()


@pytest.mark.parametrize('name', ['oware', 'bagh-chal'])
def test_analyse_estimates_oware_and_bagh_chal_and_says_so(name, tmp_path, capsys):
    from _host_helpers import random_record

    rec = random_record(3, 'test-0003', name, max_plies=40)
    marks = analyse(rec)
    assert len(marks) == len(rec.moves) and all(x['estimate'] for x in marks)
    worst = [x for x in marks if x['worst']]
    assert 1 <= len(worst) <= 3
    # The worst plies lose at least as much as any other, by the search's own scores.
    assert min(x['drop'] for x in worst) >= max(x['drop'] for x in marks if not x['worst'])
    for x in marks:
        assert x['drop'] == max(0, x['score'] - x['after'])
    f = tmp_path / 'g.txt'
    f.write_text(rec.to_text())
    rc, out, err = run(capsys, 'analyse', '--file', str(f))
    assert rc == 0 and out.startswith('ESTIMATE: ') and 'the costliest moves: ply ' in out


def test_a_missed_win_names_the_books_move_even_when_the_search_runs_out():
    s = State(G)
    s.push('A6-')  # also a win, but off the book's line: 1 node cannot prove it
    s.push(G.move_str(G.legal_moves(s.position)[0]))
    first = analyse(Record.from_state(s), max_nodes=1, max_seconds=1)[0]
    assert first['before'] == 'win' and first['after'] == 'unknown' and first['missed']
    assert 'A3-' in first['winning']


@pytest.mark.parametrize(
    'prefix, blunder',
    [
        ([], 'A1+'),
        (['A3-', 'A3+'], 'A3-'),
        (['A3-', 'A3+', 'A1+', 'B7-', 'B8-', 'B6-', 'B1+', 'A6-'], 'A4+'),
    ],
)
def test_analyse_finds_the_blunder_of_games_from_the_opening(prefix, blunder):
    # South keeps to the book (won, by the book's proof), then plays a move after which
    # North's win is proved here and checked against every South reply; North then plays
    # that proof to the end. The blunder is the one mistake analyse must mark.
    from bawo.solve import open_book

    bk = open_book()
    s = State(G)
    for t in prefix:
        if s.turn == 0:
            assert bk.lookup(s.position.key()) == G.parse_move(t)
        s.push(t)
    bk.close()
    s.push(blunder)
    r = solve(s.position, max_nodes=20000, all_moves=False)
    assert r.value == WIN  # for North, to move
    check(G, s.position, lambda p: r.strategy.get(p.key()), 1)
    while s.outcome() is None:
        p = s.position
        s.push(G.move_str(r.strategy[p.key()] if p.turn == 1 else G.legal_moves(p)[0]))
    assert s.outcome().winner == 1
    marks = analyse(Record.from_state(s), max_nodes=20000, max_seconds=10)
    ply = len(prefix) + 1
    assert [x['ply'] for x in marks if x['mistake']] == [ply]
    x = marks[ply - 1]
    assert x['move'] == blunder and x['before'] == 'win' and x['after'] == 'loss'
    assert x['winning'] and blunder not in x['winning']
    assert all(m['before'] == 'win' for m in marks[:ply] if m['side'] == 'S')
