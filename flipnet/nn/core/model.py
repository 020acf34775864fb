"""A model of either family: named parameters, a forward function, and the registry of
builders by name (`paper/models.py`, `components/xornet.py` register theirs).

A model maps a batch of state integers to class logits, one row per state (inside, the
layers work feature-major: one column per state). Its parameters are shared
variables; `logits(states, params)` also accepts stand-ins for them (the trainer's scan).
"""

import importlib

import numpy as np
import pytensor

from flipnet.base.errors import FlipnetError
from flipnet.nn import FLOAT
from flipnet.nn.core.layers import decode_bits

MODELS = {}  # name -> (builder, board): "row" models read one row, "grid" models a board


def register(name, board):
    """Register a model builder; `board` is "row" or "grid" (what it was designed for)."""
    def wrap(build):
        MODELS[name] = (build, board)
        return build
    return wrap


DEFAULT_SHAPES = {"row": (1, 20), "grid": (5, 5)}  # the study's boards
BUILDERS = ("flipnet.nn.paper.models", "flipnet.nn.components.xornet")  # modules that register


class Model:
    """Named parameters (shared variables) and a forward function of (x, params dict).

    `prepare` turns state integers into the model's input rows (by default the states
    themselves); `input_shape` is the shape of one row (() for a bare state integer).
    """

    input_shape = ()
    input_dtype = "uint32"  # of the arrays `prepare` makes

    def __init__(self, name, rows, cols, n_classes, init, forward):
        self.name, self.rows, self.cols, self.n_classes = name, rows, cols, n_classes
        self.names = list(init)
        self.params = [pytensor.shared(np.asarray(v, dtype=FLOAT), name=k) for k, v in init.items()]
        self._forward = forward
        self.memory = None  # a table of per-input rows updated sparsely (see ComponentModel)

    @property
    def dense_params(self):
        """The parameters the optimizer updates (all but a sparse memory table)."""
        return [p for p in self.params if p is not self.memory]

    def fit(self, train_states):
        """Anything a model derives from its training states before training (default: none)."""

    def buffers(self):
        """Arrays a model file must carry besides the parameters (default: none)."""
        return {}

    def set_buffers(self, arrays):
        """Restore `buffers()` from a model file's arrays."""

    def prepare(self, states):
        return np.asarray(states, dtype=self.input_dtype)

    @property
    def n_cells(self):
        return self.rows * self.cols

    def logits(self, states, params=None):
        x = decode_bits(states, self.n_cells)
        return self._forward(x, dict(zip(self.names, params or self.params))).T

    def get_values(self):
        return {n: p.get_value() for n, p in zip(self.names, self.params)}

    def set_values(self, values):
        for n, p in zip(self.names, self.params):
            if values[n].shape != p.get_value().shape:
                raise ValueError(f"parameter {n} has shape {values[n].shape}, "
                                 f"model {self.name} expects {p.get_value().shape}")
            p.set_value(np.asarray(values[n], dtype=FLOAT))

    def n_parameters(self):
        return sum(p.get_value().size for p in self.params)


def build(name, seed, rows=None, cols=None):
    """A fresh model with the paper's initialisation from `seed`, for boards of the given
    shape (default: the study's board for that kind of model). A grid model refuses a
    single row: its design (a 5x5 MLP, 2D filters, 2D components) says nothing of strings."""
    for module in BUILDERS:
        importlib.import_module(module)
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}: choose from {', '.join(MODELS)}")
    builder, board = MODELS[name]
    default_rows, default_cols = DEFAULT_SHAPES[board]
    rows = default_rows if rows is None else rows
    cols = default_cols if cols is None else cols
    if board == "grid" and rows == 1:
        raise ValueError(f"{name} reads 2D boards, not one row of {cols} cells")
    return builder(np.random.default_rng(seed), rows, cols)


def check_labels(model, split, path):
    """Refuse a dataset whose labels the model cannot output."""
    top = max((int(labels.max()) for _, labels in (split.train, split.valid, split.test) if labels.size),
              default=0)
    if top >= model.n_classes:
        raise FlipnetError(f"{path} has nim-value {top}; model {model.name} has "
                           f"{model.n_classes} classes")


def one_row(name, rows):
    """Refuse a board of several rows for a model that reads one row of cells."""
    if rows != 1:
        raise ValueError(f"{name} reads one row of cells, not {rows} rows")


def normal(rng, std, shape):
    return rng.normal(0.0, std, size=shape)
