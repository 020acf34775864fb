"""The XOR-of-components networks: a position's distribution from its components'
(xornet1d, xornet2d), with a memory of the training shapes (xormem2d), or reading shape
descriptions instead of cells (featmem2d)."""

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.base.errors import FlipnetError
from flipnet.datasets.components import Components
from flipnet.datasets.shapes import FEATURES, ShapeTable
from flipnet.nn import FLOAT
from flipnet.nn.core.compile import ComponentPredictor
from flipnet.nn.core.layers import decode_bits, dense
from flipnet.nn.core.model import Network, normal, one_row
from flipnet.nn.core.xor import walsh_hadamard

class ComponentModel(Network):
    """Beyond the paper, by the Sprague-Grundy theorem: a position's value is the XOR of
    its live components' values (`datasets.components`). One network (`forward`) reads
    every component; the position's distribution is the XOR-convolution of its
    components' distributions, computed exactly as a product in the Walsh-Hadamard
    domain. An empty slot counts as value 0 and costs nothing: inside a batch the
    positions are ordered by their number of components, so slot k is used by a prefix
    of them and only used slots are computed.

    Components are named by their shapes' keys (the same on every board). The network
    reads a component as `reader` says: "cells", the shape's cells top-left in a
    (rows, cols) `frame` (default the board's; a shape that does not fit cannot be read), or
    "features", a size-free description (`datasets.shapes`) kept in a table that grows
    with the shapes met (a pure function of the shape: no labels in it).

    With a memory, the model also keeps one row of logits per component shape seen in
    training (its vocabulary, fixed by `fit`), added to the network's logits for that
    shape: the network generalises to new shapes, the memory learns the exceptions of
    the shapes it has met. Its rows are updated sparsely (only the rows a minibatch
    uses), by plain SGD on the summed loss at `memory_gain` times the learning rate;
    unseen shapes use a last row that stays zero.
    """

    memory_gain = 250.0  # a step of 0.5 per occurrence at Adam's rate 0.002
    input_dtype = "uint64"
    values_shapes = True

    def __init__(self, name, rows, cols, n_classes, init, forward, slots, memory=False,
                 reader="cells", frame=None):
        super().__init__(name, rows, cols, n_classes, init, forward)
        self.components, self.slots = Components(rows, cols), slots
        self.reader = reader
        self._shape_predictor = None
        self.frame = frame or self.components.frame
        self.input_shape = (slots, 2) if memory else (slots,)
        self.hadamard = pt.constant(walsh_hadamard(n_classes).astype(FLOAT))
        if reader == "features":  # descriptions of the shapes met, read by row in the graph
            self.features = ShapeTable()
            self.feature_table = pytensor.shared(np.zeros((1, FEATURES), dtype=FLOAT),
                                                 shape=(None, FEATURES), name="shape_table")
        if memory:
            self.memory = pytensor.shared(np.zeros((1, n_classes), dtype=FLOAT), name="memory",
                                          shape=(None, n_classes))
            self.names.append("memory")
            self.params.append(self.memory)
            self.vocabulary = np.zeros(0, dtype=np.uint64)

    def fit(self, train_states):
        if self.memory is not None:
            self.set_buffers({"vocabulary": np.unique(self.components.shapes(train_states))})

    def buffers(self):
        return {} if self.memory is None else {"vocabulary": self.vocabulary}

    def set_buffers(self, arrays):
        if self.memory is not None:
            self.vocabulary = np.asarray(arrays["vocabulary"], dtype=np.uint64)
            self.memory.set_value(np.zeros((len(self.vocabulary) + 1, self.n_classes), dtype=FLOAT))

    @property
    def size_free(self):
        """A "features" reader reads shapes of any size; a "cells" reader only those that
        fit its frame, so it stays on its own board."""
        return self.reader == "features"

    def for_board(self, rows, cols):
        """The same model reading rows x cols positions: its weights and memory are shared,
        only the number of slots grows with the board."""
        if (rows, cols) == (self.rows, self.cols):
            return self
        if not self.size_free:
            raise FlipnetError(f"{self.name} reads the cells of {self.rows}x{self.cols} shapes only "
                               f"(not size-free)")
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._predictor = None  # compiled for this board's slots
        other.rows, other.cols, other.components = rows, cols, Components(rows, cols)
        other.slots = max(self.slots, -(-(rows * cols) // 3))
        other.input_shape = (other.slots, *self.input_shape[1:])
        return other

    def network_inputs(self, keys):
        """What the network reads for each key: frame masks, or rows of the feature table."""
        if self.reader == "features":
            rows = self.features.rows(keys)
            self.feature_table.set_value(self.features.array.astype(FLOAT))
            return rows
        return self.components.render(keys, self.frame)

    def memory_index(self, keys):
        """The memory row of each key: its place in the vocabulary, or the last (zero) row
        for a shape not met in training (and for no shape at all)."""
        vocabulary = self.vocabulary if self.memory is not None else np.zeros(0, np.uint64)
        index = np.searchsorted(vocabulary, keys)
        known = (keys != 0) & (index < len(vocabulary))
        known[known] = vocabulary[index[known]] == keys[known]
        return np.where(known, index, len(vocabulary)).astype(np.int64)

    def known_shapes(self):
        """The shapes the model met in training (its vocabulary), or None without a memory."""
        return self.vocabulary if self.memory is not None else None

    def _shapes(self):
        if self._shape_predictor is None:
            self._shape_predictor = ComponentPredictor(self, quick_rows=self.quick_rows)
        return self._shape_predictor

    def shape_values(self, keys):
        """The most likely value of each shape key (its network's logits plus its memory row)."""
        return self._shapes()(keys)

    def shape_probabilities(self, keys):
        return self._shapes().probabilities(keys)

    def prepare(self, states):
        """(n, slots) network inputs of the components, used slots first (0: empty); with
        a memory, (n, slots, 2): those and the memory rows."""
        keys = self.components.encode(states, self.slots)
        inputs = np.where(keys != 0, self.network_inputs(keys), 0).astype(np.uint64)
        if self.memory is None:
            return inputs
        return np.stack([inputs, self.memory_index(keys).astype(np.uint64)], axis=-1)

    def _packed(self, inputs):
        """(used slots' inputs, the batch order that packs them, used count per slot):
        with positions in decreasing order of component count, the used entries of slot
        k are its first counts[k] rows."""
        masks = inputs[..., 0] if self.memory is not None else inputs
        per_position = pt.sum(pt.neq(masks, 0), axis=1)
        order = pt.argsort(-per_position)
        ordered = inputs[order]
        counts = [pt.sum(pt.gt(per_position, k)) for k in range(self.slots)]
        return pt.concatenate([ordered[:n, k] for k, n in enumerate(counts)]), order, counts

    def memory_rows(self, inputs):
        """The memory row of every used slot of a batch of prepared inputs, packed."""
        return pt.cast(self._packed(inputs)[0][:, 1], "int64")

    def component_logits(self, net_inputs, p, rows=None):
        """(values, components) logits of packed components: the network's reading of each,
        plus its memory row."""
        if self.reader == "features":
            net_inputs = self.feature_table[pt.cast(net_inputs, "int64")].T  # (features, components)
        x = self._forward(net_inputs, p)
        return x if rows is None else x + rows.T

    def logits(self, inputs, params=None, rows=None):
        """Log-probabilities of the values, one row per position; `rows` stands in for
        the gathered memory rows (the trainer's sparse update needs them as a variable)."""
        p = dict(zip(self.names, params or self.params))
        packed, order, counts = self._packed(inputs)
        if self.memory is None:
            x = self.component_logits(packed, p)
        else:
            rows = p["memory"][self.memory_rows(inputs)] if rows is None else rows
            x = self.component_logits(packed[:, 0], p, rows)
        shifted = x - pt.max(x, axis=0, keepdims=True)
        probs = pt.exp(shifted) / pt.sum(pt.exp(shifted), axis=0, keepdims=True)
        spectrum = pt.dot(self.hadamard, probs)  # (values, used slots)
        product, start = pt.ones((self.n_classes, inputs.shape[0]), dtype=FLOAT), 0
        for n in counts:
            product = pt.set_subtensor(product[:, :n], product[:, :n] * spectrum[:, start:start + n])
            start = start + n
        position = pt.dot(self.hadamard, product) / np.float32(self.n_classes)
        log_probs = pt.log(pt.maximum(position, np.float32(1e-7))).T
        return log_probs[pt.argsort(order)]  # back in the batch's order


def xornet1d(rng, rows, cols):
    """The XOR-of-components network on strings: its components are runs of ones."""
    one_row("xornet1d", rows)
    return xornet2d(rng, rows, cols, name="xornet1d")


def xornet2d(rng, rows, cols, n_classes=16, widths=(256, 128), slots=None, name="xornet2d",
             memory=False):
    """A ComponentModel whose component network is an MLP (cells -> 256 -> 128 -> 16,
    relu) on the canonical component's cells: it has to learn every shape's value, from
    positions' values only."""
    n = rows * cols  # the frame of canonical shapes, min(rows, cols) x max(rows, cols)
    # 6 for 5x5: the most any 5x5 position has (checked over all 2^25); else n/3 rounded up
    slots = slots or (6 if (rows, cols) == (5, 5) else -(-n // 3))
    sizes = [n, *widths, n_classes]
    init = {}
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        init[f"W{k}"] = normal(rng, np.sqrt(2 / n_in), (n_in, n_out))
        init[f"b{k}"] = np.zeros(n_out)

    def forward(masks, p):
        x = decode_bits(masks, n)  # (cells, components)
        for k in range(len(sizes) - 1):
            x = dense(x, p[f"W{k}"], p[f"b{k}"], "relu" if k < len(sizes) - 2 else "linear")
        return x

    return ComponentModel(name, rows, cols, n_classes, init, forward, slots, memory)


def xormem2d(rng, rows, cols):
    """xornet2d with a memory of the component shapes met in training (ComponentModel)."""
    return xornet2d(rng, rows, cols, name="xormem2d", memory=True)


def featmem2d(rng, rows, cols, n_classes=16, widths=(128, 64)):
    """Size-free: a ComponentModel whose network reads a shape's description
    (`datasets.shapes`: 8-neighbourhood patterns, degrees, size; the same numbers on any
    board) -> 128 -> 64 -> 16, relu, with a memory of the training shapes. It reads
    positions of any board; what it learnt of a shape on 5x5 boards it applies anywhere."""
    sizes = [FEATURES, *widths, n_classes]
    init = {}
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        init[f"W{k}"] = normal(rng, np.sqrt(2 / n_in), (n_in, n_out))
        init[f"b{k}"] = np.zeros(n_out)

    def forward(x, p):  # x: (features, components)
        for k in range(len(sizes) - 1):
            x = dense(x, p[f"W{k}"], p[f"b{k}"], "relu" if k < len(sizes) - 2 else "linear")
        return x

    slots = 6 if (rows, cols) == (5, 5) else -(-(rows * cols) // 3)
    return ComponentModel("featmem2d", rows, cols, n_classes, init, forward, slots, memory=True,
                          reader="features")
