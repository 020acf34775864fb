"""Layers as functions of symbolic tensors: the caller owns the parameters.

Keeping parameters outside the layers lets the trainer run a whole epoch inside one
`scan`, where the parameters are loop-carried values rather than shared variables.

Activations are feature-major: a batch is a (features, batch) matrix, one column per
example. A bias then varies along the slow axis only, and the Numba backend vectorizes
the fused bias + tanh loop; with examples as rows the same fused loop runs about 9x
slower (measured on the 300-unit layer of the 2D MLP), which was a third of its step.
Weights keep the usual (n_in, n_out) shape.
"""

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import disconnected_grad

from flipnet.nn import FLOAT

# Rational approximation of tanh on [-c, c] (odd numerator of degree 13, even
# denominator of degree 6); |error| < 4e-7 in float32. Pure arithmetic, so the Numba
# backend vectorizes it, where np.tanh is a scalar libm call per element (15x slower).
_TANH_CLAMP = 7.90531110763549805
_TANH_NUM = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
             5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
             -2.76076847742355e-16)
_TANH_DEN = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
             1.19825839466702e-06)


def tanh(x):
    """tanh: exact in float64 graphs; the fast rational form in float32 graphs.

    The fast form's gradient is defined as 1 - y^2, exactly as for tanh, instead of
    differentiating the polynomials.
    """
    if x.dtype != "float32":
        return pt.tanh(x)
    dtype = np.float32
    c = dtype(_TANH_CLAMP)
    xc = pt.clip(x, -c, c)
    x2 = xc * xc
    num = dtype(_TANH_NUM[-1])
    for k in _TANH_NUM[-2::-1]:
        num = num * x2 + dtype(k)
    den = dtype(_TANH_DEN[-1])
    for k in _TANH_DEN[-2::-1]:
        den = den * x2 + dtype(k)
    y = disconnected_grad(xc * num / den)
    return y + (x - disconnected_grad(x)) * disconnected_grad(1 - y * y)


ACTIVATIONS = {"tanh": tanh, "sigmoid": pt.sigmoid, "relu": lambda z: pt.maximum(z, 0),
               "linear": lambda z: z}


def dense(x, W, b, activation="linear"):
    """activation(W^T x + b) for a batch of columns x (n_in, batch) -> (n_out, batch)."""
    return ACTIVATIONS[activation](pt.dot(W.T, x) + b[:, None])


def correlation_layout(rows, cols, shapes, maps=1):
    """Where each filter weight goes in the (cells, outputs) matrix of a set of single-
    channel "valid" correlations over a rows x cols board, and which bias each output takes.

    Filter f (shape (h, w), one per map of each shape) has weights at flat offsets
    off_f .. off_f + h*w - 1 in row-major order; its output at (r, c) is
    sum_{i, j} w[off_f + i*w + j] * x[(r + i) * cols + (c + j)]. Matrix entries that no
    weight uses point one past the last weight, where a zero is appended.
    """
    filters = [(h, w) for h, w in shapes for _ in range(maps)]
    n_weights = sum(h * w for h, w in filters)
    n_outputs = sum((rows - h + 1) * (cols - w + 1) for h, w in filters)
    index = np.full((rows * cols, n_outputs), n_weights, dtype=np.int64)
    bias_of = np.empty(n_outputs, dtype=np.int64)
    col = offset = 0
    for f, (h, w) in enumerate(filters):
        for r in range(rows - h + 1):
            for c in range(cols - w + 1):
                for i in range(h):
                    cells = (r + i) * cols + c + np.arange(w)
                    index[cells, col] = offset + i * w + np.arange(w)
                bias_of[col] = f
                col += 1
        offset += h * w
    return index, bias_of


def band_layout(length, widths):
    """The 1D case: one filter per width over a single row."""
    return correlation_layout(1, length, [(1, k) for k in widths])


def multi_filter_correlation(x, weights, biases, layout, activation="tanh"):
    """Every filter's "valid" correlation over the board, all outputs stacked, for a batch
    of columns x (cells, batch) -> (outputs, batch).

    Computed as one matrix product with a sparse-banded matrix gathered from the filter
    weights (one gather per call), which on a CPU beats one small correlation per filter.
    """
    index, bias_of = layout
    matrix = pt.concatenate([weights, pt.zeros((1,), dtype=weights.dtype)])[index]
    return ACTIVATIONS[activation](pt.dot(matrix.T, x) + biases[bias_of][:, None])


multiwidth_conv1d = multi_filter_correlation  # the 1D paper's name for it


def log_softmax(z):
    """Row-wise log-softmax, shifted by the row maximum so exp never overflows."""
    shifted = z - pt.max(z, axis=-1, keepdims=True)
    return shifted - pt.log(pt.sum(pt.exp(shifted), axis=-1, keepdims=True))


def mean_cross_entropy(logits, y):
    """Mean categorical cross-entropy of softmax(logits) against integer labels y."""
    return -pt.mean(log_softmax(logits)[pt.arange(y.shape[0]), y])


def decode_bits(states, n_cells, dtype=FLOAT):
    """(n_cells, batch) 0/1 matrix of state integers: row j is bit j (cell j), one column
    per state (the feature-major layout of the layers)."""
    masks = (np.uint64(1) << np.arange(n_cells, dtype=np.uint64)).astype(states.dtype)
    return pt.cast(pt.neq(pt.bitwise_and(states[None, :], masks[:, None]), 0), dtype)
