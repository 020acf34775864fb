import numpy as np
import pytest
from conftest import recursive_values
from hypothesis import given, settings
from hypothesis import strategies as st

from flipnet.base.errors import FlipnetError
from flipnet.games import FlipGame, GridNim
from flipnet.solve.reference import plain_table
from flipnet.solve import (halfnim_best_move, halfnim_value, halfnim_values, solve_states, table,
                           win_table)

small_shapes = st.tuples(st.integers(1, 4), st.integers(1, 4)).filter(lambda s: s[0] * s[1] <= 12)


@settings(max_examples=40, deadline=None)
@given(small_shapes)
def test_flip_table_matches_recursive_solver(shape):
    game = FlipGame(*shape)
    assert table(game).tolist() == recursive_values(game)


@settings(max_examples=40, deadline=None)
@given(small_shapes, st.integers(1, 3), st.booleans())
def test_gridnim_table_matches_recursive_solver(shape, max_take, misere):
    game = GridNim(*shape, max_take=max_take, misere=misere)
    assert table(game).tolist() == recursive_values(game)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 10), st.data())
def test_any_mask_set_matches_plain_dp(n, data):
    masks = data.draw(st.lists(st.integers(1, (1 << n) - 1), min_size=1, max_size=12, unique=True))
    rule = data.draw(st.sampled_from(["normal", "misere"]))
    assert np.array_equal(solve_states(n, masks, rule), plain_table(n, masks, rule))


def kayles(n_max):
    g = [0] * (n_max + 1)
    for k in range(2, n_max + 1):
        opts = {g[a] ^ g[k - 2 - a] for a in range(k - 1)}
        g[k] = min(set(range(len(opts) + 1)) - opts)
    return g


def test_1d_length_20_is_the_xor_of_dawsons_kayles_runs():
    values = table(FlipGame(1, 20))
    g = kayles(20)
    assert g == [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3]
    states = np.arange(1 << 20)
    expected = np.zeros(1 << 20, dtype=np.int64)
    run = np.zeros(1 << 20, dtype=np.int64)
    for c in range(21):  # walk the cells, closing a run at every 0 (and past the end)
        bit = (states >> c) & 1 if c < 20 else np.zeros_like(states)
        closing = (bit == 0) & (run > 0)
        expected[closing] ^= np.array(g)[run[closing]]
        run = np.where(bit == 1, run + 1, 0)
    assert np.array_equal(values, expected)
    assert np.bincount(values).tolist() == [370716, 370966, 153505, 153217, 84, 82, 6]


def test_5x5_class_counts(table_5x5):
    assert np.bincount(table_5x5).tolist() == [9129683, 9128699, 7024344, 7032944, 527252,
                                               508810, 117964, 76736, 7208, 792]


def test_5x5_is_the_xor_of_its_halves_where_they_do_not_touch(table_5x5):
    # rows 0-1 and 3-4 with row 2 empty: two independent games, value = XOR
    rng = np.random.default_rng(0)
    t2x5 = table(FlipGame(2, 5))
    for _ in range(500):
        top, bottom = rng.integers(0, 1 << 10, size=2)
        state = int(top) | int(bottom) << 15
        assert table_5x5[state] == t2x5[top] ^ t2x5[bottom]


def test_threads_do_not_change_the_table():
    game = FlipGame(4, 5)
    assert np.array_equal(table(game, threads=1), table(game, threads=2))


def test_gridnim_4x4_counts_and_full_board():
    game = GridNim(4, 4)
    win = table(game)
    assert int(win.sum()) == 55664 and int((win == 0).sum()) == 9872
    assert win[game.start] == 0  # the full board is lost for the player to move
    assert win[0] == 1  # the empty board: the opponent took the last stone


def test_win_table_of_a_normal_game():
    assert np.array_equal(win_table(FlipGame(1, 8)), (table(FlipGame(1, 8)) != 0))


def test_progress_reports_every_state():
    seen = []
    table(FlipGame(3, 4), progress=seen.append)
    assert sum(seen) == 1 << 12


def test_tables_refuse_boards_above_30_cells():
    with pytest.raises(FlipnetError, match="6x6 board has 36 cells.*flipnet value"):
        table(FlipGame(6, 6))


def test_halfnim_closed_form_matches_dp():
    g = halfnim_values(2000)
    assert all(halfnim_value(n) == g[n] for n in range(1, 2001))
    assert [n for n in range(1, 128) if g[n] == 0] == [1, 3, 7, 15, 31, 63, 127]


def test_halfnim_best_move_is_the_smallest_winning_move():
    rng = np.random.default_rng(0)
    g = halfnim_values(127)
    for n in range(2, 128):
        k = halfnim_best_move(n, rng)
        assert 1 <= k <= n // 2
        winning = [k for k in range(1, n // 2 + 1) if g[n - k] == 0]
        assert k == winning[0] if winning else True


@pytest.mark.parametrize("rows, cols", [(3, 4), (4, 4), (3, 5)])
def test_every_position_the_mirror_rule_calls_zero_is_zero(rows, cols):
    """parts.mirror_zero against the table: each position it proves 0 is 0, and it proves
    some on every shape (a centre cell or a centre domino keeps it from others)."""
    from flipnet.solve.parts import mirror_zero

    game = FlipGame(rows, cols)
    values = table(game)
    proved = [state for state in range(1 << game.n_cells) if mirror_zero(game.cells(state))]
    assert len(proved) > 10
    assert all(values[state] == 0 for state in proved)


def test_the_mirror_rule_sees_the_centre():
    from flipnet.solve.parts import mirror_zero

    full = lambda rows, cols: {(r, c) for r in range(rows) for c in range(cols)}  # noqa: E731
    assert mirror_zero(full(10, 10)) and mirror_zero(full(8, 14)) and mirror_zero(full(2, 2))
    assert not mirror_zero(full(9, 8))  # the middle row's centre domino is its own image
    assert not mirror_zero(full(3, 3))  # the centre cell, with its neighbours
    assert mirror_zero(full(3, 3) - {(1, 1)})  # without it
    assert not mirror_zero(full(4, 4) - {(0, 0)})  # not its own image


def test_a_board_the_mirror_rule_answers_is_answered_at_once_whatever_its_size():
    """Past the search's frames (12x12: 144 cells) and wide (8x14), through the command:
    no table mapped, nothing compiled."""
    import subprocess
    import sys

    for rows, cols in ((12, 12), (8, 14)):
        board = "/".join(["1" * cols] * rows)
        done = subprocess.run([sys.executable, "-m", "flipnet", "value", "flip", board, "--json", "--timeout", "5"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert '"nim_value": 0' in done.stdout and '"winning_moves": []' in done.stdout


def test_a_bar_is_drawn_on_a_terminal_only_unless_asked_for():
    """Written to a file or a pipe, a bar redrawn five times a second is hundreds of lines:
    none unless FLIPNET_PROGRESS=1; FLIPNET_PROGRESS=0 none anywhere."""
    import os
    import subprocess
    import sys

    code = "from flipnet.base.progress import bar\nwith bar(3, 'counting') as b:\n    b.update(3)\n"
    env = {k: v for k, v in os.environ.items() if k != "FLIPNET_PROGRESS"}
    for setting, drawn in ((None, False), ("1", True), ("0", False)):
        given = env if setting is None else {**env, "FLIPNET_PROGRESS": setting}
        done = subprocess.run([sys.executable, "-c", code], env=given, capture_output=True, text=True, check=True)
        assert ("counting" in done.stderr) == drawn, (setting, done.stderr)
    import fcntl
    import pty
    import struct
    import termios

    main, terminal = pty.openpty()  # a terminal, 24 rows of 100 columns: drawn without being asked
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    subprocess.run([sys.executable, "-c", code], env=env, stderr=terminal, check=True)
    os.close(terminal)
    assert b"counting" in os.read(main, 65536)
    os.close(main)
