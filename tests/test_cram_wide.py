"""Components whose box has 65 to 128 cells: two-word masks (`cram.wide`), searched by the
same kernels compiled for them, checked against values known another way. Every test of
wide components is here, so that one process of the suite compiles the wide kernels."""

import numpy as np
import pytest
from numba import njit

import flipnet.solve.cram.tables as cram
from flipnet.games import FlipGame
from flipnet.base.errors import DamagedFile, FlipnetError
from flipnet.solve.cram import ENTRY_BYTES, MIN_TABLE_LOG, CramSolver, bits, components
from flipnet.solve.cram.checkpoint import Checkpoint
from flipnet.solve.cram.standing import in_a_line, standing
from flipnet.solve.engine import Settings
from flipnet.solve.cram.wide import high, low, wide
from flipnet.solve.kayles import dawson_kayles

MASK = (1 << 128) - 1


def words(x):
    return np.uint64(x & (2**64 - 1)), np.uint64(x >> 64)


def joined(lo, hi):
    return int(lo) | int(hi) << 64


@njit(cache=True)
def _operations(a_lo, a_hi, b_lo, b_hi, n):
    a, b = wide(a_lo, a_hi), wide(b_lo, b_hi)
    out = np.zeros((9, 2), np.uint64)
    for k, x in enumerate((a & b, a | b, a ^ b, ~a, a << n, a >> n, a + b, a - b, bits.reverse_bits(a, 128))):
        out[k] = low(x), high(x)
    counts = (bits.popcount(a), bits.lowest_bit_index(a), bits.highest_bit_index(a))
    return out, counts, (a < b, a == b, a != b, bool(a))


def test_wide_masks_behave_as_python_integers():
    rng = np.random.default_rng(7)
    values = [1, 1 << 63, 1 << 64, 1 << 127, MASK] + [int(rng.integers(1, 2**63)) << int(rng.integers(0, 65))
                                                      | int(rng.integers(0, 2**63)) for _ in range(60)]
    for a, b in zip(values, values[1:] + values[:1]):
        n = int(rng.integers(0, 128))
        out, counts, tests = _operations(*words(a), *words(b), n)
        expected = (a & b, a | b, a ^ b, ~a & MASK, (a << n) & MASK, a >> n, (a + b) & MASK, (a - b) & MASK,
                    int(f"{a:0128b}"[::-1], 2))
        assert [joined(lo, hi) for lo, hi in out] == list(expected)
        assert counts == (bin(a).count("1"), (a & -a).bit_length() - 1, a.bit_length() - 1)
        assert tests == (a < b, a == b, a != b, a != 0)


@njit(cache=True)
def _canonical(lo, hi, h, w):
    rows, trows = np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    key, shape = bits.canonical(wide(lo, hi), h, w, rows, trows)
    return low(key), high(key), shape


def test_a_wide_canonical_form_ignores_place_and_symmetry():
    rng = np.random.default_rng(8)
    shape = {(r, c) for r in range(5) for c in range(17) if rng.random() < 0.6} | {(0, 0), (4, 16)}
    images = [shape, {(c, r) for r, c in shape}, {(r, 16 - c) for r, c in shape}, {(4 - r, c) for r, c in shape}]
    keys = set()
    for image in images:
        for dr, dc in ((0, 0), (1, 2)):
            moved = {(r + dr, c + dc) for r, c in image}
            h, w = max(r for r, _ in moved) + 1, max(c for _, c in moved) + 1
            keys.add(_canonical(*words(sum(1 << (r * w + c) for r, c in moved)), h, w))
    (lo, hi, key_shape), = keys
    assert key_shape == (5 << 7 | 17) and bin(joined(lo, hi)).count("1") == len(shape)


def snake(rows, cols):
    """A path of cells, no two of them adjacent but neighbours on it: every other row full,
    joined at alternate ends. Cram on a path is Dawson's Kayles."""
    cells = {(r, c) for r in range(0, rows, 2) for c in range(cols)}
    cells |= {(r, cols - 1 if r % 4 == 1 else 0) for r in range(1, rows, 2)}
    return cells


@pytest.mark.parametrize("rows, cols", [(3, 22), (11, 11), (5, 25), (3, 42)])
def test_a_path_bent_into_a_wide_box_is_worth_dawson_s_kayles(rows, cols):
    path = snake(rows, cols)
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    assert solver.value(path) == dawson_kayles(len(path))
    assert wide_facts(solver) > 0  # searched as a wide component


@pytest.mark.parametrize("cols", [33, 41, 64])
def test_two_row_boards_past_one_word(cols):
    board = {(r, c) for r in range(2) for c in range(cols)}
    assert CramSolver(progress=False, tt_log=MIN_TABLE_LOG).value(board) == cols % 2
    if cols < 40:  # an even board without the mirror rule: searched
        board -= {(0, cols - 1), (1, cols - 1)}
        assert CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False).value(board) == 0


def test_a_two_row_board_takes_a_table_of_megabytes_whatever_its_length():
    """The longest two-row board searches little: its tables grow to 32 MB in all, not to
    the gigabytes a three-row board of as many cells takes."""
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, grow_table=True)
    assert solver.value({(r, c) for r in range(2) for c in range(63)}) == 1
    assert wide_facts(solver) > 0 and solver.tt.nbytes + solver.wide_tt.nbytes <= 32 << 20
    assert cram.table_log(126, 3) - cram.table_log(126, 2) >= 6  # 3x42: 64 times the entries, or more


def wide_facts(solver):
    """How many facts the solver's table of wide components holds."""
    return int(np.count_nonzero(solver.wide_tt[:, 1]))


def children(cells):
    """{domino: the cells it leaves} of a position."""
    return {((r, c), nb): cells - {(r, c), nb} for r, c in sorted(cells) for nb in ((r, c + 1), (r + 1, c))
            if nb in cells}


def mex(values):
    return min(set(range(len(values) + 1)) - set(values))


def ladder(seed, cols, rungs):
    """Two full rows of a 3-row box joined by `rungs` cells drawn between them: a component
    whose box passes 64 cells that no reduction shrinks, searched by the wide kernels."""
    picked = np.random.default_rng(seed).choice(cols, size=rungs, replace=False).tolist()
    return {(r, c) for r in (0, 2) for c in range(cols)} | {(1, c) for c in picked}


# Each cheap enough for each child to be valued alone (50 to 56 children): measured, not drawn
LADDERS = [(1, 23, 2), (3, 24, 3), (4, 27, 2)]


@pytest.fixture(scope="module")
def ladders_and_children():
    """[(cells, {domino: the value of the position it leaves, valued by a fresh solver})]."""
    out = []
    for seed, cols, rungs in LADDERS:
        cells = ladder(seed, cols, rungs)
        out.append((cells, {move: CramSolver(progress=False, tt_log=MIN_TABLE_LOG).value(left)
                            for move, left in children(cells).items()}))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_wide_positions_are_the_mex_of_their_children_each_valued_alone(ladders_and_children, workers):
    """Value, winning moves and every move's value against the mex of the children."""
    for cells, after in ladders_and_children:
        assert any(h * w > 64 for _, h, w in components(cells))
        solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, workers=workers)
        value, moves = solver.winning_moves(cells)
        assert wide_facts(solver) > 0  # searched as a wide component
        assert value == mex(list(after.values()))
        assert sorted(moves) == sorted(move for move, v in after.items() if v == 0)
        total, move_values = solver.move_values(cells)
        assert total == value and dict(move_values) == after


@pytest.mark.slow
def test_where_a_wide_solve_stands_agrees_with_each_child_valued_alone(ladders_and_children, tmp_path):
    """`standing` of a finished wide solve's checkpoint: the value it kept, and what the
    facts prove of each child against the child valued alone."""
    for k, (cells, after) in enumerate(ladders_and_children):
        cols = max(c for _, c in cells) + 1
        board = "/".join("".join("1" if (r, c) in cells else "0" for c in range(cols)) for r in range(3))
        solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
        solver.use_checkpoint(Checkpoint(tmp_path / f"{k}.ckpt", board))
        value = solver.value(cells)
        solver.save_checkpoint()
        [part] = standing(tmp_path / f"{k}.ckpt", settings=Settings(endgame="off"))["components"]
        assert part["value"] == value and part["box"] == f"3x{cols}"
        for entry in part["moves"]:
            for move in entry["moves"]:
                v = after[tuple(tuple(int(x) for x in cell.split(",")) for cell in move.split("+"))]
                assert entry.get("value", v) == v and v not in entry.get("not", []), (move, entry, v)
        assert sum(len(entry["moves"]) for entry in part["moves"]) == len(after)
        assert any("value" in entry or entry["not"] for entry in part["moves"])  # the facts prove something


def test_the_progress_line_of_a_wide_solve_says_where_the_proof_stands(tmp_path, monkeypatch, capfd):
    from test_checkpoint import assert_the_line_says_where_the_proof_stands

    from flipnet.solve.cram import supervisor

    monkeypatch.setenv("FLIPNET_PROGRESS", "1")
    monkeypatch.setattr(supervisor, "PROGRESS_AFTER", 0.0)
    board = "/".join(["1" * 25, "0" * 9 + "1" * 7 + "0" * 9, "1" * 25])  # 57 cells in a 3x25 box
    solver = CramSolver(progress=True, tt_log=20, standing_line=in_a_line)
    solver.use_checkpoint(Checkpoint(tmp_path / "w.ckpt", board, seconds=0.05))
    value = solver.value(cells_of_board(board))
    assert wide_facts(solver) > 0
    assert_the_line_says_where_the_proof_stands(capfd.readouterr().err, board, value)


def test_with_a_wide_component_the_two_tables_share_the_memory_one_would_take(monkeypatch):
    monkeypatch.setattr(cram, "table_log", lambda cells, side: 24)
    monkeypatch.setattr(cram, "usable_memory", lambda limit=None: 2 * ENTRY_BYTES << 21)
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, grow_table=True)
    assert solver.value({(r, c) for r in range(2) for c in range(33)}) == 1
    assert solver.tt_log == 20 and solver.wide_log == 18
    assert solver.tt.nbytes + solver.wide_tt.nbytes == ENTRY_BYTES << 21  # a half of the half each


def cells_of_board(board):
    return {(r, c) for r, row in enumerate(board.split("/")) for c, ch in enumerate(row) if ch == "1"}


def test_a_wide_board_keeps_its_wide_facts(tmp_path):
    """A box of more than 64 cells: its facts are in the wide table, saved beside the others."""
    path, board = tmp_path / "w.ckpt", "/".join(["1" * 37] * 2)
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    solver.use_checkpoint(Checkpoint(path, board))
    value = solver.value(cells_of_board(board))
    solver.checkpoint.save(solver.tt, solver.wide_tt)
    with np.load(path) as f:
        saved = {name: f[name].copy() for name in f.files}
    assert value == 1 and saved["wide_meta"].size > 0 and saved["wide_bits"].shape == (saved["wide_meta"].size, 2)
    fresh = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    fresh.use_checkpoint(Checkpoint(path, board))
    assert fresh.value(cells_of_board(board)) == 1 and fresh.report()["positions"] < solver.report()["positions"]

    saved["wide_bits"][0, 1] ^= np.uint64(1 << 40)  # past its 2x37 box
    with open(path, "wb") as f:
        np.savez(f, **saved)
    checkpoint = Checkpoint(path, board)
    checkpoint.bind(fresh.endgame, True)
    with pytest.raises(DamagedFile, match="w.ckpt is damaged: wide fact 0 is of no component"):
        checkpoint.read()


def test_the_wide_kernels_asked_for_small_boxes_give_the_table_s_values(table_5x5):
    """With wide_from=9 every box of 9 cells or more is searched by the wide kernels: random
    5x5 positions against the exact table, and full boards' values and winning moves
    against the one-word search."""
    game, values = FlipGame(5, 5), table_5x5
    wide = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, wide_from=9)
    for state in np.random.default_rng(12).integers(0, 1 << 25, size=200).tolist():
        assert wide.value(game.cells(state)) == values[state], game.format(state)
    assert wide_facts(wide) > 0
    narrow = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    for rows, cols in ((4, 6), (3, 9), (5, 5)):
        board = {(r, c) for r in range(rows) for c in range(cols)}
        assert wide.winning_moves(board) == narrow.winning_moves(board)


def test_a_wide_from_outside_4_to_65_cells_is_refused_in_one_line():
    for cells in (3, 66, "x"):
        with pytest.raises(FlipnetError, match="FLIPNET_WIDE_FROM"):
            CramSolver(progress=False, tt_log=MIN_TABLE_LOG, wide_from=cells)
