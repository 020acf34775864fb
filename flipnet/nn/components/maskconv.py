"""A size-free network over a shape's cells: 3x3 convolutions masked to the shape.

Every layer's activations are multiplied by the shape's cells, so an empty cell and the
edge of the frame look alike (zero): the network reads a shape the same way in any
frame it is drawn in, and what it learnt of 5x5 shapes it applies to 7x7 ones. Pooling
over the cells (mean, sum, max) and log(1 + cells) feed a small MLP to the values.

A convolution lays each cell's 3x3 neighbourhood side by side (9 x channels numbers)
and multiplies them by the weights once. Where the rows are, the whole frame or the live
cells only, is a layout (`nn/components/layouts.py`): training and prediction read live cells, twice
as fast; the frame form is the reference. Cells are rows here, unlike the feature-major
dense layers: the channels of a cell are what a weight matrix mixes.
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.base.forked import forked_map
from flipnet.base.progress import bar
from flipnet.datasets.components import Components
from flipnet.datasets.symmetry import cell_maps
from flipnet.nn import FLOAT, in_float
from flipnet.nn.components.layouts import FrameCells, LiveCells, warm_up_cells
from flipnet.nn.core.compile import NUMPY_MODE, log_softmax_rows, softmax_rows
from flipnet.nn.core.layers import log_softmax
from flipnet.base.errors import BadInput

CHUNK = 2048  # shapes a call of the compiled function takes
SIZE_SCALE = 25.0  # the sum pooled over cells is divided by this (the 5x5 board's cells)


def render_cells(keys, side):
    """(keys, side * side) float 0/1 cells of each shape key, top-left in a square frame."""
    masks = Components(side, side).render(np.asarray(keys, np.uint64), (side, side))
    bits = (masks[:, None] >> np.arange(side * side, dtype=np.uint64)) & np.uint64(1)
    return bits.astype(FLOAT)


class MaskedConvNet:
    """The network's parameters (shared variables, by name) and its graph for any frame.

    `channels` maps per cell; a first 3x3 layer, then `layers` residual ones
    h + relu(conv(h)), all masked; pooled; dense `hidden` relu; dense to `n_classes`.
    He initialisation, the residual layers at half of it so the sum starts small.
    `residual_gates`: each residual layer's branch is multiplied by a learnt scalar that
    starts at zero (ReZero), so the network starts as its first layer and pooling alone
    and takes on each layer's depth as training finds a use for it.
    """

    def __init__(self, seed, channels=32, layers=4, hidden=128, n_classes=16, residual_gates=False):
        rng = np.random.default_rng(seed)
        self.channels, self.layers, self.hidden, self.n_classes = channels, layers, hidden, n_classes
        self.residual_gates = bool(residual_gates)
        c, pooled = channels, 3 * channels + 1
        spread = 0.5 * np.sqrt(2 / (9 * c))  # He, halved for the residual layers
        init = {"conv_in_W": rng.normal(0, 1 / 3, (9, c)), "conv_in_b": np.zeros(c)}
        for k in range(layers):
            init[f"conv{k}_W"] = rng.normal(0, spread, (9 * c, c))
            init[f"conv{k}_b"] = np.zeros(c)
        init.update({"hidden_W": rng.normal(0, np.sqrt(2 / pooled), (pooled, hidden)),
                     "hidden_b": np.zeros(hidden),
                     "out_W": rng.normal(0, np.sqrt(1 / hidden), (hidden, n_classes)),
                     "out_b": np.zeros(n_classes)})
        if self.residual_gates:
            # 1-element vectors, not 0-d: Numba code that PyTensor loads from its compile
            # cache updates 0-d parameters a rounding away from freshly compiled code, so a
            # run's weights depended on the cache
            init.update({f"conv{k}_gate": np.zeros(1) for k in range(layers)})
        self.names = list(init)
        self.params = [pytensor.shared(np.asarray(v, dtype=FLOAT), name=k) for k, v in init.items()]
        self.memory = None  # what the trainer's Run expects of a model
        self._compiled = {}

    def architecture(self):
        arch = {"channels": self.channels, "layers": self.layers, "hidden": self.hidden,
                "n_classes": self.n_classes}
        return {**arch, "residual_gates": True} if self.residual_gates else arch

    def logits(self, cells, side, params=None):
        """(batch, n_classes) logits of (batch, side * side) 0/1 cell rows (the frame form)."""
        return self.logits_in(FrameCells(side, cells), params)

    def logits_in(self, layout, params=None):
        """`logits` of the shapes a layout (`nn/components/layouts.py`) holds."""
        p = dict(zip(self.names, params or self.params))
        count = layout.count
        h = layout.masked(pt.maximum(layout.conv(layout.first(), p["conv_in_W"]) + p["conv_in_b"], 0))
        for k in range(self.layers):
            branch = layout.masked(pt.maximum(layout.conv(h, p[f"conv{k}_W"]) + p[f"conv{k}_b"], 0))
            h = h + (p[f"conv{k}_gate"][0] * branch if self.residual_gates else branch)
        h = layout.framed(h, self.channels)
        total = h.sum(axis=1)
        pooled = pt.concatenate([total / count, total / np.float32(SIZE_SCALE), _cells_max(h), pt.log1p(count)],
                                axis=1)
        z = pt.maximum(pt.dot(pooled, p["hidden_W"]) + p["hidden_b"], 0)
        return pt.dot(z, p["out_W"]) + p["out_b"]

    @in_float
    def log_probs_function(self, side, quick=False):
        """f(cells (batch, side * side)) -> log-probabilities, compiled once per frame
        (over the live cells); `quick`: run op by op in numpy (`compile.NUMPY_MODE`),
        which needs no Numba compile, for a few shapes."""
        if (side, quick) not in self._compiled:
            layout = LiveCells(side)
            if quick:
                logits = pytensor.function(layout.inputs, self.logits_in(layout), mode=NUMPY_MODE)
                self._compiled[side, quick] = lambda cells: log_softmax_rows(logits(*layout.feed(cells)))
            else:
                fn = pytensor.function(layout.inputs, log_softmax(self.logits_in(layout)))
                fn(*layout.feed(warm_up_cells(side)))  # compiled now, before any fork
                self._compiled[side, quick] = lambda cells: fn(*layout.feed(cells))
        return self._compiled[side, quick]

    def probabilities(self, keys, side, average=True, chunk=CHUNK, workers=1, quick_rows=0):
        """(keys, n_classes) distribution of each shape key's value, its cells drawn in a
        side x side frame; `average`: the normalised geometric mean over the frame's 8
        symmetries (each shape's images are the same shape). With `workers`, the chunks
        are shared with forked processes (`base/forked.py`): the same answer, bit for bit.
        At most `quick_rows` keys are answered in numpy, without a compile."""
        keys = np.asarray(keys, np.uint64)
        f = self.log_probs_function(side, quick=keys.size <= quick_rows)  # built here, before any fork
        maps = cell_maps(side, side) if average else [np.arange(side * side)]

        def chunk_probabilities(start):
            cells = render_cells(keys[start:start + chunk], side)
            return softmax_rows(sum(f(cells[:, image]) for image in maps) / len(maps))

        # many shapes take tens of seconds (a 5x5 test split's: 30 s): a bar on a terminal
        with bar(keys.size, "network on shapes", unit="shape", terminal_only=True,
                 more_than=chunk) as progress:
            parts = forked_map(chunk_probabilities, range(0, keys.size, chunk), workers,
                               done=lambda _, part: progress.update(len(part)))
        return np.concatenate(parts) if parts else np.empty((0, self.n_classes))

    def get_values(self):
        return {n: p.get_value() for n, p in zip(self.names, self.params)}

    def set_values(self, values):
        for n, p in zip(self.names, self.params):
            value = np.asarray(values[n], dtype=FLOAT)
            if n.endswith("_gate") and value.shape == ():  # as files kept gates before
                value = value.reshape(1)
            if value.shape != p.get_value().shape:
                raise BadInput(f"parameter {n} has shape {value.shape}, the network expects "
                                 f"{p.get_value().shape}")
            p.set_value(value)

    def n_parameters(self):
        return sum(p.get_value().size for p in self.params)


def _cells_max(framed):
    """(batch, c): each channel's maximum over the shape's cells and 0, from (batch, cells
    of the frame, c) with zeros off the shape. A frame's maximum is that whenever the frame
    has an empty cell; the 0 makes it so for a shape that fills its frame too, so the answer
    does not depend on the frame even where activations go negative (residual gates)."""
    return pt.maximum(framed.max(axis=1), 0)
