"""Exact values of flip positions too large for a table: the game Cram on the full cells.

`CramSolver` splits a position into connected components, gives each its own frame (its
bounding box, at most 128 cells: one 64-bit word up to 64, two beyond), and asks the Numba
search (`search`) for the nimber of each, with the endgame database (`endgame`) and a
transposition table shared by every question the solver is asked (and one of wide
components). The search runs in worker threads that `supervisor` watches:
progress on stderr, `timeout` (one search) and `time_limit` (a whole question), Ctrl-C and
`cancel` turned into a clean stop.
"""

import contextlib
import sys
import threading
import time

import numpy as np

from flipnet.base.cores import check_search_workers, usable_cores
from flipnet.base.errors import Cancelled, FlipnetError, Interrupted, TimedOut
from flipnet.base.places import cache_dir
from flipnet.base.progress import bar, shown as progress_shown
from flipnet.solve.cram import search
from flipnet.solve.cram.bits import is_point_symmetric_zero
from flipnet.solve.cram.endgame import MAX_BOX_CELLS, Endgame
from flipnet.solve.cram.memory import populate, usable_memory, zeroed_table
from flipnet.solve.cram.supervisor import Supervisor
from flipnet.solve.cram.wide import split_words
from flipnet.solve.kayles import dawson_kayles
from flipnet.solve.parts import MAX_FRAME, cells_of, components, kayles_moves
ENDGAME_FROM = 30  # cells of a component from which the shared solver wants the endgame database
# From this many cells the 30-cell database pays: 6x7 (42) was answered in 7 min with it and
# not in 10 with the 28-cell one, so a solver holding the smaller set says so once
LARGE_ENDGAME_FROM = 40
# A growing solver's table: about as many entries as its largest search visits positions
# (docs/cram.md, step 9). Mapping a table costs, and a larger one than the search needs is
# slower to probe too (5x7 searched 0.50 s with 2^20 or 2^22 entries, and in 0.59 s with
# 2^26, plus 1.6 s to map it); one too small loses facts it has to find again.
MIN_TABLE_LOG, MAX_TABLE_LOG = 20, 29  # 16 MB .. 8.6 GB
ENTRY_BYTES = 16  # two words an entry
WIDE_ENTRY_WORDS = 4  # a wide table's entry: the key's two words, the meta word and one spare (search.KEY_HIGH)
MIN_WIDE_LOG = 10  # a wide table before any wide component comes: 32 kB
TABLE_SHARE = 2  # a table takes at most half the usable memory: the database and the rest need theirs
POPULATE_FROM = 32  # a component this large touches most of the table: map all its pages at once
SHOWN_TABLE_BYTES = 1 << 30  # a table this large may take seconds to map: a bar says so
# From this table (log2 of its entries) on, the pages are 2 MB: fewer TLB misses pay for the
# seconds the system may take to find them (4x11, 2^24: 7.1 s in 4 kB pages, 8.4 s in 2 MB;
# 6x7, 2^25: 2 MB pages 1.5-2 s faster in all, docs/cram.md step 6)
HUGE_PAGES_FROM = 25
SAMPLE_LANES = 2  # a sample's positions dealt to two lanes, one per worker on two cores


# By the box's shorter side, at most: ((at most these cells, log2 of the table's entries),
# ...), and the log beyond the last of them
TABLE_SIZES = (
    (2, (), 20),
    (3, ((36, 18), (41, 20), (44, 22), (47, 24), (57, 26)), 28),
    (5, ((36, 20), (41, 22), (44, 24), (47, 26), (49, 28)), 29),
    (MAX_FRAME, ((36, 22), (44, 25), (49, 26)), 29),
)


def table_log(cells, side):
    """log2 of the table's entries for a search of a component of `cells` cells whose box's
    shorter side is `side`. The positions a search visits grow with the cells, and faster
    on a thick board than a thin one (42 cells: 3x14 visits 0.6 million, 6x7 50 million);
    measured with two workers (docs/cram.md, step 9): 5x8 fastest with 2^22, 4x11 with 2^24
    (6.3 s against 6.7 s with 2^26), 5x9 with 2^26 (20.2 s against 23.7 s with 2^28), 6x7
    with 2^25 and 7x7 with 2^26 (a larger table searched as many positions and cost
    seconds more to map); 5x10 stored 344 million entries, more than 2^28 hold. Three
    rows past 57 cells search hundreds of millions of positions: 3x20 searched 435 million
    with 2^26, 293 million (27% less time) with 2^28. Two rows search little whatever
    their length: 2x63 searched 192 thousand positions with 2^18 as with 2^24 (and with
    2^16 did not end in ten minutes), so they take 2^20 (16 MB), where 2^28 cost a
    trivial 2x33 11 s of mapping and 4.4 GB."""
    steps, beyond = next((steps, beyond) for widest, steps, beyond in TABLE_SIZES if side <= widest)
    log = next((log for most, log in steps if cells <= most), beyond)
    return min(max(log, MIN_TABLE_LOG), MAX_TABLE_LOG)


def affordable_table_log(memory):
    """The largest table (log2 of its entries) that takes at most 1/TABLE_SHARE of `memory`
    bytes (`usable_memory()`; None: the machine does not say, no limit but MAX_TABLE_LOG)."""
    log = MAX_TABLE_LOG
    while memory is not None and log > MIN_TABLE_LOG and (ENTRY_BYTES << log) * TABLE_SHARE > memory:
        log -= 1
    return log


def _kayles_table(n):
    return np.array([dawson_kayles(k) for k in range(n + 1)], dtype=np.int8)


def _compiling(kernel):
    """Whether Numba is still compiling `kernel` (a dispatcher has no overloads until it is
    compiled or loaded from its cache); a plain Python function never is."""
    return not getattr(kernel, "overloads", True)


class CramSolver:
    """Nimbers of flip positions (normal play) by search, memoised across calls.

    `endgame`: an `Endgame` (default: none; `Endgame.load_or_build()` for the full one);
    `tt_log`: log2 of the transposition table's entries (2^26: 1.1 GB, in pages as used); `mirror`: use
    the mirror strategy's zeros; `timeout`: seconds per call (None: no limit); `auto_endgame`: load
    the database when a component of ENDGAME_FROM cells comes; `grow_table`: take a larger table
    when a larger component comes (`table_log`); `workers`: threads that search each
    component together, sharing the table, each leaving aside for later what another is
    searching (the values are the same; only the time depends on the threads' race).
    """

    def __init__(self, endgame=None, tt_log=26, mirror=True, timeout=None, progress=True, auto_endgame=False,
                 grow_table=False, workers=1, wide_from=search.NARROW + 1, sets_up_to=search.SETS_UP_TO):
        self.endgame = endgame or Endgame.empty()
        self.auto_endgame = auto_endgame  # load (or build once) the database when a large component comes
        self.builds_endgame = True  # False: load a database the cache holds, never build one
        self.grow_table = grow_table
        self.max_table_log = MAX_TABLE_LOG  # a server caps its memory here (explore: 2^25, 512 MB)
        self.tt = zeroed_table(1 << tt_log, 2)  # see search.KEY, META
        self._populated = None  # the table whose pages are all mapped (`populate`)
        self.tt_log = tt_log
        self.wide_tt, self.wide_log = zeroed_table(1 << MIN_WIDE_LOG, WIDE_ENTRY_WORDS), MIN_WIDE_LOG
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
        self.checkpoint = None  # a `checkpoint.Checkpoint` the searches keep their facts in
        self._restored = None  # the tables (table, wide table) the checkpoint's facts were written into

    @property
    def ctx(self):
        return self.ctx_of(0)

    def ctx_of(self, worker):
        """The kernels' context of one worker: the shared database, table and controls, its
        own counters and buffers."""
        return self._context(self.endgame, self.tt, self.tt_log, self.control, self._worker_stats[worker],
                             self._worker_scratch[worker], self.paths, worker)

    def wide_ctx_of(self, worker):
        """`ctx_of` for a kernel of wide components (`search.WideContext`): the wide table too."""
        return search.WideContext(*self.ctx_of(worker), self.wide_tt, self.wide_log,
                                  *self._worker_scratch[worker][2:])

    def _context(self, endgame, table, tt_log, control, stats, scratch, paths, worker):
        """A kernel's context (`search.SearchContext`)."""
        return search.SearchContext(endgame.data, endgame.boxes, self.kayles, table, tt_log, control, stats,
                                    *scratch[:2], paths, worker)

    def counts(self):
        """The search's counters (search.NODES, ...) summed over the workers."""
        return np.sum(self._worker_stats, axis=0)

    @property
    def timeout(self):
        """Seconds one search may take (None: no limit)."""
        return self.supervisor.timeout

    @timeout.setter
    def timeout(self, seconds):
        self.supervisor.timeout = seconds

    @property
    def seconds(self):
        """Seconds spent searching, all searches together."""
        return self.supervisor.seconds

    def report(self):
        """What the search has done so far, for the user."""
        s = self.counts()
        return {"positions": int(s[search.NODES]), "table_hits": int(s[search.TT_HITS]),
                "database_hits": int(s[search.DB_HITS]), "stored": int(s[search.STORES]),
                "seconds": round(self.seconds, 3)}

    # --- positions as cells ----------------------------------------------------------

    def value(self, cells):
        """The nimber of the position made of these (row, col) cells."""
        return int(np.bitwise_xor.reduce(self.component_values(components(cells)), initial=0))

    def valued_components(self, cells):
        """[(cells of a component, its nimber)] of the position made of these cells: the
        parts whose nimbers XOR to its value (single cells, which no move touches, left out)."""
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
        applies: the mirror rule on, a box of one word that is not a straight run."""
        return bool(self.control[search.MIRROR]) and min(h, w) > 1 and not self.is_wide(h, w) and \
            is_point_symmetric_zero(np.uint64(bits), h, w)

    def _prepare(self, parts):
        try:
            self._prepare_for(parts)
        except KeyboardInterrupt:  # Ctrl-C while the database loads or the table is mapped: one line, as in a search
            self._raise_stopped(search.INTERRUPTED, 0)

    def _prepare_for(self, parts):
        """Load the database, grow the table and map its pages, as these components call for."""
        # straight runs need no search, so they never call for the database or the table
        searched = [(bin(int(bits)).count("1"), min(h, w)) for bits, h, w in parts if min(h, w) > 1]
        largest, side = max(searched, default=(0, 0))
        if self.auto_endgame and largest >= ENDGAME_FROM:
            self.use_endgame()
        if largest >= LARGE_ENDGAME_FROM and self._wants_larger_endgame():
            self._advised = True
            print(f"flipnet: a component of {largest} cells, and the endgame database holds boxes of at most "
                  f"{self.endgame.largest_box} cells: the 30-cell one answers such boards several times faster "
                  f"(`make endgame-large` or `flipnet endgame --cells 30`: once, under a minute, 3.5 GB)",
                  file=sys.stderr)
        wide = any(min(h, w) > 1 and self.is_wide(h, w) for bits, h, w in parts)
        wanted = table_log(largest, side) if self.grow_table and largest else 0
        if min(wanted, self.max_table_log) > self.tt_log:  # the system's limits read only when the table would grow
            memory = usable_memory()
            if wide and memory is not None:  # the wide table takes as many bytes: each its half of the share
                memory //= 2
            self.use_table(min(wanted, affordable_table_log(memory), self.max_table_log))
        if largest >= POPULATE_FROM and self._populated is not self.tt:  # once; seconds where memory is slow to come
            # two workers faulting pages in one by one wait for each other
            if self._map(self.tt, huge_pages=self.tt_log >= HUGE_PAGES_FROM):
                self._populated = self.tt  # else the next question maps the rest
        if wide and self.grow_table and self.tt_log - 1 > self.wide_log:
            self.use_wide_table(self.tt_log - 1)

    def use_wide_table(self, log):
        """A table of 2^log entries for wide components (32 bytes each: as many bytes as
        the table's 2^(log + 1)), mapped at once; empty, as `use_table`'s."""
        with self._busy:
            self._wait_for_left()
            for size in range(log, self.wide_log, -1):
                try:
                    table = zeroed_table(1 << size, WIDE_ENTRY_WORDS)
                except (MemoryError, OSError):
                    continue
                self._map(table, huge_pages=size >= HUGE_PAGES_FROM - 1, what="the wide components' table")
                self.wide_tt, self.wide_log = table, size
                return

    def _map(self, table, huge_pages, what="the search's table"):
        """Map a table's pages now (`memory.populate`), under a bar where it is large enough
        to take seconds and the solver shows progress; a Ctrl-C, a cancel or the question's
        time limit ends it (the search then stops at once and says why). True if all were
        mapped."""
        shown = bar(table.nbytes, f"mapping {what}", unit="B", more_than=SHOWN_TABLE_BYTES) \
            if self.supervisor.progress else None
        try:
            return populate(table, huge_pages=huge_pages, progress=None if shown is None else shown.update,
                            stopped=lambda: bool(self.supervisor.stopped_by()))
        finally:
            if shown is not None:
                shown.close()

    def values_of_states(self, states, rows, cols, budget=0, progress=None):
        """Values of many positions of one rows x cols board (at most 64 cells), given as
        state integers, in one search call; -1 where a position needed more than `budget`
        searched positions (0: no budget). `progress(done)` is called as they finish."""
        masks = _batch(states, rows, cols)
        out = np.zeros(masks.size, np.int64)
        self._run(search.values_of_positions, masks, rows, cols, budget, out, watch=progress)
        check_nimbers(out, np.bitwise_count(masks), allow_unknown=True)
        return out

    def values_of_sample(self, states, rows, cols, budget=0, progress=None, lanes=SAMPLE_LANES):
        """Values of a sample's positions, as `values_of_states`, but dealt in turn to
        `lanes` lanes, each valued from an empty table of its own and without the endgame
        database: a position's value, and whether it went over the budget, depend on the
        sample alone, never on the solver's past questions, its cache or its workers.
        With two workers two lanes run at once: the same numbers, 1.6-1.7x as fast on the
        registered samples."""
        masks = _batch(states, rows, cols)
        dealt = [np.ascontiguousarray(masks[lane::lanes]) for lane in range(lanes)]  # every lanes-th, in turn
        outs = [np.zeros(part.size, np.int64) for part in dealt]
        threads = min(self.workers, lanes)
        controls = [self.lane_controls() for _ in range(threads)]
        stats = [np.zeros(8, np.int64) for _ in range(threads)]
        finished = []

        def job(worker):
            def run():
                control, buffers, paths = controls[worker], search.scratch(), search.paths()
                for lane in range(worker, lanes, threads):
                    if not self.value_lane(dealt[lane], rows, cols, budget, outs[lane], control, stats[worker],
                                           buffers, paths):
                        return
                    finished.append(lane)
            return run

        with self._busy:
            self._wait_for_left()
            self.supervisor.run([job(w) for w in range(threads)], controls, stats, progress)
        if len(finished) < lanes or any(c[search.STOP] in (search.INTERRUPTED, search.CANCELLED) for c in controls):  # asked to stop as it ended
            self._raise_stopped(max(int(c[search.STOP]) for c in controls),
                                sum(int(s[search.NODES]) for s in stats))
        out = np.zeros(masks.size, np.int64)
        for lane, values in enumerate(outs):
            out[lane::lanes] = values
        check_nimbers(out, np.bitwise_count(masks), allow_unknown=True)
        return out

    def lane_controls(self):
        """The control words of a lane's search: this solver's mirror rule and sets."""
        control = search.controls(self.control[search.MIRROR])
        control[search.SETS] = self.control[search.SETS]
        return control

    def value_lane(self, masks, rows, cols, budget, out, control, stats, buffers=None, paths=None):
        """One lane of a sample (`values_of_sample`) valued into `out` from an empty table
        of 2^tt_log entries and no endgame database, in the calling thread: the values,
        and which positions pass the budget, depend on the lane alone (a task on another
        machine gives the same). False if stopped (control[STOP])."""
        table = zeroed_table(1 << self.tt_log, 2)
        buffers = search.scratch() if buffers is None else buffers
        ctx = self._context(Endgame.empty(), table, self.tt_log, control, stats, buffers,
                            search.paths() if paths is None else paths, 0)
        return search.values_of_positions(np.ascontiguousarray(masks, np.uint64), rows, cols, budget, out, ctx)

    def winning_moves(self, cells):
        """(value, dominoes after which the position's value is 0), dominoes as cell pairs."""
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

    def cancel(self):
        """From another thread: stop the question under way (its searches end with
        `Cancelled`) until the next question begins (`begin_question`)."""
        self.supervisor.cancel()

    def begin_question(self):
        self.supervisor.begin_question()

    def compiling(self):
        return self.supervisor.compiling()

    @contextlib.contextmanager
    def time_limit(self, seconds, asked=None):
        """One limit in seconds (None: none) for every search a question takes (its value,
        then each component's moves, and the mapping of its table), where `timeout` limits
        each search alone; `asked`: the limit as given, where `seconds` is what is left of
        it. Inside it, a missing endgame database is not built (that takes longer than most
        limits): the search goes on without it, and a timeout says so."""
        with self.supervisor.time_limit(seconds, asked):
            try:
                yield
            finally:
                self._without_endgame = False

    def _wants_larger_endgame(self):
        """A command's solver, holding a database smaller than the 30-cell set, not yet told so."""
        return self.auto_endgame and not self._advised and 0 < self.endgame.largest_box < MAX_BOX_CELLS

    def use_endgame(self):
        """Load the endgame database from the cache, building it there the first time
        (not inside `time_limit`)."""
        if (self.supervisor.deadline is not None or not self.builds_endgame) and not Endgame.is_built():
            self._without_endgame = True
            return
        self.auto_endgame = False
        self.endgame = Endgame.load_or_build(log=lambda line: print(f"flipnet: {line}", file=sys.stderr))

    def use_table(self, tt_log):
        """A table of 2^tt_log entries if the present one is smaller. It starts empty: the
        table only remembers proven facts, and losing them costs time, never truth. Where
        the system refuses the mapping (a limit `usable_memory` could not see), the
        largest smaller one it grants that is still larger than the present one."""
        with self._busy:
            self._wait_for_left()
            for log in range(tt_log, self.tt_log, -1):
                try:
                    table = zeroed_table(1 << log, 2)
                except (MemoryError, OSError):
                    continue
                self.tt, self.tt_log = table, log
                return

    def use_workers(self, workers):
        """Search each component with `workers` threads from the next call on (1 to
        MAX_WORKERS; more than the usable cores only take turns on them). As many as now:
        nothing to change, and nothing waited for (every `flipnet.value` names its workers,
        a position the recursion answers too, which a kernel left behind compiling kept
        waiting for half a minute in the explorer)."""
        check_search_workers(workers)
        if workers == self.workers:
            return
        with self._busy:
            self._wait_for_left()
            self.workers = workers
            self.control[search.SHARED] = int(workers > 1)
            if self.paths.shape[0] < workers:
                self.paths = search.paths(workers)
            while len(self._worker_stats) < workers:
                self._worker_stats.append(np.zeros(8, np.int64))
                self._worker_scratch.append(search.scratch())

    # --- running the kernel ----------------------------------------------------------

    def _run(self, kernel, *args, watch=None):
        """Run a search kernel in a worker thread; progress, time limit and Ctrl-C here.
        `watch(positions done)`, if given, replaces the progress line. One kernel at a
        time: they share the table and the scratch buffers, so a second caller waits,
        and so does the next caller after a kernel left behind."""
        with self._busy:
            self._wait_for_left()
            self._run_alone(kernel, *args, watch=watch)

    def _calls(self, kernel, args):
        """(arguments, context) of each worker's call: with several, on a question's
        components (not on a batch of positions), each but the first writes its answers to
        an array of its own."""
        ctx_of = self.wide_ctx_of if kernel in (search.wide_values, search.wide_moves) else self.ctx_of
        if self.workers == 1 or kernel not in (search.nimbers_of, search.moves_to, search.wide_values,
                                               search.wide_moves):
            return [(args, ctx_of(0))]
        return [(args, ctx_of(0))] + [((*args[:-1], np.empty_like(args[-1])), ctx_of(k))
                                      for k in range(1, self.workers)]

    def use_checkpoint(self, checkpoint):
        """Keep the searches' largest facts in `checkpoint` (`checkpoint.Checkpoint`) as
        they go and when stopped, starting from those it holds; None: no more."""
        self.checkpoint, self._restored = checkpoint, None

    def _run_alone(self, kernel, *args, watch=None):
        """Run a kernel; with a checkpoint, pause it every so often to write one, and ask
        again (the table keeps what it found, so it goes on from there)."""
        if self.checkpoint is None:
            return self._run_once(kernel, *args, watch=watch)
        if self._restored is None or self._restored[0] is not self.tt or self._restored[1] is not self.wide_tt:
            self.checkpoint.bind(self.endgame, self.control[search.MIRROR])
            self.checkpoint.restore(self.tt, self.tt_log, self.stats, self.wide_tt, self.wide_log)
            if self._restored is None and self.supervisor.progress:  # once a solve, not at each table grown
                print(f"flipnet: {self.checkpoint.start_text()}", file=sys.stderr)
            self._restored = (self.tt, self.wide_tt)
        since = int(self.counts()[search.NODES])  # a stop counts the positions of every run since
        carry = {}  # the runs of this question show one progress line
        try:
            while True:
                self.supervisor.pause_at = time.perf_counter() + self.checkpoint.seconds
                try:
                    self._run_once(kernel, *args, watch=watch, since=since, carry=carry)
                    return
                except Paused:
                    self.save_checkpoint()
                    if self.supervisor.progress and progress_shown():  # only for a line someone sees
                        carry["standing"] = self._where_it_stands(kernel, args)
                except FlipnetError as exc:
                    if self.supervisor.left:  # a kernel still writes the table: its facts cannot be read now
                        raise
                    facts, _ = self.save_checkpoint()
                    raise type(exc)(f"{exc}; {self.checkpoint.path} keeps what it found ({facts:,} facts; "
                                    f"{self.checkpoint.work_text()}): the same command goes on from "
                                    f"there") from None
                finally:
                    self.supervisor.pause_at = None
        finally:
            if carry.get("line") is not None:
                carry["line"].close()

    def _where_it_stands(self, kernel, args):
        """`standing.in_a_line` of the one component a kernel call searches, None for several."""
        if kernel is search.nimbers_of and args[0].size == 1:
            bits, h, w = int(args[0][0]), int(args[1][0]), int(args[2][0])
        elif kernel is search.wide_values and args[0].size == 1:
            bits, h, w = int(args[0][0]) | int(args[1][0]) << 64, int(args[2]), int(args[3])
        else:
            return None
        from flipnet.solve.cram.standing import in_a_line

        try:
            return in_a_line(self, bits, h, w)
        except Exception as exc:  # noqa: BLE001 - a line of progress never ends a solve of days
            return f"its standing not read: {type(exc).__name__}"

    def save_checkpoint(self):
        """Write the checkpoint: the tables' largest facts, and the positions and seconds this
        solver has searched; (facts, bytes)."""
        return self.checkpoint.save(self.tt, self.wide_tt, int(self.counts()[search.NODES]), self.seconds)

    def _run_once(self, kernel, *args, watch=None, since=None, carry=None):
        """Run a kernel on the workers; a stop counts the positions searched since `since`
        (the counters' value then; default: this run's start). `carry`: what the runs of one
        question share (`Supervisor.run`)."""
        calls = self._calls(kernel, args)
        answered, first = [], threading.Lock()

        def job(k):
            def run():
                call_args, ctx = calls[k]
                if kernel(*call_args, ctx):
                    with first:
                        if not answered:
                            answered.append(k)
                            if len(calls) > 1:
                                self.control[search.STOP] = search.ANSWERED  # the others stop
            return run

        nodes_before = int(self.counts()[search.NODES]) if since is None else since
        self.supervisor.run([job(k) for k in range(len(calls))], [self.control], self._worker_stats, watch,
                            settled=lambda: bool(answered), compiling=lambda: _compiling(kernel), carry=carry)
        if answered:
            if answered[0]:  # another worker's answers
                args[-1][...] = calls[answered[0]][0][-1]
            self.control[search.STOP] = 0
            return
        self._raise_stopped(int(self.control[search.STOP]), int(self.counts()[search.NODES]) - nodes_before)

    def _wait_for_left(self):
        """`Supervisor.wait_for_left`, and a question stopped meanwhile ends as a search
        stopped before its first position (the explorer: a cancel during the first
        compile left every later question, a small one too, waiting for it, 31 s)."""
        reason = self.supervisor.wait_for_left()
        if reason:
            self._raise_stopped(reason, 0)

    def _raise_stopped(self, reason, searched):
        """The one-line error of a search stopped before its answer, for `reason` (a STOP
        value) after `searched` positions."""
        count = f"{searched:,} position{'' if searched == 1 else 's'} searched"
        if reason == search.OUT_OF_TIME:
            why = count
            if not searched and self.supervisor.left:  # still compiling: let a process of its own finish that
                from flipnet.solve.cram.warm import start_in_background

                start_in_background(with_endgame=self.endgame.boxes.size > 0)
                why = ("the search had not begun: Numba compiles it the first time, up to a minute; "
                       "that goes on in the background, so a call in a minute starts at once")
            if self._without_endgame:
                why += ("; without the endgame database, which is not built yet: `flipnet endgame` "
                        "builds it once, in about 20 s")
            limit = self.supervisor.limit if self.supervisor.limit is not None else self.timeout
            raise TimedOut(f"no answer within --timeout {limit:g} s ({why})")
        if reason == search.CANCELLED:
            raise Cancelled(f"cancelled after {count}")
        if reason == search.PAUSED:
            self.control[search.STOP] = 0
            raise Paused(count)
        if reason == search.OVER_BUDGET:
            raise FlipnetError(f"no answer within the search budget of {int(self.control[search.NODE_LIMIT]):,} "
                               f"positions: this position is too large for the solver")
        raise Interrupted(f"interrupted after {count}")


class Paused(Exception):
    """The searches paused for a checkpoint (never leaves the solver)."""


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


def _batch(states, rows, cols):
    """A batch's states as 64-bit masks, once its board is known to fit a word."""
    if rows * cols > search.NARROW:
        raise FlipnetError(f"a {rows}x{cols} board has {rows * cols} cells; batches take at most {search.NARROW}")
    return np.asarray(states, dtype=np.uint64)


def check_nimbers(values, cells, allow_unknown=False):
    """Refuse a nimber that no position of that many cells has: a game of n cells lasts at
    most n // 2 moves, so its nimber, and the XOR of its components', stays below
    2^bit_length(n // 2). Only a damaged database or a fault could give one."""
    cells = np.asarray(cells, np.int64)
    limit = np.left_shift(1, np.frexp(cells // 2 + 0.5)[1].astype(np.int64))  # 2^bit_length(n // 2)
    bad = (values >= limit) | (values < (-1 if allow_unknown else 0))
    if bad.any():
        k = int(np.argmax(bad))
        raise FlipnetError(f"the search gave nimber {int(values[k])} to a position of {int(cells[k])} cells, "
                           f"which allows values below {int(limit[k])}: the endgame database in "
                           f"{cache_dir()} may be damaged (delete it; `flipnet endgame` builds it again)")


_SHARED = {}


def solver():
    """The process's solver: one transposition table for every question it is asked
    (the optimal player asks one per move; a dataset, one per position). It takes the
    endgame database when a component of 30 cells or more comes, unless FLIPNET_ENDGAME=off,
    and a table sized to the largest component it has been asked about (`table_log`),
    searched by as many threads as the process has cores (`base/cores.py`).
    FLIPNET_MIRROR=off leaves out the mirror strategy's zeros (for timing the search of an
    even board, which the rule answers at once); FLIPNET_WIDE_FROM=N searches boxes of N
    cells or more with the wide kernels (a check of them on boards the one-word search
    answers); FLIPNET_SETS_UP_TO=N asks by sets only the questions whose largest value
    wanted is at most N (-1: value by value everywhere, step 5's other method)."""
    if "solver" not in _SHARED:
        _SHARED["solver"] = CramSolver(grow_table=True, tt_log=MIN_TABLE_LOG, workers=usable_cores(),
                                       **settings_from_environment())
    return _SHARED["solver"]


def settings_from_environment():
    """The solver's settings a command takes from its environment (`solver`)."""
    import os

    return dict(auto_endgame=os.environ.get("FLIPNET_ENDGAME", "on") != "off",
                mirror=os.environ.get("FLIPNET_MIRROR", "on") != "off",
                wide_from=os.environ.get("FLIPNET_WIDE_FROM", search.NARROW + 1),
                sets_up_to=os.environ.get("FLIPNET_SETS_UP_TO", search.SETS_UP_TO))


def shared_report():
    """What the process's solver has searched (`CramSolver.report`), or None if it never ran."""
    return _SHARED["solver"].report() if "solver" in _SHARED else None
