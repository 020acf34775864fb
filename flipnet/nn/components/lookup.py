"""The no-learning baseline of the component models: a table of shape values read from
the training labels.

A position's value is the XOR of its components' values, so a training position whose
components are all known but one gives that one's value: its label XOR the others. The
table starts from the positions of one component and peels until nothing more follows.
A shape the table does not hold (unseen, or never pinned down) gets the most common value
among the known shapes of its number of cells. No parameter is fitted and no test label
is read; what it gets right is what the training labels spell out.
"""

import dataclasses
import time

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.base.fields import Fields
from flipnet.base.files import check_writable, ensure_dir, write_json
from flipnet.datasets import locate, read_split
from flipnet.datasets.components import Components, key_shape
from flipnet.nn.components.oneply import one_hot
from flipnet.nn.core.interface import TrainedModel
from flipnet.nn.core.store import save_npz
from flipnet.nn.training.record import results_record

N_CLASSES = 16


class ShapeLookup(TrainedModel):
    """Shape keys -> values read from training labels, and a guess by size for the rest."""

    name = "lookup2d"
    n_classes = N_CLASSES
    size_free = True  # keys are the same on every board
    values_shapes = True

    def __init__(self, keys, values, by_size, rows, cols):
        self.keys, self.values, self.by_size = keys, values, by_size  # by_size[cells]: the guess
        self.rows, self.cols = rows, cols
        self.components = Components(rows, cols)
        self.meta = {}

    @classmethod
    def fit(cls, states, labels, rows, cols):
        components = Components(rows, cols)
        keys = components.keys(components.split(states))
        shapes, ids = np.unique(keys, return_inverse=True)
        ids = ids.reshape(keys.shape)
        empty = np.searchsorted(shapes, 0) if shapes[0] == 0 else -1
        value = np.full(len(shapes), -1, np.int64)
        if empty >= 0:
            value[empty] = 0
        labels = np.asarray(labels, np.int64)
        while True:
            known = value[ids] >= 0
            unknown = (~known).sum(axis=1)
            single = unknown == 1
            if not single.any():
                break
            xor_known = np.bitwise_xor.reduce(np.where(known, value[ids], 0), axis=1)
            which = ids[single, np.argmin(known[single], axis=1)]
            value[which] = (labels ^ xor_known)[single]
        determined = value >= 0
        keep = determined & (shapes != 0)
        _, _, cells = key_shape(shapes[keep])
        by_size = np.zeros(max(65, 1), np.int64)
        overall = np.bincount(value[keep], minlength=N_CLASSES).argmax() if keep.any() else 0
        by_size[:] = overall
        for n in np.unique(cells):
            by_size[n] = np.bincount(value[keep][cells == n], minlength=N_CLASSES).argmax()
        return cls(shapes[keep], value[keep], by_size, rows, cols)

    def for_board(self, rows, cols):
        """The same table reading rows x cols positions (keys are the same on every board)."""
        other = ShapeLookup(self.keys, self.values, self.by_size, rows, cols)
        other.meta = self.meta
        return other

    def known_shapes(self):
        return self.keys

    def known(self, keys):
        """(found, values): whether the table holds each key, and its value there (0 where
        it holds none): the one lookup every user of the table shares."""
        keys = np.asarray(keys, np.uint64)
        if len(self.keys) == 0:
            return np.zeros(keys.shape, bool), np.zeros(keys.shape, np.int64)
        index = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        found = self.keys[index] == keys
        return found, np.where(found, self.values[index], 0).astype(np.int64)

    def component_values(self, keys):
        """The table's value of each key (0 for 0); its size's guess when it holds none."""
        keys = np.asarray(keys, np.uint64)
        found, value = self.known(keys)
        return np.where(keys == 0, 0, np.where(found, value, self.size_guess(key_shape(keys)[2])))

    def size_guess(self, cells):
        """The value guessed for a shape the table lacks: the most common of its size."""
        return self.by_size[np.minimum(cells, len(self.by_size) - 1)]

    shape_values = component_values

    def shape_probabilities(self, keys):
        """Certain: all of each shape's weight on the value the table gives it."""
        return one_hot(self.component_values, self.n_classes)(keys)

    def __call__(self, states):
        return self.components.position_values(states, self.component_values)

    predict = __call__

    def arrays(self):
        return {"keys": self.keys, "values": self.values, "by_size": self.by_size}

    def save(self, path, meta):
        save_npz(path, self.arrays(), {"model": self.name, "rows": self.rows, "cols": self.cols, **meta})

    @classmethod
    def from_arrays(cls, arrays, rows, cols):
        return cls(arrays["keys"].astype(np.uint64), arrays["values"].astype(np.int64),
                   arrays["by_size"].astype(np.int64), rows, cols)


def rebuild(path, arrays, meta):
    """The table of a lookup2d file (`kinds.read_model`)."""
    stored = Fields(arrays, path, "array ")
    table = {key: stored.array(key) for key in ("keys", "values", "by_size")}
    if table["keys"].shape != table["values"].shape or table["keys"].ndim != 1:
        raise stored.fail("values", f"has shape {table['values'].shape}, its keys {table['keys'].shape}")
    return ShapeLookup.from_arrays(table, *Fields(meta, path, "metadata ").board())


def run(config, resume=False, overwrite=False, log=print):
    """`flipnet train lookup2d`: build the table from the training part, measure it as a
    training run is measured, and write results/NAME.json and .npz. Built in seconds, with
    no checkpoint: `resume` and `overwrite` change nothing (the trainers' signature)."""
    started = time.perf_counter()
    split = read_split(locate(config.data), config.bucket)
    rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
    ensure_dir(config.results_dir)
    for suffix in (".json", ".npz"):
        check_writable(config.path(suffix))
    table = ShapeLookup.fit(split.train[0], split.train[1], rows, cols)
    results = results_record(config, table, split, table, time.perf_counter() - started,
                             reports={"shapes_known": int(len(table.keys))})
    table.save(config.path(".npz"), {"config": dataclasses.asdict(config)})
    write_json(config.path(".json"), results)
    log(f"{config.name}: {len(table.keys)} shapes read from the training labels")
    return results
