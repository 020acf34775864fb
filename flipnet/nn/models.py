"""The study's named networks, built from layers, with the original initialisation.

A model maps a batch of state integers to class logits, one row per state (inside, the
layers work feature-major: one column per state). Its parameters are shared
variables; `logits(states, params)` also accepts stand-ins for them (the trainer's scan).
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.nn import FLOAT
from flipnet.nn.layers import (band_layout, correlation_layout, decode_bits, dense, layer_norm,
                               live_cells, multi_filter_correlation, multiwidth_conv1d)

MODELS = {}


def register(name, **protocol):
    """Register a model builder with the training protocol of the paper for it."""
    def wrap(build):
        MODELS[name] = (build, protocol)
        return build
    return wrap


class Model:
    """Named parameters (shared variables) and a forward function of (x, params dict).

    `prepare` turns state integers into the model's input rows (by default the states
    themselves); `input_shape` is the shape of one row (() for a bare state integer).
    """

    input_shape = ()

    def __init__(self, name, rows, cols, n_classes, init, forward):
        self.name, self.rows, self.cols, self.n_classes = name, rows, cols, n_classes
        self.names = list(init)
        self.params = [pytensor.shared(np.asarray(v, dtype=FLOAT), name=k) for k, v in init.items()]
        self._forward = forward

    def prepare(self, states):
        return np.asarray(states, dtype=np.uint32)

    @property
    def n_cells(self):
        return self.rows * self.cols

    def logits(self, states, params=None):
        x = decode_bits(states, self.n_cells)
        return self._forward(x, dict(zip(self.names, params or self.params))).T

    def get_values(self):
        return {n: p.get_value() for n, p in zip(self.names, self.params)}

    def set_values(self, values):
        for n, p in zip(self.names, self.params):
            if values[n].shape != p.get_value().shape:
                raise ValueError(f"parameter {n} has shape {values[n].shape}, "
                                 f"model {self.name} expects {p.get_value().shape}")
            p.set_value(np.asarray(values[n], dtype=FLOAT))

    def n_parameters(self):
        return sum(p.get_value().size for p in self.params)


def build(name, seed, rows=None, cols=None):
    """A fresh model with the paper's initialisation from `seed`, for boards of the given
    shape (default: the paper's shape for that model)."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: choose from {', '.join(MODELS)}")
    builder, proto = MODELS[name]
    rows = proto["rows"] if rows is None else rows
    cols = proto["cols"] if cols is None else cols
    return builder(np.random.default_rng(seed), rows, cols)


def protocol(name):
    """The paper's data and training settings for a model (the trainer's defaults)."""
    proto = dict(MODELS[name][1])
    del proto["rows"], proto["cols"]
    return proto


def _one_row(name, rows):
    if rows != 1:
        raise ValueError(f"{name} reads one row of cells, not {rows} rows")


def normal(rng, std, shape):
    return rng.normal(0.0, std, size=shape)


PROTOCOL_1D = dict(data="data/flip1d.h5", bucket=0, lr=0.01, batch=20, epochs=1000, shuffle="once",
                   rows=1, cols=20)


@register("conv1d", **PROTOCOL_1D)
def conv1d(rng, rows, length, n_classes=7):
    """The paper's 1D model: one valid filter per width 2..length (190 outputs for 20),
    tanh; dense 64 tanh; dense softmax. Conv W ~ N(0, sqrt(1/k)), conv b ~ N(0, 1);
    hidden W ~ N(0, sqrt(1/64)), b = 0; output W = b = 0."""
    _one_row("conv1d", rows)
    widths = tuple(range(2, length + 1))
    layout = band_layout(length, widths)
    n_conv = layout[0].shape[1]
    init = {
        "conv_w": np.concatenate([normal(rng, np.sqrt(1 / k), k) for k in widths]),
        "conv_b": normal(rng, 1.0, len(widths)),
        "hidden_W": normal(rng, np.sqrt(1 / 64), (n_conv, 64)),
        "hidden_b": np.zeros(64),
        "out_W": np.zeros((64, n_classes)),
        "out_b": np.zeros(n_classes),
    }

    def forward(x, p):
        h = multiwidth_conv1d(x, p["conv_w"], p["conv_b"], layout)
        h = dense(h, p["hidden_W"], p["hidden_b"], "tanh")
        return dense(h, p["out_W"], p["out_b"])

    return Model("conv1d", 1, length, n_classes, init, forward)


@register("fc1d", **PROTOCOL_1D)
def fc1d(rng, rows, length, n_classes=7):
    """The paper's comparison: a dense 20 -> 190 tanh layer in place of the convolution.
    It follows the hidden-layer rule: W ~ N(0, sqrt(1/n_out)), b = 0."""
    _one_row("fc1d", rows)
    n_conv = sum(length - k + 1 for k in range(2, length + 1))
    init = {
        "fc_W": normal(rng, np.sqrt(1 / n_conv), (length, n_conv)),
        "fc_b": np.zeros(n_conv),
        "hidden_W": normal(rng, np.sqrt(1 / 64), (n_conv, 64)),
        "hidden_b": np.zeros(64),
        "out_W": np.zeros((64, n_classes)),
        "out_b": np.zeros(n_classes),
    }

    def forward(x, p):
        h = dense(x, p["fc_W"], p["fc_b"], "tanh")
        h = dense(h, p["hidden_W"], p["hidden_b"], "tanh")
        return dense(h, p["out_W"], p["out_b"])

    return Model("fc1d", 1, length, n_classes, init, forward)


PROTOCOL_2D = dict(data="data/flip2d.h5", bucket=1, lr=0.02, batch=50, epochs=200, shuffle="once",
                   rows=5, cols=5)
CONV_SHAPES_2D = [(i, j) for i in range(2, 6) for j in range(1, 6)]


def _mlp_layers(rng, sizes):
    """Dense layers of the 2D MLP: every W ~ N(0, sqrt(1/n_out)), every b ~ N(0, 1)."""
    init = {}
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        init[f"W{k}"] = normal(rng, np.sqrt(1 / n_out), (n_in, n_out))
        init[f"b{k}"] = normal(rng, 1.0, n_out)
    return init


def _mlp_forward(x, p, n_layers):
    for k in range(n_layers):
        x = dense(x, p[f"W{k}"], p[f"b{k}"], "tanh" if k < n_layers - 1 else "linear")
    return x


@register("mlp2d", **PROTOCOL_2D)
def mlp2d(rng, rows, cols, n_classes=10):
    """The paper's 2D MLP: cells -> 300 tanh -> 60 tanh -> 10 softmax."""
    sizes = [rows * cols, 300, 60, n_classes]
    return Model("mlp2d", rows, cols, n_classes, _mlp_layers(rng, sizes),
                 lambda x, p: _mlp_forward(x, p, 3))


@register("logreg2d", **PROTOCOL_2D)
def logreg2d(rng, rows, cols, n_classes=10):
    """Logistic regression: cells -> 10 softmax, initialised like the MLP's layers."""
    return Model("logreg2d", rows, cols, n_classes, _mlp_layers(rng, [rows * cols, n_classes]),
                 lambda x, p: _mlp_forward(x, p, 1))


@register("convmlp2d", **PROTOCOL_2D)
def convmlp2d(rng, rows, cols, n_classes=10):
    """The convolution block the authors tried in front of the MLP: for every filter shape
    (i, j), i in 2..5, j in 1..5 (those that fit the board), two maps, "valid", tanh, one
    scalar bias per map; all outputs concatenated into the same MLP. The paper gives no
    initialisation for it: weights ~ N(0, sqrt(1/(i j))) as the 1D filters, biases ~ N(0, 1)."""
    shapes = [(i, j) for i, j in CONV_SHAPES_2D if i <= rows and j <= cols]
    layout = correlation_layout(rows, cols, shapes, maps=2)
    filters = [shape for shape in shapes for _ in range(2)]
    init = {"conv_w": np.concatenate([normal(rng, np.sqrt(1 / (i * j)), i * j) for i, j in filters]),
            "conv_b": normal(rng, 1.0, len(filters))}
    init.update(_mlp_layers(rng, [layout[0].shape[1], 300, 60, n_classes]))

    def forward(x, p):
        return _mlp_forward(multi_filter_correlation(x, p["conv_w"], p["conv_b"], layout), p, 3)

    return Model("convmlp2d", rows, cols, n_classes, init, forward)


def _adjacency(rows, cols):
    from flipnet.games import FlipGame

    adjacency = np.zeros((rows * cols, rows * cols))
    for mask in FlipGame(rows, cols).move_masks:
        i, j = (k for k in range(rows * cols) if mask >> k & 1)
        adjacency[i, j] = adjacency[j, i] = 1
    return adjacency


def residual_mlp(name, rng, rows, cols, n_classes, width, blocks):
    """Beyond the paper: cells -> live cells (full cells with a full neighbour; the others
    never matter) -> dense `width` -> `blocks` residual blocks h + W2 relu(W1 LN(h)) ->
    LN, relu -> dense softmax. He initialisation; each block's second layer starts at
    zero, so the network starts as a shallow one and grows into its depth."""
    n = rows * cols
    adjacency = _adjacency(rows, cols)
    init = {"W_in": normal(rng, np.sqrt(2 / n), (n, width)), "b_in": np.zeros(width)}
    for k in range(blocks):
        init.update({f"g{k}": np.ones(width), f"s{k}": np.zeros(width),
                     f"W{k}a": normal(rng, np.sqrt(2 / width), (width, width)), f"b{k}a": np.zeros(width),
                     f"W{k}b": np.zeros((width, width)), f"b{k}b": np.zeros(width)})
    init.update({"g_out": np.ones(width), "s_out": np.zeros(width),
                 "W_out": normal(rng, np.sqrt(1 / width), (width, n_classes)), "b_out": np.zeros(n_classes)})

    def forward(x, p):
        h = dense(live_cells(x, adjacency), p["W_in"], p["b_in"])
        for k in range(blocks):
            u = dense(layer_norm(h, p[f"g{k}"], p[f"s{k}"]), p[f"W{k}a"], p[f"b{k}a"], "relu")
            h = h + dense(u, p[f"W{k}b"], p[f"b{k}b"])
        h = pt.maximum(layer_norm(h, p["g_out"], p["s_out"]), 0)
        return dense(h, p["W_out"], p["b_out"])

    return Model(name, rows, cols, n_classes, init, forward)


@register("resmlp2d", **{**PROTOCOL_2D, "optimizer": "adam", "lr": 0.002, "batch": 512,
                         "epochs": 30, "schedule": "onecycle", "shuffle": "epoch",
                         "augment": "symmetry", "tta": True, "weight_decay": 0.0})
def resmlp2d(rng, rows, cols, n_classes=10):
    return residual_mlp("resmlp2d", rng, rows, cols, n_classes, width=128, blocks=6)


class ComponentModel(Model):
    """A model whose input rows are the canonical live components of a position."""

    def __init__(self, name, rows, cols, n_classes, init, forward, slots):
        super().__init__(name, rows, cols, n_classes, init, forward)
        from flipnet.components import Components

        self.components, self.slots = Components(rows, cols), slots
        self.input_shape = (slots,)

    def prepare(self, states):
        return self.components.encode(states, self.slots)

    def logits(self, inputs, params=None):
        return self._forward(inputs, dict(zip(self.names, params or self.params))).T


def _walsh_hadamard(n):
    """The n x n Walsh-Hadamard matrix: entry (s, v) is (-1)^popcount(s & v)."""
    s, v = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    parity = np.vectorize(lambda x: bin(x).count("1") & 1)(s & v)
    return 1.0 - 2.0 * parity


XORNET_TRAINING = {"optimizer": "adam", "lr": 0.002, "batch": 256, "epochs": 30,
                   "schedule": "onecycle", "shuffle": "epoch"}


@register("xornet1d", **{**PROTOCOL_1D, **XORNET_TRAINING, "epochs": 20})
def xornet1d(rng, rows, cols):
    """The XOR-of-components network on strings: its components are runs of ones."""
    _one_row("xornet1d", rows)
    return xornet2d(rng, rows, cols, name="xornet1d")


@register("xornet2d", **{**PROTOCOL_2D, **XORNET_TRAINING})
def xornet2d(rng, rows, cols, n_classes=16, widths=(256, 128), slots=None, name="xornet2d"):
    """Beyond the paper, by the Sprague-Grundy theorem: a position's value is the XOR of
    its live components' values. One MLP reads each canonical component (see
    flipnet.components) and gives a distribution over values 0..15; the position's
    distribution is the XOR-convolution of its components', computed exactly as a
    product in the Walsh-Hadamard domain. Empty slots count as value 0. The network
    still has to learn every shape's value, from positions' values only."""
    n = rows * cols
    # 6 for 5x5: the most any 5x5 position has (checked over all 2^25); else n/3 rounded up
    slots = slots or (6 if (rows, cols) == (5, 5) else -(-n // 3))
    sizes = [n, *widths, n_classes]
    init = {}
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        init[f"W{k}"] = normal(rng, np.sqrt(2 / n_in), (n_in, n_out))
        init[f"b{k}"] = np.zeros(n_out)
    hadamard = pt.constant(_walsh_hadamard(n_classes).astype(FLOAT))

    def forward(inputs, p):
        batch = inputs.shape[0]
        x = decode_bits(inputs.reshape((-1,)), n)  # (cells, batch * slots)
        for k in range(len(sizes) - 1):
            x = dense(x, p[f"W{k}"], p[f"b{k}"], "relu" if k < len(sizes) - 2 else "linear")
        shifted = x - pt.max(x, axis=0, keepdims=True)
        probs = pt.exp(shifted) / pt.sum(pt.exp(shifted), axis=0, keepdims=True)
        spectrum = pt.dot(hadamard, probs)  # (values, batch * slots)
        empty = pt.eq(inputs.reshape((-1,)), 0)[None, :]
        spectrum = pt.switch(empty, np.float32(1), spectrum).reshape((n_classes, batch, slots))
        product = spectrum[:, :, 0]
        for k in range(1, slots):
            product = product * spectrum[:, :, k]
        position = pt.dot(hadamard, product) / np.float32(n_classes)
        return pt.log(pt.maximum(position, np.float32(1e-7)))  # log-probabilities as logits

    return ComponentModel(name, rows, cols, n_classes, init, forward, slots)
