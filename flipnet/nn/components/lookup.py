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

from flipnet.base.files import check_writable, ensure_dir, write_json
from flipnet.datasets import read_split
from flipnet.datasets.components import Components, key_shape, shape_split_errors
from flipnet.nn.core.metrics import confusion, error_rate, evaluated, majority_error, per_class_error
from flipnet.nn.core.store import save_npz
from flipnet.nn.training.recipes import run_record

N_CLASSES = 16


class ShapeLookup:
    """Shape keys -> values read from training labels, and a guess by size for the rest."""

    name = "lookup2d"

    def __init__(self, keys, values, by_size, rows, cols):
        self.keys, self.values, self.by_size = keys, values, by_size  # by_size[cells]: the guess
        self.rows, self.cols = rows, cols
        self.components = Components(rows, cols)

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
        return ShapeLookup(self.keys, self.values, self.by_size, rows, cols)

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

    def __call__(self, states):
        return self.components.position_values(states, self.component_values)

    def arrays(self):
        return {"keys": self.keys, "values": self.values, "by_size": self.by_size}

    @classmethod
    def from_arrays(cls, arrays, rows, cols):
        return cls(arrays["keys"].astype(np.uint64), arrays["values"].astype(np.int64),
                   arrays["by_size"].astype(np.int64), rows, cols)


def run(config, resume=False, overwrite=False, log=print):
    """`flipnet train lookup2d`: build the table from the training part, measure it as a
    training run is measured, and write results/NAME.json and .npz. Built in seconds, with
    no checkpoint: `resume` and `overwrite` change nothing (the trainers' signature)."""
    started = time.perf_counter()
    split = read_split(config.data, config.bucket)
    rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
    ensure_dir(config.results_dir)
    for suffix in (".json", ".npz"):
        check_writable(config.path(suffix))
    table = ShapeLookup.fit(split.train[0], split.train[1], rows, cols)
    valid_states, valid_labels = evaluated(split.valid, config.eval_batch)
    test_states, test_labels = evaluated(split.test, config.eval_batch)
    predicted = table(test_states)
    counts = confusion(np.minimum(predicted, N_CLASSES - 1), test_labels, N_CLASSES)
    results = {
        **run_record(config, "lookup2d", f"{rows}x{cols}", split.sizes()),
        "evaluated": {"valid": len(valid_states), "test": len(test_states)},
        "shapes_known": int(len(table.keys)),
        "valid_error": error_rate(table(valid_states), valid_labels),
        "test_error": error_rate(predicted, test_labels),
        "baseline_test_error": majority_error(split.train[1], test_labels),
        "per_class_test_error": per_class_error(counts), "confusion": counts.tolist(),
        "seconds": time.perf_counter() - started,
        **shape_split_errors(rows, cols, split.train[0], test_states, predicted != test_labels),
    }
    save_npz(config.path(".npz"), table.arrays(), {"model": "lookup2d", "rows": rows, "cols": cols,
                                                   "config": dataclasses.asdict(config)})
    write_json(config.path(".json"), results)
    log(f"{config.name}: {len(table.keys)} shapes read from the training labels")
    return results
