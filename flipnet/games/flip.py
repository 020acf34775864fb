"""The flip game: a move turns two adjacent 1s (in a row or a column) into 0s; normal play."""

from flipnet.games.board import BoardGame


class FlipGame(BoardGame):
    """The flip game on a rows x cols board (rows=1 is the 1D string game)."""

    name = "flip"
    rule = "normal"

    def _masks(self):
        for r in range(self.rows):
            for c in range(self.cols):
                b = self.bit(r, c)
                if c + 1 < self.cols:
                    yield 1 << b | 1 << (b + 1)
                if r + 1 < self.rows:
                    yield 1 << b | 1 << (b + self.cols)
