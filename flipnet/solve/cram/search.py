"""The search for the nimber of a Cram component, in Numba.

Every question is "is this one component's nimber one of these values, and which?" (a
set of values as a 64-bit word). An option is the component minus one domino, split into
components; the nimbers of all of its parts but the largest are computed outright and
folded in, so an option is asked as one component. Two ways answer a question:

- value by value (Lemoine and Viennot, "Nimbers are inevitable", 2012, with Beling's
  improvement): for v = 0, 1, ... find an option of nimber v (each option serves one v),
  until none has v (the nimber is v) or v passes the largest value wanted;
- by sets (Beling and Rogalski, "On pruning search trees of impartial games", 2020): the
  nimber stays among `possible` values, one fewer for each option answered, and an
  option is asked for all of them at once (`_by_sets`).

Sets pay where the largest value wanted is small (SETS_UP_TO) and cost many times over
where it is not, so a question takes the one or the other by that value. Options whose
parts are all known (the endgame database, Kayles lines, small shapes, the table) are
answered first and may settle the question at once; the rest are tried cheapest first:
the fewest cells left to search, then the domino nearest the centre, then the fewest
moves in the largest part.

Proven facts are stored in a table keyed by canonical form (`bits.canonical`), once per
component whatever its place or orientation: its nimber when known, and the values it was
shown not to have (Lemoine and Viennot keep outcomes of component + *n likewise); those
also bound the nimber from below. `entries.py` keeps each in one word. The kernel polls
`control[STOP]` once per node, so a time limit or Ctrl-C (set from another thread) ends
it within microseconds; it then returns ABORT upward.

A node allocates nothing and counts no references: its buffers are its depth's row of
the solver's scratch arenas, and the kernels borrow their arrays (`memory.borrowed`). It
locates the parts of its options a batch at a time, nearest the centre first, prefetching
the table's and the database's lines, and reads each batch after, so the cache misses
overlap (`memory.prefetch`) and a question that an option settles locates no further.

Several workers may ask one question together (`control[SHARED]`): each has its own
counters and buffers and publishes the component it asks at each depth (`paths`); near the
root, a worker leaves for a second sweep the options another one is searching, so N workers
spread over the first N options not yet answered and meet again in the table. They share the
table: an entry is one word, written at once (the wide table's are checked, `entries.py`).
"""

from collections import namedtuple

import numpy as np

from flipnet.base.kernels import njit
from flipnet.solve.cram.bits import (DOMINO_CODE, DOMINO_DISTANCE, DOMINO_END, DOMINO_FIRST, canonical_of_rows,
                                     frame_rows, highest_bit_index, horizontal_moves, is_point_symmetric_zero,
                                     lowest_bit_index, move_count, popcount, reduced_split, transpose_rows,
                                     twin_links, vertical_moves)
from flipnet.solve.cram.entries import (EXCLUDABLE, REPLACED, STORES, tt_exclude_set, tt_excluded,  # noqa: F401
                                        tt_line, tt_probe, tt_store, tt_value)
from flipnet.solve.cram.keys import shape_cols, shape_rows, shape_word
from flipnet.solve.cram.limits import SETS_UP_TO  # control[SETS] unless told (step 5: measured up to 1, 2, 3 and 63)
from flipnet.solve.cram.memory import borrowed, prefetch
from flipnet.solve.cram.wide import (by_width, high, like, load, load2, low, one_like, store, store2, wide,
                                     zero_like)
from flipnet.solve.parts import WORD_CELLS

ABORT = -9
UNKNOWN = -1
NOT_IN_SET = -2  # a question's answer: the nimber is none of the values asked
# Sets of values are 64-bit words, bit v for value v: a component's nimber is below 64, since
# it is at most the length of its longest game, half its at most 64 cells.
EVERY = np.uint64(0xFFFFFFFFFFFFFFFF)
_XOR_MASKS = np.array([0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF,
                       0x0000FFFF0000FFFF, 0x00000000FFFFFFFF], np.uint64)  # the values whose bit j is 0
ONE = np.int64(1)  # the depth of a kernel's first question (the kernel has row 0)
MAX_PARTS = 8  # components one move can leave of one component (at most six cells border a domino)
MAX_OPTIONS = 128  # dominoes of a component of at most 64 cells: at most 112
NARROW = WORD_CELLS  # cells of the largest box whose masks are one word (`wide`: up to 128)
OPTION_BATCH = 8  # options located (their lines prefetched) before the first of them is read

# control[]: what the caller asks; SHARED: several workers search one question together; SETS:
# a question whose largest value wanted is at most this one is asked by sets; WIDE_FROM: in a
# wide search, a box of this many cells or more stays wide (NARROW + 1; less to check the wide
# kernels on boxes the one-word search also answers)
STOP, NODE_LIMIT, MIRROR, SHARED, SETS, WIDE_FROM = 0, 1, 2, 3, 4, 5
# control[STOP]: 0 while the search goes on; else why it stops (any of these stops it)
INTERRUPTED = 1  # Ctrl-C, or a worker that failed
OVER_BUDGET = 2  # the search passed control[NODE_LIMIT] (the kernel sets it itself)
OUT_OF_TIME = 3  # a time limit passed
ANSWERED = 4  # another worker has answered the question
CANCELLED = 5  # the caller no longer needs the answer (`CramSolver.cancel`)
PAUSED = 6  # the caller writes a checkpoint, then asks again (`checkpoint.py`)
DEFER_ABOVE = 16  # depths at which a worker leaves for later an option another one is searching
# stats[]: what the search reports while it runs
NODES, TT_HITS, DB_HITS, DONE = 0, 1, 2, 5  # and STORES (3), REPLACED (4): the table counts them (entries.py)

# What a kernel is handed: what the workers of a question share (the endgame database's
# `db` and `boxes`, the Kayles values, the table of 2^log_capacity entries, the controls)
# and what is one worker's own (its counters, its scratch arenas, the `path` rows every
# worker writes, `worker`: which row is its own).
SearchContext = namedtuple("SearchContext", "db boxes kayles table log_capacity control stats scratch_u "
                                            "scratch_i path worker")
# A wide search's: the same, and its own table (4 words an entry) and arenas. A type of its
# own, so that the one-word kernels carry no more words from call to call (the context is
# passed by value: each word costs, step 7(c) of docs/cram.md).
WideContext = namedtuple("WideContext", SearchContext._fields + ("wide_table", "wide_log", "wide_u", "wide_i"))

# A wide mask of control[WIDE_FROM] cells or more keeps its facts in the wide table
# (`wide_key`); any other mask in the table, a narrow key inside a wide search as a word. The one-word kernels
# read their table as before, from the context's fields taken at the top of a function:
# taken where used, 3x14 searched 20% slower (the same positions).
def _narrow_key(bits, shape, ctx):
    return False


def _wide_key(bits, shape, ctx):
    return shape_rows(shape) * shape_cols(shape) >= ctx.control[WIDE_FROM]


def _no_probe(bits, shape, ctx):
    return np.uint64(0)


def _wide_probe(bits, shape, ctx):
    return tt_probe(ctx.wide_table, ctx.wide_log, bits, shape)


def _no_store(bits, shape, value, ctx):
    pass


def _wide_store(bits, shape, value, ctx):
    tt_store(ctx.wide_table, ctx.wide_log, bits, shape, value, ctx.stats)


def _wide_exclude(bits, shape, value, ctx):
    tt_exclude_set(ctx.wide_table, ctx.wide_log, bits, shape, value, ctx.stats)


def _no_prefetch(bits, shape, ctx):
    pass


def _wide_prefetch(bits, shape, ctx):
    prefetch(ctx.wide_table, tt_line(bits, shape, ctx.wide_log))


wide_key = by_width(_narrow_key, _wide_key)  # whether a key is the wide table's (False for a word)
wide_probe = by_width(_no_probe, _wide_probe)  # `tt_probe` of the wide table
wide_store = by_width(_no_store, _wide_store)  # `tt_store` there
wide_exclude = by_width(_no_store, _wide_exclude)  # `tt_exclude_set` there
wide_prefetch = by_width(_no_prefetch, _wide_prefetch)


@njit(cache=True)
def db_index(boxes, rows, h, w):
    """Where the endgame database holds the value of a component whose rows[0..h) fill
    an h x w box (h <= w), or -1."""
    for k in range(boxes.shape[0]):
        bh, bw, offset = boxes[k, 0], boxes[k, 1], boxes[k, 2]
        if h <= bh and w <= bw:
            index = np.uint64(0)
            for r in range(h):
                index |= rows[r] << np.uint64(r * bw)
            return offset + np.int64(index)
    return -1


# Where a part's value is: known at once, at an index of the database, or in the table
# under a key. `locate` finds the place and prefetches it; `read` reads it.
KNOWN, IN_DB, IN_TABLE = 0, 1, 2


@njit(cache=True, inline="always")
def locate(part, h, w, ctx, rows, trows):
    """(kind, value or database index, key bits, key shape) of a component on the h x w
    frame. The cheap answers come first (small, straight, the database in the frame's
    orientation); the canonical key is computed only when the table must be asked."""
    db, boxes, kayles, tt, control = ctx.db, ctx.boxes, ctx.kayles, ctx.table, ctx.control
    log_capacity = ctx.log_capacity
    if popcount(part) <= 3:  # a connected 2 or 3 cells: one move (or two, to the same value 0)
        return KNOWN, 1, zero_like(part), 0
    bh, bw = frame_rows(part, h, w, rows)
    if bh == 1 or bw == 1:  # a straight line: a Dawson's Kayles heap
        return KNOWN, int(kayles[max(bh, bw)]), zero_like(part), 0
    transposed = bh > bw
    if transposed:
        transpose_rows(rows, bh, bw, trows)
        index = db_index(boxes, trows, bw, bh)
    else:
        index = db_index(boxes, rows, bh, bw)
    if index >= 0:
        prefetch(db, index >> 1)
        return IN_DB, index, zero_like(part), 0
    kb, ks = canonical_of_rows(rows, bh, bw, trows, transposed, zero_like(part))
    if control[MIRROR] and is_point_symmetric_zero(kb, shape_rows(ks), shape_cols(ks)):
        return KNOWN, 0, kb, ks
    if wide_key(kb, ks, ctx):
        wide_prefetch(kb, ks, ctx)
    else:
        prefetch(tt, tt_line(low(kb), ks, log_capacity))
    return IN_TABLE, 0, kb, ks


@njit(cache=True, inline="always")
def read(kind, index, kb, ks, ctx):
    """The value at a place `locate` found: UNKNOWN if the table does not hold it."""
    db, tt, log_capacity, stats = ctx.db, ctx.table, ctx.log_capacity, ctx.stats
    if kind == KNOWN:
        return index
    if kind == IN_DB:
        stats[DB_HITS] += 1
        return int(db[index >> 1] >> ((index & 1) << 2)) & 15  # four bits a position (`endgame`)
    v = tt_value(wide_probe(kb, ks, ctx) if wide_key(kb, ks, ctx) else tt_probe(tt, log_capacity, low(kb), ks))
    if v >= 0:
        stats[TT_HITS] += 1
    return v


@njit(cache=True)
def part_value(part, h, w, ctx, rows, trows):
    """(nimber or UNKNOWN, key bits, key shape) of a component on the h x w frame."""
    kind, index, kb, ks = locate(part, h, w, ctx, rows, trows)
    return read(kind, index, kb, ks, ctx), kb, ks


# Scratch memory: a row of each arena per depth of the search, so a node allocates
# nothing. A question's component is at least two cells smaller than its asker's, so a
# component of 128 cells (a wide one, the end of this module) asks at most 63 levels deep.
LEVELS = 66
_ROWS, _TROWS, _PARTS, _STACK, _OPT_BITS = 0, 64, 128, 192, 320  # uint64 words of a level
U_WORDS = _OPT_BITS + MAX_OPTIONS * MAX_PARTS
_X, _N, _COST, _ORDER, _USED, _OPT_SHAPE = (k * MAX_OPTIONS for k in range(6))  # int64 words
I_WORDS = _OPT_SHAPE + MAX_OPTIONS * MAX_PARTS


def controls(mirror):
    """A search's control words (STOP, ...): nothing asked yet."""
    control = np.zeros(6, np.int64)
    control[MIRROR], control[SETS], control[WIDE_FROM] = int(mirror), SETS_UP_TO, NARROW + 1
    return control


def scratch():
    """The arenas a solver hands its kernels: (uint64, int64) for components of one word,
    then the same for wide ones (WIDE_U_WORDS, WIDE_I_WORDS), LEVELS rows each: the first
    two of a `SearchContext`, all four of a `WideContext`."""
    return (np.zeros((LEVELS, U_WORDS), np.uint64), np.zeros((LEVELS, I_WORDS), np.int64),
            np.zeros((LEVELS, WIDE_U_WORDS), np.uint64), np.zeros((LEVELS, WIDE_I_WORDS), np.int64))


def paths(workers=2):
    """Where each worker is: path[w, d] the (key's low word, shape, key's high word) it asks
    at depth d, path[w, LEVELS, 0] its depth now. Shared by the workers of one question."""
    return np.zeros((max(workers, 2), LEVELS + 1, 3), np.uint64)


@njit(cache=True, inline="always")
def _enter(bits, shape, ctx, depth):
    path, me = ctx.path, ctx.worker
    path[me, depth, 0], path[me, depth, 1], path[me, depth, 2] = low(bits), np.uint64(shape), high(bits)
    path[me, LEVELS, 0] = np.uint64(depth)


@njit(cache=True)
def _searched_by_another(bits, shape, ctx):
    """Whether another worker is searching this component now (or was, a moment ago:
    then its answer is in the table)."""
    path, me = ctx.path, ctx.worker
    if path.shape[0] == 2:  # two workers, the common case: the other one only
        return _on_path(path, 1 - me, bits, shape)
    for other in range(path.shape[0]):
        if other != me and _on_path(path, other, bits, shape):
            return True
    return False


@njit(cache=True, inline="always")
def _on_path(path, worker, bits, shape):
    """Whether `worker` asks this component at one of its depths down to DEFER_ABOVE + 1."""
    deepest = min(np.int64(path[worker, LEVELS, 0]), DEFER_ABOVE + 1)
    for d in range(1, deepest + 1):
        if path[worker, d, 0] == low(bits) and path[worker, d, 1] == np.uint64(shape) and \
                path[worker, d, 2] == high(bits):
            return True
    return False


@njit(cache=True, inline="always")
def _level(ctx, depth):
    """The scratch buffers of one depth: rows, trows, parts, stack (the split's and the
    canonical form's), then the options' opt_x, opt_n, opt_cost, opt_bits, opt_shape
    (as `options_of` fills them) and the question's order and used marks."""
    u, i = ctx.scratch_u[depth], ctx.scratch_i[depth]
    return (u[_ROWS:_TROWS], u[_TROWS:_PARTS], u[_PARTS:_STACK], u[_STACK:_OPT_BITS],
            i[_X:_N], i[_N:_COST], i[_COST:_ORDER], u[_OPT_BITS:].reshape((MAX_OPTIONS, MAX_PARTS)),
            i[_OPT_SHAPE:].reshape((MAX_OPTIONS, MAX_PARTS)), i[_ORDER:_USED], i[_USED:_OPT_SHAPE])


# One function of 90 lines on purpose: split into helpers, inlined or not, the same search
# of 5x8 (one worker) took 10-20% longer; with only its innermost loops apart, 3-8% longer;
# with each option's read apart (inlined), 4x11 9% and 5x9 5% longer on one worker
# (`flipnet bench --only cram-large --against`, the faster of two runs in turn). Split into
# three inlined parts (locate, add a part, read an option), 5x8 took 2.63-2.93 s of search
# against 2.05-2.27 s and 4x11 18.1-18.5 s against 13.8-14.2 s (one worker, whole commands
# in turn), so it stays whole: tests/test_layers_of_the_package.py names it.
@njit(cache=True)
def options_of(bits, shape, ctx, opt_x, opt_n, opt_bits, opt_shape, opt_cost, rows, trows, parts, stack, every,
               wanted):
    """The options of the component: opt_x[i] the XOR of its known parts, opt_n[i] its
    number of unknown parts, keyed in opt_bits/opt_shape[i, :], largest first, and
    opt_cost[i] the order in which to ask it; the count. Without `every`, the dominoes a
    twin's domino duplicates (`twin_links`) are left out: they add no value to the mex.
    -1 as soon as every value of `wanted` (bits) is known to be an option's: the nimber is
    then none of them, whatever the other options hold."""
    h, w = shape_rows(shape), shape_cols(shape)
    duplicated = zero_like(bits) if every else twin_links(bits, h, w)
    across = horizontal_moves(bits, h, w) & ~duplicated
    down = vertical_moves(bits, h, w)
    left = popcount(across) + popcount(down)
    e = DOMINO_FIRST[h, w]
    count = 0
    hit = np.uint64(0)  # the values of the options known so far
    while left:
        # a batch of options, nearest the centre first: locate every part of each
        # (prefetching), then read them; most questions end at an option whose value settles
        # them, a fifth of the way in, and the options after it are never located
        first = count
        while left and count - first < OPTION_BATCH:
            code = np.int64(DOMINO_CODE[e])
            e += 1
            vertical = code & 1
            cell = one_like(bits) << np.uint64(code >> 1)
            if not ((down if vertical else across) & cell):
                continue
            left -= 1
            child = bits & ~(cell | (cell << np.uint64(w if vertical else 1)))
            x, n = 0, 0
            for k in range(reduced_split(child, h, w, parts, stack)):
                kind, index, kb, ks = locate(load(parts, k), h, w, ctx, rows, trows)
                if kind == KNOWN:
                    x ^= index
                else:  # a database entry is kept as (index, shape 0)
                    store2(kb if kind == IN_TABLE else like(bits, index), opt_bits, count, n)
                    opt_shape[count, n] = ks if kind == IN_TABLE else 0
                    n += 1
            if n == 0:
                hit |= np.uint64(1) << np.uint64(x)
                if wanted and not wanted & ~hit:
                    return -1
            opt_cost[count] = np.int64(DOMINO_DISTANCE[e - 1])
            opt_x[count], opt_n[count] = x, n
            count += 1
        for i in range(first, count):
            located = opt_n[i]
            for k in range(located):  # the located parts move aside while the row takes the unknown ones
                store(load2(opt_bits, i, k), parts, k)
                store(like(bits, opt_shape[i, k]), stack, k)
            x, n, size = opt_x[i], 0, 0
            for k in range(located):
                kb, ks = load(parts, k), np.int64(low(load(stack, k)))
                v = read(IN_TABLE if ks else IN_DB, np.int64(low(kb)), kb, ks, ctx)
                if v >= 0:
                    x ^= v
                    continue
                c = popcount(kb)
                twin = -1  # two equal components cancel: their nimbers XOR to 0
                for j in range(n):
                    if load2(opt_bits, i, j) == kb and opt_shape[i, j] == ks:
                        twin = j
                if twin >= 0:
                    for j in range(twin, n - 1):
                        store2(load2(opt_bits, i, j + 1), opt_bits, i, j)
                        opt_shape[i, j] = opt_shape[i, j + 1]
                    n -= 1
                    size -= c
                    continue
                # insert keeping the largest first
                j = n
                while j > 0 and popcount(load2(opt_bits, i, j - 1)) < c:
                    store2(load2(opt_bits, i, j - 1), opt_bits, i, j)
                    opt_shape[i, j] = opt_shape[i, j - 1]
                    j -= 1
                store2(kb, opt_bits, i, j)
                opt_shape[i, j] = ks
                n += 1
                size += c
            # the order of questions: fewest unknown cells, then the domino nearest the frame's
            # centre (it splits the group more evenly: 13-40% fewer positions searched), then
            # the fewest moves in the largest part (a smaller game)
            if n == 0:
                hit |= np.uint64(1) << np.uint64(x)
                if wanted and not wanted & ~hit:
                    return -1
            moves = move_count(load2(opt_bits, i, 0), shape_rows(opt_shape[i, 0]), shape_cols(opt_shape[i, 0])) \
                if n else 0
            opt_x[i], opt_n[i], opt_cost[i] = x, n, (size * 256 + opt_cost[i]) * 256 + moves
    return count


@njit(cache=True)
def _same_option(i, j, opt_x, opt_n, opt_bits, opt_shape):
    if opt_x[i] != opt_x[j] or opt_n[i] != opt_n[j]:
        return False
    for k in range(opt_n[i]):  # parts are ordered by size; equal sizes may come in any order
        found = False
        for m in range(opt_n[j]):
            if load2(opt_bits, i, k) == load2(opt_bits, j, m) and opt_shape[i, k] == opt_shape[j, m]:
                found = True
                break
        if not found:
            return False
    return True


@njit(cache=True, inline="always")
def _upto(n):
    """The set of values 0..n, as bits."""
    return EVERY if n >= 63 else (np.uint64(1) << np.uint64(n + 1)) - np.uint64(1)


@njit(cache=True, inline="always")
def xor_set(values, x):
    """{v ^ x for v in values}: the values a part must have for its option to have one of
    `values` when the option's other parts XOR to x (x < 64)."""
    for j in range(6):
        if (x >> j) & 1:
            k, m = np.uint64(1 << j), _XOR_MASKS[j]
            values = ((values & m) << k) | ((values >> k) & m)
    return values


@njit(cache=True, inline="always")
def _drop_largest(possible, beyond):
    """`possible` and `beyond` without the largest possible value."""
    if beyond:
        return possible, beyond - 1
    return possible & ~(np.uint64(1) << np.uint64(highest_bit_index(possible))), beyond


@njit(cache=True, inline="always")
def _drop(value, possible, beyond, top):
    """Without `value`, an option's nimber; the largest if `value` is not possible (the
    nimber is then among the smaller ones, one option fewer left to ask)."""
    if value <= top and (possible >> np.uint64(value)) & np.uint64(1):
        return possible & ~(np.uint64(1) << np.uint64(value)), beyond
    return _drop_largest(possible, beyond)


@njit(cache=True, inline="always")
def _order_options(count, opt_x, opt_n, opt_cost, opt_bits, opt_shape, order):
    """(pending, known): the unknown options put in `order` cheapest first (by opt_cost),
    each option equal to one placed before left out; how many options are known."""
    pending, known = 0, 0
    for i in range(count):
        if opt_n[i] == 0:
            known += 1
            continue
        # insertion sort; an option equal to one already placed by a symmetry of the group
        # has its size and its domino's distance from the centre, so only the options of
        # those are compared with it
        j = pending
        while j > 0 and opt_cost[order[j - 1]] > opt_cost[i]:
            j -= 1
        size_and_centre = opt_cost[i] >> 8
        first, last = j, j
        while first > 0 and opt_cost[order[first - 1]] >> 8 == size_and_centre:
            first -= 1
        while last < pending and opt_cost[order[last]] >> 8 == size_and_centre:
            last += 1
        duplicate = False
        for k in range(first, last):
            if _same_option(i, order[k], opt_x, opt_n, opt_bits, opt_shape):
                duplicate = True
                break
        if duplicate:
            continue
        for k in range(pending, j, -1):
            order[k] = order[k - 1]
        order[j] = i
        pending += 1
    return pending, known


@njit(cache=True, inline="always")
def _node(bits, shape, ctx):
    """Count a node and look up its entry: (the entry's meta word, whether to stop)."""
    tt, log_capacity, control, stats = ctx.table, ctx.log_capacity, ctx.control, ctx.stats
    stats[NODES] += 1
    if control[STOP]:
        return np.uint64(0), True
    if control[NODE_LIMIT] and stats[NODES] > control[NODE_LIMIT]:
        control[STOP] = OVER_BUDGET
        return np.uint64(0), True
    if wide_key(bits, shape, ctx):
        return wide_probe(bits, shape, ctx), False
    return tt_probe(tt, log_capacity, low(bits), shape), False


@njit(cache=True, inline="always")
def _ask(bits, shape, wanted, ctx, depth):
    """`query` (one word). The wide search (the end of this module) compiles the functions
    that ask with its own `_ask`, which sends a narrow key to this `query` and a wide one to
    its own."""
    return query(bits, shape, wanted, ctx, depth)


@njit(cache=True)
def query(bits, shape, wanted, ctx, depth):
    """The nimber of the component if it is one of `wanted` (values as bits), else
    NOT_IN_SET; a nimber not wanted may come back too. ABORT when asked to stop. `depth`:
    the row of the scratch arenas this node uses. Up to control[SETS], by `_by_sets`;
    above, value by value (`_by_values`)."""
    tt, log_capacity, control, stats = ctx.table, ctx.log_capacity, ctx.control, ctx.stats
    meta, stopped = _node(bits, shape, ctx)
    if stopped:
        return ABORT
    v = tt_value(meta)
    if v >= 0:
        return v
    h, w = shape_rows(shape), shape_cols(shape)
    excluded = tt_excluded(meta)
    # a nimber is at most the number of options, and the length of the longest game
    wanted &= ~excluded & _upto(min(move_count(bits, h, w), popcount(bits) // 2))
    if not wanted:
        return NOT_IN_SET
    top = highest_bit_index(wanted)

    rows, trows, parts, stack, opt_x, opt_n, opt_cost, opt_bits, opt_shape, order, used = _level(ctx, depth)
    count = options_of(bits, shape, ctx, opt_x, opt_n, opt_bits, opt_shape, opt_cost, rows, trows, parts, stack,
                       False, wanted)
    if count < 0:  # options have every value wanted
        if wide_key(bits, shape, ctx):
            wide_exclude(bits, shape, wanted, ctx)
        else:
            tt_exclude_set(tt, log_capacity, low(bits), shape, wanted, stats)
        return NOT_IN_SET
    pending, known = _order_options(count, opt_x, opt_n, opt_cost, opt_bits, opt_shape, order)
    _enter(bits, shape, ctx, depth)
    sweeps = 2 if control[SHARED] and depth <= DEFER_ABOVE else 1
    options = (count, pending, order, opt_x, opt_n, opt_bits, opt_shape)
    if top <= control[SETS]:
        v, not_it = _by_sets(wanted, top, known, options, sweeps, ctx, depth)
    else:
        v, not_it = _by_values(excluded, top, used, options, sweeps, ctx, depth)
    if wide_key(bits, shape, ctx):
        if v >= 0:
            wide_store(bits, shape, v, ctx)
        elif v == NOT_IN_SET:
            wide_exclude(bits, shape, not_it, ctx)
    elif v >= 0:
        tt_store(tt, log_capacity, low(bits), shape, v, stats)
    elif v == NOT_IN_SET:
        tt_exclude_set(tt, log_capacity, low(bits), shape, not_it, stats)
    return v


@njit(cache=True, inline="always")
def _aside(i, sweep, sweeps, aside, opt_bits, opt_shape, ctx):
    """(whether to pass option i in this sweep, the options left aside: 0-63, 64-127). With
    two sweeps (several workers), the first leaves aside the options another worker is
    searching, and the second asks only them, by then often answered in the table."""
    first, second = aside
    if i >= 128:  # a wide component's options past 128 are asked in the first sweep
        return sweep == 1, aside
    bit = np.uint64(1) << np.uint64(i & 63)
    if sweep == 1:
        return not (second if i >= 64 else first) & bit, aside
    if sweeps == 2 and _searched_by_another(load2(opt_bits, i, 0), opt_shape[i, 0], ctx):
        return True, ((first, second | bit) if i >= 64 else (first | bit, second))
    return False, aside


@njit(cache=True, inline="always")
def _by_sets(wanted, top, known, options, sweeps, ctx, depth):
    """Beling and Rogalski's pruning. The nimber, the mex of the options' nimbers, is one of
    `possible`: the values 0..m for m options at first. Each option answered takes one
    value away, its own, or the largest when it has none of the others (while u options are
    left to ask, the nimber is among the u + 1 smallest, as every smaller value needs an
    option of its own). So an option is asked only whether it has one of the possible
    values but the largest, up to the largest wanted, and the question ends as soon as no
    wanted value is possible. (nimber or NOT_IN_SET or ABORT, the values shown not to be
    the nimber)."""
    count, pending, order, opt_x, opt_n, opt_bits, opt_shape = options
    m = pending + known
    possible, beyond = _upto(min(m, top)), max(m - top, 0)  # beyond: how many above top
    for i in range(count):
        if opt_n[i] == 0:
            possible, beyond = _drop(opt_x[i], possible, beyond, top)
    aside = (np.uint64(0), np.uint64(0))
    for sweep in range(sweeps):
        for k in range(pending):
            if not possible & wanted:
                break
            i = order[k]
            skip, aside = _aside(i, sweep, sweeps, aside, opt_bits, opt_shape, ctx)
            if skip:
                continue
            ask = possible if beyond else possible & ~(np.uint64(1) << np.uint64(highest_bit_index(possible)))
            r = _fold(i, opt_x, opt_n, opt_bits, opt_shape, ctx, depth)
            if r != ABORT:
                r = _ask(load2(opt_bits, i, 0), opt_shape[i, 0], xor_set(ask, opt_x[i]), ctx, depth + 1)
            if r == ABORT:
                return ABORT, np.uint64(0)
            if r == NOT_IN_SET:
                possible, beyond = _drop_largest(possible, beyond)
            else:
                possible, beyond = _drop(r ^ opt_x[i], possible, beyond, top)
    if not possible & wanted:
        return NOT_IN_SET, ~possible & _upto(top)
    return lowest_bit_index(possible), np.uint64(0)  # every option asked: one value is left


@njit(cache=True, inline="always")
def _by_values(excluded, top, used, options, sweeps, ctx, depth):
    """The nimber asked value by value from 0 (Lemoine and Viennot; Beling's aspiration),
    up to `top`: for each v, the options not yet used are asked whether they have v; one
    that has it ends v, one that tells a value of its own is kept for that value, and when
    none has v, v is the nimber. A value known not to be the nimber, once the smaller ones
    are, is passed: the nimber is larger. (nimber or NOT_IN_SET or ABORT, the values shown
    not to be the nimber: all up to top once v passes it)."""
    count, pending, order, opt_x, opt_n, opt_bits, opt_shape = options
    present = np.uint64(0)  # values some option has
    for i in range(count):
        if opt_n[i] == 0:
            present |= np.uint64(1) << np.uint64(opt_x[i])
    used[:count] = 0
    v = 0
    while v <= top:
        if ((present | excluded) >> np.uint64(v)) & np.uint64(1):
            v += 1
            continue
        r = _first_with(v, used, options, sweeps, ctx, depth)
        if r == ABORT:
            return ABORT, np.uint64(0)
        if r == NOT_IN_SET:  # no option has v, every smaller value is present: the nimber is v
            return v, np.uint64(0)
        present |= np.uint64(1) << np.uint64(r)
    return NOT_IN_SET, _upto(top)


@njit(cache=True, inline="always")
def _first_with(v, used, options, sweeps, ctx, depth):
    """Ask the unused options (in `order`) whether they have nimber v, until one has: v
    then, or another value an option told; NOT_IN_SET if none has v; ABORT if stopped. An
    option that answers with its value is used. Two sweeps with several workers (`_aside`)."""
    count, pending, order, opt_x, opt_n, opt_bits, opt_shape = options
    aside = (np.uint64(0), np.uint64(0))
    for sweep in range(sweeps):
        for k in range(pending):
            i = order[k]
            if used[i]:
                continue
            skip, aside = _aside(i, sweep, sweeps, aside, opt_bits, opt_shape, ctx)
            if skip:
                continue
            r = _fold(i, opt_x, opt_n, opt_bits, opt_shape, ctx, depth)
            if r != ABORT:
                one = np.uint64(1) << np.uint64(v ^ opt_x[i])
                r = _ask(load2(opt_bits, i, 0), opt_shape[i, 0], one, ctx, depth + 1)
            if r == ABORT:
                return ABORT
            if r != NOT_IN_SET:
                used[i] = 1
                return r ^ opt_x[i]
    return NOT_IN_SET


@njit(cache=True, inline="always")
def _fold(i, opt_x, opt_n, opt_bits, opt_shape, ctx, depth):
    """Compute the nimbers of all parts of option i but the largest and fold them into
    opt_x[i], so the option can be asked as one component; ABORT if stopped.

    Inlined into its callers (Numba IR inlining), so `query` only calls itself: Numba's
    cache crashes when it loads back mutually recursive functions, or a recursive one
    called with a literal argument (numba#6713); recursive calls therefore pass
    typed values (EVERY, not a literal)."""
    while opt_n[i] > 1:
        last = opt_n[i] - 1
        v = _ask(load2(opt_bits, i, last), opt_shape[i, last], EVERY, ctx, depth + 1)
        if v == ABORT:
            return ABORT
        opt_x[i] ^= v
        opt_n[i] = last
    return 0


@njit(cache=True, nogil=True)
def _mask_value(mask, h, w, ctx, rows, trows, parts, stack):
    """The nimber of a position (a mask on an h x w frame): the XOR of its parts' values,
    each read where it is known and searched where not; ABORT if stopped."""
    value = 0
    for j in range(reduced_split(mask, h, w, parts, stack)):
        v, kb, ks = part_value(load(parts, j), h, w, ctx, rows, trows)
        if v < 0:
            v = _ask(kb, ks, EVERY, ctx, ONE)
        if v == ABORT:
            return ABORT
        value ^= v
    return value


@njit(cache=True, nogil=True)
def value_is(mask, h, w, target, out, ctx):
    """Whether the position (a mask on the h x w frame) has nimber `target`, into out[0]:
    the nimbers of its parts but the largest unknown one computed, the largest asked only
    whether it makes up `target` (a piece of a solve asks no more than its root needs).
    False if stopped."""
    ctx = _borrowed_ctx(ctx)
    rows, trows, parts, stack = _level(ctx, 0)[:4]
    n = reduced_split(mask, h, w, parts, stack)
    largest, most = -1, -1
    for j in range(n):  # the part left to the question: the largest the table and database leave open
        v, kb, ks = part_value(load(parts, j), h, w, ctx, rows, trows)
        if v < 0 and popcount(kb) > most:
            largest, most = j, popcount(kb)
    value = 0
    for j in range(n):  # `_mask_value`'s loop but for the part left to the question (kept apart from it: the
        if j == largest:  # wide search compiles a copy of `_mask_value`, and of what it calls, for itself)
            continue
        v, kb, ks = part_value(load(parts, j), h, w, ctx, rows, trows)
        if v < 0:
            v = _ask(kb, ks, EVERY, ctx, ONE)
        if v == ABORT:
            return False
        value ^= v
    if largest < 0:
        out[0] = value == target
        return True
    v, kb, ks = part_value(load(parts, largest), h, w, ctx, rows, trows)
    r = _ask(kb, ks, np.uint64(1) << np.uint64(target ^ value), ctx, ONE)
    if r == ABORT:
        return False
    out[0] = r != NOT_IN_SET and r ^ value == target
    return True


@njit(cache=True, inline="always")
def _borrowed_ctx(ctx):
    """The context's arrays borrowed (`memory.borrowed`): the caller holds them for the call."""
    return SearchContext(borrowed(ctx.db), borrowed(ctx.boxes), borrowed(ctx.kayles), borrowed(ctx.table),
                         ctx.log_capacity, borrowed(ctx.control), borrowed(ctx.stats), borrowed(ctx.scratch_u),
                         borrowed(ctx.scratch_i), borrowed(ctx.path), ctx.worker)


@njit(cache=True, nogil=True)
def nimbers_of(comp_bits, comp_h, comp_w, out, ctx):
    """The nimber of every component (each on its own h x w frame) into `out`; False if
    stopped."""
    ctx = _borrowed_ctx(ctx)
    rows, trows, parts, stack = _level(ctx, 0)[:4]
    for k in range(comp_bits.size):
        value = _mask_value(comp_bits[k], comp_h[k], comp_w[k], ctx, rows, trows, parts, stack)
        if value == ABORT:
            return False
        out[k] = value
    return True


@njit(cache=True, nogil=True)
def moves_to(bits, h, w, target, out, ctx):
    """For every domino of one component (h x w frame): whether the component minus it
    has nimber `target`. out[i] for the i-th domino in `dominoes` order; False if stopped."""
    ctx = _borrowed_ctx(ctx)
    rows, trows, parts, stack, opt_x, opt_n, opt_cost, opt_bits, opt_shape = _level(ctx, 0)[:9]
    shape = shape_word(h, w)  # options_of reads only the frame's size from it
    count = options_of(bits, shape, ctx, opt_x, opt_n, opt_bits, opt_shape, opt_cost, rows, trows, parts, stack,
                       True, np.uint64(0))
    for i in range(count):
        if opt_n[i] == 0:
            out[i] = opt_x[i] == target
            continue
        r = _fold(i, opt_x, opt_n, opt_bits, opt_shape, ctx, 0)
        if r != ABORT:
            r = _ask(load2(opt_bits, i, 0), opt_shape[i, 0], np.uint64(1) << np.uint64(target ^ opt_x[i]), ctx, ONE)
        if r == ABORT:
            return False
        out[i] = r != NOT_IN_SET and r ^ opt_x[i] == target
    return True


@njit(cache=True)
def dominoes(bits, h, w):
    """(first cell, second cell) of every domino of a component, in the order `moves_to` uses."""
    across, down = horizontal_moves(bits, h, w), vertical_moves(bits, h, w)
    out = np.empty((popcount(across) + popcount(down), 2), np.int64)
    i = 0
    for e in range(DOMINO_FIRST[h, w], DOMINO_END[h, w]):
        code = np.int64(DOMINO_CODE[e])
        a, vertical = code >> 1, code & 1
        if low((down if vertical else across) >> np.uint64(a)) & np.uint64(1):
            out[i, 0], out[i, 1] = a, a + (w if vertical else 1)
            i += 1
    return out


@njit(cache=True, nogil=True)
def facts_of_moves(bits, h, w, x_out, n_out, meta_out, ctx):
    """What the table and the database prove of one component and of the position each of
    its dominoes leaves, searching nothing (`standing.py`). For each domino, in `dominoes`
    order: x_out[i] the XOR of its known parts' nimbers, n_out[i] how many of its parts are
    not known, meta_out[i] the table's meta word of the largest of those (0: nothing).
    (the count, the component's own meta word: of its table entry, or of the value the
    database or a rule gives)."""
    ctx = _borrowed_ctx(ctx)
    rows, trows, parts, stack, opt_x, opt_n, opt_cost, opt_bits, opt_shape = _level(ctx, 0)[:9]
    kind, index, kb, ks = locate(bits, h, w, ctx, rows, trows)
    value = read(kind, index, kb, ks, ctx) if kind != IN_TABLE else -1
    own = np.uint64(value + 1) << np.uint64(16) if value >= 0 else _probe(kb, ks, ctx)
    count = options_of(bits, shape_word(h, w), ctx, opt_x, opt_n, opt_bits, opt_shape, opt_cost, rows, trows,
                       parts, stack, True, np.uint64(0))
    for i in range(count):
        x_out[i], n_out[i] = opt_x[i], opt_n[i]
        meta_out[i] = _probe(load2(opt_bits, i, 0), opt_shape[i, 0], ctx) if opt_n[i] else np.uint64(0)
    return count, own


@njit(cache=True, inline="always")
def _probe(kb, ks, ctx):
    """The meta word of a key's entry, in the table that keeps it (0: none)."""
    if wide_key(kb, ks, ctx):
        return wide_probe(kb, ks, ctx)
    return tt_probe(ctx.table, ctx.log_capacity, low(kb), ks)


@njit(cache=True, nogil=True)
def values_of_positions(masks, h, w, budget, out, ctx):
    """The value of every position (a mask on the h x w frame) into `out`; with a node
    `budget` > 0, a position that needs more is left at -1 and the next one is tried.
    stats[DONE] counts the positions finished. False if stopped."""
    ctx = _borrowed_ctx(ctx)
    control, stats = ctx.control, ctx.stats
    rows, trows, parts, stack = _level(ctx, 0)[:4]
    for k in range(masks.size):
        if budget:
            control[NODE_LIMIT] = stats[NODES] + budget
        value = _mask_value(masks[k], h, w, ctx, rows, trows, parts, stack)
        if control[STOP] == OVER_BUDGET:  # this position stays unsolved
            control[STOP] = 0
            value = -1
        elif control[STOP]:
            control[NODE_LIMIT] = 0
            return False
        out[k] = value
        stats[DONE] += 1
    control[NODE_LIMIT] = 0
    return True


# --- Wide components: boxes of 65 to 128 cells ---------------------------------------------
# The kernels above compile for a `wide.U128` mask as they are, but for the functions that
# ask (`query` calls itself through them), and Numba's cache crashes when it loads a function
# that calls another specialization of itself. So the wide search is those functions again,
# the same code under names of its own: `_ask` sends a narrow key (a box of fewer than WIDE_FROM
# cells) to the one-word `query` and a wide one to `wide_query`; `_level` takes the wide
# arenas (two words a mask, up to WIDE_OPTIONS options). Written here, beside the code they
# copy, so that Numba's cache (kept per source file) sees a change to either.
WIDE_OPTIONS = 256  # dominoes of a component of at most 128 cells: at most 220 (11x11)
_W_ROWS, _W_TROWS, _W_PARTS, _W_STACK, _W_OPT_BITS = 0, 64, 128, 256, 512
WIDE_U_WORDS = _W_OPT_BITS + WIDE_OPTIONS * MAX_PARTS * 2
_W_X, _W_N, _W_COST, _W_ORDER, _W_USED, _W_OPT_SHAPE = (k * WIDE_OPTIONS for k in range(6))
WIDE_I_WORDS = _W_OPT_SHAPE + WIDE_OPTIONS * MAX_PARTS


@njit(cache=True, inline="always")
def _wide_level(ctx, depth):
    """`_level` of the wide arenas: parts, stack and opt_bits hold two words a mask."""
    u, i = ctx.wide_u[depth], ctx.wide_i[depth]
    return (u[_W_ROWS:_W_TROWS], u[_W_TROWS:_W_PARTS], u[_W_PARTS:_W_STACK].reshape((64, 2)),
            u[_W_STACK:_W_OPT_BITS].reshape((128, 2)), i[_W_X:_W_N], i[_W_N:_W_COST], i[_W_COST:_W_ORDER],
            u[_W_OPT_BITS:].reshape((WIDE_OPTIONS, MAX_PARTS, 2)), i[_W_OPT_SHAPE:].reshape((WIDE_OPTIONS, MAX_PARTS)),
            i[_W_ORDER:_W_USED], i[_W_USED:_W_OPT_SHAPE])


@njit(cache=True, inline="always")
def _narrow_ctx(ctx):
    """The `SearchContext` inside a `WideContext`."""
    return SearchContext(ctx.db, ctx.boxes, ctx.kayles, ctx.table, ctx.log_capacity, ctx.control, ctx.stats,
                         ctx.scratch_u, ctx.scratch_i, ctx.path, ctx.worker)


@njit(cache=True, inline="always")
def _wide_ask(bits, shape, wanted, ctx, depth):
    if shape_rows(shape) * shape_cols(shape) < ctx.control[WIDE_FROM]:
        return query(low(bits), shape, wanted, _narrow_ctx(ctx), depth)
    return wide_query(bits, shape, wanted, ctx, depth)


@njit(cache=True, inline="always")
def _borrowed_wide_ctx(ctx):
    return WideContext(borrowed(ctx.db), borrowed(ctx.boxes), borrowed(ctx.kayles), borrowed(ctx.table),
                       ctx.log_capacity, borrowed(ctx.control), borrowed(ctx.stats), borrowed(ctx.scratch_u),
                       borrowed(ctx.scratch_i), borrowed(ctx.path), ctx.worker, borrowed(ctx.wide_table),
                       ctx.wide_log, borrowed(ctx.wide_u), borrowed(ctx.wide_i))


def _wide_copies(functions):
    """Each function (a Numba dispatcher) again, as a new dispatcher compiled from the same
    code with the wide names: `wide_` + its name, in this module."""
    import types as pytypes
    namespace = dict(globals())
    namespace.update(_ask=_wide_ask, _level=_wide_level, _borrowed_ctx=_borrowed_wide_ctx)
    made = {}
    for fn in functions:
        py = fn.py_func
        name = "wide" + py.__name__ if py.__name__.startswith("_") else "wide_" + py.__name__
        copy = pytypes.FunctionType(py.__code__, namespace, name, py.__defaults__, py.__closure__)
        copy.__qualname__, copy.__doc__ = name, py.__doc__
        options = {k: v for k, v in fn.targetoptions.items() if k != "nopython"}
        made[py.__name__] = njit(**options, cache=True)(copy)
        globals()[name] = made[py.__name__]
    namespace.update(made)
    return made


_wide_copies([_fold, _first_with, _by_values, _by_sets, query, _mask_value, moves_to, facts_of_moves])


@njit(cache=True, nogil=True)
def wide_values(lo, hi, h, w, out, ctx):
    """The nimber of every position given as two words (lo[k], hi[k]) on the h x w frame
    (h * w <= 128) into `out`; False if stopped. A nimber of 64 or more (which no Cram
    position has come near) cannot be held by the sets of values: -2 (NOT_IN_SET) then."""
    ctx = _borrowed_wide_ctx(ctx)
    rows, trows, parts, stack = _wide_level(ctx, 0)[:4]
    for k in range(lo.size):
        value = wide_mask_value(wide(lo[k], hi[k]), h, w, ctx, rows, trows, parts, stack)
        if value == ABORT:
            return False
        out[k] = value
    return True


@njit(cache=True, nogil=True)
def wide_moves(lo, hi, h, w, target, out, ctx):
    """`moves_to` of one wide component (two words)."""
    return wide_moves_to(wide(lo, hi), h, w, target, out, ctx)


@njit(cache=True)
def wide_dominoes(lo, hi, h, w):
    """`dominoes` of one wide component (two words)."""
    return dominoes(wide(lo, hi), h, w)


@njit(cache=True)
def wide_move_facts(lo, hi, h, w, x_out, n_out, meta_out, ctx):
    """`facts_of_moves` of one wide component (two words)."""
    return wide_facts_of_moves(wide(lo, hi), h, w, x_out, n_out, meta_out, ctx)
