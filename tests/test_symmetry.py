import numpy as np
import pytest

from flipnet.games import FlipGame
from flipnet.solve import table
from flipnet.datasets.symmetry import Symmetries, cell_maps


def move_cells(state, target, n):
    """The image of one state, cell by cell."""
    return sum(1 << int(target[c]) for c in range(n) if state >> c & 1)


@pytest.mark.parametrize("rows, cols, count", [(5, 5, 8), (3, 3, 8), (2, 4, 4), (1, 9, 2)])
def test_symmetry_counts_and_images(rows, cols, count):
    sym = Symmetries(rows, cols)
    assert len(sym) == count and np.array_equal(sym.maps[0], np.arange(rows * cols))
    states = np.random.default_rng(1).integers(0, 1 << (rows * cols), size=200).astype(np.uint32)
    for g, target in enumerate(sym.maps):
        assert sorted(target) == list(range(rows * cols))  # a permutation of the cells
        expected = [move_cells(int(s), target, rows * cols) for s in states]
        assert sym.image(states, g).tolist() == expected
        assert sym.image(states, g).dtype == np.uint32


@pytest.mark.parametrize("rows, cols", [(3, 3), (2, 4), (1, 12), (4, 4)])
def test_images_keep_the_nim_value(rows, cols):
    values = table(FlipGame(rows, cols))
    sym = Symmetries(rows, cols)
    states = np.arange(1 << (rows * cols), dtype=np.uint32)
    for g in range(len(sym)):
        assert np.array_equal(values[sym.image(states, g)], values)


def test_random_images_are_seeded():
    sym = Symmetries(5, 5)
    states = np.arange(1000, dtype=np.uint32)
    a = sym.random_images(states, np.random.default_rng(4))
    b = sym.random_images(states, np.random.default_rng(4))
    assert np.array_equal(a, b) and not np.array_equal(a, states)


def test_rectangle_has_no_transposes():
    assert len(cell_maps(3, 5)) == 4 and len(cell_maps(5, 3)) == 4
