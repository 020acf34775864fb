"""The flip game: a move turns two adjacent 1s (in a row or a column) into 0s.

Normal play by default (the last mover wins, as in the study); misere play on request.
On its full cells it is the game Cram (a move places a domino on two free cells).
"""

from flipnet.games.board import BoardGame
from flipnet.games.registry import Registration


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


EXPLORER_SIDE, EXPLORER_CELLS = 8, 64  # the explorer's boards: up to 8x8, and lines of up to 64 cells


def _beyond_the_explorer(game, state):
    if game.n_cells > EXPLORER_CELLS or min(game.rows, game.cols) > 1 and max(game.rows, game.cols) > EXPLORER_SIDE:
        return (f"boards here go up to {EXPLORER_SIDE}x{EXPLORER_SIDE}, or a line of {EXPLORER_CELLS} "
                f"cells; this one is {game.rows}x{game.cols}")
    return None


REGISTRATION = Registration(
    rules=FlipGame, theory="flipnet.solve.position:CRAM", title="Flip (Cram)",
    about="A move turns two adjacent 1s, in a row or a column, into 0s; whoever cannot move loses.",
    start="11111/11111/11111/11111/11111", form=(r"[01]{1,64}(/[01]{1,64}){0,63}", "rows of 0 and 1 joined by /"),
    players={"perfect": "the solver (perfect)", "difficulty:0.75": "the solver, 3 moves in 4 (difficulty:0.75)",
             "difficulty:0.5": "the solver, every other move (difficulty:0.5)",
             "difficulty:0.25": "the solver, 1 move in 4 (difficulty:0.25)", "network": "the network",
             "random": "a random player"},
    examples=(dict(shape=(1, 9)), dict(shape=(3, 4)), dict(shape=(2, 3), misere=True)),
    too_large=_beyond_the_explorer, limits={"side": EXPLORER_SIDE, "line": EXPLORER_CELLS}, page="board",
    held_as="cells", moves="masks", splits=True)
