"""Dawson's Kayles (octal game 0.07): the value of a straight run of k free cells.

In one row a flip position is the sum of its runs of ones, and a run of k is a heap of
k in Dawson's Kayles: a move takes two adjacent tokens, possibly splitting the heap.
The sequence is periodic (period 34 from k = 53), so any length is answered at once.
The Cram solver uses it for every straight component.
"""

from functools import lru_cache

from flipnet.solve.nim import mex
from flipnet.base.errors import BadInput

KAYLES_PERIOD = 34
KAYLES_PREPERIOD = 53


@lru_cache(maxsize=1)
def _kayles_prefix():
    """G(0..2e+p+2) computed from the definition; enough to prove and use the period.

    The octal-game periodicity theorem: if G(k + p) = G(k) for e <= k < 2e + p + 2 (a move
    removes at most 2 tokens), the period holds for ever.
    """
    size = 2 * KAYLES_PREPERIOD + KAYLES_PERIOD + 3
    g = [0] * size
    for k in range(2, size):
        g[k] = mex(g[a] ^ g[k - 2 - a] for a in range(k - 1))
    assert all(g[k + KAYLES_PERIOD] == g[k] for k in range(KAYLES_PREPERIOD, size - KAYLES_PERIOD))
    return tuple(g)


def dawson_kayles(k):
    """Grundy value of a run of k ones in the 1D flip game (a Dawson's Kayles heap of k)."""
    if k < 0:
        raise BadInput(f"run length must be non-negative, got {k}")
    if k >= KAYLES_PREPERIOD:
        k = KAYLES_PREPERIOD + (k - KAYLES_PREPERIOD) % KAYLES_PERIOD
    return _kayles_prefix()[k]


def kayles_splits(n, target):
    """The moves on a run of n that leave it worth `target`: each as i, the first of the two
    cells taken (the run splits into i and n - 2 - i)."""
    return [i for i in range(n - 1) if dawson_kayles(i) ^ dawson_kayles(n - 2 - i) == target]


def line_value_and_winning_moves(state, length):
    """(value, winning moves as the first cell i of the domino i, i + 1) of a line of
    `length` cells whose bit i is cell i: the XOR of its runs of ones, and the moves that
    make it 0. The 1D flip game's whole theory, with no search."""
    runs, start = [], None
    for i in range(length + 1):
        full = i < length and state >> i & 1
        if full and start is None:
            start = i
        elif not full and start is not None:
            runs.append((start, i - start))
            start = None
    total = 0
    for _, n in runs:
        total ^= dawson_kayles(n)
    if total == 0:
        return 0, []
    return total, [first + i for first, n in runs for i in kayles_splits(n, total ^ dawson_kayles(n))]
