"""Flip-game values of positions too large for a table, by decomposition.

A flip position is the disjunctive sum of its connected groups of 1s, so its value is
the XOR of theirs. In one row a group is a run of k ones, which is a heap of k in
Dawson's Kayles (octal game 0.07); that sequence is periodic (period 34 from k = 53),
so any length is answered at once. In 2D a group is valued by a table of the sub-game
on its own cells when it is small, else by its moves (each of which may split it),
memoized under a canonical form that ignores position and the 8 symmetries.
"""

from functools import lru_cache

import numpy as np

from flipnet.solve.dp import induced_game, solve_states
from flipnet.solve.nim import mex, nim_sum

KAYLES_PERIOD = 34
KAYLES_PREPERIOD = 53
TABLE_CELLS = 20  # groups up to this size are valued by one table (2^20 states, ~50 ms)


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
        raise ValueError(f"run length must be non-negative, got {k}")
    if k >= KAYLES_PREPERIOD:
        k = KAYLES_PREPERIOD + (k - KAYLES_PREPERIOD) % KAYLES_PERIOD
    return _kayles_prefix()[k]


def groups(cells):
    """Connected groups (4-neighbourhood) of a set of (row, col) cells."""
    cells = set(cells)
    out = []
    while cells:
        stack = [cells.pop()]
        group = set(stack)
        while stack:
            r, c = stack.pop()
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb in cells:
                    cells.remove(nb)
                    group.add(nb)
                    stack.append(nb)
        out.append(frozenset(group))
    return out


def canonical(cells):
    """The same key for a group and any translation, rotation or reflection of it."""
    forms = []
    for t in _SYMMETRIES:
        moved = [t(r, c) for r, c in cells]
        r0 = min(r for r, _ in moved)
        c0 = min(c for _, c in moved)
        forms.append(tuple(sorted((r - r0, c - c0) for r, c in moved)))
    return min(forms)


_SYMMETRIES = [
    lambda r, c: (r, c), lambda r, c: (c, -r), lambda r, c: (-r, -c), lambda r, c: (-c, r),
    lambda r, c: (r, -c), lambda r, c: (-c, -r), lambda r, c: (-r, c), lambda r, c: (c, r),
]


def group_value(cells):
    """Grundy value of one connected group of full cells."""
    return _value_of_canonical(canonical(cells))


@lru_cache(maxsize=1 << 20)
def _value_of_canonical(key):
    rows = {r for r, _ in key}
    cols = {c for _, c in key}
    if len(rows) == 1 or len(cols) == 1:  # a straight run (a group is connected)
        return dawson_kayles(len(key))
    if len(key) <= TABLE_CELLS:
        return _table_value(key)
    return mex(position_value(set(key) - set(domino)) for domino in dominoes(key))


def _table_value(key):
    width = max(c for _, c in key) + 1
    state = sum(1 << (r * width + c) for r, c in key)
    masks = [1 << (r * width + c) | 1 << (r2 * width + c2) for (r, c), (r2, c2) in dominoes(key)]
    n_cells, inside = induced_game(state, masks)
    return int(solve_states(len(n_cells), inside, threads=1)[-1])


def dominoes(cells):
    """Every pair of horizontally or vertically adjacent cells of the set."""
    cells = set(cells)
    return [((r, c), nb) for r, c in sorted(cells) for nb in ((r, c + 1), (r + 1, c)) if nb in cells]


def position_value(cells):
    """Grundy value of any set of full cells: the XOR over its groups."""
    return nim_sum(group_value(group) for group in groups(cells))


def run_lengths(row_bits):
    """(start, length) of every maximal run of ones in a 0/1 sequence."""
    bits = np.concatenate([[0], np.asarray(row_bits, dtype=np.int8), [0]])
    edges = np.flatnonzero(np.diff(bits))
    return list(zip(edges[::2].tolist(), (edges[1::2] - edges[::2]).tolist()))


def row_value(row_bits):
    """Grundy value of a 1D flip position of any length."""
    return nim_sum(dawson_kayles(k) for _, k in run_lengths(row_bits))


def row_winning_moves(row_bits):
    """Left cells i of the dominoes (i, i+1) that leave a 1D position of value 0."""
    runs = run_lengths(row_bits)
    total = nim_sum(dawson_kayles(k) for _, k in runs)
    moves = []
    for start, k in runs:
        rest = total ^ dawson_kayles(k)
        moves += [start + i for i in range(k - 1)
                  if dawson_kayles(i) ^ dawson_kayles(k - 2 - i) == rest]
    return moves


def winning_dominoes(cells):
    """Dominoes of a 2D position after which the value is 0 (only the touched group changes)."""
    parts = groups(cells)
    values = [group_value(g) for g in parts]
    total = nim_sum(values)
    moves = []
    for group, v in zip(parts, values):
        rest = total ^ v
        for domino in dominoes(group):
            if position_value(group - set(domino)) == rest:
                moves.append(domino)
    return sorted(moves)
