"""Two ways to lay a batch of shapes out for the masked convolution (`nn/components/maskconv.py`).

`FrameCells`: every cell of a side x side frame is a row, the empty ones masked to zero.
`LiveCells`: only the live cells are rows, each with the row numbers of its 3x3
neighbours (an empty or off-frame neighbour reads a row of zeros).

Both compute the same function: a masked network's activations are zero on every empty
cell, so skipping those cells changes nothing but the work. A taught 5x5 shape fills 15
of the frame's 25 cells on average, and a training step of convmem2d-deep48's network
takes 74 ms live against 153 ms framed (`make bench`). The frame form stays as the
reference the tests hold the live one to.

A layout gives the network its graph inputs, what it convolves, where it masks, and
the frame it pools over; `feed(cells)` makes the input arrays from (batch, side * side)
0/1 cell rows.
"""

import numpy as np
import pytensor.tensor as pt

from flipnet.nn import FLOAT

OFFSETS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1))  # the 3x3 window, row-major


def channels_in(weights):
    """The channels a convolution's weights (9 c, c') read, from the weights alone: a
    shape taken from the activations would make PyTensor infer it through the whole
    network below, once per layer, at every graph build."""
    return weights.shape[0] // 9


def conv3x3(h, weights, side, batch):
    """(batch, side * side, c) activations -> (batch, side * side, c'): each cell's 3x3
    neighbourhood of channels (9 c numbers, offset-major; off the frame reads zero) times
    `weights` (9 c, c')."""
    c = channels_in(weights)
    framed = pt.zeros((batch, side + 2, side + 2, c), dtype=h.dtype)
    framed = pt.set_subtensor(framed[:, 1:-1, 1:-1, :], h.reshape((batch, side, side, c)))
    windows = pt.concatenate([framed[:, 1 + dr:1 + dr + side, 1 + dc:1 + dc + side, :]
                              for dr, dc in OFFSETS], axis=3)
    return pt.dot(windows.reshape((batch * side * side, 9 * c)), weights).reshape(
        (batch, side * side, weights.shape[1]))


def warm_up_cells(side):
    """(1, side * side) cells of a two-cell shape: an input to call a compiled function
    with once, so that Numba compiles it now, before helper processes are forked from this
    one (each would compile its own copy, on the core another job needs). Two cells, not
    one: PyTensor's Python linker rejects a one-row `set_subtensor` as broadcasting."""
    cells = np.zeros((1, side * side), FLOAT)
    cells[0, :2] = 1
    return cells


class FrameCells:
    """Rows (batch, side * side, channels): the whole frame, masked by the cells."""

    def __init__(self, side, cells=None):
        self.side = side
        self.cells = pt.matrix("cells", dtype=FLOAT) if cells is None else cells
        self.inputs = [self.cells]
        self.mask = self.cells[:, :, None]
        self.count = self.cells.sum(axis=1)[:, None]

    def feed(self, cells):
        return [cells]

    def first(self):
        """The input channel: 1 on a live cell."""
        return self.mask

    def conv(self, h, weights):
        return conv3x3(h, weights, self.side, self.cells.shape[0])

    def masked(self, x):
        return x * self.mask

    def framed(self, h, channels):
        return h


def live_rows(cells, side):
    """(live, neighbours) of (batch, side * side) 0/1 cells: the flat frame index of each
    live cell (batch-major), and the rows of its 9 neighbours in OFFSETS order, where
    len(live) stands for an empty or off-frame one."""
    cells = np.asarray(cells)
    batch, area = cells.shape
    if area != side * side:
        raise ValueError(f"{area} cells per row do not fill a {side}x{side} frame")
    live = np.flatnonzero(cells.reshape(-1) > 0)
    row_of = np.full(batch * area + 1, live.size, np.int64)  # the last: no cell
    row_of[live] = np.arange(live.size)
    r, c = np.divmod(live % area, side)
    neighbours = np.empty((live.size, len(OFFSETS)), np.int64)
    for k, (dr, dc) in enumerate(OFFSETS):
        inside = (r + dr >= 0) & (r + dr < side) & (c + dc >= 0) & (c + dc < side)
        neighbours[:, k] = row_of[np.where(inside, live + dr * side + dc, batch * area)]
    return live, neighbours


class LiveCells:
    """Rows (live cells, channels): only the shapes' cells, with their neighbours' rows."""

    def __init__(self, side):
        self.side = side
        self.live = pt.vector("live", dtype="int64")
        self.neighbours = pt.matrix("neighbours", dtype="int64")
        self.count = pt.tensor("count", dtype=FLOAT, shape=(None, 1))
        self.inputs = [self.live, self.neighbours, self.count]

    def feed(self, cells):
        live, neighbours = live_rows(cells, self.side)
        return [live, neighbours, np.asarray(cells, FLOAT).sum(axis=1, keepdims=True)]

    def first(self):
        return pt.ones((self.neighbours.shape[0], 1), dtype=FLOAT)

    def conv(self, h, weights):
        """Each row's 9 neighbours' channels side by side, times `weights` (9 c, c')."""
        c = channels_in(weights)
        padded = pt.concatenate([h, pt.zeros((1, c), dtype=h.dtype)], axis=0)
        windows = padded[self.neighbours.flatten()].reshape((self.neighbours.shape[0], 9 * c))
        return pt.dot(windows, weights)

    def masked(self, x):
        return x  # every row is a live cell

    def framed(self, h, channels):
        """(batch, side * side, channels): the rows put back in their frames, zero elsewhere."""
        area, batch, c = self.side * self.side, self.count.shape[0], channels
        frame = pt.zeros((batch * area, c), dtype=h.dtype)
        return pt.set_subtensor(frame[self.live], h).reshape((batch, area, c))
