"""convmem2d: the values the training labels fix, and a size-free network for the rest.

The lookup baseline (`nn/components/lookup.py`) reads a value for every shape the training labels
pin down; a masked convolution over a shape's cells (`nn/components/maskconv.py`), trained on those
shapes and values (`nn/components/shapetrain.py`), values every other shape, on any board. So the
model is the table where the training data spoke and the network where it did not: a
position's value is the XOR of its components' values, as for every component model.
Nothing in it is read from a solver or from validation or test labels.
"""

import inspect

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.base.fields import Fields
from flipnet.datasets.components import Components
from flipnet.nn.components.lookup import ShapeLookup
from flipnet.nn.components.maskconv import MaskedConvNet
from flipnet.nn.core.interface import TrainedModel
from flipnet.nn.core.store import load_npz, save_npz
from flipnet.nn.training.config import without_removed

NAME = "convmem2d"
TABLE = ("keys", "values", "by_size")  # the lookup's arrays, stored as table/NAME


class ConvMemory(TrainedModel):
    """Shape values from the table where it holds them, from the network elsewhere;
    positions valued by calling it with states. `average`: the network's distribution
    is the geometric mean over the 8 symmetries of its frame. `drawn`: the keys of the
    shapes the network was also taught by 1-ply labels (`nn/components/drawn.py`), for reports."""

    name = NAME
    size_free = True
    values_shapes = True

    def __init__(self, network, table, rows, cols, average=True, drawn=None):
        self.network, self.table, self.average = network, table, average
        self.drawn = np.zeros(0, np.uint64) if drawn is None else np.asarray(drawn, np.uint64)
        self.side = max(rows, cols)  # a square frame that holds every shape of the board
        if self.side * self.side > 64:
            raise FlipnetError(f"{NAME} draws a {rows}x{cols} board's shapes in a {self.side}x{self.side} "
                               f"frame of {self.side * self.side} cells; frames are 64-bit masks, so a "
                               f"board's longer side is at most 8")
        self.rows, self.cols, self.n_classes = rows, cols, network.n_classes
        self.components = Components(rows, cols)
        self.meta = {}

    def for_board(self, rows, cols):
        """The same table and network reading rows x cols positions."""
        other = ConvMemory(self.network, self.table, rows, cols, self.average, self.drawn)
        other.meta = self.meta
        return other

    def known_shapes(self):
        """The shapes whose values the training labels fixed (the table's keys)."""
        return self.table.keys

    def drawn_shapes(self):
        return self.drawn

    def compile(self):
        """Build the network's function for this board now (before forking helpers that use it)."""
        self.network.log_probs_function(self.side)

    def network_probabilities(self, keys, workers=1):
        """The network's own distribution of each key's value (table or not); `workers`:
        its chunks shared with forked processes (the same answer)."""
        return self.network.probabilities(keys, self.side, self.average, workers=workers,
                                          quick_rows=self.quick_rows)

    def probabilities(self, keys):
        """(keys, n_classes): certain for a shape in the table, the network's otherwise."""
        keys = np.asarray(keys, np.uint64)
        found, value = self.table.known(keys)
        out = np.zeros((keys.size, self.n_classes))
        out[np.flatnonzero(found), value[found]] = 1.0
        if (~found).any():
            out[~found] = self.network_probabilities(keys[~found])
        return out

    def component_values(self, keys):
        """The value of each shape key: the table's, else the network's most likely."""
        keys = np.asarray(keys, np.uint64)
        found, values = self.table.known(keys)
        if (~found).any():
            values[~found] = self.network_probabilities(keys[~found]).argmax(axis=1)
        return values

    shape_values = component_values
    shape_probabilities = probabilities

    def __call__(self, states):
        return self.components.position_values(states, self.component_values)

    predict = __call__

    def save(self, path, meta):
        arrays = {f"net/{k}": v for k, v in self.network.get_values().items()}
        arrays.update({f"table/{k}": v for k, v in self.table.arrays().items()})
        arrays["drawn/keys"] = self.drawn
        save_npz(path, arrays, {"model": NAME, "rows": self.rows, "cols": self.cols,
                                "architecture": self.network.architecture(),
                                "average": self.average, **meta})

    @classmethod
    def read(cls, path):
        """(model, meta) of a convmem2d file; a one-line error for anything else."""
        arrays, meta = load_npz(path)
        model = rebuild(path, arrays, meta)
        model.meta = meta
        return model, meta


def rebuild(path, arrays, meta):
    """The table and network of a convmem2d file (`kinds.read_model`)."""
    info, stored = Fields(meta, path, "metadata "), Fields(arrays, path, "array ")
    architecture = without_removed(info.take("architecture", dict), path)
    unknown = sorted(set(architecture) - set(inspect.signature(MaskedConvNet).parameters))
    if unknown:
        raise info.fail("architecture", f"has settings this flipnet does not know: {', '.join(unknown)}")
    network = MaskedConvNet(0, **architecture)
    network.set_values({name: stored.array(f"net/{name}") for name in network.names})
    rows, cols = info.board()
    table = ShapeLookup.from_arrays({k: stored.array(f"table/{k}") for k in TABLE}, rows, cols)
    drawn = stored.array("drawn/keys") if "drawn/keys" in arrays else None
    return ConvMemory(network, table, rows, cols, info.take("average", bool), drawn)
