"""The plain recursion for small components against the compiled search, its hand-over to
the search, and the command that answers a small position without loading Numba."""

import subprocess
import sys

import numpy as np
import pytest

from cli_cases import environment
from flipnet.solve.cram import CramSolver
from flipnet.solve.small import SMALL_CELLS, Plain, TooLarge


@pytest.fixture(scope="module")
def search():
    return CramSolver(progress=False, tt_log=20)


def random_cells(rng, rows, cols, fill):
    return {(r, c) for r in range(rows) for c in range(cols) if rng.random() < fill}


@pytest.mark.parametrize("rows, cols", [(2, 7), (3, 5), (4, 4), (5, 5), (3, 9), (6, 6)])
def test_every_answer_is_the_searchs(search, rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    plain, compared = Plain(), 0
    for _ in range(40):
        cells = random_cells(rng, rows, cols, rng.uniform(0.4, 0.85))
        try:
            got = (plain.value(cells), plain.valued_components(cells), plain.winning_moves(cells),
                   plain.move_values(cells))
        except TooLarge:
            continue
        assert got == (search.value(cells), search.valued_components(cells), search.winning_moves(cells),
                       search.move_values(cells)), sorted(cells)
        compared += 1
    assert compared >= 20  # most of these boards are small enough


def test_a_long_straight_run_is_kayles(search):
    run = {(0, c) for c in range(70)} | {(2, 0), (2, 1), (3, 1)}  # a run past one word, and an L
    assert Plain().move_values(run) == search.move_values(run)


def test_a_large_component_or_a_long_walk_goes_to_the_search():
    with pytest.raises(TooLarge):
        Plain().value({(r, c) for r in range(3) for c in range(7)})  # 21 cells
    assert SMALL_CELLS == 20
    with pytest.raises(TooLarge):
        Plain(budget=50).value({(r, c) for r in range(4) for c in range(5)})  # 20 cells, a long walk


def test_a_small_position_is_answered_without_numba(tmp_path):
    program = ("import sys; from flipnet.cli import main; code = main(['value', 'flip', '11011/11111/00111', "
               "'--json']); print('numba' in sys.modules, file=sys.stderr); sys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          env=environment(), timeout=120)
    assert proc.returncode == 0 and proc.stderr.strip() == "False", proc.stderr
    assert '"nim_value": 2' in proc.stdout
