"""Grid Nim: take 1..max_take stones that sit next to each other, without a gap, in one row
or one column. Misere by default: whoever takes the last stone loses."""

from flipnet.games.board import BoardGame
from flipnet.games.registry import Registration
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


EXPLORER_CELLS = 25  # grid Nim's boards in the explorer


def _beyond_the_explorer(game, state):
    if game.n_cells > EXPLORER_CELLS:
        return f"grid Nim boards here have at most {EXPLORER_CELLS} cells"
    return None


REGISTRATION = Registration(
    rules=GridNim, theory="flipnet.solve.position:BY_TABLE", title="grid Nim 4x4 (misère)",
    about="Take 1 to 3 stones in a row or a column with no gap between them; whoever takes the last "
          "stone loses. Click a cell to add or remove a stone.",
    start="1111/1111/1111/1111", form=(r"[01]{1,5}(/[01]{1,5}){0,4}", "rows of 0 and 1 joined by /"),
    players={"optimal": "the optimal player", "random": "a random player"},
    examples=(dict(shape=(3, 3)), dict(shape=(2, 4), max_take=2, misere=False)),
    too_large=_beyond_the_explorer, held_as="cells", moves="masks")
