"""The API's arguments, checked where they come in: a value of the wrong type, shape or
range is a one-line `BadType` or `BadInput` that names the argument and the value, before
any work; nothing is coerced in silence (a cell of 0.5 is not a full cell, "no" is not
False)."""

import numbers

import numpy as np

from flipnet import games
from flipnet.base.checks import check_seconds
from flipnet.base.errors import BadInput, BadType, brief
from flipnet.solve.parts import WORD_CELLS


def on_a_board(game):
    """Whether the registered game `game` (a name) is played on a board of cells."""
    return games.registration(game).board


def is_whole(value):
    """Whether `value` is a whole number of Python's or numpy's (bool is not one)."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def game_name(game):
    if not isinstance(game, str):
        raise BadType(f"game is a name ({', '.join(games.GAMES)}), not {brief(game)}")
    if game not in games.GAMES:
        raise BadInput(f"unknown game {game!r}: choose from {', '.join(games.GAMES)}")
    return game


def misere_rule(misere):
    """None (the game's own rule), True or False: never a string or a number."""
    if misere is not None and not isinstance(misere, (bool, np.bool_)):
        raise BadType(f"misere is True, False or None, not {brief(misere)}")
    return None if misere is None else bool(misere)


def whole(name, value, low, high=None, optional=True):
    """An integer argument from `low` to `high` (None: no upper bound); None where optional."""
    if value is None and optional:
        return None
    if not is_whole(value):
        raise BadType(f"{name} is a whole number, not {brief(value)}")
    if value < low or high is not None and value > high:
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise BadInput(f"{name} must be {span}, got {int(value)}")
    return int(value)


def seconds(timeout):
    """None (no limit) or a positive, finite number of seconds."""
    if timeout is not None and (not isinstance(timeout, numbers.Real) or isinstance(timeout, (bool, np.bool_))):
        raise BadType(f"timeout is a number of seconds or None, not {brief(timeout)}")
    return check_seconds(None if timeout is None else float(timeout), "timeout")


def moves_wanted(moves):
    """True (the winning moves), False (none) or "all"."""
    if isinstance(moves, (bool, np.bool_)):
        return bool(moves)
    if isinstance(moves, str) and moves == "all":
        return moves
    raise BadInput(f"moves is True, False or 'all', not {brief(moves)}")


def shape_of(shape):
    """(rows, cols) of two positive whole numbers."""
    if shape is None:
        return None
    if isinstance(shape, str) or len(np.shape(shape)) != 1 or len(shape) != 2 or not all(map(is_whole, shape)):
        raise BadType(f"shape is (rows, cols), two whole numbers, not {brief(shape)}")
    rows, cols = (int(n) for n in shape)
    if rows < 1 or cols < 1:
        raise BadInput(f"shape must be at least 1x1, got {rows}x{cols}")
    return rows, cols


def cell_array(position, game, what="position"):
    """A board given as rows of cells (a 2D array or nested lists): its cells as a uint8
    array, each exactly 0 or 1 (bool, integer or float)."""
    try:
        array = np.asarray(position)
    except ValueError:  # numpy's own refusal of ragged rows
        raise BadInput(f"the rows of {what} differ in length") from None
    if array.dtype.kind not in "biuf":
        raise BadType(f"{what}: cells are 0 and 1 (numbers or bools), not {array.dtype} values")
    if array.ndim != 2:
        raise BadInput(f"a {game} {what} as an array has 2 dimensions (rows, cols), this one has {array.ndim}")
    if array.size == 0:
        raise BadInput(f"{what} is an empty array: a board has at least one cell")
    bad = ~np.isin(array, (0, 1)) if array.dtype.kind != "b" else np.zeros(array.shape, bool)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise BadInput(f"{what}: cell ({r}, {c}) is {array[r, c]!r}; a cell is 0 (empty) or 1 (full)")
    return array.astype(np.uint8)


def heap_list(position, what="position"):
    """Nim heaps given as a sequence of whole numbers, none negative."""
    array = np.asarray(position, dtype=object) if not isinstance(position, np.ndarray) else position
    if array.ndim != 1:
        raise BadInput(f"Nim's {what} is a list of heap sizes (1 dimension), this one has {array.ndim}")
    heaps = array.tolist()
    for i, heap in enumerate(heaps, start=1):
        if not is_whole(heap):
            raise BadType(f"heap {i} of {what} is {brief(heap)}, not a whole number")
        if heap < 0:
            raise BadInput(f"heap {i} of {what} is negative ({heap})")
    return [int(h) for h in heaps]


def fits_a_word(rows, cols):
    """Refuse boards whose cells a 64-bit integer cannot hold (their arrays are read as such)."""
    if rows * cols > WORD_CELLS:
        raise BadInput(f"boards of {rows}x{cols} cells do not fit 64-bit integers: pass texts")


def bit_boards(array, rows, cols):
    """An integer array of bit boards, each of the `rows` x `cols` cells only: as uint64."""
    if array.dtype.kind not in "iu":
        raise BadType(f"bit boards are integers, not {array.dtype} values")
    fits_a_word(rows, cols)
    if array.dtype.kind == "i" and (array < 0).any():
        i = int(np.flatnonzero(array < 0)[0])
        raise BadInput(f"bit board {i} is negative ({int(array[i])})")
    states = array.astype(np.uint64)
    if rows * cols < WORD_CELLS:
        outside = states >> np.uint64(rows * cols) != 0
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise BadInput(f"bit board {i} ({int(states[i])}) has bits beyond the {rows * cols} cells "
                           f"of a {rows}x{cols} board")
    return states

