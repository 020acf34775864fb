"""Exact values of positions: `value` for one (with its moves and components), `values`
for many at once, each asked of an `Engine` (`engine=`), else of the process's default
one: its settings read from the environment (FLIPNET_ENDGAME, FLIPNET_MIRROR, ...) when it
is first used, its tables shared by every question that names no engine."""

import contextlib
import os

import numpy as np

from flipnet import games
from flipnet.api import arguments
from flipnet.api.arguments import on_a_board
from flipnet.base.cores import MAX_SEARCH_WORKERS, usable_cores
from flipnet.base.errors import BadInput, BadType, brief
from flipnet.solve.engine import Engine, Settings
from flipnet.solve.parts import WORD_CELLS
from flipnet.solve.position import Component, Move, MoveValue, Result, analyse, searched, value_of

__all__ = ["Component", "Engine", "EngineSettings", "Move", "MoveValue", "Result", "default_engine", "value", "values"]

EngineSettings = Settings  # the public name of an engine's settings

_DEFAULT = []  # the default engine, made at its first use


def default_engine() -> Engine:
    """The engine that `value` and `values` ask when given none: one per process, its
    settings from the environment (`Settings.from_environment`) at its first use.

    >>> import flipnet
    >>> flipnet.default_engine().settings.mirror
    True
    """
    if not _DEFAULT:
        _DEFAULT.append(Engine(Settings.from_environment(os.environ)))
    return _DEFAULT[0]


def value(position, game: str = "flip", *, misere: bool | None = None, timeout: float | None = None,
          moves: bool | str = True, workers: int | None = None, max_take: int | None = None,
          engine: Engine | None = None) -> Result:
    """The exact value of one position, who wins, and how.

    `position`: flipnet's text ("1101/0111": rows of cells, 1 full; Nim "1,3,5"; HalfNim
    "9"), or for a board game a 2D array of 0/1, for Nim a list of heap sizes.
    `misere`: None plays the game's own rule (grid Nim misère, the others normal play).
    `timeout`: seconds for the whole question (a large flip board is searched), else
    `TimeoutError`. `moves`: True gives the winning moves, "all" every legal move with
    the value of the position it leaves (best first), False none (one search less).
    `workers`: threads searching a flip board together (default, and at most: the cores
    the process may use, `base/cores.py`; the same answer with any number).
    `max_take`: grid Nim's most stones a move takes (3). A flip position whose components
    have at most 20 cells, or fit a box of the endgame database the cache holds (a full
    4x7 or 5x5; 5x6 with the 30-cell set), is valued by a plain recursion, at once; a
    larger one by the compiled search, which a new install compiles the first time
    (about 40 s, once).
    `engine`: the `Engine` that answers (its settings and tables; default: `default_engine()`).

    The result holds `value` (the nim-value; in misère play 1 for a win of the player to
    move, 0 for a loss), `winner` ("first" or "second"), `winning_moves` (each a move and the
    position it leaves), `moves`, and for flip in normal play `components`: the connected
    parts, whose values XOR to the value.

    >>> import flipnet
    >>> r = flipnet.value("1111/1111/1111")   # the full 3x4 board
    >>> r.value, r.winner, len(r.winning_moves)
    (1, 'first', 7)
    >>> r.winning_moves[0]
    Move(move='0,1+0,2', position='1001/1111/1111')
    >>> [(c.position, c.value) for c in flipnet.value("11000/00011").components]
    [('11000/00000', 1), ('00000/00011', 1)]
    >>> flipnet.value([1, 3, 5], "nim").winning_moves
    [Move(move='3@3', position='1,3,2')]

    Two engines with their own settings, in one process, each with its own tables:

    >>> plain = flipnet.Engine(flipnet.EngineSettings(workers=1, mirror=False))
    >>> flipnet.value("11/11", engine=plain).value
    0
    """
    game, misere = arguments.game_name(game), arguments.misere_rule(misere)
    timeout, moves = arguments.seconds(timeout), arguments.moves_wanted(moves)
    workers = arguments.whole("workers", workers, 1, MAX_SEARCH_WORKERS)
    max_take = arguments.whole("max_take", max_take, 1)
    text = _text(position, game)
    board = _game(game, text, misere, max_take)
    state = board.parse(text)
    engine = _asked(engine, board, workers)
    with _limited(engine, board, timeout):
        return analyse(board, state, moves=moves, engine=engine)


def values(positions, game: str = "flip", *, misere: bool | None = None, shape: tuple[int, int] | None = None,
           timeout: float | None = None, engine: Engine | None = None) -> np.ndarray:
    """The exact values of many positions, as an int64 array (misère play: 1 win, 0 loss).

    `positions`: a sequence of texts (boards may differ in size), or for a board game an
    integer array of bit boards (bit r*cols + c is cell (r, c)) with its `shape`, or an
    array (N, rows, cols) of 0/1 such as `Dataset.boards()`; for Nim an (N, heaps) array.
    Flip boards of one shape are searched in one call of the solver, as its own loop does.
    `engine`: as `value`'s.

    >>> import numpy as np, flipnet
    >>> flipnet.values(["1111/1111/1111", "11/11"]).tolist()
    [1, 0]
    >>> flipnet.values(np.array([0b1111, 0b0111], np.uint64), shape=(2, 2)).tolist()
    [0, 1]
    """
    game, misere = arguments.game_name(game), arguments.misere_rule(misere)
    timeout, shape = arguments.seconds(timeout), arguments.shape_of(shape)
    engine = _asked(engine)
    groups = _grouped(positions, game, misere, shape)
    out = np.zeros(sum(len(index) for index, _, _ in groups), np.int64)
    for index, board, states in groups:
        with _limited(engine, board, timeout):
            out[index] = _values_of(engine, board, states)
    return out


# At most this many positions of a board are first tried one by one by the plain recursion
# (`solve/small.py`), which needs no compile; more go to the search's batch loop at once
FEW_POSITIONS = 256


def _values_of(engine, board, states):
    if searched(board) and board.n_cells <= WORD_CELLS:
        if len(states) <= FEW_POSITIONS:
            found = engine.by_recursion(lambda plain: [plain.value(board.cells(int(state))) for state in states])
            if found is not None:
                return found
        return engine.values_of_states(states, board.rows, board.cols)
    # bit boards as Python ints: the games' rules shift them past 64 bits
    return [value_of(board, int(state) if isinstance(state, np.integer) else state, engine) for state in states]


def _grouped(positions, game, misere, shape, fixed=None):
    """[(indices into the input, game, states)], one group per board shape (or per game);
    with `fixed` (a game), texts are read as positions of its board, whatever their size."""
    if isinstance(positions, (str, bytes)):
        raise BadType("values() takes many positions: a list of texts or an array (value() takes one)")
    if not isinstance(positions, np.ndarray) and not hasattr(positions, "__len__"):
        raise BadType(f"positions is a list of texts or an array, not {type(positions).__name__}")
    array = positions if isinstance(positions, np.ndarray) else None
    if array is not None and on_a_board(game) and array.ndim == 1 and array.dtype.kind in "iuf":
        if shape is None:
            raise BadInput("an array of bit boards needs its shape=(rows, cols)")
        states = arguments.bit_boards(array, *shape)
        return [(np.arange(len(array)), games.make(game, shape=shape, misere=misere), states)]
    if array is not None and on_a_board(game) and array.ndim == 3:
        rows, cols = array.shape[1:]
        if not rows or not cols:
            raise BadInput(f"positions of {rows}x{cols} cells: a board has at least one cell")
        arguments.fits_a_word(rows, cols)
        if not len(array):
            return []
        cells = arguments.cell_array(array.reshape(len(array), -1), game, "positions").astype(bool)
        weights = np.left_shift(np.uint64(1), np.arange(rows * cols, dtype=np.uint64))
        states = (cells * weights).sum(axis=1, dtype=np.uint64)
        return [(np.arange(len(array)), games.make(game, shape=(rows, cols), misere=misere), states)]
    if array is not None and on_a_board(game) and not (array.ndim == 1 and array.dtype.kind in "UO"):
        raise BadInput(f"positions as an array: bit boards (N,) with shape=, cells (N, rows, cols) or texts, "
                       f"not {array.ndim} dimensions of {array.dtype}")
    items = array.tolist() if array is not None else positions
    texts = [_text(p, game, f"position {i}") for i, p in enumerate(items)]
    if fixed is not None:
        return [(np.arange(len(texts)), fixed, [fixed.parse(text) for text in texts])]
    groups, boards = {}, {}
    for i, text in enumerate(texts):
        # a game per board, made once (Nim's game is made for its position's heaps)
        shape = (text.count("/") + 1, text.find("/") if "/" in text else len(text)) if on_a_board(game) else text
        if shape not in boards:
            boards[shape] = _game(game, text, misere)
        board = boards[shape]
        index, states = groups.setdefault(board, ([], []))
        index.append(i)
        states.append(board.parse(text))
    return [(np.array(index), board, states) for board, (index, states) in groups.items()]


def _text(position, game, what="position"):
    """A position as flipnet's text: as given, or as the game's registration says a
    program may hold one (rows of 0/1 cells, heap sizes, a pile), each checked."""
    if isinstance(position, str):
        return position
    registered = games.registration(game)
    held_as = registered.held_as
    if held_as == "pile" and arguments.is_whole(position):
        return str(arguments.whole(what, position, 1, optional=False))
    if held_as == "cells" and not isinstance(position, (bytes, dict, set)) and np.ndim(position) >= 1:
        cells = arguments.cell_array(position, game, what)
        return "/".join("".join("1" if cell else "0" for cell in row) for row in cells.tolist())
    if held_as == "heaps" and isinstance(position, (list, tuple, np.ndarray)):
        return ",".join(str(h) for h in arguments.heap_list(position, what))
    example = {"cells": "'1101/0111' or a 2D array of 0/1"}.get(held_as, repr(registered.start))
    raise BadType(f"cannot read {brief(position)} as a {game} {what}: give its text, e.g. {example}")


def _game(game, text, misere, max_take=None):
    return games.for_position(game, text, misere=misere, max_take=max_take)


def _asked(engine, board=None, workers=None):
    """The engine a question asks (`default_engine()` unless given), with its threads for
    this question where the board is searched (`workers`; None: the engine's settings, else
    the cores the process may use)."""
    if engine is None:
        engine = default_engine()
    elif not isinstance(engine, Engine):
        raise BadType(f"engine is a flipnet.Engine, not {type(engine).__name__}")
    if board is not None and searched(board):
        engine.use_workers(workers or engine.settings.workers or usable_cores())
    return engine


def _limited(engine, board, timeout):
    """The time limit of a question: `TimedOut` (a TimeoutError) past it. Only a search
    takes time: the other games' positions, and lines, are answered at once."""
    return engine.time_limit(timeout) if searched(board) else contextlib.nullcontext()

