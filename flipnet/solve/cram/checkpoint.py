"""A long solve that survives its stops: what the table has proven about the largest
components, kept in a file as the search goes and read back by the next run.

Every entry of the table is a proven fact (a component's nimber, or values it does not
have), true whatever search found it. The facts worth keeping are those about the largest
components, nearest the root: each stands for the most search. So a checkpoint holds the
MAX_FACTS facts of the most cells (16 bytes each, 16 MB at most: small enough to copy to
another machine or to keep beside a published value), and a run that reads it starts
with them in its table: the search descends again, finds them, and does not search below
them again.

The solver writes it every FLIPNET_CHECKPOINT_SECONDS (default CHECKPOINT_SECONDS) by
pausing its workers (their kernels end as on a stop; the table stays), and when it is
stopped (Ctrl-C, SIGTERM, a time limit); each write is atomic, so a `kill -9` loses at
most the facts found since the last. A file of another board, another endgame database
or another version of the search is refused, and so is a damaged one, each in one line:
its facts would be true of another question, or of none.
"""

import hashlib
import json
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
from numba import njit

from flipnet.base.errors import DamagedFile, FlipnetError
from flipnet.base.files import atomic_path, check_writable
from flipnet.solve.cram.bits import canonical, popcount, split
from flipnet.solve.cram.keys import shape_cols, shape_rows
from flipnet.solve.cram.search import KEY, META, _check, _SHAPE, tt_entry, tt_value

FORMAT = "flipnet-cram-checkpoint-1"
MAX_FACTS = 1 << 20  # the facts kept: 16 MB at most
CHECKPOINT_SECONDS = 120.0  # between two writes during a search
# The files whose code decides what a fact means (keys, table words) or which are true
SEARCH_FILES = ("search.py", "bits.py", "keys.py", "endgame.py")


def checkpoint_seconds():
    """Seconds between two writes (FLIPNET_CHECKPOINT_SECONDS, else CHECKPOINT_SECONDS)."""
    text = os.environ.get("FLIPNET_CHECKPOINT_SECONDS")
    try:
        seconds = float(text) if text else CHECKPOINT_SECONDS
    except ValueError:
        raise FlipnetError(f"FLIPNET_CHECKPOINT_SECONDS={text!r} is not a number of seconds") from None
    if not seconds > 0:
        raise FlipnetError(f"FLIPNET_CHECKPOINT_SECONDS must be above 0, got {text}")
    return seconds


def search_version():
    """A digest of the search's code: a checkpoint is read only by the search that wrote it."""
    digest = hashlib.sha256()
    for name in SEARCH_FILES:
        digest.update((Path(__file__).with_name(name)).read_bytes())
    return digest.hexdigest()[:16]


@njit(cache=True, nogil=True)
def _cells_histogram(tt):
    """How many entries of the table hold a component of each number of cells (0..64)."""
    counts = np.zeros(65, np.int64)
    for i in range(tt.shape[0]):
        meta = tt[i, META]
        if meta & _SHAPE:
            counts[popcount(tt[i, KEY] ^ _check(meta))] += 1
    return counts


@njit(cache=True, nogil=True)
def _collect(tt, least, room, out_bits, out_meta):
    """The entries of at least `least` cells into out_*, those of exactly `least` cells only
    while `room` of them are left; how many."""
    n = 0
    for i in range(tt.shape[0]):
        meta = tt[i, META]
        if not meta & _SHAPE:
            continue
        bits = tt[i, KEY] ^ _check(meta)
        c = popcount(bits)
        if c < least or c == least and room <= 0:
            continue
        if c == least:
            room -= 1
        out_bits[n], out_meta[n] = bits, meta
        n += 1
    return n


def facts_of(table, most=MAX_FACTS):
    """(bits, meta) of the table's facts about its largest components: `most` at most,
    the components of the most cells first. Only while no search writes the table."""
    counts = _cells_histogram(table)
    kept, least = 0, 64
    while least > 0 and kept + counts[least] <= most:
        kept += counts[least]
        least -= 1
    room = most - kept  # of the components of `least` cells, as many as fit
    size = kept + min(room, counts[least])
    bits, meta = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
    n = _collect(table, least, room, bits, meta)
    return bits[:n], meta[:n]


@njit(cache=True)
def _check_facts(bits, meta):
    """The index of the first fact that cannot be one (not a canonical connected component
    filling its box, a nimber past what its cells allow), or -1."""
    rows, trows, parts = np.zeros(64, np.uint64), np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    for k in range(bits.size):
        shape = np.int64(meta[k] & _SHAPE)
        h, w = shape_rows(shape), shape_cols(shape)
        if h < 2 or w < 2 or h * w > 64 or h > w:
            return k
        if h * w < 64 and bits[k] >> np.uint64(h * w):
            return k
        cb, cs = canonical(bits[k], h, w, rows, trows)
        if cb != bits[k] or cs != shape:
            return k
        if split(bits[k], h, w, parts) != 1 or parts[0] != bits[k]:
            return k
        if tt_value(meta[k]) > popcount(bits[k]) // 2:
            return k
    return -1


@njit(cache=True)
def _restore(tt, log_capacity, bits, meta, stats):
    """Write each fact into the table (a fresh one: its slot is free or its own)."""
    for k in range(bits.size):
        shape = np.int64(meta[k] & _SHAPE)
        i, _ = tt_entry(tt, log_capacity, bits[k], shape, stats)
        tt[i, KEY] = bits[k] ^ _check(meta[k])
        tt[i, META] = meta[k]


class Checkpoint:
    """The checkpoint file of one question (`board`, its text). What its facts are true
    of (`identity`: the board, the endgame database, the search's version, the mirror
    rule) is known once the solver is ready to search (`bind`)."""

    def __init__(self, path, board):
        self.path, self.board = Path(path), board
        self.identity = None
        self.seconds = checkpoint_seconds()
        self.facts_read = 0
        self.saved = None  # (facts, bytes) of the last write

    def bind(self, endgame, mirror):
        self.identity = {"format": FORMAT, "board": self.board, "database": endgame.box_names,
                         "database_bytes": int(endgame.nbytes), "search": search_version(), "mirror": bool(mirror)}

    def check_place(self):
        """Before the work: the file can be written there, and the disk has room for it."""
        check_writable(self.path)
        free = shutil.disk_usage(self.path.parent if str(self.path.parent) else ".").free
        most = MAX_FACTS * 16 + (1 << 20)
        if free < 2 * most:  # the new file is written beside the old one before it replaces it
            raise FlipnetError(f"--checkpoint {self.path}: {free / 1e6:.0f} MB free on its disk; a checkpoint "
                               f"takes up to {most / 1e6:.0f} MB, written beside the last one (twice that)")

    def read(self):
        """(bits, meta) of the facts the file holds; empty arrays where there is no file
        yet. Another question's file, or a damaged one, is refused in one line."""
        if not self.path.exists():
            return np.zeros(0, np.uint64), np.zeros(0, np.uint64)
        try:
            with np.load(self.path, allow_pickle=False) as f:
                about = json.loads(str(f["identity"]))
                bits, meta = f["bits"], f["meta"]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise DamagedFile(f"checkpoint {self.path} is damaged ({type(exc).__name__}): delete it to start "
                              f"over") from None
        if not isinstance(about, dict) or about.get("format") != FORMAT:
            raise DamagedFile(f"{self.path} is not a flipnet search checkpoint")
        for key, mine in self.identity.items():
            if about.get(key) != mine:
                raise FlipnetError(f"checkpoint {self.path} is of another {_what(key)} ({about.get(key)!r}, "
                                   f"this solve: {mine!r}): give another file, or delete it to start over")
        if bits.dtype != np.uint64 or meta.dtype != np.uint64 or bits.shape != meta.shape or bits.ndim != 1:
            raise DamagedFile(f"checkpoint {self.path} is damaged (its arrays)")
        bad = _check_facts(bits, meta)
        if bad >= 0:
            raise DamagedFile(f"checkpoint {self.path} is damaged: fact {bad} is of no component")
        self.facts_read = int(bits.size)
        return bits, meta

    def restore(self, table, log_capacity, stats):
        """The file's facts written into `table` (a fresh one); how many."""
        bits, meta = self.read()
        _restore(table, log_capacity, bits, meta, stats)
        return int(bits.size)

    def save(self, table):
        """Write the table's largest facts, atomically; (facts, bytes)."""
        bits, meta = facts_of(table)
        with atomic_path(self.path) as tmp, open(tmp, "wb") as f:
            np.savez(f, identity=np.array(json.dumps(self.identity)), bits=bits, meta=meta)
        self.saved = (int(bits.size), self.path.stat().st_size)
        return self.saved


def _what(key):
    return {"board": "board", "database": "endgame database", "database_bytes": "endgame database",
            "search": "version of the search", "mirror": "mirror rule", "format": "format"}[key]
