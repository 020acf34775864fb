"""Each cell's option values (nn/options.py), the auxiliary target of convmem2d-options:
the moves behind them against the options' own parts, the sets against the exact values
of the children, the loss against numpy, and a run through the real command."""

import json

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from cli_cases import run, stderr_lines
from test_convmem import exact_values, some_keys, write_sparse_4x4

from flipnet.datasets.components import Components, key_shape, move_cells, options
from flipnet.nn.lookup import ShapeLookup
from flipnet.nn.maskconv import MaskedConvNet, render_cells
from flipnet.nn.options import certain_share, masked_bce, option_targets, unpack


def table_of(keys, values):
    """A lookup table holding exactly these shapes and values (no size guesses needed)."""
    order = np.argsort(keys)
    return ShapeLookup(np.asarray(keys, np.uint64)[order], np.asarray(values, np.int64)[order],
                       np.zeros(65, np.int64), 4, 4)


def every_shape_of_4x4():
    keys = np.unique(Components(4, 4).shapes(np.arange(1 << 16, dtype=np.uint64)))
    return keys[keys != 0]


def test_each_option_empties_the_two_cells_its_parts_say():
    keys = some_keys(5, 5, 300, seed=4)
    option_start, part_start, part_keys = options(keys)
    cells = move_cells(keys, option_start)
    h, w, _ = key_shape(keys)
    shape_of = np.repeat(np.arange(keys.size), np.diff(option_start))
    for j in range(0, len(cells), 7):
        i = shape_of[j]
        grid = Components(int(h[i]), int(w[i])).render(keys[i:i + 1], (int(h[i]), int(w[i])))[0]
        (r0, c0), (r1, c1) = cells[j]
        assert abs(r0 - r1) + abs(c0 - c1) == 1
        first, second = np.uint64(1 << int(r0 * w[i] + c0)), np.uint64(1 << int(r1 * w[i] + c1))
        assert grid & first and grid & second  # a domino of the shape
        left = Components(int(h[i]), int(w[i])).shapes(np.array([grid & ~first & ~second]))
        assert sorted(left.tolist()) == sorted(part_keys[part_start[j]:part_start[j + 1]].tolist())


def brute_force_sets(key, value_of, in_table, side):
    """(cell -> set of the values of the moves through it, cell -> whether the table holds
    every part of those moves), by trying every domino."""
    h, w, _ = (int(x[0]) for x in key_shape(np.array([key], np.uint64)))
    board = Components(h, w)
    grid = int(board.render(np.array([key], np.uint64), (h, w))[0])
    sets, all_known = np.zeros(side * side, np.int64), np.ones(side * side, bool)
    for r in range(h):
        for c in range(w):
            for dr, dc in ((0, 1), (1, 0)):
                a, b = r * w + c, (r + dr) * w + c + dc
                if r + dr >= h or c + dc >= w or not (grid >> a) & 1 or not (grid >> b) & 1:
                    continue
                parts = board.shapes(np.array([grid & ~(1 << a) & ~(1 << b)], np.uint64))
                value = int(np.bitwise_xor.reduce(value_of(parts), initial=0))
                for cell in (r * side + c, (r + dr) * side + c + dc):
                    sets[cell] |= 1 << value
                    all_known[cell] &= bool(np.isin(parts, in_table).all())
    return sets, all_known


def test_the_sets_are_the_values_of_the_moves_through_each_cell_and_their_mex_the_value():
    shapes = every_shape_of_4x4()
    values = exact_values(shapes)
    known = np.random.default_rng(0).random(shapes.size) < 0.7  # a table that lacks some
    table, full = table_of(shapes[known], values[known]), table_of(shapes, values)
    value_of = lambda parts: full.values[np.searchsorted(full.keys, parts)]  # noqa: E731
    keys = shapes[::23]
    sets, certain = option_targets(keys, table, 5)
    some_open = 0
    for i, key in enumerate(keys):
        truth, all_known = brute_force_sets(key, value_of, table.keys, 5)
        live = truth != 0
        assert not certain[i][~live].any() and not sets[i][~live].any()
        assert (certain[i][live & all_known] == 0xFFFF).all()
        assert np.array_equal(sets[i][live & all_known], truth[live & all_known])
        # where a move through the cell is open, only the values known moves reach are certain
        open_cells = live & ~all_known
        assert np.array_equal(certain[i][open_cells], sets[i][open_cells])
        assert not (sets[i][open_cells] & ~truth[open_cells]).any()
        some_open += open_cells.sum()
    assert some_open > 0
    sets, certain = option_targets(shapes, full, 4)
    union = np.bitwise_or.reduce(sets, axis=1).astype(np.int64)
    mex = np.zeros(shapes.size, np.int64)
    for v in range(16):
        mex = np.where((mex == v) & ((union >> v) & 1 == 1), v + 1, mex)
    assert np.array_equal(mex, values)  # with every part known, the mex of the sets is the value
    assert certain_share(certain) == 1.0


def test_masked_bce_is_the_mean_over_certain_entries():
    rng = np.random.default_rng(1)
    logits, targets = rng.normal(0, 2, (3, 4, 16)), (rng.random((3, 4, 16)) < 0.4).astype(float)
    certain = (rng.random((3, 4, 16)) < 0.5).astype(float)
    z, t, m = (pt.tensor3(dtype="float64") for _ in range(3))
    got = pytensor.function([z, t, m], masked_bce(z, t, m))(logits, targets, certain)
    p = 1 / (1 + np.exp(-logits))
    per = -(targets * np.log(p) + (1 - targets) * np.log(1 - p))
    assert np.isclose(got, (per * certain).sum() / certain.sum())
    assert np.array_equal(unpack(np.array([[5, 0x8000]], np.uint16))[0, 0, :4], [1, 0, 1, 0])


def test_the_option_head_leaves_the_other_weights_and_the_value_logits_as_they_were():
    plain, headed = MaskedConvNet(7, channels=4, layers=2, hidden=8), \
        MaskedConvNet(7, channels=4, layers=2, hidden=8, option_head=True)
    a, b = plain.get_values(), headed.get_values()
    assert set(b) - set(a) == {"options_W", "options_b"} and all(np.array_equal(a[k], b[k]) for k in a)
    cells = pt.matrix(dtype="float32")
    values, per_cell = headed.outputs(cells, 4)
    f = pytensor.function([cells], [values, per_cell, plain.logits(cells, 4)])
    got, option_logits, expected = f(render_cells(some_keys(4, 4, 30), 4))
    assert np.allclose(got, expected) and option_logits.shape[1:] == (16, 16)
    assert headed.architecture()["option_head"] and "option_head" not in plain.architecture()


@pytest.mark.slow
def test_a_run_with_option_weight_trains_keeps_its_head_and_starts_from_a_plain_model(tmp_path):
    from flipnet.datasets import read_split
    from flipnet.nn.convmem import ConvMemory

    write_sparse_4x4(tmp_path / "sparse.h5")
    common = ["train", "convmem2d", "--data", tmp_path / "sparse.h5", "--bucket", 0, "--batch", 16,
              "--epochs", 2, "--results-dir", tmp_path / "r", "--layers", 1, "--channels", 4, "--hidden", 8]
    plain = run([*common, "--out", "plain"], tmp_path)
    assert plain.returncode == 0, plain.stderr
    done = run([*common, "--option-weight", 0.5, "--out", "headed", "--init", tmp_path / "r" / "plain.npz"],
               tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "r" / "headed.json").read_text())
    assert results["option_weight"] == 0.5 and 0.5 < results["option_answers_certain"] <= 1
    model, meta = ConvMemory.load(tmp_path / "r" / "headed.npz")
    assert meta["architecture"]["option_head"] and meta["config"]["option_weight"] == 0.5
    # the head is a training target only: the model's answers come from the value head
    states, labels = read_split(tmp_path / "sparse.h5", 0).test
    assert results["test_error"] == pytest.approx(float((model(states) != labels).mean()))
    back = run([*common, "--out", "again", "--init", tmp_path / "r" / "headed.npz"], tmp_path)
    assert back.returncode == 2 and stderr_lines(back.stderr) == [
        f"flipnet train: error: {tmp_path}/r/headed.npz has an option head; this run has none: "
        "set --option-weight"]

