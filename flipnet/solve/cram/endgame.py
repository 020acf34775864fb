"""The endgame database: the nimber of every position that fits in a small box.

Each box's table is the table DP's (`solve.dp`) for a flip board of that shape, so a
component whose canonical box (h <= w) fits inside one is answered by one lookup. The
default boxes are every box of at most 28 cells not inside a larger one of them:
2x12, 3x9, 4x7 and 5x5, 453 MB in all (one byte a position), built once in about
15 s (`flipnet endgame`, or on first use) into the cache directory, then memory-mapped.
The 30-cell set (`flipnet endgame --cells 30`: 2x15, 3x10, 4x7 and 5x6, 3.5 GB, about two
minutes) is for boards of 40 cells and more; the solver reads whichever set the cache
holds.
"""

import json
import os
import time
from pathlib import Path

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.base.files import atomic_path, ensure_dir

FORMAT = "flipnet-cram-endgame-1"
BOX_SETS = {28: ((2, 12), (3, 9), (4, 7), (5, 5)),  # every box of at most n cells not inside another
             30: ((2, 15), (3, 10), (4, 7), (5, 6))}
DEFAULT_BOXES = BOX_SETS[28]
MAX_BOX_CELLS = 30


def cache_dir():
    """$FLIPNET_CACHE, else $XDG_CACHE_HOME/flipnet, else ~/.cache/flipnet."""
    if os.environ.get("FLIPNET_CACHE"):
        return Path(os.environ["FLIPNET_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "flipnet"


class Endgame:
    """Box tables laid end to end in one array (`data`), and `boxes` rows (h, w, offset)."""

    def __init__(self, data, boxes):
        self.data, self.boxes = data, np.asarray(boxes, dtype=np.int64).reshape(-1, 3)

    @classmethod
    def empty(cls):
        return cls(np.zeros(1, np.uint8), np.zeros((0, 3), np.int64))

    @property
    def nbytes(self):
        return int(self.data.size)

    @property
    def box_names(self):
        """'2x12, 3x9, ...': the boxes, as a user reads them."""
        return ", ".join(f"{h}x{w}" for h, w, _ in self.boxes.tolist())

    @classmethod
    def build(cls, boxes=DEFAULT_BOXES, progress=None):
        """Solve every box's table in memory (for tests and small boxes)."""
        tables = [_box_table(h, w, progress) for h, w in _checked(boxes)]
        offsets = np.cumsum([0] + [t.size for t in tables])
        return cls(np.concatenate(tables), [(h, w, o) for (h, w), o in zip(boxes, offsets)])

    @staticmethod
    def is_built(directory=None):
        """Whether a complete database is in `directory` (default: `cache_dir()`), so
        that `load_or_build` would only load it."""
        _, path, meta_path = _files(directory)
        return _complete(path, _read_meta(meta_path))

    @classmethod
    def load_or_build(cls, directory=None, boxes=None, log=None, progress=None):
        """The database in `directory` (default: `cache_dir()`), built there first if it
        is missing or holds other boxes than `boxes` (None: any complete database will
        do, else the default boxes are built)."""
        directory, path, meta_path = _files(directory)
        meta = _read_meta(meta_path)
        complete = _complete(path, meta)
        if boxes is None:
            boxes = tuple(map(tuple, meta["boxes"])) if complete else DEFAULT_BOXES
        boxes = _checked(boxes)
        if not (complete and meta.get("boxes") == [list(b) for b in boxes]):
            if log:
                log(f"building the endgame database in {directory} (once: boxes "
                    f"{', '.join(f'{h}x{w}' for h, w in boxes)}, {_size(boxes) / 1e6:.0f} MB)")
            _write(directory, path, meta_path, boxes, progress)
            meta = _read_meta(meta_path)
        data = np.memmap(path, dtype=np.uint8, mode="r")
        return cls(data, meta["offsets"])


def _files(directory):
    """(directory, database file, its description) for `directory` (default: `cache_dir()`)."""
    directory = Path(directory) if directory else cache_dir()
    return directory, directory / "cram-endgame.bin", directory / "cram-endgame.json"


def _complete(path, meta):
    """Whether the database file is whole: its description read, and as many bytes as it says."""
    return bool(meta) and path.exists() and path.stat().st_size == meta.get("bytes")


def _checked(boxes):
    boxes = tuple((int(h), int(w)) for h, w in boxes)
    for h, w in boxes:
        if not 1 < h <= w or h * w > MAX_BOX_CELLS:
            raise FlipnetError(f"endgame box {h}x{w}: boxes need 2 <= rows <= columns and at most "
                               f"{MAX_BOX_CELLS} cells")
    return boxes


def _size(boxes):
    return sum(1 << (h * w) for h, w in boxes)


def _box_table(h, w, progress=None):
    from flipnet.games import FlipGame
    from flipnet.solve.dp import table

    return table(FlipGame(h, w), progress=progress)


def _write(directory, path, meta_path, boxes, progress):
    ensure_dir(directory.parent)
    ensure_dir(directory)
    start = time.perf_counter()
    offsets, offset = [], 0
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            for h, w in boxes:
                values = _box_table(h, w, progress)
                if values.max() > 63:
                    raise FlipnetError(f"box {h}x{w} has nimber {values.max()}: the search keeps values below 64")
                f.write(values.tobytes())
                offsets.append([h, w, offset])
                offset += values.size
    meta = {"format": FORMAT, "boxes": [list(b) for b in boxes], "offsets": offsets, "bytes": offset,
            "seconds": time.perf_counter() - start}
    with atomic_path(meta_path) as tmp:
        tmp.write_text(json.dumps(meta, indent=1) + "\n")


def _read_meta(meta_path):
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) and meta.get("format") == FORMAT else None
