"""The search's memory: its transposition table and the wide components' table, sized to
a question (`table_log`) and to the machine (`affordable_table_log`), their pages mapped
ahead of a large search, and the endgame database loaded when a component large enough
comes. `TableKeeper` is the part of `solver.CramSolver` that does it, on the state the
solver holds (`tt`, `tt_log`, `wide_tt`, `wide_log`, `endgame`)."""

import sys

from flipnet.base.progress import bar
from flipnet.solve.cram import search
from flipnet.solve.cram.endgame import Endgame, build_in_background
from flipnet.solve.cram.entries import ENTRY_BYTES, WIDE_ENTRY_WORDS
from flipnet.solve.cram.limits import MAX_TABLE_LOG, MIN_TABLE_LOG
from flipnet.solve.cram.memory import populate, usable_memory, zeroed_table
from flipnet.solve.parts import MAX_FRAME

ENDGAME_FROM = 30  # cells of a component from which the shared solver wants the endgame database
# From this many cells the 30-cell database pays: 6x7 (42) was answered in 7 min with it and
# not in 10 with the 28-cell one, so a solver holding the smaller set says so once
LARGE_ENDGAME_FROM = 40
LARGE_BOX_CELLS = 30  # the largest box of the set advised from LARGE_ENDGAME_FROM cells
# A question of fewer cells than this does not wait for a database not yet built: 5x8 (40)
# searched 3.8 s without it; building it takes about 12 s, then 5x8 takes 2.4 s
WAITS_FOR_ENDGAME_FROM = 41
# A growing solver's table: about as many entries as its largest search visits positions
# (docs/cram.md, step 9). Mapping a table costs, and a larger one than the search needs is
# slower to probe too (5x7 searched 0.50 s with 2^20 or 2^22 entries, and in 0.59 s with
# 2^26, plus 1.6 s to map it); one too small loses facts it has to find again.
MIN_WIDE_LOG = 10  # a wide table before any wide component comes: 32 kB
TABLE_SHARE = 2  # a table takes at most half the usable memory: the database and the rest need theirs
POPULATE_FROM = 32  # a component this large touches most of the table: map all its pages at once
SHOWN_TABLE_BYTES = 1 << 30  # a table this large may take seconds to map: a bar says so
# From a table of this many bytes on, the pages are 2 MB: fewer TLB misses pay for the
# seconds the system may take to find them (4x11, 256 MB: 7.1 s in 4 kB pages, 8.4 s in 2 MB;
# 6x7, 512 MB: 2 MB pages 1.5-2 s faster in all, docs/cram.md step 6)
HUGE_PAGES_FROM = 512 << 20


# By the box's shorter side, at most: ((at most these cells, log2 of the table's entries),
# ...), and the log beyond the last of them
TABLE_SIZES = (
    (2, (), 20),
    (3, ((36, 19), (41, 20), (44, 22), (47, 24), (57, 26)), 29),
    (5, ((36, 20), (41, 22), (44, 24), (47, 26), (49, 28)), 30),
    (MAX_FRAME, ((36, 22), (44, 25), (49, 26)), 30),
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
    2^16 did not end in ten minutes), so they take 2^20 (8 MB), where 2^28 entries of 16
    bytes cost a trivial 2x33 11 s of mapping and 4.4 GB. Past the steps, a table takes
    the bytes the two-word entries took (8.6 GB on five rows or more), twice the entries."""
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


class TableKeeper:
    """The tables and the database of a solver, made ready for each question's components."""

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
            self.use_endgame(largest)
        if largest >= LARGE_ENDGAME_FROM and self._wants_larger_endgame():
            self._advised = True
            print(f"flipnet: a component of {largest} cells, and the endgame database holds boxes of at most "
                  f"{self.endgame.largest_box} cells: the 30-cell one answers such boards several times faster "
                  f"(`make endgame-large` or `flipnet endgame --cells 30`: once, about a minute, 1.7 GB)",
                  file=sys.stderr)
        wide = any(min(h, w) > 1 and self.is_wide(h, w) for bits, h, w in parts)
        wanted = table_log(largest, side) if self.grow_table and largest else 0
        if min(wanted, self.max_table_log) > self.tt_log:  # the system's limits read only when the table would grow
            memory = usable_memory(self.memory_limit)
            if wide and memory is not None:  # the wide table takes as many bytes: each its half of the share
                memory //= 2
            self.use_table(min(wanted, affordable_table_log(memory), self.max_table_log))
        if largest >= POPULATE_FROM and self._populated is not self.tt:  # once; seconds where memory is slow to come
            # two workers faulting pages in one by one wait for each other
            if self._map(self.tt, huge_pages=self.tt.nbytes >= HUGE_PAGES_FROM):
                self._populated = self.tt  # else the next question maps the rest
        if wide and self.grow_table and self.tt_log - 2 > self.wide_log:
            self.use_wide_table(self.tt_log - 2)

    def release_memory(self):
        """Give back what questions made resident: the tables start again empty at their
        first size (facts lost cost time, never truth) and the database is mapped again,
        its pages read again as they are needed. A server calls it between questions."""
        with self._busy:
            if self.supervisor.left:  # kernels left behind still hold the tables: another time
                return
            self._empty_tables(self.first_tt_log)
            self.endgame = self.endgame.remapped()

    def _empty_tables(self, tt_log):
        """Empty tables: the table of 2^tt_log entries, the wide one at its least size."""
        if tt_log < MIN_TABLE_LOG:  # a word holds the key's bits beyond its bucket's number (entries.py)
            raise ValueError(f"a table of 2^{tt_log} entries: at least 2^{MIN_TABLE_LOG}")
        self.tt, self.tt_log, self.first_tt_log = zeroed_table(1 << tt_log, 1), tt_log, tt_log
        self.wide_tt, self.wide_log = zeroed_table(1 << MIN_WIDE_LOG, WIDE_ENTRY_WORDS), MIN_WIDE_LOG
        self._populated = None  # the table whose pages are all mapped (`populate`)

    def use_wide_table(self, log):
        """A table of 2^log entries for wide components (32 bytes each: as many bytes as
        the table's 2^(log + 2)), mapped at once; empty, as `use_table`'s."""
        with self._busy:
            self._wait_for_left()
            for size in range(log, self.wide_log, -1):
                try:
                    table = zeroed_table(1 << size, WIDE_ENTRY_WORDS)
                except (MemoryError, OSError):
                    continue
                self._map(table, huge_pages=table.nbytes >= HUGE_PAGES_FROM, what="the wide components' table")
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

    def use_table(self, tt_log):
        """A table of 2^tt_log entries if the present one is smaller. It starts empty: the
        table only remembers proven facts, and losing them costs time, never truth. Where
        the system refuses the mapping (a limit `usable_memory` could not see), the
        largest smaller one it grants that is still larger than the present one."""
        with self._busy:
            self._wait_for_left()
            for log in range(tt_log, self.tt_log, -1):
                try:
                    table = zeroed_table(1 << log, 1)
                except (MemoryError, OSError):
                    continue
                self.tt, self.tt_log = table, log
                return

    def use_endgame(self, largest=None):
        """Load the endgame database from the cache, building it there the first time
        (not inside `time_limit`). Below `WAITS_FOR_ENDGAME_FROM` cells the question goes on
        without it, and a process of its own builds it as this one ends: the build takes
        longer than the search it would shorten."""
        built = Endgame.is_built()
        if not built and (self.supervisor.deadline is not None or not self.builds_endgame):
            self._without_endgame = True
            return
        if not built and largest is not None and largest < WAITS_FOR_ENDGAME_FROM:
            building = build_in_background()
            if building and not self._told_building:
                self._told_building = True
                when = "is being built in the background" if building == "under way" else \
                    "will be built in the background as this ends"
                boxes, size = Endgame.to_build()
                print(f"flipnet: the endgame database {when} (once: boxes {boxes}, {size / 1e6:.0f} MB); later "
                      f"searches use it", file=sys.stderr)
            return
        self.auto_endgame = False
        self.endgame = Endgame.load_or_build(log=lambda line: print(f"flipnet: {line}", file=sys.stderr))

    def _wants_larger_endgame(self):
        """A command's solver, holding a database smaller than the 30-cell set, not yet told so."""
        return self.auto_endgame and not self._advised and 0 < self.endgame.largest_box < LARGE_BOX_CELLS
