"""The datasets: what trainers read. `DATASETS` names each one with its file in the data
directory (`base/places.py`: $FLIPNET_DATA, a checkout's `data/`, else the user cache):
the study's two tables (every state of a board, with the original split) and sampled
datasets of larger boards (random positions valued by the Cram solver, for testing
networks on boards they never saw); `spec.build(path)` makes one, and `ready(spec)` finds
one, building a study table the first time it is asked for. Nothing here trains.

Modules: `hdf5` (table files, with checks on read), `splits` (the original protocols),
`sampled` (the larger boards' samples), `symmetry` (board symmetries on state integers),
`components` (positions split into their live components, vectorized).
"""

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from flipnet.base.errors import BadInput, FlipnetError
from flipnet.base.places import data_dir, shown
from flipnet.datasets.hdf5 import read_split, read_table, write_table
from flipnet.datasets.sampled import SampledDataset
from flipnet.datasets.splits import SEED, original_split
from flipnet.games import FlipGame

DATA_DIR = Path("data")  # how recipes name the data directory in their settings (`locate`)


@dataclass(frozen=True)
class Dataset:
    name: str
    rows: int
    cols: int
    bucket: int  # the bucket of the split the study trained on
    description: str

    @property
    def file(self):
        return f"{self.name}.h5"

    def path(self, data_dir=DATA_DIR):
        return Path(data_dir) / self.file

    def game(self):
        return FlipGame(self.rows, self.cols)

    def build(self, path, seed=None, progress=None):
        """Solve the board and write it with the original split: (values, seconds)."""
        from flipnet.solve import table

        start = time.perf_counter()
        game = self.game()
        values = table(game, progress=progress)
        write_solved(path, game, values, seed)
        return values, time.perf_counter() - start

    def progress_total(self):
        return 1 << (self.rows * self.cols)


DATASETS = {d.name: d for d in (
    Dataset("flip1d", 1, 20, 0, "1D flip strings of length 20, all 2^20, the 1D study's split"),
    Dataset("flip2d", 5, 5, 1, "5x5 flip boards, all 2^25, the 2D study's split"),
    SampledDataset("flip6x6", 6, 6, (0.5, 0.6, 0.7), 5000,
                   "6x6 flip boards, 5,000 random positions per density 0.5, 0.6, 0.7"),
    SampledDataset("flip7x7", 7, 7, (0.5, 0.6), 5000,
                   "7x7 flip boards, 5,000 random positions per density 0.5, 0.6"),
)}
TABLES = [d for d in DATASETS.values() if isinstance(d, Dataset)]


def dataset(name):
    if name not in DATASETS:
        raise BadInput(f"unknown dataset {name!r}: choose from {', '.join(DATASETS)}")
    return DATASETS[name]


def ready(spec, log=lambda line: print(line, file=sys.stderr)):
    """The file of a registered dataset in the data directory. A missing study table is
    built there first (seconds, once); a missing sample takes minutes of search, so it is
    left to `flipnet data --only NAME`, which the error names."""
    path = spec.path(data_dir())
    if path.exists():
        return path
    if isinstance(spec, SampledDataset):
        raise FlipnetError(f"{shown(path)} is missing: `flipnet data --only {spec.name} --out-dir "
                           f"{shown(path.parent)}` values its positions (minutes on two cores)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FlipnetError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
    log(f"flipnet: building {shown(path)}: {spec.description} (once)")
    spec.build(path)
    return path


def locate(path):
    """The file a run's settings name as its data ("data/flip2d.h5"): that path where it
    exists from here, else the registered dataset of that name in the data directory, so a
    model's recorded settings lead to its data wherever flipnet runs. Where FLIPNET_DATA
    is set, a recipe's own name of a dataset (data/NAME.h5) means the one there."""
    path = Path(path)
    spec = next((d for d in DATASETS.values() if d.file == path.name), None)
    if spec is None:
        return path
    if path == DATA_DIR / spec.file and os.environ.get("FLIPNET_DATA") or not path.exists():
        return ready(spec)
    return path


def write_solved(path, game, values, seed=None):
    """Write a solved table, with the original split when it is one of the study's boards."""
    write_table(path, game, values, original_split(game, values, SEED if seed is None else seed))


__all__ = ["DATASETS", "DATA_DIR", "TABLES", "Dataset", "SampledDataset", "dataset", "locate", "read_split",
           "read_table", "ready", "write_solved", "write_table"]
