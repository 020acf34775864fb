"""Exact values of flip positions too large for a table: the game Cram on the full cells.

`CramSolver` splits a position into connected components, gives each its own frame (its
bounding box, at most 128 cells: one 64-bit word up to 64, two beyond), and asks the Numba
search (`search`) for the nimber of each, with the endgame database (`endgame`) and a
transposition table shared by every question the solver is asked (and one of wide
components). The search runs in worker threads that `supervisor` watches:
progress on stderr, `timeout` (one search) and `time_limit` (a whole question), Ctrl-C and
`cancel` turned into a clean stop.

The solver is its questions (this module) and the parts that serve them, each a module of
its own on the state the solver holds: `tables` (the tables and the database, sized and
mapped), `runner` (the kernels on the worker threads, stops, checkpoints) and `lanes` (a
sample's positions in lanes).
"""

import threading

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.solve.cram import search
from flipnet.solve.cram.bits import is_point_symmetric_zero
from flipnet.solve.cram.endgame import Endgame
from flipnet.solve.cram.lanes import SampleLanes, _batch, check_nimbers
from flipnet.solve.cram.limits import MAX_TABLE_LOG, MIN_TABLE_LOG, SAMPLE_LANES  # noqa: F401 - the package's names
from flipnet.solve.cram.memory import usable_memory  # noqa: F401 - the package's name
from flipnet.solve.cram.runner import CheckpointedRuns, KernelRunner, Paused  # noqa: F401 - Paused: the package's
from flipnet.solve.cram.supervisor import Supervisor
from flipnet.solve.cram.tables import (ENTRY_BYTES, TableKeeper,  # noqa: F401
                                       affordable_table_log, table_log)
from flipnet.solve.cram.wide import split_words
from flipnet.solve.kayles import dawson_kayles
from flipnet.solve.parts import MAX_FRAME, cells_of, components, groups, kayles_moves, mirror_zero
def _kayles_table(n):
    return np.array([dawson_kayles(k) for k in range(n + 1)], dtype=np.int8)


class CramSolver(TableKeeper, SampleLanes, CheckpointedRuns, KernelRunner):
    """Nimbers of flip positions (normal play) by search, memoised across calls.

    `endgame`: an `Endgame` (default: none; `Endgame.load_or_build()` for the full one);
    `tt_log`: log2 of the transposition table's entries (2^26: 1.1 GB, in pages as used); `mirror`: use
    the mirror strategy's zeros; `timeout`: seconds per call (None: no limit); `auto_endgame`: load
    the database when a component of ENDGAME_FROM cells comes; `grow_table`: take a larger table
    when a larger component comes (`table_log`); `workers`: threads that search each
    component together, sharing the table, each leaving aside for later what another is
    searching (the values are the same; only the time depends on the threads' race);
    `memory_limit`: bytes its tables may count on at most; `standing_line(solver, bits, h,
    w)`: where a checkpointed component's proof stands, for its progress line;
    `compile_in_background(with_endgame)`: a compile begun after a time limit passed while
    Numba compiled. Built from `engine.Settings` by `engine.Engine`.
    """

    def __init__(self, endgame=None, tt_log=26, mirror=True, timeout=None, progress=True, auto_endgame=False,
                 grow_table=False, workers=1, wide_from=search.NARROW + 1, sets_up_to=search.SETS_UP_TO,
                 memory_limit=None, standing_line=None, compile_in_background=None):
        self.endgame = endgame or Endgame.empty()
        self.auto_endgame = auto_endgame  # load (or build once) the database when a large component comes
        self.builds_endgame = True  # False: load a database the cache holds, never build one
        self.grow_table = grow_table
        self.max_table_log = MAX_TABLE_LOG  # a server caps its memory here (explore: 2^25, 512 MB)
        self.memory_limit = memory_limit  # bytes the tables may count on at most (None: the machine's)
        # what it calls, where given (`engine` gives them): `standing.in_a_line`, the few words of a
        # checkpointed solve's progress line; `warm.start_in_background`, after a limit passed in a compile
        self.standing_line, self.compile_in_background = standing_line, compile_in_background
        self._empty_tables(tt_log)  # see entries.py
        self.kayles = _kayles_table(MAX_FRAME)
        self.control = search.controls(mirror)
        self.control[search.WIDE_FROM] = check_wide_from(wide_from)
        self.control[search.SETS] = check_sets_up_to(sets_up_to)
        self.stats = np.zeros(8, np.int64)  # the first worker's counters; a second has its own
        self.scratch = search.scratch()  # the kernels' buffers, a row per depth
        self._worker_stats, self._worker_scratch = [self.stats], [self.scratch]
        self.paths = search.paths(workers)
        self._busy = threading.Lock()  # held while a kernel runs
        self.supervisor = Supervisor(timeout, progress)
        self.workers = None
        self.use_workers(workers)
        self._without_endgame = False  # a large component searched without the database (time_limit)
        self._advised = False  # told that the 30-cell database would answer faster
        self._told_building = False  # told that the database will be built as the command ends
        self.checkpoint = None  # a `checkpoint.Checkpoint` the searches keep their facts in
        self._restored = None  # the tables (table, wide table) the checkpoint's facts were written into
        self.shared = None  # a `shared.SharedFacts`: other workers' facts, read before each search

    def value(self, cells):
        """The nimber of the position made of these (row, col) cells."""
        if self._mirrored(cells):
            return 0
        return int(np.bitwise_xor.reduce(self.component_values(components(cells)), initial=0))

    def _mirrored(self, cells):
        """The mirror rule on the whole position, before its parts are framed: any size
        (a full 12x12 board, past the search's frames, is 0 at once)."""
        return bool(self.control[search.MIRROR]) and mirror_zero(cells)

    def valued_components(self, cells):
        """[(cells of a component, its nimber)] of the position made of these cells: the
        parts whose nimbers XOR to its value (single cells, which no move touches, left out)."""
        cells = set(cells)
        if len(cells) > 1 and self._mirrored(cells) and len(groups(cells)) == 1:  # one part, of any size
            return [(sorted(cells), 0)]
        parts = components(cells, with_origin=True)
        values = self.component_values([part[:3] for part in parts])
        return [(cells_of(*part), int(v)) for part, v in zip(parts, values)]

    def move_values(self, cells):
        """(value, [(domino as two cells, the value of the position it leaves)]) for every
        domino: the other components keep their nimbers, so each move asks only for its own
        component's remainder, all of one component's remainders in one search call."""
        parts = components(cells, with_origin=True)
        values = self.component_values([part[:3] for part in parts], moves_next=True)
        total = int(np.bitwise_xor.reduce(values, initial=0))
        moves = []
        for (bits, h, w, r0, c0), v in zip(parts, values):
            rest = total ^ int(v)
            if min(h, w) == 1:  # a straight run: Kayles' values of the two runs a domino leaves
                run = cells_of(bits, h, w, r0, c0)
                moves += [((run[i], run[i + 1]), rest ^ dawson_kayles(i) ^ dawson_kayles(len(run) - 2 - i))
                          for i in range(len(run) - 1)]
                continue
            pairs = self._dominoes(bits, h, w)
            left = [int(bits) & ~(1 << a | 1 << b) for a, b in pairs]
            after_values = self.wide_values(left, h, w) if self.is_wide(h, w) else \
                self.values_of_states(np.array(left, np.uint64), h, w)
            for (a, b), after in zip(pairs, after_values):
                moves.append((((r0 + a // w, c0 + a % w), (r0 + b // w, c0 + b % w)), rest ^ int(after)))
        return total, sorted(moves)

    def component_values(self, parts, moves_next=False):
        """Nimbers of components given as (bits, h, w) frames. A component the mirror rule
        answers is 0 at once: no table is grown and mapped for it (the full 8x8 board's
        8.6 GB took 19 s, for an answer the search gives at its first position), unless
        every component's moves are searched next (`moves_next`)."""
        mirrored = {k for k, (bits, h, w) in enumerate(parts) if self._mirror_zero(bits, h, w)}
        self._prepare(parts if moves_next else [part for k, part in enumerate(parts) if k not in mirrored])
        values = np.zeros(len(parts), np.int64)
        searched = []
        for k, (bits, h, w) in enumerate(parts):
            if k in mirrored:
                continue
            if min(h, w) == 1:  # a straight run (or one cell): Kayles' closed form, no search
                values[k] = dawson_kayles(max(h, w))
            elif self.is_wide(h, w):  # two words
                values[k] = self.wide_values([bits], h, w)[0]
            else:
                searched.append(k)
        if searched:
            bits = np.array([parts[k][0] for k in searched], np.uint64)
            hs = np.array([parts[k][1] for k in searched], np.int64)
            ws = np.array([parts[k][2] for k in searched], np.int64)
            out = np.zeros(len(searched), np.int64)
            self._run(search.nimbers_of, bits, hs, ws, out)
            values[searched] = out
            check_nimbers(out, np.bitwise_count(bits))
        return values

    def wide_values(self, masks, h, w):
        """The nimbers of positions of an h x w frame searched by the wide kernels (65 to 128
        cells, `is_wide`), given as integers."""
        lo, hi = split_words(masks)
        out = np.zeros(lo.size, np.int64)
        if lo.size:
            self._run(search.wide_values, lo, hi, h, w, out)
        if (out == search.NOT_IN_SET).any():
            raise FlipnetError(f"a {h}x{w} position has a nimber of 64 or more, past the search's sets of values")
        check_nimbers(out, [bin(int(m)).count("1") for m in masks])
        return out

    def _mirror_zero(self, bits, h, w):
        """The search's own first test of a component (`is_point_symmetric_zero`), where it
        applies: the mirror rule on, a box that is not a straight run; a wide one's in
        plain Python (the wide kernels test only the positions below it)."""
        if not self.control[search.MIRROR] or min(h, w) == 1:
            return False
        if self.is_wide(h, w):
            return mirror_zero(cells_of(bits, h, w, 0, 0))
        return bool(is_point_symmetric_zero(np.uint64(bits), h, w))

    def values_of_states(self, states, rows, cols, budget=0, progress=None):
        """Values of many positions of one rows x cols board (at most 64 cells), given as
        state integers, in one search call; -1 where a position needed more than `budget`
        searched positions (0: no budget). `progress(done)` is called as they finish."""
        masks = _batch(states, rows, cols)
        out = np.zeros(masks.size, np.int64)
        self._run(search.values_of_positions, masks, rows, cols, budget, out, watch=progress)
        check_nimbers(out, np.bitwise_count(masks), allow_unknown=True)
        return out

    def winning_moves(self, cells):
        """(value, dominoes after which the position's value is 0), dominoes as cell pairs."""
        if self._mirrored(cells):
            return 0, []
        parts = components(cells)
        values = self.component_values(parts)
        total = int(np.bitwise_xor.reduce(values, initial=0))
        moves = []
        if total == 0:
            return 0, moves
        for (bits, h, w, r0, c0), v in zip(components(cells, with_origin=True), values):
            target = total ^ int(v)
            if min(h, w) == 1:
                moves += kayles_moves(h, w, r0, c0, target)
                continue
            pairs = self._dominoes(bits, h, w)
            out = np.zeros(len(pairs), np.bool_)
            if self.is_wide(h, w):
                lo, hi = split_words([bits])
                self._run(search.wide_moves, lo[0], hi[0], h, w, target, out)
            else:
                self._run(search.moves_to, np.uint64(bits), h, w, target, out)
            for (a, b), wins in zip(pairs, out):
                if wins:
                    moves.append(((r0 + a // w, c0 + a % w), (r0 + b // w, c0 + b % w)))
        return total, sorted(moves)

    def value_is(self, mask, rows, cols, target):
        """Whether the position `mask` of a rows x cols board of at most one word has the
        nimber `target`: only that is asked of its largest part (`search.value_is`)."""
        if not 0 <= target < 64:
            return False
        self._prepare([(mask, rows, cols)])
        out = np.zeros(1, np.bool_)
        self._run(search.value_is, np.uint64(mask), rows, cols, target, out)
        return bool(out[0])

    def is_wide(self, h, w):
        """Whether an h x w frame is searched by the wide kernels: from 65 cells (two words),
        or from `wide_from` cells where a check asks for fewer."""
        return h * w >= self.control[search.WIDE_FROM]

    def _dominoes(self, bits, h, w):
        """[(a, b)] cells of the dominoes of a component, in the order of the search's moves
        (`search.dominoes`), as Python ints (a move may hold bit 63)."""
        if self.is_wide(h, w):
            lo, hi = split_words([bits])
            return search.wide_dominoes(lo[0], hi[0], h, w).tolist()
        return search.dominoes(np.uint64(bits), h, w).tolist()

def _whole(variable, value, unit=""):
    """A setting given as a number, or as the text of an environment variable."""
    if not isinstance(value, str):
        return value
    try:
        return int(value)
    except ValueError:
        raise FlipnetError(f"{variable}={value!r} is not a whole number{unit}") from None


def check_wide_from(cells):
    """The cells from which a box is searched by the wide kernels: 4 to 65 (65, two words,
    unless a check of the wide kernels asks for fewer: FLIPNET_WIDE_FROM)."""
    cells = _whole("FLIPNET_WIDE_FROM", cells, " of cells")
    if not 4 <= cells <= search.NARROW + 1:
        raise FlipnetError(f"FLIPNET_WIDE_FROM must be a number of cells from 4 to {search.NARROW + 1}, got {cells}")
    return cells


def check_sets_up_to(value):
    """The largest value a question may want and still go by sets (docs/cram.md, step 5):
    -1 to 63, -1 for value by value everywhere (FLIPNET_SETS_UP_TO: the other method, for a
    second computation of a value that shares nothing but the code)."""
    value = _whole("FLIPNET_SETS_UP_TO", value)
    if not -1 <= value <= 63:
        raise FlipnetError(f"FLIPNET_SETS_UP_TO must be from -1 (value by value everywhere) to 63 (sets "
                           f"everywhere), got {value}")
    return value
