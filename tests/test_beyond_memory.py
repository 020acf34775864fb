"""What the component models need to go beyond memorisation: the lookup baseline, a
shape's options from the game's rules, one ply of lookahead, size-free descriptions,
and models that read boards of other sizes."""

import numpy as np
import pytest
from conftest import write_tiny_dataset

from flipnet.datasets.components import Components, key_shape, options
from flipnet.datasets.shapes import FEATURES, ShapeTable, describe
from flipnet.games import FlipGame
from flipnet.nn.lookup import ShapeLookup
from flipnet.nn.oneply import one_ply, positions_one_ply
from flipnet.solve import table
from flipnet.solve.cram import CramSolver


def exact_component_values(keys):
    """Independent values of shapes: the Cram solver on each key's cells."""
    solver = CramSolver(progress=False, tt_log=16)
    out = []
    for key in np.asarray(keys, np.uint64).tolist():
        h, w = (key >> 52) & 63, key >> 58
        bits = key & ((1 << 52) - 1)
        out.append(solver.value({(r, c) for r in range(h) for c in range(w) if bits >> (r * w + c) & 1}))
    return np.array(out)


@pytest.fixture(scope="module")
def board_3x4():
    game = FlipGame(3, 4)
    return game, table(game)


def test_options_are_the_shape_minus_each_domino(board_3x4):
    game, _ = board_3x4
    comps = Components(3, 4)
    states = np.random.default_rng(0).integers(0, 1 << 12, size=200, dtype=np.uint64)
    keys = np.unique(comps.shapes(states))
    option_start, part_start, part_keys = options(keys)
    for i, key in enumerate(keys.tolist()):
        h, w = (key >> 52) & 63, key >> 58
        bits = key & ((1 << 52) - 1)
        small = FlipGame(h, w)
        expected = sorted(sorted(Components(h, w).shapes(np.array([bits & ~m], np.uint64)).tolist())
                          for m in small.legal_moves(bits))
        got = sorted(sorted(part_keys[part_start[j]:part_start[j + 1]].tolist())
                     for j in range(option_start[i], option_start[i + 1]))
        assert got == expected


def test_one_ply_over_exact_values_is_exact():
    """With the true values of the children, the mex rule gives the true value."""
    comps = Components(4, 4)
    keys = np.unique(comps.shapes(np.random.default_rng(1).integers(0, 1 << 16, size=300, dtype=np.uint64)))
    assert np.array_equal(one_ply(exact_component_values, keys), exact_component_values(keys))


def test_the_lookup_reads_what_the_labels_spell_out(board_3x4):
    game, values = board_3x4
    rng = np.random.default_rng(2)
    train = rng.choice(1 << 12, size=1500, replace=False).astype(np.uint64)
    lookup = ShapeLookup.fit(train, values[train], 3, 4)
    assert np.array_equal(lookup(train), values[train])  # every training label reproduced
    assert np.array_equal(lookup.component_values(lookup.keys), exact_component_values(lookup.keys))
    unseen = np.setdiff1d(np.arange(1 << 12, dtype=np.uint64), train)
    predicted = lookup(unseen)
    assert (predicted == values[unseen]).mean() > 0.9  # most positions are made of known shapes
    # one ply of lookahead on the table's values: exact wherever every child is known
    with_ply = positions_one_ply(lookup.component_values, Components(3, 4), unseen)
    assert (with_ply == values[unseen]).mean() >= (predicted == values[unseen]).mean() - 0.05


def test_descriptions_are_size_free_and_the_table_grows():
    comps5, comps7 = Components(5, 5), Components(7, 7)
    s_tetromino = {(0, 0), (0, 1), (1, 1), (1, 2)}
    on5 = sum(1 << (r * 5 + c) for r, c in s_tetromino)
    on7 = sum(1 << ((r + 3) * 7 + c + 2) for r, c in s_tetromino)  # elsewhere on a 7x7 board
    key5 = comps5.keys(np.array([on5], np.uint64))
    key7 = comps7.keys(np.array([on7], np.uint64))
    assert key5[0] == key7[0]
    assert np.array_equal(describe(key5), describe(key7)) and describe(key5).shape == (1, FEATURES)
    table_ = ShapeTable()
    first = table_.rows(np.array([key5[0], 0, key5[0]], np.uint64))
    assert first.tolist() == [1, 0, 1] and table_.array.shape == (2, FEATURES)
    other = comps5.keys(np.array([0b111], np.uint64))
    assert table_.rows(np.concatenate([other, key5])).tolist() == [2, 1]


@pytest.mark.slow
def test_a_size_free_model_reads_a_larger_board(tmp_path):
    """featmem2d trained on 3x3 boards reads 3x4 positions; xormem2d (cells) refuses."""
    from flipnet.nn.evaluate import on_board
    from flipnet.nn.models import build

    model = build("featmem2d", 0, 3, 3)
    model.fit(np.arange(1 << 9, dtype=np.uint64))
    wide = on_board(model, 3, 4, "3x4 data")
    inputs = wide.prepare(np.arange(1 << 12, dtype=np.uint64))
    assert inputs.shape[1] == wide.slots >= model.slots
    cells = build("xormem2d", 0, 3, 3)
    with pytest.raises(Exception, match="not size-free"):
        on_board(cells, 3, 4, "3x4 data")


def test_key_shapes_count_cells():
    keys = Components(5, 5).keys(np.array([0b11, 0b111 | 0b1 << 5], np.uint64))
    h, w, cells = key_shape(keys)
    assert h.tolist() == [1, 2] and w.tolist() == [2, 3] and cells.tolist() == [2, 4]
