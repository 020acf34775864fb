"""Components of flip positions, checked against a cell-by-cell flood fill and against
the Sprague-Grundy theorem on solved tables."""

import numpy as np
import pytest

from flipnet.datasets.components import Components, key_shape
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


@pytest.mark.parametrize("rows, cols", [(5, 5), (3, 4), (7, 7)])
def test_keys_are_the_same_for_every_placement_of_a_shape(rows, cols):
    comps, sym = Components(rows, cols), Symmetries(rows, cols)
    parts = comps.split(np.random.default_rng(2).integers(0, 1 << (rows * cols), size=300, dtype=np.uint64))
    shapes = parts[parts != 0]
    keys = comps.keys(shapes)
    for g in range(len(sym)):
        assert np.array_equal(comps.keys(sym.image(shapes, g)), keys)
    h, w, cells = key_shape(keys)
    assert np.all(h <= w) and np.array_equal(cells, np.bitwise_count(shapes))


def test_a_shape_has_one_key_on_every_board():
    """The same shape on a 5x5 and on a 7x7 board, anywhere: one key; rendering it back
    gives a mask of the same shape."""
    shape = {(0, 0), (0, 1), (1, 1), (2, 1), (2, 2)}
    keys = set()
    for rows, dr, dc in ((5, 0, 0), (5, 2, 1), (7, 4, 3)):
        mask = sum(1 << ((r + dr) * rows + c + dc) for r, c in shape)
        keys.add(int(Components(rows, rows).keys(np.array([mask], np.uint64))[0]))
    (key,) = keys
    back = int(Components(5, 5).render(np.array([key], np.uint64))[0])
    assert bin(back).count("1") == len(shape)
    assert Components(5, 5).keys(np.array([back], np.uint64))[0] == key


def test_encode_fills_slots_and_names_the_limit():
    comps = Components(5, 5)
    two = (0b11 << 0) | (0b11 << 10)  # two dominoes, rows 0 and 2
    encoded = comps.encode(np.array([two, 0]), slots=3)
    domino = int(comps.keys(np.array([0b11], np.uint64))[0])
    assert encoded.dtype == np.uint64 and encoded.shape == (2, 3)
    assert encoded[0].tolist() == [domino, domino, 0] and not encoded[1].any()
    with pytest.raises(ValueError, match="a position has 2 live components; the model has 1 slots"):
        comps.encode(np.array([two]), slots=1)


def largest_cells(state, rows, cols):
    """The cells of a state's largest component by the flood fill (0 if it has none)."""
    return max((bin(m).count("1") for m in reference_components(state, rows, cols)), default=0)


def box(mask, cols):
    """(h, w) of a mask's bounding box on a board `cols` wide."""
    cells = [i for i in range(64) if mask >> i & 1]
    rows_, cols_ = {i // cols for i in cells}, {i % cols for i in cells}
    return max(rows_) - min(rows_) + 1, max(cols_) - min(cols_) + 1


@pytest.mark.parametrize("rows, cols, board", [(6, 6, (5, 5)), (7, 7, (5, 5)), (4, 6, (5, 3))])
def test_beyond_the_training_board_is_a_component_whose_box_fits_no_orientation(rows, cols, board):
    from flipnet.datasets.components import beyond_board_errors, beyond_board_positions

    rng = np.random.default_rng(rows * cols)
    states = (rng.random((600, rows * cols)) < 0.5) @ (1 << np.arange(rows * cols, dtype=np.uint64))
    got = beyond_board_positions(rows, cols, board, states)

    def fits(h, w):
        return (h <= board[0] and w <= board[1]) or (w <= board[0] and h <= board[1])

    expected = np.array([any(not fits(*box(m, cols)) for m in reference_components(int(s), rows, cols))
                         for s in states])
    assert expected.any() and not expected.all()
    assert np.array_equal(got, expected)
    wrong = rng.random(states.size) < 0.3
    errors = beyond_board_errors(wrong, got)
    assert errors["share_beyond_training_board"] == expected.mean()
    assert errors["error_within_training_board"] == wrong[~expected].mean()
    assert errors["error_beyond_training_board"] == wrong[expected].mean()
    assert beyond_board_errors(wrong[:3], np.zeros(3, bool))["error_beyond_training_board"] is None


@pytest.mark.parametrize("rows, cols", [(5, 5), (6, 6), (3, 7)])
def test_the_largest_component_and_the_errors_by_its_cells_follow_a_flood_fill(rows, cols):
    from flipnet.datasets.components import errors_by_largest_component, largest_component_cells

    rng = np.random.default_rng(rows * cols + 1)
    states = (rng.random((500, rows * cols)) < 0.55) @ (1 << np.arange(rows * cols, dtype=np.uint64))
    states[0] = 0  # no component at all
    got = largest_component_cells(rows, cols, states)
    expected = np.array([largest_cells(int(s), rows, cols) for s in states])
    assert np.array_equal(got, expected) and len(set(expected)) > 5
    wrong = rng.random(states.size) < 0.3
    by_cells = errors_by_largest_component(wrong, got)["positions_by_largest_component"]
    assert sum(n for n, _ in by_cells.values()) == states.size
    for cells, (n, errors) in by_cells.items():
        assert n == (expected == int(cells)).sum() and errors == wrong[expected == int(cells)].sum()
