"""Every model of record, pinned: its recipe's resolved settings, and a digest of its
weights (and of its shape memory, where it has one) after one epoch on a small fixed
slice. A refactor that must keep behaviour keeps these digests; `recipe_pins.json` holds
them, and FLIPNET_WRITE_PINS=1 writes it anew (only when a change of behaviour is meant).

The slices: the 1D recipes on a 1x8 table, the 2D ones on a 3x4 table, the component
models on a sparse 3x4 table; draws are cut to 300 boards and each distillation starts
from the pinned run before it, so the whole chain of the best model runs.

The recipes are pinned in four families, a test file each, so that the suite's two
processes share the work: the paper's networks, the XOR networks with the lookup
baseline, the masked-convolution chain on one core, and the best model's chain on two.
"""

import dataclasses
import hashlib
import json
import os
from pathlib import Path

import numpy as np
from conftest import write_tiny_dataset

from flipnet.nn.core.store import load_npz
from flipnet.nn.training.recipes import config_for
from flipnet.nn.training.run import run

PINS = Path(__file__).with_name("recipe_pins.json")
KEPT = ("conv1d", "fc1d", "conv1d-fast", "xornet1d", "mlp2d", "mlp2d-long", "logreg2d", "mlp2d-fast",
        "convmlp2d", "xornet2d", "xormem2d", "lookup2d", "featmem2d", "convmem2d", "convmem2d-deep",
        "convmem2d-deep48", "convmem2d-deep12", "convmem2d-gated12", "convmem2d-gated12-distil6m",
        "convmem2d-gated12-80", "convmem2d-gated12-80-distil6m", "convmem2d-gated12-80-distil6m-r2")


def digest(value):
    return hashlib.sha256(value).hexdigest()[:16]


def settings_digest(name):
    """The recipe as a run resolves it: every setting that differs from the neutral one
    (so that removing a setting no kept recipe uses changes nothing), before any override."""
    from flipnet.nn.training.config import TrainConfig

    neutral = dataclasses.asdict(TrainConfig())
    resolved = {k: v for k, v in dataclasses.asdict(config_for(name)).items() if v != neutral[k]}
    return digest(json.dumps(resolved, sort_keys=True).encode())


def weights_digest(path):
    """Every array of a model file, rounded to 5 decimals (the same figures on another CPU)."""
    arrays, _ = load_npz(path)
    h = hashlib.sha256()
    for key in sorted(arrays):
        a = np.asarray(arrays[key])
        a = np.round(a.astype(np.float64), 5) if a.dtype.kind == "f" else a
        h.update(key.encode() + a.tobytes())
    return h.hexdigest()[:16]


def write_sparse(path, rows, cols):
    """A table whose split trains on 20% of the positions: new shapes in validation and test."""
    from flipnet.datasets.hdf5 import write_table
    from flipnet.datasets.splits import uniform
    from flipnet.games import FlipGame
    from flipnet.solve import table

    game = FlipGame(rows, cols)
    bucket, part = uniform(1 << (rows * cols), seed=0, n_buckets=1, probs=(0.2, 0.4, 0.4))
    write_table(path, game, table(game), (bucket, part, {"protocol": "uniform", "seed": 0, "n_buckets": 1,
                                                         "description": "pins: 20% training"}))


def pinned_run(name, slices, results):
    """The recipe for one epoch on its slice; a start (--init) is the pinned run of its start."""
    config = config_for(name)
    kind = "1d" if config.model.endswith("1d") else "components" if config.model in (
        "xornet2d", "xormem2d", "lookup2d", "featmem2d", "convmem2d") else "2d"
    overrides = dict(data=str(slices / f"{kind}.h5"), bucket=0, epochs=1, eval_batch=0,
                     results_dir=str(results), batch=min(config.batch, 64))
    if config.draw:
        overrides["draw"] = 300
    if config.init:
        overrides["init"] = str(results / Path(config.init).name)
    run(config_for(name, **overrides))
    return results / f"{name}.npz"


PAPER = KEPT[:3] + KEPT[4:9]
XOR = ("xornet1d", "xornet2d", "xormem2d", "lookup2d", "featmem2d")
CONVMEM = KEPT[13:19]  # convmem2d to the one-core distillation
CONVMEM_TWO_CORES = KEPT[19:]  # the best model's chain, each step on two processes
assert sorted(PAPER + XOR + CONVMEM + CONVMEM_TWO_CORES) == sorted(KEPT)


def make_slices(d):
    d.mkdir()
    write_tiny_dataset(d / "1d.h5")
    write_tiny_dataset(d / "2d.h5", rows=3, cols=4)
    write_sparse(d / "components.h5", 3, 4)
    return d


def check_pins(names, slices, results):
    """Each recipe of `names`, in order, against its pinned settings and weights;
    FLIPNET_WRITE_PINS=1 writes what it found into the pins file instead."""
    pinned = json.loads(PINS.read_text())
    found = {name: {"settings": settings_digest(name),
                    "weights": weights_digest(pinned_run(name, slices, results))} for name in names}
    if os.environ.get("FLIPNET_WRITE_PINS") == "1":
        PINS.write_text(json.dumps({**pinned, **found}, indent=1) + "\n")
    assert found == {name: pinned[name] for name in names}
