"""Grid Nim: take 1..max_take stones that sit next to each other, without a gap, in one row
or one column. Misere by default: whoever takes the last stone loses."""

from flipnet.games.board import BoardGame
from flipnet.base.errors import BadInput


class GridNim(BoardGame):
    name = "gridnim"
    default_shape = (4, 4)
    OPTIONS = ("shape", "max_take", "misere")

    def __init__(self, rows, cols, max_take=3, misere=True):
        # a take longer than every line adds no move; the bound keeps the move list small
        limit = max(rows, cols, 3) if isinstance(rows, int) and isinstance(cols, int) else 3
        if not 1 <= max_take <= limit:
            raise BadInput(f"--max-take must be from 1 to {limit} on a {rows}x{cols} board "
                             f"(its longest line, or 3), got {max_take}")
        self.max_take = max_take
        self.misere = misere
        self.rule = "misere" if misere else "normal"
        super().__init__(rows, cols)

    def __repr__(self):
        return f"GridNim({self.rows}, {self.cols}, max_take={self.max_take}, misere={self.misere})"

    def __hash__(self):
        return hash(("GridNim", self.rows, self.cols, self.max_take, self.misere))

    def _masks(self):
        for r in range(self.rows):
            for c in range(self.cols):
                yield 1 << self.bit(r, c)
                for length in range(2, self.max_take + 1):
                    if c + length <= self.cols:
                        yield sum(1 << self.bit(r, c + i) for i in range(length))
                    if r + length <= self.rows:
                        yield sum(1 << self.bit(r + i, c) for i in range(length))
