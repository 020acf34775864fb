"""Each cell's option values: a second, richer target for a shape network.

A shape's value is the mex of its options' values (the game's moves), and the training
labels fix many options too: an option's value is the XOR of the values of the parts the
move leaves, known when the table (`nn/lookup.py`) holds every part. So besides a
shape's one value, a network can be taught, for each of its cells, which values the
moves through that cell reach: up to 16 yes/no answers per cell instead of one class
per shape, all read from the training labels. A bit is certain when some known option
through the cell has that value (yes), or when every option through it is known (then
no as well); the rest is left out of the loss. This is an auxiliary target: the network
still answers a shape's value from its value head alone.
"""

import numpy as np
import pytensor.tensor as pt

from flipnet.datasets.components import move_cells, options

N_BITS = 16  # option values 0..15: uint16 sets


def option_targets(keys, table, side):
    """(sets, certain): uint16 arrays (keys, side * side); bit v of sets[i, cell] says a
    known option of shape i through that cell (drawn top-left in a side x side frame) is
    worth v; bit v of certain[i, cell] says that answer is certain."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    option_start, part_start, part_keys = options(keys)
    part_known, part_value = table.known(part_keys)
    n_options = len(part_start) - 1
    option_of_part = np.repeat(np.arange(n_options), np.diff(part_start))
    value = np.zeros(n_options, np.int64)
    np.bitwise_xor.at(value, option_of_part, part_value)
    unknown_parts = np.bincount(option_of_part, weights=~part_known, minlength=n_options)
    known = unknown_parts == 0
    if (value[known] >= N_BITS).any():
        raise ValueError(f"an option is worth {value[known].max()}: option sets hold values below {N_BITS}")

    cells = move_cells(keys, option_start)  # (options, 2, (row, col))
    shape = np.repeat(np.arange(keys.size), np.diff(option_start))
    slot = (shape[:, None] * side * side + cells[..., 0] * side + cells[..., 1]).ravel()
    both = np.repeat(np.arange(n_options), 2)
    sets = np.zeros(keys.size * side * side, np.uint16)
    np.bitwise_or.at(sets, slot[known[both]], (1 << value[both][known[both]]).astype(np.uint16))
    open_moves = np.bincount(slot, weights=~known[both], minlength=sets.size)
    live = np.bincount(slot, minlength=sets.size) > 0
    certain = np.where(live & (open_moves == 0), np.uint16(0xFFFF), np.where(live, sets, 0)).astype(np.uint16)
    return sets.reshape(keys.size, side * side), certain.reshape(keys.size, side * side)


def certain_share(certain):
    """The share of the answers (live cells x 16 bits) that are certain."""
    live = certain != 0
    bits = np.bitwise_count(certain[live]).sum()
    return float(bits / max(live.sum() * N_BITS, 1))


def unpack(sets):
    """(..., N_BITS) float32 0/1 of uint16 sets."""
    return ((sets[..., None] >> np.arange(N_BITS, dtype=np.uint16)) & 1).astype(np.float32)


def masked_bce(logits, targets, certain):
    """Mean binary cross-entropy of sigmoid(logits) against the targets over the certain
    entries only (all three (batch, cells, N_BITS))."""
    per_entry = pt.softplus(logits) - targets * logits
    return (per_entry * certain).sum() / pt.maximum(certain.sum(), 1.0)
