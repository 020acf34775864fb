"""A size-free description of a component's shape, for networks that must read shapes
of any size (boards larger than the ones they were trained on).

What a shape is described by (`FEATURES` numbers, log(1 + count) each):
- for every cell, the pattern of its 8 neighbours (256 patterns): the histogram of
  these is what a 3x3 convolution with sum pooling sees, on any size of board;
- how many cells have 0..4 neighbours;
- its cells, box height and width, fill of the box, horizontal and vertical dominoes.
The description is a pure function of the shape (no values, no labels), computed once
per shape and kept in a `ShapeTable` that grows as new shapes are met.
"""

import numpy as np

from flipnet.base.kernels import njit
from flipnet.solve.shapes import key_frame

PATTERNS = 256
FEATURES = PATTERNS + 5 + 6


@njit(cache=True)
def _describe(keys, out):
    grid = np.zeros((66, 66), np.uint8)
    for i in range(keys.size):
        key = keys[i]
        bits, h, w = key_frame(key)
        grid[:h + 2, :w + 2] = 0
        cells = 0
        for r in range(h):
            for c in range(w):
                if (bits >> np.uint64(r * w + c)) & np.uint64(1):
                    grid[r + 1, c + 1] = 1
                    cells += 1
        horizontal = vertical = 0
        for r in range(1, h + 1):
            for c in range(1, w + 1):
                if not grid[r, c]:
                    continue
                pattern, k = 0, 0
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        if dr or dc:
                            pattern |= np.int64(grid[r + dr, c + dc]) << k
                            k += 1
                out[i, pattern] += 1
                degree = grid[r - 1, c] + grid[r + 1, c] + grid[r, c - 1] + grid[r, c + 1]
                out[i, PATTERNS + degree] += 1
                horizontal += grid[r, c + 1]
                vertical += grid[r + 1, c]
        base = PATTERNS + 5
        out[i, base] = cells
        out[i, base + 1] = h
        out[i, base + 2] = w
        out[i, base + 3] = 10.0 * cells / (h * w)
        out[i, base + 4] = horizontal
        out[i, base + 5] = vertical
    for i in range(keys.size):
        for j in range(out.shape[1]):
            out[i, j] = np.log1p(out[i, j])


def describe(keys):
    """(len(keys), FEATURES) float32 descriptions of the shapes (keys not 0)."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).ravel()
    out = np.zeros((keys.size, FEATURES), np.float32)
    _describe(keys, out)
    return out


class ShapeTable:
    """Descriptions of every shape met so far, one row each; row 0 is the empty shape."""

    def __init__(self):
        self.keys = np.zeros(1, np.uint64)  # sorted, row 0 stands for "no component"
        self.rows_of = np.zeros(1, np.int64)  # the row of each sorted key
        self.array = np.zeros((1, FEATURES), np.float32)

    def rows(self, keys):
        """The table row of each key (0 for 0), adding the shapes not met before."""
        keys = np.asarray(keys, dtype=np.uint64)
        new = np.setdiff1d(np.unique(keys), self.keys)
        if new.size:
            self.array = np.concatenate([self.array, describe(new)])
            first = len(self.rows_of)
            all_keys = np.concatenate([self.keys, new])
            all_rows = np.concatenate([self.rows_of, np.arange(first, first + new.size)])
            order = np.argsort(all_keys, kind="stable")
            self.keys, self.rows_of = all_keys[order], all_rows[order]
        return self.rows_of[np.searchsorted(self.keys, keys)].astype(np.uint64)
