"""Exact value tables of every state of a board game, by a vectorized bitmask DP.

The table is laid out as a 2D array T[h, l]: the cells are split into "high" bits h
(the rows of T) and "low" bits l (its columns). Rows are processed one popcount layer
of h at a time, all rows of a layer at once. A move that clears at least one high bit
lands in an earlier layer, so it is one array operation over whole rows: gather the
child rows, select the columns that contain the move's low bits through a reshaped
view, and OR the children's values in. Moves made only of low bits stay inside a row;
they are handled by a second layering over the columns' popcount.

For the flip game the split is the checkerboard: every domino covers one cell of each
colour, so no move stays inside a row and a layer costs a handful of numpy calls.

Values are carried as one-hot words (bit v set for value v) so that "the set of the
children's values" is a bitwise OR and the mex is `~seen & (seen + 1)`.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from flipnet.base.errors import BadInput, FlipnetError
from flipnet.games.registry import check_fixed_masks

MAX_TABLE_CELLS = 30
MIN_CELLS_PER_JOB_LOG2 = 18  # a layer gets a second thread only with 2^18 table cells of work


def table(game, progress=None, threads=2):
    """The value of every state of a board game, indexed by the state integer (uint8).

    Normal play: the Sprague-Grundy value. Misere: 1 if the player to move wins, else 0
    (a position with no move is a win: the opponent took the last stone).
    `progress`, if given, is called with the number of states finished after each step.
    """
    check_fixed_masks(game)
    check_table_size(game.rows, game.cols)
    return solve_states(game.n_cells, game.move_masks, game.rule, progress, threads)


def check_table_size(rows, cols):
    """Refuse, before anything is allocated, a board whose table would be too large."""
    if rows * cols > MAX_TABLE_CELLS:
        raise FlipnetError(
            f"a {rows}x{cols} board has {rows * cols} cells; tables stop at {MAX_TABLE_CELLS} "
            f"cells (2^{MAX_TABLE_CELLS} states): use `flipnet value` for single positions")


def solve_states(n, masks, rule="normal", progress=None, threads=2):
    """Values of all 2^n states of a game on n bits whose moves clear the given masks."""
    if threads < 1:
        raise BadInput(f"threads must be at least 1, got {threads}")
    misere = rule == "misere"
    if not masks:
        return np.full(1 << n, 1 if misere else 0, dtype=np.uint8)
    high, low = _choose_split(n, masks)
    dtype = _onehot_dtype(1 if misere else n // min(bin(m).count("1") for m in masks))
    finalize = _finalize_misere if misere else _finalize_mex
    onehot, row_order = _layered_dp(masks, high, low, dtype, finalize, progress, threads)
    values = _values_of_onehot(onehot)
    del onehot  # the one-hot words take twice the values' room (or more): free them first
    return _to_state_order(values, row_order, high, low)


def _values_of_onehot(onehot):
    """uint8 values of one-hot words, a block of rows at a time (no full-size temporaries)."""
    values = np.empty(onehot.shape, np.uint8)
    rows_per_step = max(1, (1 << 22) // onehot.shape[1])
    for r in range(0, onehot.shape[0], rows_per_step):
        values[r:r + rows_per_step] = np.bitwise_count(onehot[r:r + rows_per_step] - 1)
    return values


def induced_game(state, masks):
    """The game restricted to the full cells of `state`: (cell bits, masks renumbered).

    Every position reachable from `state` is a subset of its full cells, so a table of
    the induced game (2^popcount states) answers it even on a board too big for a table.
    """
    cells = [b for b in range(state.bit_length()) if state >> b & 1]
    inside = [_compress(m, cells) for m in masks if state & m == m]
    return cells, inside


def win_table(game, **kwargs):
    """1 where the player to move wins, for either rule."""
    values = table(game, **kwargs)
    return values if game.rule == "misere" else (values != 0).astype(np.uint8)


# --- the layered DP -------------------------------------------------------------


def _layered_dp(masks, high, low, dtype, finalize, progress, threads):
    H, L = len(high), len(low)
    by_high = {}  # high part -> low parts of the moves that clear at least one high bit
    inner = []  # moves made of low bits only
    for m in masks:
        mh, ml = _compress(m, high), _compress(m, low)
        if mh:
            by_high.setdefault(mh, []).append(ml)
        else:
            inner.append(ml)
    layer_of_row = np.bitwise_count(np.arange(1 << H))
    row_order = np.argsort(layer_of_row, kind="stable")  # T's row i holds h = row_order[i]
    rank = np.empty_like(row_order)
    rank[row_order] = np.arange(1 << H)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(layer_of_row, minlength=H + 1))])
    inner_steps = _inner_steps(inner, L) if inner else None
    T = np.empty((1 << H, 1 << L), dtype)

    def solve_rows(hs, out):
        out[:] = 0
        for mh, mls in by_high.items():
            pos = np.flatnonzero(hs & mh == mh)
            if not pos.size:
                continue
            children = T[rank[hs[pos] ^ mh]]
            seen = out[pos]
            for ml in mls:
                parents = _bit_view(seen, L, ml, 1)
                parents |= _bit_view(children, L, ml, 0)
            out[pos] = seen
        if inner_steps is None:
            out[:] = finalize(out)
            return
        for cols, pairs in inner_steps:
            for parent_cols, child_cols in pairs:
                out[:, parent_cols] |= out[:, child_cols]
            out[:, cols] = finalize(out[:, cols])

    with ThreadPoolExecutor(max(1, threads)) as pool:
        for p in range(H + 1):
            start, stop = bounds[p], bounds[p + 1]
            n_jobs = min(threads, max(1, ((stop - start) << L) >> MIN_CELLS_PER_JOB_LOG2))
            cuts = np.linspace(start, stop, n_jobs + 1).astype(int)
            jobs = [pool.submit(solve_rows, row_order[a:b], T[a:b]) for a, b in zip(cuts, cuts[1:])]
            for job in jobs:
                job.result()
            if progress:
                progress(int(stop - start) << L)
    return T, row_order


def _inner_steps(inner, L):
    """Per popcount layer of the columns: (columns, [(parent columns, child columns)])."""
    cols = np.arange(1 << L)
    layer = np.bitwise_count(cols)
    steps = []
    for q in range(L + 1):
        cols_q = cols[layer == q]
        pairs = []
        for ml in inner:
            parents = cols_q[cols_q & ml == ml]
            if parents.size:
                pairs.append((parents, parents ^ ml))
        steps.append((cols_q, pairs))
    return steps


def _finalize_mex(seen):
    """One-hot of the mex of a one-hot set."""
    return ~seen & (seen + 1)


def _finalize_misere(seen):
    """One-hot of win (2) or lose (1): a win has a losing child (bit 0) or no move at all."""
    win = (seen & 1).astype(bool) | (seen == 0)
    return np.where(win, 2, 1).astype(seen.dtype)


def _choose_split(n, masks):
    """(high bits, low bits). Low bits are picked greedily so that no move lies wholly in
    them (the checkerboard for the flip game); if that leaves too few, the lower half."""
    low = []
    for b in range(n):
        candidate = _compress_set(low + [b])
        if not any(m & ~candidate == 0 for m in masks):
            low.append(b)
    if 3 * len(low) < n:
        low = list(range(min(n // 2, 15)))
    high = [b for b in range(n) if b not in low]
    return high, low


def _compress_set(bits):
    return sum(1 << b for b in bits)


def _compress(mask, bits):
    """The bits of `mask` that lie in `bits`, renumbered 0..len(bits)-1."""
    return sum(1 << i for i, b in enumerate(bits) if mask >> b & 1)


def _spread(bits):
    """state bits of every compressed value 0..2^len(bits)-1: the inverse of _compress."""
    compressed = np.arange(1 << len(bits), dtype=np.int64)
    out = np.zeros_like(compressed)
    for i, b in enumerate(bits):
        out |= (compressed >> i & 1) << b
    return out


def _bit_view(a, L, ml, value):
    """View of a (rows, 2^L) array at the columns whose bits in `ml` all equal `value`.

    The column axis is reshaped so that each selected bit gets an axis of length 2 and
    the runs of bits between them stay merged (contiguous inner blocks).
    """
    shape, index = [a.shape[0]], [slice(None)]
    top = L
    for k in sorted((k for k in range(L) if ml >> k & 1), reverse=True):
        shape += [1 << (top - 1 - k), 2]
        index += [slice(None), value]
        top = k
    shape.append(1 << top)
    index.append(slice(None))
    return a.reshape(shape)[tuple(index)]


def _onehot_dtype(max_value):
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if max_value < np.iinfo(dtype).bits:
            return dtype
    raise FlipnetError(f"values up to {max_value} do not fit a 64-bit one-hot word")


def _to_state_order(values, row_order, high, low):
    H, L = len(high), len(low)
    out = np.empty(1 << (H + L), dtype=np.uint8)
    if low == list(range(L)):
        out.reshape(1 << H, 1 << L)[row_order] = values
        return out
    row_bits = _spread(high)[row_order]
    col_bits = _spread(low)
    step = max(1, (1 << 22) >> L)
    for r in range(0, 1 << H, step):
        out[row_bits[r:r + step, None] | col_bits[None, :]] = values[r:r + step]
    return out
