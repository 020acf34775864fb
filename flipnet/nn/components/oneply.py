"""A model plus one ply of lookahead: a component's value as the mex, over its options
(the game's moves), of the XOR of the model's own values of the parts each leaves.

The model's values are read as probabilities ("soft" mex): each option's distribution is
the XOR-convolution of its parts' distributions, and the component's value is the most
likely mex of the options taken as independent. With certain values (one-hot, as the
lookup table gives) this is the plain mex. It was chosen over the mex of the parts'
most likely values on validation positions with new shapes (xormem2d: 5.75% against
5.96% wrong; docs/results.md).

This uses the game's move generator at prediction time, and no solver or table beyond
the model itself; results that use it are reported as "model + 1-ply mex", beside the
model alone, never in its place.
"""

import numpy as np

from flipnet.base.forked import forked_map
from flipnet.datasets.components import options

CHUNK = 2048  # shapes valued a call: progress and Ctrl-C between calls


def walsh_hadamard(n_values):
    """The n x n Walsh-Hadamard matrix: XOR-convolution becomes a product under it."""
    i = np.arange(n_values)
    return np.where(np.bitwise_count(i[:, None] & i[None, :]) % 2, -1.0, 1.0)


def option_distributions(part_probs, part_start):
    """(options, values) distribution of each option's value, the XOR of its parts'
    (parts part_start[j]..part_start[j + 1]; an option that leaves no part is worth 0)."""
    n_values = part_probs.shape[1]
    H = walsh_hadamard(n_values)
    spectra = part_probs @ H
    counts = np.diff(part_start)
    out = np.ones((len(counts), n_values))
    for k in range(1, int(counts.max(initial=0)) + 1):  # multiply in the k-th part of each option
        has = np.flatnonzero(counts >= k)
        out[has] *= spectra[part_start[has] + k - 1]
    return np.clip(out @ H / n_values, 0.0, 1.0)


def mex_distribution(option_probs):
    """(values,) approximate distribution of the mex of independent options: value k
    needs every v < k on some option and k on none. (The events for different v are
    treated as independent, which they are not quite: one option has one value.)"""
    none = np.prod(1.0 - option_probs, axis=0)  # no option has v
    some_below = np.concatenate([[1.0], np.cumprod(1.0 - none)[:-1]])  # every v < k present
    return some_below * none


def one_ply(component_probs, keys):
    """The 1-ply value of each shape key, from `component_probs(keys) -> (n, values)`."""
    keys = np.asarray(keys, np.uint64)
    option_start, part_start, part_keys = options(keys)
    part_probs = component_probs(part_keys) if part_keys.size else np.zeros((0, 2))  # no part: all worth 0
    option_probs = option_distributions(part_probs, part_start)
    return np.array([mex_distribution(option_probs[option_start[i]:option_start[i + 1]]).argmax()
                     for i in range(len(keys))], np.int64)


def one_ply_chunks(component_probs, keys, chunk, workers=1, done=None):
    """`one_ply` over chunks of `chunk` keys, shared with `workers` forked processes
    (`base/forked.py`): the same values whatever the number of workers, each chunk valued
    alone. `done(index, values)` here for each chunk (progress, a stop)."""
    keys = np.asarray(keys, np.uint64)
    parts = forked_map(lambda start: one_ply(component_probs, keys[start:start + chunk]),
                       range(0, keys.size, chunk), workers, done)
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def one_hot(component_value, n_values=16):
    """`component_probs` of a model that gives certain values (`component_value`); the
    width grows to the next power of two if a value needs it."""
    def probs(keys):
        values = np.asarray(component_value(keys), np.int64)
        n = n_values
        while values.size and values.max() >= n:
            n *= 2
        out = np.zeros((values.size, n))
        out[np.arange(values.size), values] = 1.0
        return out
    return probs
