"""A size-free network over a shape's cells: 3x3 convolutions masked to the shape.

Every layer's activations are multiplied by the shape's cells, so an empty cell and the
edge of the frame look alike (zero): the network reads a shape the same way in any
frame it is drawn in, and what it learnt of 5x5 shapes it applies to 7x7 ones. Pooling
over the cells (mean, sum, max) and log(1 + cells) feed a small MLP to the values.

A convolution lays each cell's 3x3 neighbourhood side by side (9 x channels numbers)
and multiplies them by the weights once. Where the rows are, the whole frame or the live
cells only, is a layout (`nn/layouts.py`): training and prediction read live cells, twice
as fast; the frame form is the reference. Cells are rows here, unlike the feature-major
dense layers: the channels of a cell are what a weight matrix mixes.
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.base.forked import forked_map
from flipnet.datasets.components import Components
from flipnet.datasets.symmetry import cell_maps
from flipnet.nn import FLOAT, d4
from flipnet.nn.layers import log_softmax
from flipnet.nn.layouts import FrameCells, LiveCells
from flipnet.nn.options import N_BITS

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
    `option_head`: also a dense map from each cell's last activations to 16 logits, the
    values its moves reach (`nn/options.py`; a training target only, never an answer).
    `global_pool`: each residual layer also adds, to every cell, a dense map of the mean
    and the maximum of the layer below over the shape's cells, so what is far away in the
    shape reaches each cell in one layer, not one cell a layer (zero at the start: the
    same seed starts from the same function as without it).
    `equivariant`: the convolutions are D4 group convolutions (`nn/d4.py`): the channels
    are channels / 8 fields of 8, the weights tied, the pooling also over each field's 8,
    so every rotation and reflection of a shape gets the same logits by construction.
    `residual_gates`: each residual layer's branch is multiplied by a learnt scalar that
    starts at zero (ReZero), so the network starts as its first layer and pooling alone
    and takes on each layer's depth as training finds a use for it.
    `loop_steps`: after the residual layers, one more residual layer whose weights are
    shared by every step, applied to each shape `loop_steps` times per cell of its box's
    longest side, with its own gate (zero at the start) and a map of the first layer's
    channels added at every step ("recall"). A 3x3 step carries news one cell, so the
    steps grow with the distance news must travel: a 7x7 shape is given more of them than
    any 5x5 shape was in training, and a shape gets the same steps in any frame.
    `size_blind`: the readout sees the mean and the maximum over the shape's cells only,
    no sum and no count of cells, so it cannot key on a shape's size: a 5x5 board's large
    shapes are all dense, and the larger boards' large shapes are not.
    """

    def __init__(self, seed, channels=32, layers=4, hidden=128, n_classes=16, option_head=False,
                 global_pool=False, equivariant=False, residual_gates=False, loop_steps=0, size_blind=False):
        rng = np.random.default_rng(seed)
        self.channels, self.layers, self.hidden, self.n_classes = channels, layers, hidden, n_classes
        self.option_head, self.global_pool = bool(option_head), bool(global_pool)
        self.equivariant, self.residual_gates = bool(equivariant), bool(residual_gates)
        self.loop_steps, self.size_blind = int(loop_steps), bool(size_blind)
        if self.equivariant and (channels % d4.ORDER or option_head or global_pool or loop_steps or size_blind):
            raise ValueError(f"an equivariant network needs channels in fields of {d4.ORDER} "
                             f"(got {channels}) and takes no option head, global pooling, loop or "
                             f"size-blind readout")
        c, fields = channels, channels // d4.ORDER
        pooled = 6 * fields + 1 if self.equivariant else 2 * channels if self.size_blind else 3 * channels + 1
        spread = 0.5 * np.sqrt(2 / (9 * c))  # He, halved for the residual layers
        self._tied = {}  # name: the full matrix's indices into the flattened tied base
        if self.equivariant:  # the tied weights, drawn with the spread of the full matrices
            init = {"conv_in_W": rng.normal(0, 1 / 3, (fields, 9)), "conv_in_b": np.zeros(fields)}
            self._tied["conv_in_W"] = d4.lifting_index(fields)
            for k in range(layers):
                init[f"conv{k}_W"] = rng.normal(0, spread, (fields, fields, d4.ORDER, 9))
                init[f"conv{k}_b"] = np.zeros(fields)
                self._tied[f"conv{k}_W"] = d4.group_index(fields, fields)
        else:
            init = {"conv_in_W": rng.normal(0, 1 / 3, (9, c)), "conv_in_b": np.zeros(c)}
            for k in range(layers):
                init[f"conv{k}_W"] = rng.normal(0, spread, (9 * c, c))
                init[f"conv{k}_b"] = np.zeros(c)
        init.update({"hidden_W": rng.normal(0, np.sqrt(2 / pooled), (pooled, hidden)),
                     "hidden_b": np.zeros(hidden),
                     "out_W": rng.normal(0, np.sqrt(1 / hidden), (hidden, n_classes)),
                     "out_b": np.zeros(n_classes)})
        if self.option_head:  # drawn after the others: the same seed, the same other weights
            init.update({"options_W": rng.normal(0, np.sqrt(1 / c), (c, N_BITS)),
                         "options_b": np.zeros(N_BITS)})
        if self.global_pool:
            init.update({f"conv{k}_G": np.zeros((2 * c, c)) for k in range(layers)})
        if self.residual_gates:
            # 1-element vectors, not 0-d: Numba code that PyTensor loads from its compile
            # cache updates 0-d parameters a rounding away from freshly compiled code, so a
            # run's weights depended on the cache (docs/experiments.md, eleventh session)
            init.update({f"conv{k}_gate": np.zeros(1) for k in range(layers)})
        if self.loop_steps:  # drawn last: the same seed, the same other weights
            init.update({"loop_W": rng.normal(0, spread, (9 * c, c)), "loop_b": np.zeros(c),
                         "loop_R": np.zeros((c, c)), "loop_gate": np.zeros(1)})
        self.names = list(init)
        self.params = [pytensor.shared(np.asarray(v, dtype=FLOAT), name=k) for k, v in init.items()]
        self.memory = None  # what the trainer's Run expects of a model
        self._compiled = {}

    def architecture(self):
        arch = {"channels": self.channels, "layers": self.layers, "hidden": self.hidden,
                "n_classes": self.n_classes}
        flags = {"option_head": self.option_head, "global_pool": self.global_pool,
                 "equivariant": self.equivariant, "residual_gates": self.residual_gates,
                 "size_blind": self.size_blind}
        loop = {"loop_steps": self.loop_steps} if self.loop_steps else {}
        return {**arch, **{name: True for name, on in flags.items() if on}, **loop}

    def logits(self, cells, side, params=None):
        """(batch, n_classes) logits of (batch, side * side) 0/1 cell rows (the frame form)."""
        return self.outputs(cells, side, params)[0]

    def outputs(self, cells, side, params=None):
        """(value logits (batch, n_classes), option logits (batch, side * side, 16) or None
        without the option head), from one pass over the frame of `cells`."""
        return self.outputs_in(FrameCells(side, cells), params)

    def outputs_in(self, layout, params=None, extra=None, extra_max=0):
        """`outputs` of the shapes a layout (`nn/layouts.py`) holds. With a loop, `extra`
        (a symbolic int scalar in 0..extra_max) more shared steps for every shape: a
        training setting (`--loop-extra`), never used at prediction."""
        p = dict(zip(self.names, params or self.params))
        if self.equivariant:
            p = self._untied(p)
        count = layout.count
        h = layout.masked(pt.maximum(layout.conv(layout.first(), p["conv_in_W"]) + p["conv_in_b"], 0))
        first = h
        for k in range(self.layers):
            pre = layout.conv(h, p[f"conv{k}_W"]) + p[f"conv{k}_b"]
            if self.global_pool:
                framed = layout.framed(h)
                shape_wide = pt.concatenate([framed.sum(axis=1) / count, _cells_max(framed)], axis=1)
                pre = pre + layout.per_cell(pt.dot(shape_wide, p[f"conv{k}_G"]))
            branch = layout.masked(pt.maximum(pre, 0))
            h = h + (p[f"conv{k}_gate"][0] * branch if self.residual_gates else branch)
        if self.loop_steps:
            h = self._looped(h, first, layout, p, extra, extra_max)
        h = layout.framed(h)
        option_logits = pt.dot(h, p["options_W"]) + p["options_b"] if self.option_head else None
        total = h.sum(axis=1)
        if self.size_blind:
            pooled = pt.concatenate([total / count, _cells_max(h)], axis=1)
        else:
            pools = [total / count, total / np.float32(SIZE_SCALE), _cells_max(h)]
            if self.equivariant:  # each field's 8 channels are its 8 turns: their mean and maximum
                fields = [pool.reshape((pool.shape[0], self.channels // d4.ORDER, d4.ORDER)) for pool in pools]
                pools = [summary for f in fields for summary in (f.mean(axis=2), f.max(axis=2))]
            pooled = pt.concatenate([*pools, pt.log1p(count)], axis=1)
        z = pt.maximum(pt.dot(pooled, p["hidden_W"]) + p["hidden_b"], 0)
        return pt.dot(z, p["out_W"]) + p["out_b"], option_logits

    def _looped(self, h, first, layout, p, extra=None, extra_max=0):
        """h after the shared residual step, taken by each shape as many times as it is
        given (`loop_steps` per cell of its longest side, plus `extra`): the graph holds
        the steps of the frame's widest shape, and a row past its shape's count keeps its h."""
        steps = self.loop_steps * box_extent(layout)
        if extra is not None:
            steps = steps + pt.cast(extra, FLOAT)
        steps_of_row = layout.per_cell(steps)
        recall = pt.dot(first, p["loop_R"]) + p["loop_b"]
        for step in range(self.loop_steps * layout.side + extra_max):
            branch = layout.masked(pt.maximum(layout.conv(h, p["loop_W"]) + recall, 0))
            taken = pt.cast(pt.gt(steps_of_row, step), FLOAT)
            h = h + taken * p["loop_gate"][0] * branch
        return h

    def _untied(self, p):
        """The parameters with each tied base spread to its full weight matrix, and each
        field's bias to its 8 channels."""
        full = dict(p)
        for name, index in self._tied.items():  # a flat index: PyTensor's faster 1D gather
            full[name] = p[name].flatten()[index.ravel()].reshape(index.shape)
        channel_field = np.repeat(np.arange(self.channels // d4.ORDER), d4.ORDER)
        for name in ["conv_in_b"] + [f"conv{k}_b" for k in range(self.layers)]:
            full[name] = p[name][channel_field]
        return full

    def log_probs_function(self, side):
        """f(cells (batch, side * side)) -> log-probabilities, compiled once per frame
        (over the live cells)."""
        if side not in self._compiled:
            layout = LiveCells(side)
            fn = pytensor.function(layout.inputs, log_softmax(self.outputs_in(layout)[0]))
            self._compiled[side] = lambda cells: fn(*layout.feed(cells))
        return self._compiled[side]

    def probabilities(self, keys, side, average=True, chunk=CHUNK, workers=1):
        """(keys, n_classes) distribution of each shape key's value, its cells drawn in a
        side x side frame; `average`: the normalised geometric mean over the frame's 8
        symmetries (each shape's images are the same shape). With `workers`, the chunks
        are shared with forked processes (`base/forked.py`): the same answer, bit for bit."""
        keys = np.asarray(keys, np.uint64)
        f = self.log_probs_function(side)  # built here, before any fork
        maps = cell_maps(side, side) if average else [np.arange(side * side)]

        def chunk_probabilities(start):
            cells = render_cells(keys[start:start + chunk], side)
            return _softmax(sum(f(cells[:, image]) for image in maps) / len(maps))

        parts = forked_map(chunk_probabilities, range(0, keys.size, chunk), workers)
        return np.concatenate(parts) if parts else np.empty((0, self.n_classes))

    def get_values(self):
        return {n: p.get_value() for n, p in zip(self.names, self.params)}

    def set_values(self, values):
        for n, p in zip(self.names, self.params):
            value = np.asarray(values[n], dtype=FLOAT)
            if n.endswith("_gate") and value.shape == ():  # as files kept gates before
                value = value.reshape(1)
            if value.shape != p.get_value().shape:
                raise ValueError(f"parameter {n} has shape {value.shape}, the network expects "
                                 f"{p.get_value().shape}")
            p.set_value(value)

    def n_parameters(self):
        return sum(p.get_value().size for p in self.params)


class ExtraSteps:
    """The `--loop-extra` input of a compiled training step, as a layout holds its cells:
    `symbol` for the graph (None without extra steps), `inputs` for the function, and
    `feed(extra)` for a call, checked."""

    def __init__(self, most):
        self.most = most
        self.symbol = pt.scalar("extra", dtype="int64") if most else None
        self.inputs = [self.symbol] if most else []

    def feed(self, extra):
        checked = extra_steps_input(extra, self.most)
        return [checked] if self.most else []


def extra_steps_input(extra, extra_max):
    """`extra` loop steps as a compiled step's input, checked: its graph holds at most
    `extra_max` more (a row past the graph's steps would silently take fewer)."""
    if not 0 <= extra <= extra_max:
        raise ValueError(f"extra loop steps {extra} outside the step's 0..{extra_max}")
    return np.asarray(extra, np.int64)


def box_extent(layout):
    """(batch, 1): the longest side of each shape's bounding box, read from its cells in
    the layout's frame (0 for an empty frame)."""
    side = layout.side
    occupied = layout.framed(layout.first())[:, :, 0]
    grid = occupied.reshape((occupied.shape[0], side, side))
    index = np.arange(side)

    def span(lines):  # (batch, side) 0/1: whether each row (or column) holds a cell
        held = pt.gt(lines, 0)
        low = pt.switch(held, index, side).min(axis=1)
        high = pt.switch(held, index, -1).max(axis=1)
        return pt.maximum(high - low + 1, 0)

    extent = pt.maximum(span(grid.max(axis=2)), span(grid.max(axis=1)))
    return pt.cast(extent, FLOAT)[:, None]


def _cells_max(framed):
    """(batch, c): each channel's maximum over the shape's cells and 0, from (batch, cells
    of the frame, c) with zeros off the shape. A frame's maximum is that whenever the frame
    has an empty cell; the 0 makes it so for a shape that fills its frame too, so the answer
    does not depend on the frame even where activations go negative (residual gates)."""
    return pt.maximum(framed.max(axis=1), 0)


def _softmax(log_weights):
    weights = np.exp(log_weights - log_weights.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)
