"""Every kind of model flipnet trains, one entry each: the board it was designed for, how
to build a fresh one, how to train it and how to load its file.

A kind's functions are named as "module:function" and imported when first asked for:
the paper's networks, the component networks, the lookup baseline and convmem2d live in
the families above this core, which the core does not import. A model file records its
kind (`meta["model"]`); `read_model` reads any of them (each kind's `rebuild` makes the
model of the file's arrays) and `build` makes a fresh network.
"""

import importlib
from dataclasses import dataclass

import numpy as np

from flipnet.base.errors import BadInput, DamagedFile, FlipnetError
from flipnet.base.fields import Fields
from flipnet.nn.core.store import load_npz

NETWORK_TRAINER = "flipnet.nn.paper.train:train"  # a network trained on positions
NETWORK_REBUILD = "flipnet.nn.core.kinds:rebuild_network"
DEFAULT_SHAPES = {"row": (1, 20), "grid": (5, 5)}  # the study's boards


@dataclass(frozen=True)
class Kind:
    name: str
    board: str  # "row": reads one row of cells; "grid": a board
    build: str = ""  # "module:function" of (rng, rows, cols) -> Network, for a network
    train: str = NETWORK_TRAINER  # of (config, resume, overwrite) -> the run's results
    rebuild: str = NETWORK_REBUILD  # of (path, arrays, meta) -> the model a file's arrays hold
    sized: bool = False  # its network's sizes (and --init, --draw, --workers) are training settings

    def builder(self):
        return _resolved(self.build)

    def trainer(self):
        return _resolved(self.train)

    def rebuilder(self):
        return _resolved(self.rebuild)


def _resolved(reference):
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


PAPER = "flipnet.nn.paper.models"
XOR = "flipnet.nn.components.xornet"
KINDS = {k.name: k for k in (
    Kind("conv1d", "row", f"{PAPER}:conv1d"),
    Kind("fc1d", "row", f"{PAPER}:fc1d"),
    Kind("mlp2d", "grid", f"{PAPER}:mlp2d"),
    Kind("logreg2d", "grid", f"{PAPER}:logreg2d"),
    Kind("convmlp2d", "grid", f"{PAPER}:convmlp2d"),
    Kind("xornet1d", "row", f"{XOR}:xornet1d"),
    Kind("xornet2d", "grid", f"{XOR}:xornet2d"),
    Kind("xormem2d", "grid", f"{XOR}:xormem2d"),
    Kind("featmem2d", "grid", f"{XOR}:featmem2d"),
    # built from the training labels, not trained by gradient steps
    Kind("lookup2d", "grid", train="flipnet.nn.components.lookup:run",
         rebuild="flipnet.nn.components.lookup:rebuild"),
    # the lookup table beside a masked convolution trained on its shapes
    Kind("convmem2d", "grid", train="flipnet.nn.components.shapetrain:train_shapes",
         rebuild="flipnet.nn.components.convmem:rebuild", sized=True),
)}


def kind(name):
    """The registry entry of a model kind; a one-line error naming the kinds for any other."""
    if name not in KINDS:
        raise FlipnetError(f"unknown model {name!r}: choose from {', '.join(KINDS)}")
    return KINDS[name]


def build(name, seed, rows=None, cols=None):
    """A fresh network with the paper's initialisation from `seed`, for boards of the given
    shape (default: the study's board for that kind). A grid model refuses a single row:
    its design (a 5x5 MLP, 2D filters, 2D components) says nothing of strings."""
    entry = kind(name)
    if not entry.build:
        raise FlipnetError(f"{name} is not a network built from a seed (it is trained by {entry.train})")
    default_rows, default_cols = DEFAULT_SHAPES[entry.board]
    rows = default_rows if rows is None else rows
    cols = default_cols if cols is None else cols
    if entry.board == "grid" and rows == 1:
        raise BadInput(f"{name} reads 2D boards, not one row of {cols} cells")
    return entry.builder()(np.random.default_rng(seed), rows, cols)


def read_model(path):
    """(model, meta) of any flipnet model file, the model holding the file's metadata as
    `.meta` too; a one-line error for a file of no known kind."""
    arrays, meta = load_npz(path)
    if "model" not in meta:
        raise DamagedFile(f"{path} is not a flipnet model file (no model name)")
    name = Fields(meta, path, "metadata ").take("model", str)
    if name not in KINDS:
        raise DamagedFile(f"{path}: cannot rebuild its model: unknown model {name!r} "
                          f"(this flipnet reads {', '.join(KINDS)})")
    model = kind(name).rebuilder()(path, arrays, meta)
    model.meta = meta
    return model, meta


def rebuild_network(path, arrays, meta):
    """The network a model file's arrays and metadata describe (`read_model` reads the file)."""
    info = Fields(meta, path, "metadata ")
    rows, cols = info.board()
    model = build(info.take("model", str), seed=0, rows=rows, cols=cols)
    missing = (set(model.names) | set(model.buffers())) - set(arrays)
    if missing:
        raise FlipnetError(f"{path} lacks parameters {sorted(missing)} of model {meta['model']}")
    try:
        model.set_buffers(arrays)
        model.set_values(arrays)
    except BadInput as exc:  # an array of the wrong shape
        raise DamagedFile(f"{path}: {exc}") from None
    return model
