"""How a component's shape is written, in one place.

- The search's shape word: the frame's rows and columns, `h << 7 | w` (a frame has at most
  64 cells, so each fits 7 bits). A canonical form is (bits, shape word).
- The packed key that datasets and models name a shape by: the canonical bits with the
  frame's rows and columns above them, `bits | h << 52 | w << 58`. It holds shapes whose
  box has at most 52 cells (every shape of a board up to 7x7).

Each reader and writer is a Numba function inlined where it is used, so the search pays
nothing for naming them.
"""

import numpy as np

from flipnet.base.kernels import njit

SIDE_BITS = 7  # of a shape word: h << SIDE_BITS | w
SIDE_MASK = (1 << SIDE_BITS) - 1
KEY_BITS = 52  # of a packed key: the canonical bits below, h at KEY_BITS, w at KEY_COLS
KEY_COLS = 58
KEY_SIDE_MASK = (1 << (KEY_COLS - KEY_BITS)) - 1
MAX_KEY_BOX = KEY_BITS  # cells of the largest box a packed key holds


@njit(cache=True, inline="always")
def shape_word(h, w):
    return np.int64((h << SIDE_BITS) | w)


@njit(cache=True, inline="always")
def shape_rows(shape):
    return shape >> SIDE_BITS


@njit(cache=True, inline="always")
def shape_cols(shape):
    return shape & SIDE_MASK


@njit(cache=True, inline="always")
def packed_key(bits, shape):
    """The key of a canonical form (bits, shape word); its box must hold at most KEY_BITS cells."""
    return bits | (np.uint64(shape >> SIDE_BITS) << np.uint64(KEY_BITS)) | \
        (np.uint64(shape & SIDE_MASK) << np.uint64(KEY_COLS))


@njit(cache=True, inline="always")
def key_frame(key):
    """(canonical bits, h, w) of a packed key."""
    h = np.int64((key >> np.uint64(KEY_BITS)) & np.uint64(KEY_SIDE_MASK))
    w = np.int64(key >> np.uint64(KEY_COLS))
    return key & ((np.uint64(1) << np.uint64(KEY_BITS)) - np.uint64(1)), h, w


def key_sides(keys):
    """(h, w, cells) of each packed key of an array, as int64 arrays."""
    keys = np.asarray(keys, dtype=np.uint64)
    h = (keys >> np.uint64(KEY_BITS)) & np.uint64(KEY_SIDE_MASK)
    w = keys >> np.uint64(KEY_COLS)
    cells = np.bitwise_count(keys & np.uint64((1 << KEY_BITS) - 1))
    return h.astype(np.int64), w.astype(np.int64), cells.astype(np.int64)
