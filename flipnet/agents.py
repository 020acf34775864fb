"""Policies: callables `(game, state, rng) -> move`, each choosing among legal moves.

`random` plays uniformly; `optimal` plays a winning move when there is one (for every
game flipnet can value: flip, grid Nim, HalfNim, Nim) and a random move otherwise; the
HalfNim `perfect` player is the C++ program's DP (the smallest winning move); `neural`
plays what a trained network says.
"""

from flipnet.analyse import value_and_winning_moves
from flipnet.games import HalfNim
from flipnet.solve import halfnim_best_move


def random_agent(game, state, rng):
    moves = game.legal_moves(state)
    return moves[int(rng.integers(len(moves)))]


def optimal_agent(game, state, rng):
    if isinstance(game, HalfNim):
        return halfnim_best_move(state, rng)
    _, winning = value_and_winning_moves(game, state)
    if winning:
        return winning[int(rng.integers(len(winning)))]
    return random_agent(game, state, rng)


class NeuralHalfNim:
    """The NIM perceptron as a player. An illegal decoded move (more than n // 2) is
    replaced by a random legal one, and `last_note` says so."""

    def __init__(self, mlp):
        self.mlp = mlp
        self.last_note = ""

    def __call__(self, game, state, rng):
        k = self.mlp.move(state)
        self.last_note = ""
        if k in game.legal_moves(state):
            return k
        fallback = random_agent(game, state, rng)
        self.last_note = f"the network said {k}, which is not legal here; it plays {fallback}"
        return fallback
