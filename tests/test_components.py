"""Components of flip positions, checked against a cell-by-cell flood fill and against
the Sprague-Grundy theorem on solved tables."""

import numpy as np
import pytest

from flipnet.datasets.components import Components
from flipnet.datasets.symmetry import Symmetries


def reference_components(state, rows, cols):
    """The connected groups (4-neighbourhood) of two or more full cells, by a plain
    flood fill over cells, as a set of masks."""
    full = {(r, c) for r in range(rows) for c in range(cols) if state >> (r * cols + c) & 1}
    groups, seen = set(), set()
    for cell in sorted(full):
        if cell in seen:
            continue
        stack, group = [cell], set()
        while stack:
            r, c = stack.pop()
            if (r, c) in group:
                continue
            group.add((r, c))
            stack += [n for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if n in full]
        seen |= group
        if len(group) > 1:
            groups.add(sum(1 << (r * cols + c) for r, c in group))
    return groups


@pytest.mark.parametrize("rows, cols", [(5, 5), (4, 6), (1, 20), (3, 1)])
def test_split_matches_a_flood_fill(rows, cols):
    states = np.random.default_rng(rows * cols).integers(0, 1 << (rows * cols), size=400)
    parts = Components(rows, cols).split(states)
    for state, row in zip(states, parts):
        found = [int(m) for m in row if m]
        assert len(found) == len(set(found))
        assert set(found) == reference_components(int(state), rows, cols)
        assert found == sorted(found, key=lambda m: m & -m)  # ordered by lowest cell


def test_live_clears_exactly_the_isolated_cells():
    comps = Components(4, 4)
    states = np.arange(1 << 16)
    live = comps.live(states)
    expected = [sum(reference_components(s, 4, 4)) for s in range(1 << 16)]
    assert np.array_equal(live, expected)


def test_value_is_the_xor_of_component_values(table_5x5):
    """The theorem the xornet models are built on, on the real 5x5 table."""
    comps = Components(5, 5)
    states = np.random.default_rng(1).integers(0, 1 << 25, size=3000)
    parts = comps.split(states)
    xor = np.bitwise_xor.reduce(table_5x5[parts.astype(np.int64)], axis=1)
    assert np.array_equal(xor, table_5x5[states])


@pytest.mark.parametrize("rows, cols", [(5, 5), (3, 4)])
def test_canonical_is_the_same_for_every_placement_of_a_shape(rows, cols):
    comps, sym = Components(rows, cols), Symmetries(rows, cols)
    parts = comps.split(np.random.default_rng(2).integers(0, 1 << (rows * cols), size=300))
    shapes = parts[parts != 0]
    canon = comps.canonical(shapes)
    for g in range(len(sym)):
        assert np.array_equal(comps.canonical(sym.image(shapes, g)), canon)
    moved = comps.to_corner(shapes)
    assert np.array_equal(comps.canonical(moved), canon)
    # in the corner: touches the top row and the first column
    assert np.all(canon & comps.row_mask) and np.all(canon & comps.first_col)
    # and canonical masks stay the same shape (same number of cells)
    cells = np.vectorize(lambda m: bin(int(m)).count("1"))
    assert np.array_equal(cells(canon), cells(shapes))


def test_encode_fills_slots_and_names_the_limit():
    comps = Components(5, 5)
    two = (0b11 << 0) | (0b11 << 10)  # two dominoes, rows 0 and 2
    encoded = comps.encode(np.array([two, 0]), slots=3)
    assert encoded.dtype == np.uint32 and encoded.shape == (2, 3)
    assert encoded[0].tolist() == [0b11, 0b11, 0] and not encoded[1].any()
    with pytest.raises(ValueError, match="a position has 2 live components; the model has 1 slots"):
        comps.encode(np.array([two]), slots=1)
