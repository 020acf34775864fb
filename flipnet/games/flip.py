"""The flip game: a move turns two adjacent 1s (in a row or a column) into 0s.

Normal play by default (the last mover wins, as in the study); misere play on request.
On its full cells it is the game Cram (a move places a domino on two free cells).
"""

from flipnet.games.board import BoardGame


class FlipGame(BoardGame):
    """The flip game on a rows x cols board (rows=1 is the 1D string game)."""

    name = "flip"
    OPTIONS = ("shape", "misere")

    def __init__(self, rows, cols, misere=False):
        self.misere = bool(misere)
        self.rule = "misere" if misere else "normal"
        super().__init__(rows, cols)

    def __repr__(self):
        return f"FlipGame({self.rows}, {self.cols}{', misere=True' if self.misere else ''})"

    def __hash__(self):
        return hash(("FlipGame", self.rows, self.cols, self.misere))

    def move_hint(self, state):
        return "two cells, e.g. 3+4" if self.rows == 1 else "cells as ROW,COL+ROW,COL, e.g. 0,0+0,1"

    def _masks(self):
        for r in range(self.rows):
            for c in range(self.cols):
                b = self.bit(r, c)
                if c + 1 < self.cols:
                    yield 1 << b | 1 << (b + 1)
                if r + 1 < self.rows:
                    yield 1 << b | 1 << (b + self.cols)
