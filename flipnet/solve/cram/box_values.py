"""The nimber of every position of a box, written in place in the endgame database's layout.

Four bits a position, two a byte (bit r * w + c is cell (r, c); position p in the low
half of byte p // 2 when p is even), filled straight into the database file's memory
map: nothing the size of the box is held besides the file's own pages (the table DP of
`solve.dp` carries a one-hot word a position and a copy to write out; for the 30-cell set
it peaked at 4.5 GB and took four times as long). A move only clears cells,
so every option of position p is a smaller integer than p, and positions taken in
increasing order find their options' values done. The threads share the work by the box's
last row: the positions whose last row holds the cells R form a block, every option of
the block lies in a block of a subset of R (or in its own, earlier), so the blocks of one
popcount of R are independent and go in parallel, one popcount after another (a block
holds whole bytes, so no two threads write one). Reading p's options in increasing p
walks a few dozen sequential streams through the array, which the CPU prefetches.
"""

import numpy as np
from numba import prange

from flipnet.base.kernels import njit
from flipnet.solve.cram.bits import lowest_bit_index
from flipnet.base.errors import BadInput

BLOCKS_A_STEP = 4  # blocks filled between two reports of progress (two a thread)
MAX_CELLS = 32  # a game of at most 31 cells lasts at most 15 moves, so its nimber fits four bits; of a
# box of 32, only the full box could have 16, which the fill refuses


@njit(cache=True, inline="always")
def _nimber_at(values, p):
    """The nimber of position p: its half of byte p // 2."""
    return (values[p >> np.uint64(1)] >> ((p & np.uint64(1)) << np.uint64(2))) & np.uint8(15)


@njit(cache=True, parallel=True)
def _fill_blocks(values, rows_of_block, h, w, overflow):
    """Fill the blocks whose last row is each of `rows_of_block`, in parallel; overflow[0]
    set where a nimber does not fit four bits."""
    low_bits = (h - 1) * w
    has_right = np.uint64(0)  # cells with a right neighbour in the box
    for r in range(h):
        has_right |= np.uint64(((1 << (w - 1)) - 1) << (r * w))
    width = np.uint64(w)
    across_pair, down_pair = np.uint64(3), np.uint64(1) | (np.uint64(1) << width)  # a domino at cell 0
    for k in prange(rows_of_block.size):
        base = np.uint64(rows_of_block[k]) << np.uint64(low_bits)
        for low in range(1 << low_bits):
            p = base | np.uint64(low)
            seen = np.uint32(0)
            across = p & (p >> np.uint64(1)) & has_right  # horizontal dominoes, by their left cell
            while across:
                i = lowest_bit_index(across)
                seen |= np.uint32(1) << np.uint32(_nimber_at(values, p ^ (across_pair << np.uint64(i))))
                across &= across - np.uint64(1)
            down = p & (p >> width)  # vertical dominoes, by their upper cell
            while down:
                i = lowest_bit_index(down)
                seen |= np.uint32(1) << np.uint32(_nimber_at(values, p ^ (down_pair << np.uint64(i))))
                down &= down - np.uint64(1)
            v = 0
            while seen & (np.uint32(1) << np.uint32(v)):
                v += 1
            if v > 15:
                overflow[0] = 1
            byte, shift = p >> np.uint64(1), (p & np.uint64(1)) << np.uint64(2)
            values[byte] = (values[byte] & ~(np.uint8(15) << shift)) | (np.uint8(v) << shift)


def fill_box_values(values, h, w, progress=None):
    """Write the nimber of every position of the h x w box (bit r * w + c is cell (r, c))
    into `values` (uint8, 2^(h*w) / 2 of them, two positions a byte: an array or a memory
    map). `progress`, if given, is called with the positions done after each step."""
    if h < 2 or h * w > MAX_CELLS:
        raise BadInput(f"boxes need 2 or more rows and at most {MAX_CELLS} cells (a nimber of four bits), "
                       f"not {h}x{w}")
    if values.size != 1 << (h * w - 1) or values.dtype != np.uint8:
        raise BadInput(f"a {h}x{w} box has {1 << (h * w)} positions, two a uint8")
    overflow = np.zeros(1, np.uint8)
    last_rows = np.arange(1 << w, dtype=np.int64)
    counts = np.array([bin(r).count("1") for r in range(1 << w)])
    for ones in range(w + 1):
        layer = last_rows[counts == ones]
        for start in range(0, layer.size, BLOCKS_A_STEP):
            blocks = layer[start:start + BLOCKS_A_STEP]
            _fill_blocks(values, blocks, h, w, overflow)
            if overflow[0]:
                raise BadInput(f"a position of the {h}x{w} box has a nimber past 15: it does not fit four bits")
            if progress:
                progress(blocks.size << ((h - 1) * w))
