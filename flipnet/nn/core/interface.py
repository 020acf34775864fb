"""What every trained model holds and answers, whatever its kind (`kinds.py`): the paper's
networks, the component networks, the lookup baseline, convmem2d and an ensemble of
component models. Code that uses a model asks it through these names only.

The model classes subclass `TrainedModel`, which gives the answers most kinds share: a
model reads its own board only, values positions but not shapes, and knows no shapes
until it says otherwise.
"""

from typing import Protocol

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.nn.core.xor import position_distributions


class TrainedModel(Protocol):
    name: str  # its kind, as its file records it
    rows: int  # the board it reads (its training board, or the one `for_board` gave it)
    cols: int
    n_classes: int  # the values it can give: 0 .. n_classes - 1
    meta: dict  # its file's metadata (the run's settings under "config"); {} when built here
    size_free = False  # reads positions of any board (`for_board`)
    values_shapes = False  # a position's value is the XOR of its shapes' values, which it gives
    quick_rows = 0  # its predictions of at most this many states skip Numba (`compile.QUICK_ROWS`)

    def predict(self, states) -> np.ndarray:
        """The value of each position (state integers of its board), as it was evaluated
        after training (with the symmetry averaging its run used, if any)."""
        ...

    def position_probabilities(self, states) -> np.ndarray:
        """(states, n_classes): its distribution of each position's value. A component
        model's is the XOR convolution of its shapes' distributions."""
        if not self.values_shapes:
            raise FlipnetError(f"{self.name} gives values, not distributions")
        return position_distributions(self.components, states, self.shape_probabilities, self.n_classes)

    def shape_values(self, keys) -> np.ndarray:
        """The value of each shape (keys of `datasets.components`): component models."""
        raise FlipnetError(f"{self.name} values whole positions, not their shapes")

    def shape_probabilities(self, keys) -> np.ndarray:
        """(keys, values): its distribution of each shape's value: component models."""
        raise FlipnetError(f"{self.name} values whole positions, not their shapes")

    def known_shapes(self):
        """The shapes whose values its training fixed (sorted keys), or None where the
        model keeps no list (then they are those of its training split)."""
        return None

    def drawn_shapes(self) -> np.ndarray:
        """Shapes it was also taught from random boards it labelled itself (convmem2d)."""
        return np.zeros(0, np.uint64)

    def for_board(self, rows, cols) -> "TrainedModel":
        """The same model reading rows x cols positions: itself on its own board; a
        size-free model's copy on another; a one-line error for any other."""
        if (rows, cols) == (self.rows, self.cols):
            return self
        raise FlipnetError(f"{self.name} reads {self.rows}x{self.cols} boards, not {rows}x{cols}")

    def compile(self) -> None:
        """Build its compiled functions now (before forking helpers that use them)."""

    def save(self, path, meta) -> None:
        """Write its file (`kinds.read_model` reads it back), with `meta` in its metadata."""
        ...
