"""The study's named networks, with the original initialisation: the 1D convolution and
its dense comparison, the 2D MLP, logistic regression and the 2D convolution block."""

import numpy as np

from flipnet.nn.core.layers import (band_layout, correlation_layout, dense, multi_filter_correlation,
                                    multiwidth_conv1d)
from flipnet.nn.core.model import Network, normal, one_row

def conv1d(rng, rows, length, n_classes=7):
    """The paper's 1D model: one valid filter per width 2..length (190 outputs for 20),
    tanh; dense 64 tanh; dense softmax. Conv W ~ N(0, sqrt(1/k)), conv b ~ N(0, 1);
    hidden W ~ N(0, sqrt(1/64)), b = 0; output W = b = 0."""
    one_row("conv1d", rows)
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

    return Network("conv1d", 1, length, n_classes, init, forward)


def fc1d(rng, rows, length, n_classes=7):
    """The paper's comparison: a dense 20 -> 190 tanh layer in place of the convolution.
    It follows the hidden-layer rule: W ~ N(0, sqrt(1/n_out)), b = 0."""
    one_row("fc1d", rows)
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

    return Network("fc1d", 1, length, n_classes, init, forward)


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


def mlp2d(rng, rows, cols, n_classes=10):
    """The paper's 2D MLP: cells -> 300 tanh -> 60 tanh -> 10 softmax."""
    sizes = [rows * cols, 300, 60, n_classes]
    return Network("mlp2d", rows, cols, n_classes, _mlp_layers(rng, sizes),
                 lambda x, p: _mlp_forward(x, p, 3))


def logreg2d(rng, rows, cols, n_classes=10):
    """Logistic regression: cells -> 10 softmax, initialised like the MLP's layers."""
    return Network("logreg2d", rows, cols, n_classes, _mlp_layers(rng, [rows * cols, n_classes]),
                 lambda x, p: _mlp_forward(x, p, 1))


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

    return Network("convmlp2d", rows, cols, n_classes, init, forward)
