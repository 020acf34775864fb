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
from flipnet.nn.core.compile import ComponentPredictor
from flipnet.nn.core.model import check_labels


class ComponentEnsemble:
    """The members' shape distributions multiplied: `probabilities`, `component_values`,
    and positions' values by calling it with states."""

    def __init__(self, members, where="the ensemble"):
        """`members`: [(model, meta)] of component networks (or convmem2d models) trained on
        the same dataset."""
        if len(members) < 2:
            raise FlipnetError(f"{where}: an ensemble needs two models or more")
        first, first_meta = members[0]
        for model, meta in members:
            if not hasattr(model, "components") or not _values_shapes(model):
                raise FlipnetError(f"{where}: {model.name} does not value components with a network")
            if (model.rows, model.cols, model.n_classes) != (first.rows, first.cols, first.n_classes):
                raise FlipnetError(f"{where}: {model.name} reads {model.rows}x{model.cols} with "
                                   f"{model.n_classes} classes, {first.name} {first.rows}x{first.cols} with "
                                   f"{first.n_classes}")
            if _trained_on(meta) != _trained_on(first_meta):
                raise FlipnetError(f"{where}: {model.name} was trained on {_trained_on(meta)}, "
                                   f"{first.name} on {_trained_on(first_meta)}")
        self.members = [model for model, _ in members]
        self.name = "+".join(m.name for m in self.members)
        self.rows, self.cols, self.n_classes = first.rows, first.cols, first.n_classes
        self.components = first.components
        self._predictors = [_distributions(m) for m in self.members]

    def for_board(self, rows, cols):
        """The ensemble of the members reading rows x cols (each must be able to)."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.members = [m.for_board(rows, cols) if hasattr(m, "for_board") else m for m in self.members]
        other.rows, other.cols, other.components = rows, cols, other.members[0].components
        other._predictors = [_distributions(m) for m in other.members]
        return other

    @property
    def reader(self):
        """'cells' if any member reads cells of a fixed frame (then not size-free)."""
        return "cells" if any(getattr(m, "reader", None) == "cells" for m in self.members) else "features"

    def known_shapes(self):
        """Shapes any member met in training (the same training positions for all)."""
        known = [m.known_shapes() for m in self.members if m.known_shapes() is not None]
        return np.unique(np.concatenate(known)) if known else None

    def check_labels(self, split, path):
        for model in self.members:
            check_labels(model, split, path)

    def compile(self):
        """Build the members' functions now (before forking helpers that use them)."""
        for predictor in self._predictors:
            if hasattr(predictor, "compile"):
                predictor.compile()

    def probabilities(self, keys):
        """(keys, values): the normalised geometric mean of the members' distributions."""
        log_sum = sum(np.log(np.maximum(p.probabilities(keys), 1e-30)) for p in self._predictors)
        log_mean = log_sum / len(self._predictors)
        weights = np.exp(log_mean - log_mean.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)

    def component_values(self, keys):
        """The most likely value of each shape key (keys of shapes, not 0)."""
        return self.probabilities(np.asarray(keys, np.uint64)).argmax(axis=1)

    def __call__(self, states):
        return self.components.position_values(states, self.component_values)


def _values_shapes(model):
    """A component network, or a model that gives shapes distributions itself (convmem2d)."""
    return hasattr(model, "network_inputs") or hasattr(model, "probabilities")


def _distributions(model):
    """What gives a member's distribution of shape values: `.probabilities(keys)`."""
    return ComponentPredictor(model) if hasattr(model, "network_inputs") else model


def _trained_on(meta):
    config = meta.get("config", {}) if isinstance(meta.get("config"), dict) else {}
    return f"{config.get('data')} bucket {config.get('bucket', 0)}"
