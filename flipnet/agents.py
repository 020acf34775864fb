"""Policies: callables `(game, state, rng) -> move`, each choosing among legal moves.

`random` plays uniformly; `optimal` plays a winning move when there is one (for every
game flipnet can value: flip, grid Nim, HalfNim, Nim) and a random move otherwise; the
HalfNim `perfect` player is the C++ program's DP (the smallest winning move); `neural`
plays what a trained network says.
"""

from flipnet.analyse import nim_outcome, value_and_winning_moves
from flipnet.errors import FlipnetError
from flipnet.games import FlipGame, HalfNim, Nim
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


def lowest_agent(game, state, rng):
    """The course template's fixed rule: everything from the lowest non-empty row."""
    _require_nim(game, "lowest")
    i = next(i for i, h in enumerate(state) if h)
    return (i, state[i])


def nimsum_agent(game, state, rng):
    """Normal-play nim-sum: move to nim-sum 0 when possible (random among such moves),
    else at random. Optimal in normal play, not in misere play."""
    _require_nim(game, "nimsum")
    zero = [m for m in game.legal_moves(state) if nim_outcome(game.play(state, m)) == 0]
    return zero[int(rng.integers(len(zero)))] if zero else random_agent(game, state, rng)


def difficulty_agent(p):
    """Plays `optimal` with probability p, else a random move."""
    if not 0 <= p <= 1:
        raise FlipnetError(f"difficulty must be between 0 and 1, got {p}")

    def agent(game, state, rng):
        return optimal_agent(game, state, rng) if rng.random() < p else random_agent(game, state, rng)
    return agent


class NeuralFlip:
    """A trained flip network as a player: a move whose result it predicts to be worth 0,
    else a random move."""

    def __init__(self, model, meta=None):
        from flipnet.nn.compile import Predictor

        self.model, self.predict = model, Predictor.as_trained(model, meta or {})

    def __call__(self, game, state, rng):
        if (game.rows, game.cols) != (self.model.rows, self.model.cols):
            raise FlipnetError(f"the network reads {self.model.rows}x{self.model.cols} boards, "
                               f"not {game.shape}")
        moves = game.legal_moves(state)
        values = self.predict([game.play(state, m) for m in moves])
        zero = [m for m, v in zip(moves, values) if v == 0]
        return zero[int(rng.integers(len(zero)))] if zero else random_agent(game, state, rng)


def _require_nim(game, name):
    if not isinstance(game, Nim):
        raise FlipnetError(f"the {name} agent plays Nim only, not {game.name}")


def make_agent(spec, game, es_path=None, model_path=None, weights_path=None):
    """An agent from its name: random, optimal (or perfect), lowest, nimsum, es,
    difficulty:P, neural."""
    name, _, arg = spec.partition(":")
    simple = {"random": random_agent, "optimal": optimal_agent, "perfect": optimal_agent,
              "lowest": lowest_agent, "nimsum": nimsum_agent}
    if name in simple and not arg:
        return simple[name]
    if name == "difficulty":
        try:
            return difficulty_agent(float(arg))
        except ValueError:
            raise FlipnetError(f"write difficulty:P with P between 0 and 1, not {spec!r}") from None
    if name == "es":
        return _es_agent(game, arg or es_path)
    if name == "neural":
        return _neural_agent(game, arg or model_path or weights_path)
    raise FlipnetError(f"unknown agent {spec!r}: choose from random, optimal, lowest, nimsum, "
                       f"es, difficulty:P, neural")


def _es_agent(game, path):
    from flipnet.es import ESAgent

    _require_nim(game, "es")
    if path is None:
        raise FlipnetError("the es agent needs its trained weights: run `flipnet train-es` "
                           "and pass es:PATH (or --es PATH)")
    return ESAgent.load(path)


def _neural_agent(game, path):
    if isinstance(game, HalfNim):
        from flipnet.nimmlp import NimMLP

        from flipnet.nimmlp import default_weights_path

        mlp = NimMLP()
        mlp.read_weights(path or default_weights_path())
        return NeuralHalfNim(mlp)
    if isinstance(game, FlipGame):
        from flipnet.nn.store import load_model

        if path is None:
            raise FlipnetError("the neural flip agent needs a trained model: neural:results/conv1d.npz")
        return NeuralFlip(*load_model(path))
    raise FlipnetError(f"no neural agent for {game.name}")


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
