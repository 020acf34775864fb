"""Several trained component models read as one: a product of experts over shape values.

Each member gives every shape a distribution over values; the ensemble's is their
normalised geometric mean, so a value wins only where no member finds it unlikely. A
position's value is the XOR of its shapes' most likely values, as for the members.
Training is the members' own (each run, epoch and seed as its results file says); the way
of combining them (geometric mean rather than the arithmetic mean or either member alone)
was chosen on validation positions (docs/results.md).
"""

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.nn.core.interface import TrainedModel


class ComponentEnsemble(TrainedModel):
    """The members' shape distributions multiplied: `probabilities`, `component_values`,
    and positions' values by calling it with states."""

    values_shapes = True

    def __init__(self, members, where="the ensemble"):
        """`members`: component models (component networks, convmem2d models) trained on
        the same dataset, each holding its file's metadata."""
        if len(members) < 2:
            raise FlipnetError(f"{where}: an ensemble needs two models or more")
        first = members[0]
        for model in members:
            if not model.values_shapes:
                raise FlipnetError(f"{where}: {model.name} does not value components with a network")
            if (model.rows, model.cols, model.n_classes) != (first.rows, first.cols, first.n_classes):
                raise FlipnetError(f"{where}: {model.name} reads {model.rows}x{model.cols} with "
                                   f"{model.n_classes} classes, {first.name} {first.rows}x{first.cols} with "
                                   f"{first.n_classes}")
            if _trained_on(model.meta) != _trained_on(first.meta):
                raise FlipnetError(f"{where}: {model.name} was trained on {_trained_on(model.meta)}, "
                                   f"{first.name} on {_trained_on(first.meta)}")
        self.members = list(members)
        self.name = "+".join(m.name for m in self.members)
        self.rows, self.cols, self.n_classes = first.rows, first.cols, first.n_classes
        self.components = first.components
        self.meta = first.meta  # the same training data for all

    @property
    def size_free(self):
        return all(m.size_free for m in self.members)

    def for_board(self, rows, cols):
        """The ensemble of the members reading rows x cols (each must be able to)."""
        if (rows, cols) == (self.rows, self.cols):
            return self
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.members = [m.for_board(rows, cols) for m in self.members]
        other.rows, other.cols, other.components = rows, cols, other.members[0].components
        return other

    def known_shapes(self):
        """Shapes any member met in training (the same training positions for all)."""
        known = [m.known_shapes() for m in self.members if m.known_shapes() is not None]
        return np.unique(np.concatenate(known)) if known else None

    def compile(self):
        """Build the members' functions now (before forking helpers that use them)."""
        for model in self.members:
            model.compile()

    def probabilities(self, keys):
        """(keys, values): the normalised geometric mean of the members' distributions."""
        log_sum = sum(np.log(np.maximum(m.shape_probabilities(keys), 1e-30)) for m in self.members)
        log_mean = log_sum / len(self.members)
        weights = np.exp(log_mean - log_mean.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)

    def component_values(self, keys):
        """The most likely value of each shape key (keys of shapes, not 0)."""
        return self.probabilities(np.asarray(keys, np.uint64)).argmax(axis=1)

    shape_values = component_values
    shape_probabilities = probabilities

    def __call__(self, states):
        return self.components.position_values(states, self.component_values)

    predict = __call__

    def save(self, path, meta):
        raise FlipnetError("an ensemble is not saved: it is its members' files (flipnet evaluate A --with B)")


def _trained_on(meta):
    config = meta.get("config", {}) if isinstance(meta.get("config"), dict) else {}
    return f"{config.get('data')} bucket {config.get('bucket', 0)}"
