"""The symmetries of a board acting on state integers (bit r*cols + c is cell (r, c)).

Moving every cell by a symmetry of the board keeps adjacency, so a position and its
images have the same nim-value. Training can show the network a random image of each
state (augmentation), and prediction can average over all images (test-time averaging).
"""

import numpy as np


def cell_maps(rows, cols):
    """One array per symmetry of a rows x cols board: where each cell goes (identity first).

    A square has 8 (rotations and reflections), a rectangle 4, a single row 2.
    """
    r, c = np.divmod(np.arange(rows * cols), cols)
    maps = [(r, c), (r, cols - 1 - c), (rows - 1 - r, c), (rows - 1 - r, cols - 1 - c)]
    if rows == cols:
        maps += [(c, r), (c, cols - 1 - r), (rows - 1 - c, r), (rows - 1 - c, cols - 1 - r)]
    unique = []
    for rr, cc in maps:
        cells = rr * cols + cc
        if not any(np.array_equal(cells, u) for u in unique):
            unique.append(cells)
    return unique


class Symmetries:
    """Images of state integers under every symmetry, by one table lookup per row."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.maps = cell_maps(rows, cols)
        chunk = np.arange(1 << cols)
        bits = (chunk[:, None] >> np.arange(cols)) & 1  # (2^cols, cols)
        # tables[g, r, v]: the image of row r holding bits v, under symmetry g
        self.tables = np.zeros((len(self.maps), rows, 1 << cols), dtype=np.uint64)
        for g, target in enumerate(self.maps):
            for row in range(rows):
                weights = np.uint64(1) << target[row * cols:(row + 1) * cols].astype(np.uint64)
                self.tables[g, row] = (bits.astype(np.uint64) * weights).sum(axis=1)

    def __len__(self):
        return len(self.maps)

    def image(self, states, g):
        """States moved by symmetry g (an index or an array of one index per state)."""
        states = np.asarray(states)
        out = np.zeros(states.shape, dtype=np.uint64)
        mask = (1 << self.cols) - 1
        for row in range(self.rows):
            chunk = (states >> (row * self.cols)) & mask
            out |= self.tables[g, row, chunk]
        return out.astype(states.dtype)

    def random_images(self, states, rng):
        """Each state moved by a symmetry drawn uniformly for it."""
        return self.image(states, rng.integers(len(self), size=np.shape(states)))
