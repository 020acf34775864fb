"""HDF5 files of value tables and their splits, and the reader the trainers use.

Layout of a file:
    /nim_value            uint8[2^cells], index = state integer  (misere games: /win)
        attrs: format, game, rows, cols, rule, flipnet_version
    /splits/original/bucket  uint8[2^cells], 0..9
    /splits/original/part    uint8[2^cells], 0 train, 1 valid, 2 test
        attrs: protocol, description, seed, n_buckets, part_names
"""

import io
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from flipnet import __version__
from flipnet.base.files import atomic_path
from flipnet.base.errors import FlipnetError
from flipnet.datasets.splits import PART_NAMES

FORMAT = "flipnet-table-1"


def value_key(rule):
    return "win" if rule == "misere" else "nim_value"


def write_hdf5(path, fill):
    """Write an HDF5 file atomically: `fill(file)` builds it in memory, and the bytes are
    written with plain file I/O, so a full disk is an ordinary error (HDF5's own writer
    crashes the process when a write fails)."""
    image = io.BytesIO()
    with h5py.File(image, "w") as f:
        fill(f)
    with atomic_path(path) as tmp:
        tmp.write_bytes(image.getbuffer())


def write_table(path, game, values, split=None):
    """Write a table (and optionally a split: (bucket, part, attrs)) atomically."""
    def fill(f):
        ds = f.create_dataset(value_key(game.rule), data=values, dtype=np.uint8)
        ds.attrs.update(format=FORMAT, game=game.name, rows=game.rows, cols=game.cols,
                        rule=game.rule, flipnet_version=__version__)
        if split is not None:
            bucket, part, attrs = split
            group = f.create_group("splits/original")
            group.create_dataset("bucket", data=bucket, dtype=np.uint8)
            group.create_dataset("part", data=part, dtype=np.uint8)
            group.attrs.update(attrs)

    write_hdf5(path, fill)


@dataclass
class Table:
    values: np.ndarray
    attrs: dict


@dataclass
class Split:
    """States and labels of the three parts of one bucket."""
    train: tuple
    valid: tuple
    test: tuple
    attrs: dict

    def sizes(self):
        return {name: int(getattr(self, name)[0].size) for name in PART_NAMES}


def read_table(path):
    with _open(path) as f:
        ds = _values_dataset(f, path)
        return Table(_values(ds, path), dict(ds.attrs))


def read_split(path, bucket, name="original"):
    """The train/valid/test (states uint32, labels uint8) of one bucket of a split."""
    with _open(path) as f:
        ds = _values_dataset(f, path)
        key = f"splits/{name}"
        if key not in f or "bucket" not in f[key] or "part" not in f[key]:
            raise FlipnetError(f"{path} has no split {name!r}")
        group = f[key]
        n_buckets = _int_attr(group, "n_buckets", path, default=10)
        if not 0 <= bucket < n_buckets:
            raise FlipnetError(f"bucket {bucket} does not exist in {path}: buckets are 0..{n_buckets - 1}")
        values = _values(ds, path)
        buckets = _read(group["bucket"], path)
        parts = _read(group["part"], path)
        attrs = dict(group.attrs)
        attrs.update(bucket=bucket, rows=_int_attr(ds, "rows", path), cols=_int_attr(ds, "cols", path))
    if not buckets.size == parts.size == values.size:
        raise FlipnetError(f"{path}: split arrays do not match the table ({buckets.size}, {parts.size}, {values.size})")
    _check_range(buckets, n_buckets, f"{path}: splits/{name}/bucket", "bucket numbers")
    _check_range(parts, len(PART_NAMES), f"{path}: splits/{name}/part", "parts (0 train, 1 valid, 2 test)")
    chosen = np.flatnonzero(buckets == bucket).astype(np.uint32)
    chosen_parts = parts[chosen]
    pieces = []
    for p in range(len(PART_NAMES)):
        states = chosen[chosen_parts == p]
        pieces.append((states, values[states]))
    return Split(*pieces, attrs=attrs)


def _made_by(path):
    """The command that makes a missing data file of flipnet's: the study's tables by
    `make data`, the valued samples of larger boards (flip6x6, flip7x7) by `make data-large`."""
    if path.stem in ("flip1d", "flip2d"):
        return "`make data` (or `flipnet data`) builds it"
    if path.stem.startswith("flip"):
        return f"`make data-large` (or `flipnet data --only {path.stem}`) builds it, in minutes"
    return "give the path of a flipnet dataset (`make data` builds the study's)"


def _open(path):
    path = Path(path)
    if not path.exists():
        raise FlipnetError(f"{path} not found: {_made_by(path)}")
    try:
        return h5py.File(path, "r")
    except OSError:
        raise FlipnetError(f"{path} is not a readable HDF5 file (truncated or corrupt?): "
                           f"delete it and run `make data` again") from None


def _values_dataset(f, path):
    for key in ("nim_value", "win"):
        if key in f and f[key].attrs.get("format") == FORMAT:
            ds = f[key]
            rows, cols = _int_attr(ds, "rows", path), _int_attr(ds, "cols", path)
            if not (1 <= rows and 1 <= cols and rows * cols <= 32):
                raise FlipnetError(f"{path}: {key} says its board is {rows}x{cols}: not a table's board")
            expected = 1 << rows * cols
            if ds.shape != (expected,):
                raise FlipnetError(f"{path}: {key} has {ds.shape} entries, expected ({expected},)")
            if ds.dtype.kind not in "ui":
                raise FlipnetError(f"{path}: {key} holds {ds.dtype}, not integers")
            return ds
    raise FlipnetError(f"{path} is not a flipnet table (no nim_value or win dataset "
                       f"with format {FORMAT!r})")


def _int_attr(node, name, path, default=None):
    value = node.attrs.get(name, default)
    try:
        if value is None or isinstance(value, (bytes, str)):
            raise TypeError
        return int(value)
    except (TypeError, ValueError):
        raise FlipnetError(f"{path}: {node.name} has no integer attribute {name!r}") from None


def _check_range(array, limit, where, what):
    if array.size and (array.min() < 0 or array.max() >= limit):
        bad = array.max() if array.max() >= limit else array.min()
        raise FlipnetError(f"{where} holds {bad}; {what} are 0..{limit - 1}")


def _values(ds, path):
    """A table's values, refused where one is negative (no nim-value or win is)."""
    values = _read(ds, path)
    if values.size and values.min() < 0:
        raise FlipnetError(f"{path}: {ds.name} holds {values.min()}; values are 0 or more")
    return values


def _read(ds, path):
    try:
        return ds[()]
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise FlipnetError(f"{path}: cannot read {ds.name} (truncated file?): {exc}") from None
