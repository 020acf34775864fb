"""Distributions of XOR sums: the distribution of a position's value from its components'
(Sprague-Grundy: the value is the XOR of theirs), exactly, as a product in the
Walsh-Hadamard domain (the XOR convolution's transform)."""

import functools

import numpy as np


@functools.cache
def walsh_hadamard(n):
    """The n x n Walsh-Hadamard matrix: entry (s, v) is (-1)^popcount(s & v)."""
    s, v = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    parity = np.bitwise_count(s & v) & 1
    matrix = 1.0 - 2.0 * parity
    matrix.setflags(write=False)  # shared by every caller
    return matrix


def position_distributions(components, states, shape_probabilities, n_values):
    """(states, n_values): the distribution of each position's value, the XOR convolution
    of its components' distributions (`shape_probabilities(keys) -> (keys, n_values)`,
    asked once for the distinct shapes present; a power of two of values)."""
    keys = components.keys(components.split(states))
    hadamard = walsh_hadamard(n_values)
    spectrum = np.ones((len(keys), n_values))
    if keys.shape[1]:
        shapes, inverse = np.unique(keys, return_inverse=True)
        spectra = np.ones((len(shapes), n_values))  # key 0, no shape: value 0 for certain
        present = shapes != 0
        if present.any():
            spectra[present] = shape_probabilities(shapes[present])[:, :n_values] @ hadamard
        spectrum = spectra[inverse.reshape(keys.shape)].prod(axis=1)
    out = np.clip(spectrum @ hadamard / n_values, 0.0, None)
    return out / out.sum(axis=1, keepdims=True)
