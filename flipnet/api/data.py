"""The study's datasets as NumPy arrays: `load_dataset(name, split)`."""

from dataclasses import dataclass

import numpy as np

from flipnet.api import arguments
from flipnet.base.errors import BadInput, BadType, FlipnetError
from flipnet.datasets import DATASETS, SampledDataset, read_split, read_table, ready
from flipnet.datasets.sampled import read as read_sample
from flipnet.solve.parts import WORD_CELLS

__all__ = ["Dataset", "load_dataset", "unpack"]

PARTS = ("train", "valid", "test")


def unpack(states, rows: int, cols: int) -> np.ndarray:
    """Bit boards (bit r*cols + c is cell (r, c)) as an (N, rows, cols) uint8 array of cells.

    >>> import numpy as np, flipnet
    >>> flipnet.unpack(np.array([0b000111], np.uint64), 2, 3)
    array([[[1, 1, 1],
            [0, 0, 0]]], dtype=uint8)
    """
    rows, cols = arguments.shape_of((rows, cols))
    array = np.asarray(states)
    if array.dtype.kind == "O":  # Python ints past 64 bits, or not numbers at all
        raise BadInput(f"unpack takes bit boards of at most {WORD_CELLS} cells, as integers")
    states = arguments.bit_boards(array.reshape(-1), rows, cols).reshape(-1, 1)
    shifts = np.arange(rows * cols, dtype=np.uint64)
    return ((states >> shifts) & np.uint64(1)).astype(np.uint8).reshape(-1, rows, cols)


@dataclass(frozen=True)
class Dataset:
    """One part of a dataset: `states` (uint64 bit boards), `labels` (uint8 nim-values)
    of `rows` x `cols` boards. It unpacks as `states, labels = dataset`."""

    name: str
    split: str
    rows: int
    cols: int
    states: np.ndarray
    labels: np.ndarray

    def boards(self) -> np.ndarray:
        """The boards as an (N, rows, cols) uint8 array of cells."""
        return unpack(self.states, self.rows, self.cols)

    def __len__(self):
        return len(self.states)

    def __iter__(self):
        return iter((self.states, self.labels))


def load_dataset(name: str, split: str = "train", *, bucket: int | None = None) -> Dataset:
    """A part of one of flipnet's datasets, read from the data directory (FLIPNET_DATA, a
    checkout's data/, else the user cache: docs/api.md), where a study table missing is
    built first (a few seconds, once).

    `name`: "flip1d" (all 2^20 strings of length 20), "flip2d" (all 2^25 5x5 boards),
    "flip6x6" or "flip7x7" (random boards valued by the Cram solver; `flipnet data --only
    NAME` builds them, in minutes). `split`: "train", "valid" or "test" of the study's split
    (in `bucket`, default the study's), or "all"; for a sample "all" or a density ("0.5").

    >>> import flipnet
    >>> test = flipnet.load_dataset("flip2d", "test")
    >>> len(test), test.rows, test.cols, int(test.labels.max())
    (670466, 5, 5, 9)
    >>> test.boards().shape
    (670466, 5, 5)
    """
    if not isinstance(name, str) or name not in DATASETS:
        raise BadInput(f"no dataset named {name!r}: {', '.join(DATASETS)}")
    if not isinstance(split, str):
        raise BadType(f"split is a name (train, valid, test, all) or a density, not {split!r}")
    bucket = arguments.whole("bucket", bucket, 0)
    spec = DATASETS[name]
    path = ready(spec)
    if isinstance(spec, SampledDataset):
        return _sample_part(spec, read_sample(path), split)
    if split not in (*PARTS, "all"):
        raise FlipnetError(f"{name} has the splits train, valid, test and all, not {split!r}")
    if split == "all":
        table = read_table(path)
        return Dataset(name, split, int(table.attrs["rows"]), int(table.attrs["cols"]),
                       np.arange(table.values.size, dtype=np.uint64), table.values)
    parts = read_split(path, spec.bucket if bucket is None else bucket)
    states, labels = getattr(parts, split)
    return Dataset(name, split, int(parts.attrs["rows"]), int(parts.attrs["cols"]), states.astype(np.uint64), labels)


def _sample_part(spec, sample, split):
    if split == "all":
        return Dataset(spec.name, split, spec.rows, spec.cols, sample.states, sample.values)
    try:
        density = float(split.removeprefix("density "))
    except ValueError:
        density = None
    if density is None or not np.isclose(sample.density, density).any():
        raise FlipnetError(f"{spec.name} holds the densities {', '.join(f'{d:g}' for d in spec.densities)} "
                           f"and 'all', not {split!r}")
    states, values = sample.at(density)
    return Dataset(spec.name, f"{density:g}", spec.rows, spec.cols, states, values)
