"""The endgame database: the nimber of every position that fits in a small box.

Each box's table holds the nimber of every position of a flip board of that shape
(`box_values`, bit r * w + c for cell (r, c)), so a component whose canonical box (h <= w)
fits inside one is answered by one lookup. A nimber takes four bits, two positions a byte
(position i of the file in the low half of byte i // 2 when i is even): a game of at most
31 cells lasts at most 15 moves, and its nimber is at most that (the full 4x8 box of the
32-cell set, which could reach 16, is 0). At one byte a position the file was twice as
large, and a search mapped more of its pages: 236 MB for 5x7, 187 MB at four bits. The
default boxes are every box of at most 28 cells not inside a larger one of them: 2x12,
3x9, 4x7 and 5x5, 226 MB in all, built once in a few seconds (`flipnet endgame`, or on
first use) into the cache directory, then memory-mapped. The 30-cell set (`flipnet
endgame --cells 30`: 2x15, 3x10, 4x7 and 5x6, 1.7 GB, about a minute) is for boards of 40
cells and more; the 32-cell set (`--cells 32`: 4x8 as well, 3.9 GB, under two minutes)
searches boards of four rows up to twice as fast. The solver reads whichever set the
cache holds.

A database proves itself before a value is read from it: its description must give the
layout these boxes have (offsets, sizes), and every block of 16 MiB must have the CRC-32
written at build, which a full check reads again (0.4 s for the 1.7 GB set, from the page
cache, on two threads). A file that passed the full check is stamped: its mtime is set to
a second before the check, and the description records the file's device, inode, size,
mtime and ctime. Any later write to the file through the system sets its mtime to the
time of that write and its ctime too (and a program that sets the mtime back changes the
ctime), so a file whose stat is its stamp holds the bytes that were checked: a process
then needs one stat (microseconds) instead of reading 1.7 GB. A file without a stamp, or
whose stat differs, gets the full check (and its stamp, if it passes); `flipnet endgame`
always runs the full check. A file that fails is never read: `load_or_build` builds it
again, saying why on one line.
"""

import atexit
import errno
import json
import os
import subprocess
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.base.files import atomic_path, ensure_dir
from flipnet.base.places import cache_dir
from flipnet.solve.parts import transposed, widened

FORMAT = "flipnet-cram-endgame-3"  # four bits a position; -2 took a byte, -1 had no checksums
NIMBER_BITS = 4  # a position's share of its byte: its nimber, at most 15
BLOCK_BYTES = 1 << 24  # bytes one CRC-32 covers
BOX_SETS = {28: ((2, 12), (3, 9), (4, 7), (5, 5)),  # every box of at most n cells not inside another
             30: ((2, 15), (3, 10), (4, 7), (5, 6)),
             # 4x8 added to the 30-cell set, for boards of four rows (2x16 left out: two rows are
             # searched at once); 4x7 kept before it, so that its components are read from 134 MB
             # of the file, not from 4x8's 2.1 GB (5x7: 370 MB of memory against 488 MB)
             32: ((2, 15), (3, 10), (4, 7), (4, 8), (5, 6))}
DEFAULT_BOXES = BOX_SETS[28]
MAX_BOX_CELLS = 32
SPARE_ROOM = 64 << 20  # address space a build needs beside its map (threads' stacks, the CRC pass)
BUILDING = "cram-endgame.building"  # a build in the background under way: the builder's pid
BUILD_SECONDS = 600  # a mark older than this is of a builder that died


class Endgame:
    """Box tables laid end to end in one array of bytes (`data`, two positions a byte), and
    `boxes` rows (h, w, offset of the box's first position).

    `data` is read-only whatever it was given as (the file's memory map is): every solver,
    with a database or without one (`empty`), then calls the search kernels with the same
    array type, and Numba compiles and caches them once instead of once for each."""

    def __init__(self, data, boxes):
        if data.flags.writeable:
            data = data.view()
            data.flags.writeable = False
        self.data, self.boxes = data, np.asarray(boxes, dtype=np.int64).reshape(-1, 3)
        self._box_rows = tuple(tuple(row) for row in self.boxes.tolist())

    def value_of(self, bits, h, w):
        """The nimber of a position of an h x w frame (bit r * w + c for cell (r, c)), read
        from a box that holds it, turned about its diagonal if it fits only so; None where
        no box does. In plain Python: the plain recursion reads its large components here
        with no kernel to load."""
        for box_h, box_w, offset in self._box_rows:
            if h <= box_h and w <= box_w:
                return self._read(offset + widened(bits, h, w, box_w))
            if w <= box_h and h <= box_w:
                return self._read(offset + widened(transposed(bits, h, w), w, h, box_w))
        return None

    def _read(self, index):
        return int(self.data[index >> 1]) >> (NIMBER_BITS * (index & 1)) & 15

    def box_table(self, k):
        """The nimbers of every position of box k, one byte each (a copy, for checks)."""
        h, w, offset = self._box_rows[k]
        return unpacked(self.data[offset // 2:(offset + (1 << (h * w))) // 2])

    def holds(self, h, w):
        """Whether a box holds a frame of h x w, either way round."""
        return any(min(h, w) <= box_h and max(h, w) <= box_w for box_h, box_w, _ in self._box_rows)

    @classmethod
    def empty(cls):
        return cls(np.zeros(1, np.uint8), np.zeros((0, 3), np.int64))

    def remapped(self):
        """The same database with its file mapped again: the pages the old map had read
        leave the process's memory (they stay in the system's file cache)."""
        filename = getattr(self.data, "filename", None)
        if filename is None:
            return self
        return Endgame(_mapped(Path(filename)), self.boxes)

    @property
    def nbytes(self):
        return int(self.data.size)

    @property
    def largest_box(self):
        """Cells of its largest box (0 for none)."""
        return int((self.boxes[:, 0] * self.boxes[:, 1]).max(initial=0))

    @property
    def box_names(self):
        """'2x12, 3x9, ...': the boxes, as a user reads them."""
        return ", ".join(f"{h}x{w}" for h, w, _ in self.boxes.tolist())

    @classmethod
    def build(cls, boxes=DEFAULT_BOXES, progress=None):
        """Solve every box's table in memory (for tests and small boxes); `progress` as
        `load_or_build` takes it."""
        offsets, size = _layout(_checked(boxes))
        data = np.zeros(size, np.uint8)
        _fill(data, offsets, progress)
        return cls(data, offsets)

    @staticmethod
    def is_built(directory=None):
        """Whether a sound database is in `directory` (default: `cache_dir()`), so that
        `load_or_build` would only load it."""
        _, path, meta_path = _files(directory)
        return _problem(path, meta_path, _read_meta(meta_path)) is None

    @staticmethod
    def to_build(directory=None):
        """(boxes as a user reads them, bytes) of what `load_or_build(directory)` would
        build: the boxes a description there names (an earlier layout of them, or a damaged
        file, is built again as it was), else the default set."""
        _, _, meta_path = _files(directory)
        boxes = _named_boxes(_read_meta(meta_path)) or DEFAULT_BOXES
        return _names(boxes), _layout(boxes)[1]

    @classmethod
    def load_or_build(cls, directory=None, boxes=None, log=None, progress=None, full_check=False):
        """The database in `directory` (default: `cache_dir()`), built there first if it
        is missing, damaged, or holds other boxes than `boxes` (None: any sound database
        will do, else the default boxes are built). `full_check`: read every block again,
        whatever the stamp says. `progress`, if given, is called during a build with
        (positions done, positions in all)."""
        directory, path, meta_path = _files(directory)
        meta = _read_meta(meta_path)
        problem = _problem(path, meta_path, meta, full_check)
        if boxes is None:  # the boxes there (a damaged set is built again as it was), else the default
            boxes = _named_boxes(meta) or DEFAULT_BOXES
        boxes = _checked(boxes)
        if problem is None and meta["boxes"] != [list(b) for b in boxes]:
            problem = "it holds other boxes"
        if problem is not None:
            if log:
                what = f"boxes {_names(boxes)}, {_layout(boxes)[1] / 1e6:.0f} MB"
                log(f"building the endgame database in {directory} (once: {what})" if problem == MISSING else
                    f"the endgame database in {directory} fails its check: {problem}; building it again ({what})")
            _write(directory, path, meta_path, boxes, progress)
            meta = _read_meta(meta_path)
            problem = _problem(path, meta_path, meta)
            if problem is not None:  # another process replaced it meanwhile, or the disk lies
                raise FlipnetError(f"the endgame database just built in {directory} fails its check: {problem}")
        return cls(_mapped(path), meta["offsets"])


def _mapped(path):
    """The database file mapped read-only; a limit on the process's memory (`ulimit -v`, a
    strict overcommit policy) can refuse it, and the user hears which file and how large."""
    try:
        return np.memmap(path, dtype=np.uint8, mode="r")
    except OSError as exc:
        size = path.stat().st_size
        size = f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"
        raise FlipnetError(f"cannot map the endgame database {path} ({size}) into memory: "
                           f"{exc.strerror or exc}") from None


def _files(directory):
    """(directory, database file, its description) for `directory` (default: `cache_dir()`)."""
    directory = Path(directory) if directory else cache_dir()
    return directory, directory / "cram-endgame.bin", directory / "cram-endgame.json"


MISSING = "no database there"


def _problem(path, meta_path, meta, full_check=False):
    """None if the database file and its description are sound, else what is wrong: the
    description's layout against the one its boxes have, the file's length, and then the
    CRC-32 of every block, unless the file's stat is the stamp of its last full check."""
    if meta is None or not path.exists():
        return MISSING
    if meta.get("format") != FORMAT:
        return f"its format is {meta.get('format')!r}, not {FORMAT!r}"
    boxes = _named_boxes(meta)
    if not boxes:
        return "it names no boxes the solver takes"
    offsets, size = _layout(boxes)
    if meta.get("offsets") != offsets:
        return f"its offsets are not the layout of boxes {_names(boxes)}"
    if meta.get("bytes") != size:
        return f"it says {meta.get('bytes')!r} bytes where boxes {_names(boxes)} take {size}"
    crcs = meta.get("crc32")
    if not isinstance(crcs, list) or len(crcs) != -(-size // BLOCK_BYTES):
        return "its list of block checksums is missing or of the wrong length"
    if path.stat().st_size != size:
        return f"{path.name} has {path.stat().st_size} bytes, not {size}"
    before = _stat_stamp(path)
    if not full_check and meta.get("stamp") == before:
        return None  # unwritten since the full check that stamped it
    found = _block_crcs(_mapped(path))
    bad = next((k for k, (a, b) in enumerate(zip(found, crcs)) if a != b), None)
    if bad is not None:
        start = bad * BLOCK_BYTES
        box = next(f"{h}x{w}" for h, w, o in reversed(offsets) if o // 2 <= start)
        return f"bytes {start}..{min(start + BLOCK_BYTES, size) - 1}, in table {box}, fail their checksum"
    if _stat_stamp(path) == before:  # nothing wrote to it while it was read
        _stamp(path, meta_path, meta)
    return None


def _stat_stamp(path):
    """What any write to the file changes: its identity, size, mtime and ctime."""
    stat = path.stat()
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def _stamp(path, meta_path, meta):
    """After a full check: set the file's mtime a second into the past (a later write sets
    it to its own time, never this one) and record the file's stat in its description.
    Where the cache cannot be written, nothing is stamped: each process checks in full."""
    try:
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, time.time_ns() - 1_000_000_000))
        with atomic_path(meta_path) as tmp:
            tmp.write_text(json.dumps({**meta, "stamp": _stat_stamp(path)}, indent=1) + "\n")
    except (OSError, FlipnetError):
        pass


def _named_boxes(meta):
    """The boxes a description names, if they are boxes the solver takes; else None."""
    try:
        return _checked(meta["boxes"]) or None
    except (FlipnetError, KeyError, TypeError, ValueError):
        return None


def _block_crcs(data, threads=2):
    """The CRC-32 of every BLOCK_BYTES of `data`, on two threads (zlib lets go of the GIL),
    a block per thread at a time: a Ctrl-C or SIGTERM between two waits for two blocks
    (milliseconds), not for the rest of the file."""
    crcs = []
    with ThreadPoolExecutor(threads) as pool:
        for start in range(0, data.size, threads * BLOCK_BYTES):
            starts = range(start, min(start + threads * BLOCK_BYTES, data.size), BLOCK_BYTES)
            crcs += pool.map(lambda i: zlib.crc32(memoryview(data[i:i + BLOCK_BYTES])), starts)
    return crcs


def unpacked(data):
    """Bytes of two positions each as the positions' nimbers, one byte each, in order."""
    data = np.asarray(data, np.uint8)
    return np.stack([data & 15, data >> NIMBER_BITS], axis=-1).reshape(-1)


def _largest_nimber(data):
    """The largest nimber bytes of two positions each hold, read a block at a time: no copy
    the size of a box (2 GB for 4x8) beside the map being built."""
    larger_half = np.maximum(np.arange(256) & 15, np.arange(256) >> NIMBER_BITS).astype(np.uint8)
    return max((int(larger_half[data[i:i + BLOCK_BYTES]].max()) for i in range(0, data.size, BLOCK_BYTES)),
               default=0)


def _layout(boxes):
    """([[h, w, offset of its first position], ...], total bytes) of box tables laid end to
    end in this order, two positions a byte."""
    offsets, offset = [], 0
    for h, w in boxes:
        offsets.append([h, w, offset])
        offset += 1 << (h * w)
    return offsets, offset // 2


def _names(boxes):
    return ", ".join(f"{h}x{w}" for h, w in boxes)


def _checked(boxes):
    boxes = tuple((int(h), int(w)) for h, w in boxes)
    for h, w in boxes:
        if not 1 < h <= w or h * w > MAX_BOX_CELLS:
            raise FlipnetError(f"endgame box {h}x{w}: boxes need 2 <= rows <= columns and at most "
                               f"{MAX_BOX_CELLS} cells")
    return boxes


def _fill(data, offsets, progress=None):
    """Write each box's values into its place of `data` (an array or a writable map);
    `progress`, if given, is called with (positions done, positions in all) as they go."""
    from flipnet.solve.cram.box_values import fill_box_values

    done = 0

    def step(count):
        nonlocal done
        done += count
        progress(done, 2 * data.size)

    for h, w, offset in offsets:
        values = data[offset // 2:(offset + (1 << (h * w))) // 2]
        fill_box_values(values, h, w, step if progress else None)
        largest = _largest_nimber(values)
        if largest > h * w // 2:
            raise FlipnetError(f"box {h}x{w} has nimber {largest}: a game of {h * w} cells "
                               f"lasts at most {h * w // 2} moves")


def _write(directory, path, meta_path, boxes, progress):
    """Build the database in a temporary file beside `path`, filled in place through a
    memory map: its blocks are reserved on the disk first (a full disk is one line now, not
    a SIGBUS at a page written later), and it takes its name only once its CRCs are read."""
    from flipnet.solve.cram.box_values import fill_box_values
    from flipnet.solve.cram.memory import address_space_room

    ensure_dir(directory.parent)
    ensure_dir(directory)
    start = time.perf_counter()
    offsets, size = _layout(boxes)
    # The kernel loaded (and whatever Numba loads at its first call) before the map and its
    # room are counted: OpenBLAS, where it was loaded, spun for ever without room for its buffers.
    fill_box_values(np.zeros(8, np.uint8), 2, 2)
    room = address_space_room()
    if room is not None and size + SPARE_ROOM > room:
        raise FlipnetError(f"the endgame database ({size / 1e6:.0f} MB, mapped while it is built) does not fit "
                           f"this process's address-space limit (ulimit -v): {room / 1e6:.0f} MB of it is left")
    try:
        with atomic_path(path) as tmp:
            with open(tmp, "r+b") as f:
                _reserve(f, size)
            data = np.memmap(tmp, dtype=np.uint8, mode="r+", shape=(size,))
            _fill(data, offsets, progress)
            data.flush()
            del data
            crcs = _block_crcs(np.memmap(tmp, dtype=np.uint8, mode="r"))  # what the disk holds
    except (MemoryError, RuntimeError) as exc:  # the map fitted the limit, its threads or buffers did not
        if room is None or isinstance(exc, RuntimeError) and "can't start new thread" not in str(exc):
            raise
        raise FlipnetError(f"the endgame database ({size / 1e6:.0f} MB, mapped while it is built) could not be "
                           f"built within this process's address-space limit (ulimit -v): {room / 1e6:.0f} MB of "
                           f"it was left, and its threads and buffers need more") from None
    meta = {"format": FORMAT, "boxes": [list(b) for b in boxes], "offsets": offsets, "bytes": size,
            "block_bytes": BLOCK_BYTES, "crc32": crcs, "seconds": time.perf_counter() - start}
    with atomic_path(meta_path) as tmp:
        tmp.write_text(json.dumps(meta, indent=1) + "\n")


def _reserve(f, size):
    """Give the open file `size` bytes, allocated on the disk where the system can say so."""
    if hasattr(os, "posix_fallocate"):
        try:
            os.posix_fallocate(f.fileno(), 0, size)
            return
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                raise  # no room: atomic_path names the file and the reason
    f.truncate(size)


def _read_meta(meta_path):
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def build_in_background(directory=None):
    """Build the default database in a detached process (it outlives the caller), started
    when this process ends, unless one is built or being built: a first question it would
    only speed up a little goes on without it, and the next finds it built. A build beside
    the question slowed it (5x8's first answer: 9.5 s beside one, 5.1 s alone). "under way"
    (another process builds it), "to come" (this one starts it as it ends), or None."""
    directory = Path(directory) if directory is not None else cache_dir()
    mark = directory / BUILDING
    try:
        ensure_dir(directory.parent)
        ensure_dir(directory)
        if mark.exists() and time.time() - mark.stat().st_mtime < BUILD_SECONDS:
            return "under way"
        mark.write_text(f"{os.getpid()}\n")
    except (OSError, FlipnetError):
        return None
    atexit.register(_start_builder, directory)
    return "to come"


def _start_builder(directory):
    try:
        subprocess.Popen([sys.executable, "-m", __name__, str(directory)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        (directory / BUILDING).unlink(missing_ok=True)


def _build_here(directory):
    """The background builder: of the least priority (what runs next keeps the cores),
    then the mark taken away."""
    os.nice(19)
    try:
        Endgame.load_or_build(directory)
    finally:
        (directory / BUILDING).unlink(missing_ok=True)


if __name__ == "__main__":
    _build_here(Path(sys.argv[1]))
