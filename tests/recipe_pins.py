"""Every model of record, pinned: its recipe's resolved settings, and a fingerprint of its
weights (and of its shape memory, where it has one) after one epoch on a small fixed
slice. A refactor that must keep behaviour keeps these pins; `recipe_pins.json` holds
them, and FLIPNET_WRITE_PINS=1 writes it anew (only when a change of behaviour is meant).

The weights are not pinned bit for bit: Numba's fast-math code and the BLAS kernels differ
between CPUs (AVX2 or AVX-512, with or without FMA), and after an epoch a rounded digest
of the same run differs between two machines. The fingerprint is a few sums of the
weights, compared within WEIGHTS_TOLERANCE of their norm. OpenBLAS's other kernels, which
round as another CPU's do, moved them by at most 3e-7 of the norm (convmem2d: TOLERANCE);
a learning rate 1% larger moves mlp2d's by 3e-4 (test_recipe_pins_paper.py plants both).

The pins were written from runs on PyTensor's default (Numba) linker. The tests run the
same graphs on the Python linker (`conftest.python_mode`), which needs no compile: a cold
Numba compile of the deep networks' training graphs takes minutes each. On the Python
linker every recipe's fingerprint lies within 2e-6 of the norm of its pin, and the Numba
path is held to its pin by test_recipe_pins_paper.py (mlp2d). FLIPNET_WRITE_PINS=1 now writes
the Python linker's fingerprints.

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
from flipnet.nn.training.recipes import RECIPES, config_for
from flipnet.nn.training.run import run

PINS = Path(__file__).with_name("recipe_pins.json")
KEPT = tuple(name for name, r in RECIPES.items() if r.pins)  # every recipe names its group of pins


def digest(value):
    return hashlib.sha256(value).hexdigest()[:16]


def settings_digest(name):
    """The recipe as a run resolves it: every setting that differs from the neutral one
    (so that removing a setting no kept recipe uses changes nothing), before any override."""
    from flipnet.nn.training.config import TrainConfig

    neutral = dataclasses.asdict(TrainConfig())
    resolved = {k: v for k, v in dataclasses.asdict(config_for(name)).items() if v != neutral[k]}
    return digest(json.dumps(resolved, sort_keys=True).encode())


WEIGHTS_TOLERANCE = 1e-5  # of the weights' norm; see the module's docstring
# convmem2d's run on its slice is sensitive to rounding (OpenBLAS's other kernels moved its
# fingerprint by 2e-3 of the norm; a learning rate 1% larger by 4e-2)
TOLERANCE = {"convmem2d": 1e-2}
PROJECTIONS = 8


def weights_fingerprint(arrays):
    """{"count", "norm", "sum", "projections"} of the float arrays (in key order, end to
    end): their number, L2 norm, sum and products with fixed +-1 vectors; "exact": a
    digest of the names, shapes and integer arrays (a shape memory's keys), which no CPU
    changes."""
    exact = hashlib.sha256()
    floats = []
    for key in sorted(arrays):
        a = np.asarray(arrays[key])
        exact.update(f"{key}{a.shape}".encode())
        if a.dtype.kind == "f":
            floats.append(a.astype(np.float64).ravel())
        else:
            exact.update(a.tobytes())
    v = np.concatenate(floats) if floats else np.zeros(0)
    signs = np.random.default_rng(0).choice([-1.0, 1.0], size=(PROJECTIONS, v.size))
    return {"count": int(v.size), "exact": exact.hexdigest()[:16], "norm": float(np.linalg.norm(v)),
            "sum": float(v.sum()), "projections": [float(x) for x in signs @ v]}


def same_weights(found, pinned, tolerance=WEIGHTS_TOLERANCE):
    """Whether two fingerprints are the same run up to a CPU's rounding."""
    if found["count"] != pinned["count"] or found["exact"] != pinned["exact"]:
        return False
    scale = tolerance * max(pinned["norm"], 1e-12)
    numbers = zip([found["norm"], found["sum"], *found["projections"]],
                  [pinned["norm"], pinned["sum"], *pinned["projections"]])
    return all(abs(a - b) <= scale for a, b in numbers)


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


def pinned_run(name, slices, results, **changes):
    """The recipe for one epoch on its slice; a start (--init) is the pinned run of its start.
    `changes`: settings changed on purpose (a planted change of behaviour)."""
    config = config_for(name)
    kind = "1d" if config.model.endswith("1d") else "components" if config.model in (
        "xornet2d", "xormem2d", "lookup2d", "featmem2d", "convmem2d") else "2d"
    overrides = dict(data=str(slices / f"{kind}.h5"), bucket=0, epochs=1, eval_batch=0,
                     results_dir=str(results), batch=min(config.batch, 64))
    if config.draw:
        overrides["draw"] = 300
    if config.init:
        overrides["init"] = str(results / Path(config.init).name)
    run(config_for(name, **overrides, **changes))
    return results / f"{name}.npz"


def group(pins):
    """The recipes whose record puts them in this group of pins, in the recipes' order."""
    return tuple(name for name in KEPT if RECIPES[name].pins == pins)


PAPER = group("paper")  # the study's networks and their faster recipes
XOR = group("xor")
CONVMEM = group("convmem")  # convmem2d to the one-core distillation
CONVMEM_TWO_CORES = group("convmem-two-cores")  # the best model's chain, each step on two processes
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
                    "weights": weights_fingerprint(load_npz(pinned_run(name, slices, results))[0])}
             for name in names}
    if os.environ.get("FLIPNET_WRITE_PINS") == "1":
        PINS.write_text(json.dumps({**pinned, **found}, indent=1) + "\n")
        return
    differ = [name for name in names if found[name]["settings"] != pinned[name]["settings"]
              or not same_weights(found[name]["weights"], pinned[name]["weights"],
                                  TOLERANCE.get(name, WEIGHTS_TOLERANCE))]
    assert not differ, {name: (found[name], pinned[name]) for name in differ}
