"""Positions split into their live components, vectorized over arrays of state integers.

The value of a flip position is the XOR of the values of its connected groups of full
cells, and a full cell with no full neighbour is worth nothing. So a position can be
handed to a network as the list of its groups of two or more cells, each moved to the
top-left corner and put in a canonical orientation: the network then has to learn the
value of a shape once, wherever and however it lies on the board.
"""

import numpy as np

from flipnet.datasets.symmetry import Symmetries


class Components:
    """Live components of rows x cols positions, as canonical masks in the same frame."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.n = rows * cols
        self.symmetries = Symmetries(rows, cols)
        full = (1 << self.n) - 1
        first_col = sum(1 << (r * cols) for r in range(rows))
        self.row_mask = np.uint64((1 << cols) - 1)
        self.full = np.uint64(full)
        self.first_col = np.uint64(first_col)
        self.not_first_col = np.uint64(full & ~first_col)
        self.not_last_col = np.uint64(full & ~(first_col << (cols - 1)))

    def neighbours(self, masks):
        """Cells next to a cell of each mask (the masks' own cells may be among them)."""
        c = np.uint64(1)
        w = np.uint64(self.cols)
        return (((masks << c) & self.not_first_col) | ((masks >> c) & self.not_last_col)
                | ((masks << w) & self.full) | (masks >> w))

    def live(self, states):
        """States with every full cell that has no full neighbour cleared (value unchanged)."""
        states = np.asarray(states, dtype=np.uint64)
        return states & self.neighbours(states)

    def split(self, states):
        """(n, k) uint64 masks: the live components of each state, largest slot count k
        needed, empty slots 0; in each row the components appear in order of their
        lowest cell."""
        remaining = self.live(states)
        found = []
        while remaining.any():
            rows = np.flatnonzero(remaining)
            rest = remaining[rows]
            grown = rest & (~rest + np.uint64(1))  # the lowest full cell
            while True:
                bigger = (grown | self.neighbours(grown)) & rest
                if np.array_equal(bigger, grown):
                    break
                grown = bigger
            column = np.zeros(remaining.shape, dtype=np.uint64)
            column[rows] = grown
            remaining[rows] = rest & ~grown
            found.append(column)
        return np.stack(found, axis=1) if found else np.zeros((len(remaining), 0), np.uint64)

    def to_corner(self, masks):
        """Masks shifted up and left until they touch the top row and the left column."""
        masks = np.asarray(masks, dtype=np.uint64)
        out = masks.copy()
        for _ in range(self.rows - 1):  # up: while the top row is empty
            empty = (out != 0) & ((out & self.row_mask) == 0)
            out[empty] >>= np.uint64(self.cols)
        for _ in range(self.cols - 1):  # left: while the first column is empty
            empty = (out != 0) & ((out & self.first_col) == 0)
            out[empty] >>= np.uint64(1)
        return out

    def canonical(self, masks):
        """The smallest corner-shifted image of each mask under the board's symmetries
        that keep it inside the frame (all 8 for a square board)."""
        masks = np.asarray(masks, dtype=np.uint64)
        best = self.to_corner(masks)
        for g in range(1, len(self.symmetries)):
            best = np.minimum(best, self.to_corner(self.symmetries.image(masks, g)))
        return best

    def shapes(self, states):
        """The canonical masks of every live component of the states, in one flat array."""
        parts = self.split(states)
        return self.canonical(parts[parts != 0])

    def encode(self, states, slots):
        """(n, slots) uint32: the canonical live components of each state, 0 for unused
        slots; an error if a state has more components than slots."""
        parts = self.split(states)
        if parts.shape[1] > slots:
            raise ValueError(f"a position has {parts.shape[1]} live components; "
                             f"the model has {slots} slots")
        out = np.zeros((parts.shape[0], slots), dtype=np.uint32)
        out[:, :parts.shape[1]] = np.where(parts != 0, self.canonical(parts), 0)
        return out


def adjacency(rows, cols):
    """(cells, cells) 0/1 matrix: 1 where two cells of the board share a side."""
    cells = np.arange(rows * cols)
    r, c = np.divmod(cells, cols)
    return ((np.abs(r[:, None] - r[None, :]) + np.abs(c[:, None] - c[None, :])) == 1).astype(np.float64)


def new_shape_positions(rows, cols, train_states, states):
    """True for each of `states` that holds a live component whose canonical shape is the
    shape of no live component of any training state."""
    components = Components(rows, cols)
    met = np.unique(components.shapes(train_states))
    parts = components.split(states)
    shapes = np.where(parts != 0, components.canonical(parts), 0)
    return ((shapes != 0) & ~np.isin(shapes, met)).any(axis=1)


def shape_split_errors(rows, cols, train_states, test_states, wrong):
    """The test error on positions made only of shapes met in training and on those that
    hold a new one: what a memory of training shapes can and cannot help with."""
    new = new_shape_positions(rows, cols, train_states, test_states)
    wrong = np.asarray(wrong)
    return {"test_share_new_shapes": float(new.mean()) if new.size else 0.0,
            "test_error_known_shapes": float(wrong[~new].mean()) if (~new).any() else 0.0,
            "test_error_new_shapes": float(wrong[new].mean()) if new.any() else 0.0}
