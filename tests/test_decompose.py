import random

import numpy as np
import pytest

from flipnet.solve import decompose
from flipnet.solve.decompose import (canonical, dawson_kayles, groups, position_value, row_value,
                               row_winning_moves, winning_dominoes)
from flipnet.games import FlipGame
from flipnet.solve import table


def test_kayles_is_periodic_from_53_with_period_34():
    direct = [0] * 400
    for k in range(2, 400):
        opts = {direct[a] ^ direct[k - 2 - a] for a in range(k - 1)}
        direct[k] = min(set(range(len(opts) + 1)) - opts)
    assert [dawson_kayles(k) for k in range(400)] == direct
    assert direct[52 + 34] != direct[52]  # the pre-period really ends at 53


def test_long_rows_by_runs():
    rng = random.Random(1)
    t = table(FlipGame(1, 16))
    for _ in range(200):
        s = rng.getrandbits(16)
        assert row_value([s >> i & 1 for i in range(16)]) == t[s]
    assert row_value([1] * 10_000) == dawson_kayles(10_000)


def test_row_winning_moves_leave_zero():
    rng = random.Random(2)
    for _ in range(100):
        bits = [rng.random() < 0.7 for _ in range(40)]
        moves = row_winning_moves(bits)
        for i in range(39):
            if bits[i] and bits[i + 1]:
                after = list(bits)
                after[i] = after[i + 1] = False
                assert (row_value(after) == 0) == (i in moves)


@pytest.fixture
def forced_recursion(monkeypatch):
    """Value groups of more than 5 cells by their moves, not by a table."""
    monkeypatch.setattr(decompose, "TABLE_CELLS", 5)
    decompose._value_of_canonical.cache_clear()
    yield
    decompose._value_of_canonical.cache_clear()


def test_decomposition_matches_the_4x5_table(forced_recursion):
    game = FlipGame(4, 5)
    t = table(game)
    rng = np.random.default_rng(3)
    for state in rng.integers(0, 1 << 20, size=300).tolist():
        assert position_value(game.cells(state)) == t[state]


def test_decomposition_with_tables_matches_the_5x5_table(table_5x5):
    decompose._value_of_canonical.cache_clear()
    game = FlipGame(5, 5)
    rng = np.random.default_rng(4)
    for state in rng.integers(0, 1 << 25, size=300).tolist():
        assert position_value(game.cells(state)) == table_5x5[state]


def test_a_board_beyond_tables_is_the_xor_of_far_apart_pieces():
    game = FlipGame(3, 4)
    t = table(game)
    rng = np.random.default_rng(5)
    pieces = rng.integers(0, 1 << 12, size=9).tolist()
    cells, expected = set(), 0
    for i, s in enumerate(pieces):  # a 3x3 grid of 3x4 pieces with empty lanes between
        r0, c0 = 4 * (i // 3), 5 * (i % 3)
        cells |= {(r0 + r, c0 + c) for r, c in game.cells(s)}
        expected ^= int(t[s])
    assert position_value(cells) == expected


def test_canonical_form_ignores_translation_and_symmetry():
    shape = {(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)}
    moved = {(r + 7, c + 3) for r, c in shape}
    rotated = {(c, -r) for r, c in shape}
    mirrored = {(r, -c) for r, c in shape}
    assert canonical(shape) == canonical(moved) == canonical(rotated) == canonical(mirrored)
    assert canonical(shape) != canonical({(0, 0), (0, 1), (0, 2), (1, 1), (2, 1)})


def test_groups_use_the_4_neighbourhood():
    cells = {(0, 0), (1, 1), (1, 2), (3, 3)}
    assert sorted(len(g) for g in groups(cells)) == [1, 1, 2]


def test_winning_dominoes_leave_zero(forced_recursion):
    game = FlipGame(4, 4)
    t = table(game)
    rng = np.random.default_rng(6)
    for state in rng.integers(0, 1 << 16, size=100).tolist():
        cells = set(game.cells(state))
        expected = sorted((tuple(game.cells(m))) for m in game.legal_moves(state) if t[state & ~m] == 0)
        assert [tuple(d) for d in winning_dominoes(cells)] == expected
