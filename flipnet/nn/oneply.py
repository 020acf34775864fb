"""A model plus one ply of lookahead: a component's value as the mex, over its options
(the game's moves), of the XOR of the model's own values of the parts each leaves.

This uses the game's move generator at prediction time, and no solver or table beyond
the model itself; results that use it are reported as "model + 1-ply mex", beside the
model alone, never in its place.
"""

import numpy as np

from flipnet.datasets.components import options


def mex_over_options(option_start, option_values):
    """For each shape, the smallest value none of its options has."""
    out = np.zeros(len(option_start) - 1, np.int64)
    for i in range(len(out)):
        seen = set(option_values[option_start[i]:option_start[i + 1]].tolist())
        v = 0
        while v in seen:
            v += 1
        out[i] = v
    return out


def one_ply(component_value, keys):
    """The 1-ply value of each shape key, from `component_value(keys) -> values`."""
    keys = np.asarray(keys, np.uint64)
    option_start, part_start, part_keys = options(keys)
    part_values = component_value(part_keys) if part_keys.size else np.zeros(0, np.int64)
    # XOR of each option's parts (an option that leaves no part is worth 0)
    cumulative = np.concatenate([[0], np.bitwise_xor.accumulate(part_values)]) if part_values.size \
        else np.zeros(1, np.int64)
    option_values = cumulative[part_start[1:]] ^ cumulative[part_start[:-1]]
    return mex_over_options(option_start, option_values)


def positions_one_ply(component_value, components, states):
    """Values of positions: the XOR over their components of the 1-ply values."""
    keys = components.keys(components.split(states))
    if keys.shape[1] == 0:
        return np.zeros(len(keys), np.int64)
    shapes, inverse = np.unique(keys, return_inverse=True)
    values = np.zeros(len(shapes), np.int64)
    present = shapes != 0
    values[present] = one_ply(component_value, shapes[present])
    return np.bitwise_xor.reduce(values[inverse.reshape(keys.shape)], axis=1)
