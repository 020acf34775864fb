"""A network of either family: named parameters and a forward function (the builders of
`paper/models.py` and `components/xornet.py`, named by the registry of kinds, `kinds.py`).

A model maps a batch of state integers to class logits, one row per state (inside, the
layers work feature-major: one column per state). Its parameters are shared
variables; `logits(states, params)` also accepts stand-ins for them (the trainer's scan).
"""

import numpy as np
import pytensor

from flipnet.base.errors import BadInput, FlipnetError
from flipnet.nn import FLOAT
from flipnet.nn.core.interface import TrainedModel
from flipnet.nn.core.layers import decode_bits


class Network(TrainedModel):
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
        self.meta = {}
        self._predictor = None

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
                raise BadInput(f"parameter {n} has shape {values[n].shape}, "
                                 f"model {self.name} expects {p.get_value().shape}")
            p.set_value(np.asarray(values[n], dtype=FLOAT))

    def n_parameters(self):
        return sum(p.get_value().size for p in self.params)

    def predictor(self):
        """The predictor the run evaluated with (`Predictor.as_trained`), built once."""
        if self._predictor is None:
            from flipnet.nn.core.compile import Predictor

            self._predictor = Predictor.as_trained(self, self.meta, quick_rows=self.quick_rows)
        return self._predictor

    def predict(self, states):
        """Predicted classes of states, as the run evaluated them."""
        return self.predictor()(states)

    def position_probabilities(self, states):
        """The softmax of its logits (averaged over the board's symmetries as its run did)."""
        return self.predictor().probabilities(states)

    def save(self, path, meta):
        from flipnet.nn.core.store import save_model

        save_model(path, self, meta)


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
        raise BadInput(f"{name} reads one row of cells, not {rows} rows")


def normal(rng, std, shape):
    return rng.normal(0.0, std, size=shape)
