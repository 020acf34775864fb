"""The study's datasets: what trainers read. `DATASETS` names each one (its file under
`data/`, its board, the bucket the study used); `build` solves the board and writes the
file with the original split. Nothing here trains.

Modules: `hdf5` (files, with checks on read), `splits` (the original protocols),
`symmetry` (board symmetries on state integers), `components` (positions split into
their live components, vectorized).
"""

import time
from dataclasses import dataclass
from pathlib import Path

from flipnet.datasets.hdf5 import read_split, read_table, write_table
from flipnet.datasets.splits import SEED, original_split
from flipnet.games import FlipGame

DATA_DIR = Path("data")


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


DATASETS = {d.name: d for d in (
    Dataset("flip1d", 1, 20, 0, "1D flip strings of length 20, all 2^20, the 1D study's split"),
    Dataset("flip2d", 5, 5, 1, "5x5 flip boards, all 2^25, the 2D study's split"),
)}


def dataset(name):
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}: choose from {', '.join(DATASETS)}")
    return DATASETS[name]


def write_solved(path, game, values, seed=None):
    """Write a solved table, with the original split when it is one of the study's boards."""
    write_table(path, game, values, original_split(game, values, SEED if seed is None else seed))


def build(spec, path, seed=None, progress=None):
    """Solve the dataset's board and write it with the original split to `path`:
    (values, seconds)."""
    from flipnet.solve import table

    start = time.perf_counter()
    game = spec.game()
    values = table(game, progress=progress)
    write_solved(path, game, values, seed)
    return values, time.perf_counter() - start


__all__ = ["DATASETS", "DATA_DIR", "Dataset", "build", "dataset", "read_split", "read_table", "write_solved",
           "write_table"]
