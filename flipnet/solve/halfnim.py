"""HalfNim (the C++ NIM program's game) in closed form: values, the DP's move, winning moves.

Take 1..n//2 from a pile of n. The Grundy values satisfy g(2m) = m and g(2m + 1) = g(m),
so the losing piles are n = 2^j - 1 and every other pile has exactly one winning move:
to the largest 2^j - 1 below it, which is always in reach.
"""

import numpy as np

from flipnet.solve.nim import mex
from flipnet.base.errors import BadInput


def halfnim_values(max_n):
    """Grundy values g[0..max_n] of HalfNim from the definition (g[0] is unused and 0).

    A plain loop: the states form a line, and every pile's options reach halfway back
    down it, so there is nothing to vectorize. The tests check the closed form with it.
    """
    g = np.zeros(max_n + 1, dtype=np.int64)
    for n in range(2, max_n + 1):
        g[n] = mex(g[n - n // 2:n].tolist())
    return g


def halfnim_value(n):
    """Closed form of the HalfNim Grundy value: g(2m) = m and g(2m + 1) = g(m)."""
    if n < 1:
        raise BadInput(f"a pile holds at least 1 block, got {n}")
    while n & 1:
        n >>= 1
    return n >> 1


def halfnim_winning_moves(n):
    """The move to the largest losing pile 2^j - 1 below n; none from a losing pile."""
    if n < 2 or halfnim_value(n) == 0:
        return []
    return [n - ((1 << (n.bit_length() - 1)) - 1)]


def halfnim_best_move(n, rng):
    """The C++ program's DP move: the winning move, else a random legal k (from `rng`)."""
    if n < 2:
        raise BadInput(f"no move from a pile of {n}")
    winning = halfnim_winning_moves(n)
    return winning[0] if winning else int(rng.integers(1, n // 2 + 1))
