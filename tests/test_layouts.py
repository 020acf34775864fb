"""The live-cell layout of the masked convolution against the frame one and a direct
computation: the same logits and gradients, in several frames, for every kind of
network; its neighbour rows against a brute-force walk of the frame."""

import numpy as np
import pytensor
import pytest
from test_convmem import KINDS as CONV_KINDS, OFFSETS, direct_logits, small_net, some_keys

from flipnet.nn.components.layouts import FrameCells, LiveCells, live_rows
from flipnet.nn.components.maskconv import MaskedConvNet, render_cells

# These compare graphs, so they run on the Python linker (`py_mode`): a cold Numba compile
# of the two layouts' gradients took 2 to 3 minutes a case. The Numba path of the live
# layout is what every training and evaluation test runs.
pytestmark = pytest.mark.usefixtures("py_mode")

# every path a layout serves: the plain network, and the gated one its gates and
# activations below zero
KINDS = {"plain": {}, "gated": {"residual_gates": True}}


def brute_neighbours(cells, side):
    """(live, neighbours) by walking every live cell's window one by one."""
    live = [(b, i) for b in range(len(cells)) for i in range(side * side) if cells[b, i]]
    row = {cell: n for n, cell in enumerate(live)}
    out = []
    for b, i in live:
        r, c = divmod(i, side)
        out.append([row.get((b, (r + dr) * side + c + dc), len(live))
                    if 0 <= r + dr < side and 0 <= c + dc < side else len(live) for dr, dc in OFFSETS])
    return np.array([b * side * side + i for b, i in live]), np.array(out).reshape(-1, 9)


@pytest.mark.parametrize("side", [3, 5, 7])
def test_live_rows_match_a_walk_of_the_frame(side):
    cells = (np.random.default_rng(side).random((6, side * side)) < 0.55).astype(np.float32)
    got_live, got_neighbours = live_rows(cells, side)
    want_live, want_neighbours = brute_neighbours(cells, side)
    assert np.array_equal(got_live, want_live) and np.array_equal(got_neighbours, want_neighbours)


def test_live_rows_name_a_row_width_that_is_not_the_frame():
    with pytest.raises(ValueError, match="24 cells per row do not fill a 5x5 frame"):
        live_rows(np.ones((2, 24)), 5)


def network(kind):
    net = MaskedConvNet(3, channels=16, layers=2, hidden=8, **KINDS[kind])
    rng = np.random.default_rng(5)  # every weight and bias away from its start
    net.set_values({k: v + rng.normal(0, 0.3, v.shape) for k, v in net.get_values().items()})
    return net


def without_symmetry(keys):
    """The keys whose 8 drawings are 8 different shapes: a symmetric shape makes cells tie
    exactly in a maximum, and a maximum's gradient at a tie goes where rounding puts it,
    which differs between layouts."""
    def drawings(grid):
        turns = [np.rot90(g, k) for g in (grid, grid.T) for k in range(4)]
        return {np.argwhere(t).tobytes() for t in (t[np.ix_(t.any(1), t.any(0))] for t in turns)}
    grids = render_cells(keys, 4).reshape(-1, 4, 4).astype(bool)
    return keys[[len(drawings(g)) == 8 for g in grids]]


def compiled(net, layout, with_grads=False):
    """f(cells) -> [logits, gradients of their sum?] in a layout."""
    outputs = [net.logits_in(layout)]
    if with_grads:
        outputs += pytensor.grad(outputs[0].sum(), net.params)
    fn = pytensor.function(layout.inputs, outputs)
    return lambda cells: fn(*layout.feed(cells))


@pytest.mark.slow
@pytest.mark.parametrize("kind, side", [("plain", 7), ("gated", 5), ("gated", 6)])
def test_live_cells_give_the_frames_logits_and_gradients(kind, side):
    """Logits to rounding. Gradients to 1% of their largest entry: a maximum's gradient goes
    to every entry that ties with it (PyTensor's Max), and cells with the same 3x3
    neighbourhood tie or not by how each layout rounds, which moves a little gradient."""
    net = network(kind)
    cells = render_cells(without_symmetry(some_keys(4, 4, 60, seed=side)), side)
    assert len(cells) >= 20
    live = compiled(net, LiveCells(side), with_grads=True)(cells)
    frame = compiled(net, FrameCells(side), with_grads=True)(cells)
    n_logits = 1
    assert len(live) == len(frame) == n_logits + len(net.params)
    for got, want in zip(live[:n_logits], frame[:n_logits]):
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-4)
    for name, got, want in zip(net.names, live[n_logits:], frame[n_logits:]):
        assert np.abs(got - want).max() <= 1e-2 * np.abs(want).max() + 1e-4, name


def test_live_cells_give_the_direct_computations_logits():
    for kind in CONV_KINDS:
        net = small_net(seed=2, kind=kind)
        cells = render_cells(some_keys(4, 4, 25, seed=9), 5)
        got = compiled(net, LiveCells(5))(cells)[0]
        want = np.array([direct_logits(net, row) for row in cells])
        assert np.allclose(got, want, atol=1e-4)


def test_prediction_reads_live_cells_and_agrees_with_the_frame():
    net = network("plain")
    keys = some_keys(5, 5, 60, seed=1)
    cells = render_cells(keys, 6)
    frame = compiled(net, FrameCells(6))(cells)[0]
    log_probs = net.log_probs_function(6)(cells)
    shifted = frame - frame.max(axis=1, keepdims=True)
    want = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    assert np.allclose(log_probs, want, atol=1e-4)
