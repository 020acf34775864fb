"""Facts the workers of a cluster hand each other. The workers of a solve in pieces each
keep a table of their own; with a directory they can all write (`--piece-checkpoints
DIR`), each writes there what its table proves about the largest components after each
piece it answers, and reads what the others wrote before each search, so that what one
worker proves reaches the pieces that start after it on any worker, as the pieces asked
in one process share one table.

A fact is true whatever search found it, given the same search code, endgame database
and mirror rule: another worker's file is read only when it names the same (a machine
with another database, or another flipnet, shares nothing and loses nothing). An entry
the table already holds stays (it may know more); a file being replaced, or damaged, is
passed over and read at the next search."""

import json
import os
import secrets
import socket
import time
import zipfile
from pathlib import Path

import numpy as np

from flipnet.base.files import atomic_path
from flipnet.base.kernels import njit
from flipnet.solve.cram.checkpoint import _check_facts, facts_of, search_version
from flipnet.solve.cram.entries import SHAPE_WORD, tt_entry, tt_write
from flipnet.solve.cram.search import MIRROR
from flipnet.solve.cram.wide import load

SHARED_FACTS = 1 << 18  # the facts a worker hands on after each piece: 4 MB a worker
COST_SHARE = 10  # the searches between two writes take at least this many times a write


@njit(cache=True)
def _merge(tt, log_capacity, bits, meta, stats):
    """Write each fact the table holds no entry for; how many were written."""
    written = 0
    for k in range(meta.size):
        shape = np.int64(meta[k] & SHAPE_WORD)
        key = load(bits, k)
        i, held = tt_entry(tt, log_capacity, key, shape, stats)
        if held == np.uint64(shape):  # a fresh slot: the table knew nothing of this component
            tt_write(tt, log_capacity, i, key, meta[k])
            written += 1
    return written


class SharedFacts:
    """The facts this worker and the others of a solve keep in the directory `place`."""

    def __init__(self, place):
        self.place = Path(place)
        self.mine = self.place / f"facts-{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}.npz"
        self.seen = {}  # another worker's file -> its modification time when last read
        self.taken = 0  # facts written into this worker's table from the others'
        self.cost, self.since = 0.0, 0.0  # seconds of the last write; of search since it

    @staticmethod
    def identity(solver):
        """What a fact is true of: the search's code, the database, the mirror rule."""
        return json.dumps({"search": search_version(), "database": solver.endgame.box_names,
                           "database_bytes": int(solver.endgame.nbytes), "mirror": bool(solver.control[MIRROR])},
                          sort_keys=True)

    def take(self, solver):
        """The other workers' facts written since this worker last read them, into the
        solver's table (ready for its next search); how many were new to it."""
        ours, new = self.identity(solver), 0
        for path in sorted(self.place.glob("facts-*.npz")):
            if path == self.mine:
                continue
            try:
                stamp = path.stat().st_mtime_ns
                if self.seen.get(path) == stamp:
                    continue
                with np.load(path, allow_pickle=False) as f:
                    same = str(f["identity"]) == ours
                    bits, meta = (f["bits"], f["meta"]) if same else (None, None)
            except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
                continue  # replaced as it was read: read at the next search
            self.seen[path] = stamp
            if same and bits.dtype == meta.dtype == np.uint64 and bits.shape == meta.shape and bits.ndim == 1 \
                    and _check_facts(bits, meta) < 0:
                new += int(_merge(solver.tt, solver.tt_log, bits, meta, solver.stats))
        self.taken += new
        return new

    def give(self, solver, seconds):
        """Write this worker's largest facts for the others, atomically, after a piece whose
        search took `seconds`: once the searches since the last write took ten times as
        long as that write (it reads the whole table: on 5x9, writing after every piece
        made the solve 12% slower). True if written."""
        self.since += seconds
        if self.since < COST_SHARE * self.cost:
            return False
        started = time.perf_counter()
        bits, meta = facts_of(solver.tt, SHARED_FACTS)
        with atomic_path(self.mine) as tmp, open(tmp, "wb") as f:
            np.savez(f, identity=np.array(self.identity(solver)), bits=bits, meta=meta)
        self.cost, self.since = time.perf_counter() - started, 0.0
        return True
