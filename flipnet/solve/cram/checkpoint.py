"""A long solve that survives its stops: what the table has proven about the largest
components, kept in a file as the search goes and read back by the next run.

Every entry of the table is a proven fact (a component's nimber, or values it does not
have), true whatever search found it. The facts worth keeping are those about the largest
components, nearest the root: each stands for the most search. So a checkpoint holds the
MAX_FACTS facts of the most cells of each table (16 bytes each, 16 MB at most, and for
the table of wide components, boxes past 64 cells, 24 bytes each: small enough to copy to
another machine or to keep beside a published value), and a run that reads it starts
with them in its table: the search descends again, finds them, and does not search below
them again.

The solver writes it every `seconds` (the settings' checkpoint_seconds, 120 unless told) by
pausing its workers (their kernels end as on a stop; the table stays), and when it is
stopped (Ctrl-C, SIGTERM, a time limit); each write is atomic, so a `kill -9` loses at
most the facts found since the last. A file of another board, another endgame database
or another version of the search is refused, and so is a damaged one, each in one line:
its facts would be true of another question, or of none.

The same file keeps the record of a solve in pieces (`pieces.py`): the value of each
finished child of the board, true of the board alone, so read whatever database or
search wrote it. Writing one record keeps the other. And it keeps the work that went into
it: the runs that searched with it, their positions and seconds of search, added up from
one run to the next (a file without that record, written before it was kept, counts from
zero), so that a solve of days says what it cost in all. And it names the flipnet that
wrote its facts (version and commit), so that a solve moved to another machine, whose
flipnet's search differs, is told which one goes on from it.
"""

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np

from flipnet.base.kernels import njit
from flipnet.base.errors import BadInput, DamagedFile, FlipnetError
from flipnet.base.files import atomic_path, check_writable
from flipnet.base.provenance import commit, version
from flipnet.solve.cram.bits import canonical, popcount, split
from flipnet.solve.cram.keys import shape_cols, shape_rows
from flipnet.solve.cram.limits import CHECKPOINT_SECONDS
from flipnet.solve.cram.entries import SHAPE_WORD, table_log, tt_entry, tt_fact, tt_value, tt_write
from flipnet.solve.cram.search import NARROW
from flipnet.solve.cram.wide import WIDE_CELLS, load, store, wide

FORMAT = "flipnet-cram-checkpoint-3"
MAX_FACTS = 1 << 20  # the facts kept: 16 MB at most
# The files whose code decides what a fact means (keys, table words) or which are true
SEARCH_FILES = ("search.py", "entries.py", "bits.py", "keys.py", "endgame.py", "wide.py")


def search_version():
    """A digest of the search's code: a checkpoint is read only by the search that wrote it."""
    digest = hashlib.sha256()
    for name in SEARCH_FILES:
        digest.update((Path(__file__).with_name(name)).read_bytes())
    return digest.hexdigest()[:16]


@njit(cache=True, nogil=True)
def _cells_histogram(tt, log, zero):
    """How many entries of the table hold a component of each number of cells (keys of
    zero's width)."""
    counts = np.zeros(WIDE_CELLS + 1, np.int64)
    for i in range(tt.shape[0]):
        bits, meta = tt_fact(tt, log, i, zero)
        if meta:
            counts[popcount(bits)] += 1
    return counts


@njit(cache=True, nogil=True)
def _collect(tt, log, least, room, out_bits, out_meta, zero):
    """The entries of at least `least` cells into out_*, those of exactly `least` cells only
    while `room` of them are left; how many."""
    n = 0
    for i in range(tt.shape[0]):
        bits, meta = tt_fact(tt, log, i, zero)
        if not meta:
            continue
        c = popcount(bits)
        if c < least or c == least and room <= 0:
            continue
        if c == least:
            room -= 1
        store(bits, out_bits, n)
        out_meta[n] = meta
        n += 1
    return n


def facts_of(table, most=MAX_FACTS, wide_keys=False):
    """(bits, meta) of the table's facts about its largest components: `most` at most,
    the components of the most cells first; bits of a wide table (`wide_keys`) as rows of
    two words. Only while no search writes the table."""
    log = table_log(table)
    counts = _wide_histogram(table, log) if wide_keys else _cells_histogram(table, log, np.uint64(0))
    kept, least = 0, WIDE_CELLS
    while least > 0 and kept + counts[least] <= most:
        kept += counts[least]
        least -= 1
    room = most - kept  # of the components of `least` cells, as many as fit
    size = kept + min(room, counts[least])
    bits = np.zeros((size, 2) if wide_keys else size, np.uint64)
    meta = np.zeros(size, np.uint64)
    n = (_wide_collect(table, log, least, room, bits, meta) if wide_keys else
         _collect(table, log, least, room, bits, meta, np.uint64(0)))
    return bits[:n], meta[:n]


@njit(cache=True, nogil=True)
def _wide_histogram(tt, log):
    return _cells_histogram(tt, log, wide(np.uint64(0), np.uint64(0)))


@njit(cache=True, nogil=True)
def _wide_collect(tt, log, least, room, out_bits, out_meta):
    return _collect(tt, log, least, room, out_bits, out_meta, wide(np.uint64(0), np.uint64(0)))


@njit(cache=True)
def _check_facts(bits, meta):
    """The index of the first fact that cannot be one (not a canonical connected component
    filling its box, in the table of its width; a nimber past what its cells allow), or -1."""
    rows, trows = np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    parts = np.zeros((64, 2) if bits.ndim == 2 else 64, np.uint64)
    for k in range(meta.size):
        shape = np.int64(meta[k] & SHAPE_WORD)
        h, w = shape_rows(shape), shape_cols(shape)
        if h < 2 or w < 2 or h > w or h * w > (WIDE_CELLS if bits.ndim == 2 else NARROW):
            return k
        key = load(bits, k)
        if h * w < (128 if bits.ndim == 2 else 64) and key >> np.uint64(h * w):
            return k
        cb, cs = canonical(key, h, w, rows, trows)
        if cb != key or cs != shape:
            return k
        if split(key, h, w, parts) != 1 or load(parts, 0) != key:
            return k
        if tt_value(meta[k]) > popcount(key) // 2:
            return k
    return -1


@njit(cache=True)
def _restore(tt, log_capacity, bits, meta, stats):
    """Write each fact into the table (a fresh one: its slot is free or its own)."""
    for k in range(meta.size):
        shape = np.int64(meta[k] & SHAPE_WORD)
        key = load(bits, k)
        i, _ = tt_entry(tt, log_capacity, key, shape, stats)
        tt_write(tt, log_capacity, i, key, meta[k])


class Checkpoint:
    """The checkpoint file of one question (`board`, its text). It holds two records, each
    kept when the other is written: the table's facts, true of the search that found them
    (`facts_identity`: the endgame database, the search's version, the mirror rule, known
    once the solver is ready to search, `bind`), and the values of the finished pieces of
    a solve in pieces (`pieces.py`), true of the board alone."""

    def __init__(self, path, board=None, only_read=False, seconds=CHECKPOINT_SECONDS):
        """`board` None: the board the file is of (it must exist), read with its first record.
        `only_read`: the file is read, never written (`--status`), and a refusal says so.
        `seconds`: between two writes during a search."""
        self.path, self.board, self.only_read = Path(path), board, only_read
        self.identity = {"format": FORMAT, "board": board}
        self.facts_identity = None
        self.seconds = seconds
        self.facts_read = 0
        self.saved = None  # (facts, bytes) of the last write
        self.work_before = dict(NO_WORK)  # the runs before this one: read with the facts
        self.work = None  # all runs' work, this one's so far included, as last written
        self.writer = None  # the flipnet of this run (`bind`), named in what it writes

    def bind(self, endgame, mirror):
        self.facts_identity = {"database": endgame.box_names, "database_bytes": int(endgame.nbytes),
                               "search": search_version(), "mirror": bool(mirror)}
        self.writer = {"flipnet": version(), "commit": commit()}

    def check_place(self):
        """Before the work: the file can be written there, and the disk has room for it."""
        check_writable(self.path)
        free = shutil.disk_usage(self.path.parent if str(self.path.parent) else ".").free
        most = MAX_FACTS * (16 + 24) + (1 << 20)
        if free < 2 * most:  # the new file is written beside the old one before it replaces it
            raise FlipnetError(f"--checkpoint {self.path}: {free / 1e6:.0f} MB free on its disk; a checkpoint "
                               f"takes up to {most / 1e6:.0f} MB, written beside the last one (twice that)")

    def _contents(self, names=None):
        """The file's arrays of `names` (default: all; empty records where there is no
        file yet), its board checked. Another question's file, or a damaged one, is
        refused in one line."""
        names = RECORDS if names is None else names
        empty = {"facts_identity": "null", "bits": np.zeros(0, np.uint64), "meta": np.zeros(0, np.uint64),
                 "wide_bits": np.zeros((0, 2), np.uint64), "wide_meta": np.zeros(0, np.uint64), "pieces": "{}",
                 "work": json.dumps(NO_WORK), "written_by": "null"}
        if not self.path.exists():
            if self.board is None:
                raise BadInput(f"checkpoint {self.path}: no such file")
            return {name: empty[name] for name in names}
        try:
            with np.load(self.path, allow_pickle=False) as f:
                about = json.loads(str(f["identity"]))
                if not isinstance(about, dict) or not str(about.get("format")).startswith(FORMAT[:-1]):
                    raise DamagedFile(f"{self.path} is not a flipnet search checkpoint")
                if about["format"] != FORMAT:
                    advice = "the flipnet that wrote it reads it" if self.only_read else \
                        "the flipnet that wrote it goes on from it; or delete it to start over"
                    raise DamagedFile(f"{self.path} is a checkpoint of another version of flipnet "
                                      f"({about['format']!r}, this one reads {FORMAT!r}): {advice}")
                contents = {name: empty[name] if name in LATER and name not in f.files else
                            str(f[name]) if name in TEXTS else f[name] for name in names}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise DamagedFile(f"checkpoint {self.path} is damaged ({type(exc).__name__})" +
                              ("" if self.only_read else ": delete it to start over")) from None
        if self.board is None:  # the file's board, whichever it is
            if not isinstance(about.get("board"), str):
                raise DamagedFile(f"checkpoint {self.path} is damaged (its board)")
            self.board = self.identity["board"] = about["board"]
        self._check_same(about, self.identity)
        return contents

    def recorded_identity(self):
        """What the file's facts are true of (`bind`), as the file says; None where it holds none."""
        return _facts_identity(self.path, self._contents(("facts_identity",))["facts_identity"])

    def recorded_writer(self):
        """{"flipnet", "commit"} of the run that wrote the file's facts, as the file says
        (None where it does not: no facts yet, or written before the record was kept)."""
        return _writer(self.path, self._contents(("written_by",))["written_by"])

    def _check_same(self, about, mine, writer=None):
        for key, value in mine.items():
            if about.get(key) != value:
                mine_is, advice = ("asked", "leave BOARD out to read it") if self.only_read else \
                    ("this solve", "give another file, or delete it to start over")
                if key == "search" and writer is not None:  # a solve moved to a machine with another flipnet
                    advice = f"{writer_text(writer)} wrote it and goes on from it; or {advice}"
                raise FlipnetError(f"checkpoint {self.path} is of another {_what(key)} ({about.get(key)!r}, "
                                   f"{mine_is}: {value!r}): {advice}")

    def read(self):
        """((bits, meta), (wide bits, wide meta)) of the facts the file holds, the wide
        bits as rows of two words; empty arrays where there are none yet. Facts of another
        search (`facts_identity`), or damaged ones, are refused in one line."""
        contents = self._contents()
        bits, meta, wide_bits, wide_meta = (contents[name] for name in ("bits", "meta", "wide_bits", "wide_meta"))
        about = _facts_identity(self.path, contents["facts_identity"])
        if about is not None:
            self._check_same(about, self.facts_identity, _writer(self.path, contents["written_by"]))
        if any(a.dtype != np.uint64 for a in (bits, meta, wide_bits, wide_meta)) or bits.shape != meta.shape \
                or bits.ndim != 1 or wide_bits.shape != (wide_meta.size, 2) or wide_meta.ndim != 1 \
                or about is None and meta.size + wide_meta.size:
            raise DamagedFile(f"checkpoint {self.path} is damaged (its arrays)")
        for which, (b, m) in (("", (bits, meta)), ("wide ", (wide_bits, wide_meta))):
            bad = _check_facts(b, m)
            if bad >= 0:
                raise DamagedFile(f"checkpoint {self.path} is damaged: {which}fact {bad} is of no component")
        work = _json(self.path, contents["work"])
        if not (isinstance(work, dict) and work.keys() == NO_WORK.keys() and
                all(isinstance(work[k], (int, float)) and work[k] >= 0 for k in work)):
            raise DamagedFile(f"checkpoint {self.path} is damaged (its record of work)")
        self.facts_read = int(bits.size + wide_meta.size)
        if self.work is None:  # read again after this run's own writes (a table grown), it holds them
            self.work_before = work
        return (bits, meta), (wide_bits, wide_meta)

    def restore(self, table, log_capacity, stats, wide_table, wide_log):
        """The file's facts written into `table` and `wide_table` (fresh ones); how many."""
        (bits, meta), (wide_bits, wide_meta) = self.read()
        _restore(table, log_capacity, bits, meta, stats)
        _restore(wide_table, wide_log, wide_bits, wide_meta, stats)
        return self.facts_read

    def save(self, table, wide_table, positions=0, seconds=0.0):
        """Write the tables' largest facts, atomically, the pieces' record kept, and the work
        of the runs before this one with this one's `positions` and `seconds` of search so
        far; (facts, bytes)."""
        bits, meta = facts_of(table)
        wide_bits, wide_meta = facts_of(wide_table, wide_keys=True)
        kept = self._contents(("pieces",))  # the facts are written anew
        before = self.work_before
        self.work = {"runs": before["runs"] + 1, "positions": before["positions"] + int(positions),
                     "seconds": round(before["seconds"] + float(seconds), 1)}
        self._write({**kept, "facts_identity": json.dumps(self.facts_identity), "bits": bits, "meta": meta,
                     "wide_bits": wide_bits, "wide_meta": wide_meta, "work": json.dumps(self.work),
                     "written_by": json.dumps(self.writer)})
        self.saved = (int(bits.size + wide_meta.size), self.path.stat().st_size)
        return self.saved

    def start_text(self):
        """What a run says as it starts with the file: what it goes on from, or that it is new."""
        status = f"`flipnet value flip --checkpoint {self.path} --status` says where the solve stands"
        if self.facts_read or self.work_before["runs"]:
            return (f"going on from {self.path}: {self.facts_read:,} facts; {work_text(self.work_before)} "
                    f"before this one ({status})")
        return f"{self.path}: a new checkpoint, written every {_duration(self.seconds)} and when stopped ({status})"

    def work_text(self):
        """The work of every run that searched with the file, as the last write recorded it."""
        return work_text(self.work or self.work_before)

    def pieces(self):
        """{piece: {"value" or "not", "positions", "seconds"}} of what the pieces of a solve
        said, as the file records it ({} where none)."""
        record = _json(self.path, self._contents(("pieces",))["pieces"])
        if not isinstance(record, dict) or not all(_is_piece(answer) for answer in record.values()):
            raise DamagedFile(f"checkpoint {self.path} is damaged (its record of pieces)")
        return record

    def save_pieces(self, record):
        """Write the record of finished pieces (as `pieces` gives it), atomically, the facts kept."""
        self._write({**self._contents(), "pieces": json.dumps(record, sort_keys=True)})
        self.saved = (len(record), self.path.stat().st_size)

    def _write(self, contents):
        with atomic_path(self.path) as tmp, open(tmp, "wb") as f:
            np.savez(f, identity=np.array(json.dumps(self.identity)),
                     **{name: np.array(a) if name in TEXTS else a for name, a in contents.items()})


RECORDS = ("facts_identity", "bits", "meta", "wide_bits", "wide_meta", "pieces", "work", "written_by")
TEXTS = ("facts_identity", "pieces", "work", "written_by")  # JSON, kept as text arrays
LATER = ("work", "written_by")  # records a file of this format may lack: written before they were kept
NO_WORK = {"runs": 0, "positions": 0, "seconds": 0.0}


def work_text(work):
    """A record of work (NO_WORK's keys) as a person reads it."""
    return (f"in all {work['positions']:,} positions and {_duration(work['seconds'])} of search over "
            f"{work['runs']} run{'s' if work['runs'] != 1 else ''}")


def writer_text(writer):
    """The flipnet a `recorded_writer` record names, as a person reads it."""
    name = f"flipnet {writer['flipnet']}" if writer.get("flipnet") else "a flipnet pip never installed"
    found = writer.get("commit")
    if not found:
        return name
    head, changed = found.partition("+")[::2]
    return f"{name} at commit {head[:12]}" + (" with changes" if changed else "")


def _duration(seconds):
    """Seconds as a person reads them: 0.6 s, 42.5 min, 6.52 h."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.1f} min" if seconds < 3600 else f"{seconds / 3600:.2f} h"


def _is_piece(answer):
    """A piece's record: its "value", or the values it does "not" have, with "positions"
    and "seconds"."""
    if not isinstance(answer, dict) or len(answer) != 3 or not {"positions", "seconds"} <= answer.keys():
        return False
    said = answer["value"] if "value" in answer else answer.get("not")
    told = isinstance(said, int) and said >= 0 if "value" in answer else \
        isinstance(said, list) and all(isinstance(v, int) and v >= 0 for v in said)
    return told and isinstance(answer["positions"], int) and answer["positions"] >= 0 and \
        isinstance(answer["seconds"], (int, float)) and answer["seconds"] >= 0


def _json(path, text):
    try:
        return json.loads(text)
    except ValueError:
        raise DamagedFile(f"checkpoint {path} is damaged (its JSON)") from None


def _facts_identity(path, text):
    about = _json(path, text)
    if about is not None and not isinstance(about, dict):
        raise DamagedFile(f"checkpoint {path} is damaged (what its facts are true of)")
    return about


def _writer(path, text):
    writer = _json(path, text)
    if writer is not None and not (isinstance(writer, dict) and writer.keys() == {"flipnet", "commit"} and
                                   all(v is None or isinstance(v, str) for v in writer.values())):
        raise DamagedFile(f"checkpoint {path} is damaged (the flipnet that wrote it)")
    return writer


def _what(key):
    return {"board": "board", "database": "endgame database", "database_bytes": "endgame database",
            "search": "version of the search", "mirror": "mirror rule", "format": "format"}[key]
