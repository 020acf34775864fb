import os
from functools import lru_cache

import pytest

os.environ["FLIPNET_PROGRESS"] = "0"


def mex(values):
    values = set(values)
    v = 0
    while v in values:
        v += 1
    return v


def recursive_values(game):
    """An independent solver: plain recursion with a memo, one state at a time.

    Normal play: the Grundy value. Misere: 1 if the player to move wins (a position with
    no move is a win) else 0.
    """

    @lru_cache(maxsize=None)
    def value(state):
        children = [value(state & ~m) for m in game.move_masks if state & m == m]
        if game.rule == "misere":
            return int(not children or 0 in children)
        return mex(children)

    return [value(s) for s in range(1 << game.n_cells)]


@pytest.fixture(scope="session")
def table_5x5():
    from flipnet.games import FlipGame
    from flipnet.solve import table

    return table(FlipGame(5, 5))
