"""Positions as masks on a small frame, in Numba: moves, components, canonical keys.

A position lives on a frame of h rows and w columns, cell (r, c) being bit r * w + c: a
uint64 when h * w <= 64, a 128-bit `wide.U128` when h * w <= 128. Each kernel is written
once with operators and compiled for the width it is given (`wide`); a row of a frame is
always one word. A connected component is keyed by its canonical form: moved to the
top-left corner and, of its 8 images under rotation and reflection, the one with
h <= w and the smallest bits when packed with its own width as the stride. The key is
(bits, shape word: `keys.shape_word(h, w)`), so it is the same wherever, however and on
whatever board the component lies: the transposition table and the endgame database
are shared by every position.
"""

import numpy as np
from numba.extending import overload

from flipnet.base.kernels import njit
from flipnet.solve.cram.keys import shape_word
from flipnet.solve.cram.wide import (WIDE_CELLS, U128Type, bit_reversed, count_ones, leading_zeros, like, load, low,
                                     one_like, store, trailing_zeros, wide, width_of, zero_like)
from flipnet.solve.parts import WORD_CELLS

U1 = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


def _frame_masks():
    """full[h, w], first_col[h, w], last_col[h, w] for every frame of one word."""
    full = np.zeros((WORD_CELLS + 1, WORD_CELLS + 1), dtype=np.uint64)
    first = np.zeros((WORD_CELLS + 1, WORD_CELLS + 1), dtype=np.uint64)
    last = np.zeros((WORD_CELLS + 1, WORD_CELLS + 1), dtype=np.uint64)
    for h in range(1, WORD_CELLS + 1):
        for w in range(1, WORD_CELLS + 1):
            if h * w > WORD_CELLS:
                continue
            full[h, w] = (1 << (h * w)) - 1
            first[h, w] = sum(1 << (r * w) for r in range(h))
            last[h, w] = first[h, w] << (w - 1)
    return full, first, last


FULL, FIRST_COL, LAST_COL = _frame_masks()


def _wide_frame_masks():
    """The same masks for every frame of two words, as (low, high) words."""
    masks = np.zeros((3, WIDE_CELLS + 1, WIDE_CELLS + 1, 2), dtype=np.uint64)
    for h in range(1, WIDE_CELLS + 1):
        for w in range(1, WIDE_CELLS // h + 1):
            full = (1 << (h * w)) - 1
            first = sum(1 << (r * w) for r in range(h))
            for k, m in enumerate((full, first, first << (w - 1))):
                masks[k, h, w] = m & 0xFFFFFFFFFFFFFFFF, m >> WORD_CELLS
    return masks


WIDE_MASKS = _wide_frame_masks()  # [0: full, 1: first column, 2: last column, h, w]


def _frame_mask(table, kind):
    """The mask `table[h, w]` of a frame (a word), or its wide twin in WIDE_MASKS."""
    def stub(p, h, w):
        raise TypeError("a Numba function: call it from a kernel")

    def typing(p, h, w):
        if isinstance(p, U128Type):
            return lambda p, h, w: wide(WIDE_MASKS[kind, h, w, 0], WIDE_MASKS[kind, h, w, 1])
        return lambda p, h, w: table[h, w]

    overload(stub, inline="always")(typing)
    return stub


full_of, first_col_of, last_col_of = (_frame_mask(t, k) for k, t in enumerate((FULL, FIRST_COL, LAST_COL)))


def _dominoes_centre_first():
    """Every domino of every frame (h * w <= 128), nearest the frame's centre first:
    CODE[FIRST[h, w]:END[h, w]] holds 2 * (its top or left cell) + (1 if vertical), and
    DISTANCE twice each one's distance from the frame's centre (the larger of its row and
    column distances). Options met in this order reach one that settles a question sooner
    than met row by row (a fifth of them, not 28%). Built with whole arrays: a loop over
    the 64,154 dominoes took 37 ms of every start."""
    frames = np.array([(h, w) for h in range(1, WIDE_CELLS + 1) for w in range(1, WIDE_CELLS // h + 1)])
    hs, ws = frames[:, 0], frames[:, 1]
    per = 2 * hs * ws  # every cell twice: a horizontal and a vertical domino from it, if they fit
    frame = np.repeat(np.arange(len(frames)), per)
    k = np.arange(frame.size) - np.repeat(np.cumsum(per) - per, per)
    a, vertical = k // 2, k % 2
    h, w = hs[frame], ws[frame]
    fits = np.where(vertical == 1, a // w < h - 1, a % w < w - 1)
    frame, a, vertical, h, w = (x[fits] for x in (frame, a, vertical, h, w))
    distance = np.maximum(np.abs(2 * (a // w) + vertical - (h - 1)), np.abs(2 * (a % w) + 1 - vertical - (w - 1)))
    order = np.lexsort((a, vertical, distance, frame))  # by frame, then as (distance, vertical, a) sort
    counts = np.bincount(frame, minlength=len(frames))
    first = np.zeros((WIDE_CELLS + 1, WIDE_CELLS + 1), np.int64)
    end = np.zeros((WIDE_CELLS + 1, WIDE_CELLS + 1), np.int64)
    end[hs, ws] = np.cumsum(counts)
    first[hs, ws] = end[hs, ws] - counts
    return first, end, (2 * a + vertical)[order].astype(np.uint8), distance[order].astype(np.uint8)


DOMINO_FIRST, DOMINO_END, DOMINO_CODE, DOMINO_DISTANCE = _dominoes_centre_first()


@njit(cache=True, inline="always")
def popcount(x):
    return np.int64(count_ones(x))


@njit(cache=True, inline="always")
def lowest_bit_index(x):
    """Index of the lowest set bit of x (x != 0)."""
    return np.int64(trailing_zeros(x))


@njit(cache=True, inline="always")
def highest_bit_index(x):
    """Index of the highest set bit of x (x != 0)."""
    return width_of(x) - 1 - np.int64(leading_zeros(x))


@njit(cache=True, inline="always")
def lowest_bit(x):
    """The lowest set bit of x, as a mask."""
    return x & (~x + one_like(x))


@njit(cache=True, inline="always")
def neighbours(p, h, w):
    """Cells next to a cell of p (p's own cells may be among them) inside the h x w frame."""
    full = full_of(p, h, w)
    return (((p << np.uint64(1)) & full & ~first_col_of(p, h, w)) | ((p >> np.uint64(1)) & ~last_col_of(p, h, w))
            | ((p << np.uint64(w)) & full) | (p >> np.uint64(w)))


@njit(cache=True, inline="always")
def horizontal_moves(p, h, w):
    """Left cells of the free horizontal dominoes of p."""
    return p & (p >> np.uint64(1)) & ~last_col_of(p, h, w)


@njit(cache=True, inline="always")
def vertical_moves(p, h, w):
    """Top cells of the free vertical dominoes of p."""
    return p & (p >> np.uint64(w))


@njit(cache=True)
def move_count(p, h, w):
    return popcount(horizontal_moves(p, h, w)) + popcount(vertical_moves(p, h, w))


@njit(cache=True)
def split_without(p, h, w, cut, out):
    """`split`, on the graph of p without the horizontal links whose left cells are `cut`."""
    full = full_of(p, h, w)
    right_ok = ~cut & ~last_col_of(p, h, w)
    left_ok = ~(cut << np.uint64(1)) & ~first_col_of(p, h, w)
    n = 0
    rest = p
    while rest:
        comp = lowest_bit(rest)
        while True:
            grown = (comp | ((comp & right_ok) << np.uint64(1)) | ((comp & left_ok) >> np.uint64(1))
                     | ((comp << np.uint64(w)) & full) | (comp >> np.uint64(w))) & rest
            if grown == comp:
                break
            comp = grown
        rest &= ~comp
        if comp & (comp - one_like(comp)):  # two cells or more
            store(comp, out, n)
            n += 1
    return n


@njit(cache=True)
def split(p, h, w, out):
    """The connected components of p with two or more cells, into `out`; their count."""
    return split_without(p, h, w, zero_like(p), out)


@njit(cache=True, inline="always")
def reverse_bits(x, width):
    """The lowest `width` bits of x in reverse order."""
    return bit_reversed(x) >> np.uint64(width_of(x) - width)


@njit(cache=True)
def frame_rows(p, h, w, rows):
    """(bh, bw): the bounding box of p (non-empty) on the h x w frame; rows[0..bh) get
    p's rows inside it, shifted to its left edge."""
    mask = (U1 << np.uint64(w)) - U1 if w < 64 else ALL
    r0, r1 = -1, -1
    cols = np.uint64(0)
    for r in range(h):
        row = low(p >> np.uint64(r * w)) & mask
        if row:
            if r0 < 0:
                r0 = r
            r1 = r
            cols |= row
    c0 = lowest_bit_index(cols)
    c1 = highest_bit_index(cols)
    for i in range(r1 - r0 + 1):
        rows[i] = (low(p >> np.uint64((r0 + i) * w)) & mask) >> np.uint64(c0)
    return r1 - r0 + 1, c1 - c0 + 1


@njit(cache=True, inline="always")
def _transpose8(x):
    """The 8x8 bit matrix x (cell (r, c) at bit 8r + c) turned about its main diagonal:
    three swaps of bit blocks, where cell by cell takes a step per bit."""
    t = np.uint64(0x0F0F0F0F00000000) & (x ^ (x << np.uint64(28)))
    x ^= t ^ (t >> np.uint64(28))
    t = np.uint64(0x3333000033330000) & (x ^ (x << np.uint64(14)))
    x ^= t ^ (t >> np.uint64(14))
    t = np.uint64(0x5500550055005500) & (x ^ (x << np.uint64(7)))
    return x ^ t ^ (t >> np.uint64(7))


@njit(cache=True)
def transpose_rows(rows, bh, bw, trows):
    """trows[0..bw): the columns of the bh x bw rows, as rows."""
    if bh <= 8 and bw <= 8:  # every box the search meets, its frames lying with h <= w
        x = np.uint64(0)
        for i in range(bh):
            x |= rows[i] << np.uint64(8 * i)
        x = _transpose8(x)
        for j in range(bw):
            trows[j] = (x >> np.uint64(8 * j)) & np.uint64(0xFF)
        return
    for j in range(bw):
        trows[j] = np.uint64(0)
    for i in range(bh):
        x = rows[i]
        while x:
            j = lowest_bit_index(x)
            trows[j] |= U1 << np.uint64(i)
            x &= x - U1


@njit(cache=True)
def _smallest_flip(rows, bh, bw, zero):
    """The smallest packing (stride bw, in a mask of zero's width) of the rows under the two
    flips of the box: the rows packed in order and in reverse order, and the reversals of
    those two masks (a half-turn, and a flip of the columns)."""
    ahead, back = zero, zero
    for i in range(bh):
        ahead |= like(zero, rows[i]) << np.uint64(i * bw)
        back |= like(zero, rows[bh - 1 - i]) << np.uint64(i * bw)
    n = bh * bw
    best = ahead if ahead < back else back
    for bits in (reverse_bits(ahead, n), reverse_bits(back, n)):
        if bits < best:
            best = bits
    return best


@njit(cache=True)
def canonical_of_rows(rows, bh, bw, trows, transposed, zero):
    """(bits, shape) of the canonical form of the component in rows[0..bh) (bh x bw), its
    bits a mask of zero's width; `transposed`: trows already holds its transpose."""
    if bh < bw:
        return _smallest_flip(rows, bh, bw, zero), shape_word(bh, bw)
    if not transposed:
        transpose_rows(rows, bh, bw, trows)
    if bw < bh:
        return _smallest_flip(trows, bw, bh, zero), shape_word(bw, bh)
    a, b = _smallest_flip(rows, bh, bw, zero), _smallest_flip(trows, bw, bh, zero)
    return (a if a < b else b), shape_word(bh, bw)


@njit(cache=True)
def canonical(p, h, w, rows, trows):
    """(bits, shape) of the canonical form of p (any non-empty mask on the h x w frame).

    `rows` and `trows` are scratch arrays of 64 uint64."""
    bh, bw = frame_rows(p, h, w, rows)
    return canonical_of_rows(rows, bh, bw, trows, False, zero_like(p))


@njit(cache=True)
def is_point_symmetric_zero(bits, h, w):
    """True when the mirror strategy proves nimber 0: the component is its own image under
    the half-turn of its box, and no free domino meets its own image (which happens only
    across the centre of a box with one odd side)."""
    if reverse_bits(bits, h * w) != bits:  # the half-turn reverses the packed bit order
        return False
    if h % 2 == 1 and w % 2 == 0:  # the middle row's centre domino maps to itself
        mid = (h // 2) * w + w // 2
        return not low((bits >> np.uint64(mid - 1)) & (bits >> np.uint64(mid))) & U1
    if h % 2 == 0 and w % 2 == 1:
        mid = (h // 2) * w + w // 2
        return not low((bits >> np.uint64(mid - w)) & (bits >> np.uint64(mid))) & U1
    if h % 2 == 1 and w % 2 == 1:  # the centre cell meets its own image: only if it is empty
        centre = (h // 2) * w + w // 2
        return not low(bits >> np.uint64(centre)) & U1
    return True


@njit(cache=True)
def tufts(p, h, w):
    """Cells of p with exactly one neighbour in p."""
    full = full_of(p, h, w)
    right = p & (p >> np.uint64(1)) & ~last_col_of(p, h, w)
    left = p & (p << np.uint64(1)) & full & ~first_col_of(p, h, w)
    down = p & (p >> np.uint64(w))
    up = p & (p << np.uint64(w)) & full
    two = (right & left) | (right & down) | (right & up) | (left & down) | (left & up) | (down & up)
    return (right | left | down | up) & ~two


@njit(cache=True)
def reduce_stars(p, h, w):
    """p with the same game value and fewer cells (Beling and Rogalski's reductions):
    of the tufts (cells with one neighbour) hanging on one centre, only one is kept (any
    move on one of them could as well be made on the other), and a cell whose every
    neighbour is such a centre is dropped (a move on it is worth the move on the centre's
    tuft)."""
    t = tufts(p, h, w)
    kept = zero_like(p)  # centres that kept a tuft
    centres = p & neighbours(t, h, w)
    x = t
    while x:
        tuft = lowest_bit(x)
        x &= x - one_like(x)
        centre = neighbours(tuft, h, w) & p
        if centre & kept and not (tuft & kept):
            p &= ~tuft
        else:
            kept |= centre
    candidates = p & ~centres & ~t
    bridges = candidates & ~neighbours(candidates, h, w) & neighbours(p, h, w)
    return p & ~bridges


@njit(cache=True)
def twin_links(p, h, w):
    """Left cells of the horizontal dominoes of p that a vertical one duplicates.

    In a 2x2 block of p whose two opposite corners each have no neighbour outside the
    block, those corners are twins (the same two neighbours), so swapping them maps the
    game onto itself: each horizontal domino of the block is worth the vertical domino the
    swap makes of it. Both stay twins until a move takes one of them, and a move that
    takes one leaves no horizontal domino in the block, so the game without the block's
    horizontal links has the same value (Beling and Rogalski's Cram solver drops these
    moves). Two blocks found here never share a corner, so all can go at once."""
    full = full_of(p, h, w)
    right = p & (p >> np.uint64(1)) & ~last_col_of(p, h, w)  # cells whose right neighbour is in p
    left = p & (p << np.uint64(1)) & full & ~first_col_of(p, h, w)
    down = p & (p >> np.uint64(w))
    up = p & (p << np.uint64(w)) & full
    top_left = right & down & ~left & ~up  # a corner with its two neighbours in the block
    top_right = left & down & ~right & ~up
    bottom_left = right & up & ~left & ~down
    bottom_right = left & up & ~right & ~down
    blocks = ((top_left & (bottom_right >> np.uint64(w + 1)))  # the blocks' top-left cells
              | ((top_right >> np.uint64(1)) & (bottom_left >> np.uint64(w))))
    return blocks | (blocks << np.uint64(w))


@njit(cache=True)
def reduced_split(p, h, w, out, stack):
    """The reduced components (two or more cells) of p into `out`; their count. A
    reduction can split a component (stars and bridges: fewer cells; twins: fewer links,
    `twin_links`), so the pieces are reduced again until stable. A piece's own links are
    then those of the grid again, which is right: a cut link joins two pieces, or lies
    inside one whose twins still allow cutting it."""
    top = split(p, h, w, stack)
    n = 0
    while top:
        top -= 1
        comp = load(stack, top)
        smaller = reduce_stars(comp, h, w)
        if smaller != comp:
            top += split(smaller, h, w, stack[top:])
            continue
        cut = twin_links(comp, h, w)  # a block's vertical links instead would split the same way
        if cut:
            pieces = split_without(comp, h, w, cut, stack[top:])
            if pieces > 1:
                top += pieces
                continue
        store(comp, out, n)
        n += 1
    return n
