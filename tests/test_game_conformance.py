"""Every registered game against an independent brute-force reading of its rules (in the
manner of OpenSpiel's game tests), in the small configurations its registration gives:
random playouts, and at every position reached the legal moves, the value, the winning
moves, the winner at the end and the text round trips must agree with what is computed
here from the rules alone. A game registered elsewhere, which this file has no reading
of, is checked against its own moves: the theory's values against the mex recursion.
"""

from functools import lru_cache

import numpy as np
import pytest

from flipnet import games
from flipnet.play.agents import random_agent
from flipnet.play.arena import play_match
from flipnet.solve import value_and_winning_moves
from flipnet.solve.position import value_and_components

SHIPPED = tuple(games.GAMES)  # the games registered when flipnet is imported


def cases():
    """(name, options) of every registered game's small configurations, read now."""
    return [(name, options) for name in games.GAMES for options in games.registration(name).examples]


def cells_of(game, state):
    return {(r, c) for r in range(game.rows) for c in range(game.cols) if state >> (r * game.cols + c) & 1}


def lines_of(game, state, shortest, longest):
    """Every run of `shortest` to `longest` full cells in a row or a column, as a mask."""
    full = cells_of(game, state)
    moves = set()
    for r, c in full:
        for dr, dc in ((0, 1), (1, 0)):
            line = [(r + i * dr, c + i * dc) for i in range(longest)]
            for length in range(shortest, longest + 1):
                if all(cell in full for cell in line[:length]):
                    moves.add(sum(1 << (rr * game.cols + cc) for rr, cc in line[:length]))
    return moves


def cleared(game, state, move):
    return state & ~move


def taken(game, state, move):
    i, k = move
    return state[:i] + (state[i] - k,) + state[i + 1:]


# The rules of each shipped game read here, with no help from its code: (its moves, the
# position a move leaves). A game this file has no reading of is checked against its own
# moves; which checks run is chosen by what its registration declares (`check_playouts`).
READINGS = {
    "flip": (lambda game, state: lines_of(game, state, 2, 2), cleared),
    "gridnim": (lambda game, state: lines_of(game, state, 1, game.max_take), cleared),
    "halfnim": (lambda game, n: set(range(1, n // 2 + 1)), lambda game, n, k: n - k),
    "nim": (lambda game, heaps: {(i, k) for i, h in enumerate(heaps) for k in range(1, h + 1)}, taken),
}


def test_every_shipped_game_is_read_here_independently():
    assert set(READINGS) == set(SHIPPED)
    assert all(games.registration(name).examples for name in SHIPPED)


def brute_moves(game, state):
    """The moves, by this file's reading of the rules (a game it does not read: its own)."""
    reading = READINGS.get(game.name)
    return reading[0](game, state) if reading else set(game.legal_moves(state))


def brute_play(game, state, move):
    reading = READINGS.get(game.name)
    return reading[1](game, state, move) if reading else game.play(state, move)


def brute_value_function(game):
    @lru_cache(maxsize=None)
    def value(state):
        children = {value(brute_play(game, state, m)) for m in brute_moves(game, state)}
        if game.rule == "misere":  # 1: the player to move wins (no move at all: a win)
            return int(not children or 0 in children)
        v = 0
        while v in children:
            v += 1
        return v
    return value


def starts(game, rng, count):
    """The game's start and random positions of the same size, drawn as the registration
    says a position is held: cells of the board, heaps, or one pile."""
    held_as = games.registration(game.name).held_as
    yield game.start
    for _ in range(count):
        if held_as == "cells":
            yield int(rng.integers(0, 1 << game.n_cells))
        elif held_as == "heaps":
            yield tuple(int(rng.integers(0, h + 1)) for h in game.heaps)
        elif held_as == "pile":
            yield int(rng.integers(2, 128))
        else:  # a position reached from the start by random moves
            state = game.start
            for _ in range(int(rng.integers(0, 4))):
                if game.is_over(state):
                    break
                state = game.play(state, random_agent(game, state, rng))
            yield state


def check_declarations(game, state, value):
    """The checks a registration's declarations call for: fixed masks (a move is legal where
    its cells are full, and clears them), and a value that splits (the XOR of the parts')."""
    registration = games.registration(game.name)
    if registration.moves == "masks":
        assert set(game.legal_moves(state)) == {m for m in game.move_masks if state & m == m}
        assert all(game.play(state, m) == state & ~m for m in game.legal_moves(state))
    if registration.splits and game.rule == "normal":
        total, parts = value_and_components(game, state)
        assert total == value(state)
        for part in parts or []:
            assert part.value == value(game.parse(part.position)), part


@pytest.mark.parametrize("name, options", cases(), ids=lambda x: str(x))
def test_random_playouts_agree_with_the_rules(name, options):
    check_playouts(name, options)


def check_playouts(name, options):
    game = games.make(name, **options)
    value = brute_value_function(game)
    rng = np.random.default_rng(11)
    for start in starts(game, rng, 12):
        state = start
        while True:
            legal = brute_moves(game, state)
            assert set(game.legal_moves(state)) == legal
            assert game.is_over(state) == (not legal)
            assert game.parse(game.format(state)) == state
            got_value, got_winning = value_and_winning_moves(game, state)
            assert got_value == value(state), game.format(state)
            check_declarations(game, state, value)
            assert set(got_winning) == {m for m in legal if value(brute_play(game, state, m)) == 0}
            for move in legal:
                assert game.parse_move(game.format_move(move), state) == move
                assert game.play(state, move) == brute_play(game, state, move)
            if not legal:
                break
            state = game.play(state, random_agent(game, state, rng))
        # the winner of a match between random players, against the rule: the player left
        # without a move loses in normal play and wins in misere play (0: the first player)
        winner = play_match(game, random_agent, random_agent, np.random.default_rng(5), state=start)
        stuck = _count_moves(game, start, np.random.default_rng(5)) % 2
        assert winner == (stuck if game.rule == "misere" else 1 - stuck)


def _count_moves(game, state, rng):
    """How many moves two random players make from `state` with this generator."""
    n = 0
    while not game.is_over(state):
        state = game.play(state, random_agent(game, state, rng))
        n += 1
    return n


@pytest.mark.parametrize("name", SHIPPED)
def test_illegal_moves_and_bad_text_are_refused(name):
    check_refusals(name)


def check_refusals(name):
    game = games.make(name, **games.registration(name).examples[0])
    with pytest.raises(ValueError):
        game.parse("this is not a position")
    terminal = game.start
    while not game.is_over(terminal):  # the end of a game from its start
        terminal = game.play(terminal, next(iter(brute_moves(game, terminal))))
    with pytest.raises(ValueError):
        game.play(terminal, next(iter(brute_moves(game, game.start))))
