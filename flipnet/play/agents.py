"""Policies: callables `(game, state, rng) -> move`, each choosing among legal moves.

`random` plays uniformly over the legal moves; `optimal` plays a winning move when there
is one (for every game flipnet can value: flip, grid Nim, HalfNim, Nim) and a random move
otherwise (for HalfNim that is the C++ program's DP: there is one winning move at most);
`neural` plays what a trained network says. The course template's Nim players are in
`template.py`, the student's evolution strategy in `student_es.py`, flipnet's own evolved
policy in `es.py`. `AGENTS` names them all, with the games each one can play.
"""

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.play.template import lowest_agent, nonzero_nimsum_agent, random_row_agent
from flipnet.solve import nim_sum, nim_winning_moves, winning_moves
from flipnet.solve.position import check_reach


def random_agent(game, state, rng):
    moves = game.legal_moves(state)
    return moves[int(rng.integers(len(moves)))]


class Optimal:
    """A winning move when there is one, else a random move: the exact values asked of
    its `engine` (`solve.engine.Engine`; None: one of its own, made at its first move), whose
    tables serve every move of its games."""

    def __init__(self, engine=None):
        self.engine = engine

    def __call__(self, game, state, rng):
        if self.engine is None:
            from flipnet.solve.engine import Engine

            self.engine = Engine()
        winning = winning_moves(game, state, self.engine)
        if winning:
            return winning[int(rng.integers(len(winning)))]
        return random_agent(game, state, rng)


optimal_agent = Optimal()  # a player with an engine of its own


def normal_nimsum_agent(game, state, rng):
    """Normal-play nim-sum: move to nim-sum 0 when possible (random among such moves),
    else at random. Optimal in normal play, not in misere play."""
    zero = nim_winning_moves(state) if nim_sum(state) else []
    return zero[int(rng.integers(len(zero)))] if zero else random_agent(game, state, rng)


def difficulty_agent(p, engine=None):
    """Plays `optimal` (asking `engine`) with probability p, else a random move."""
    if not 0 <= p <= 1:
        raise FlipnetError(f"difficulty must be between 0 and 1, got {p}")
    optimal = Optimal(engine)

    def agent(game, state, rng):
        return optimal(game, state, rng) if rng.random() < p else random_agent(game, state, rng)
    return agent


class NeuralFlip:
    """A trained flip model as a player: a move to a position it values 0 (with one ply of
    lookahead on the shapes it never met, where asked), else a random move. `loaded` says
    which file a model asked for by name is read from."""

    def __init__(self, model, lookahead=False, loaded=""):
        from flipnet.nn.evaluation.evaluate import predictor

        self.model, self.lookahead, self.loaded = model, lookahead, loaded
        self.predict = predictor(model, lookahead)

    def __call__(self, game, state, rng):
        self.read_board(game)
        moves = game.legal_moves(state)
        values = self.predict(np.array([game.play(state, m) for m in moves], np.uint64))
        zero = [m for m, v in zip(moves, values) if v == 0]
        return zero[int(rng.integers(len(zero)))] if zero else random_agent(game, state, rng)

    def read_board(self, game):
        """A size-free model reads the game's board from now on; any other cannot."""
        from flipnet.nn.evaluation.evaluate import on_board, predictor

        if (game.rows, game.cols) == (self.model.rows, self.model.cols):
            return
        if not self.model.size_free:
            raise FlipnetError(f"the network reads {self.model.rows}x{self.model.cols} boards, not {game.shape}")
        self.model = on_board(self.model, game.rows, game.cols, f"a {game.shape} game")
        self.predict = predictor(self.model, self.lookahead)


def _difficulty(arg, paths, game):
    try:
        return difficulty_agent(float(arg), paths.get("engine"))
    except ValueError:
        raise FlipnetError(f"write difficulty:P with P between 0 and 1, not {arg!r}") from None


def _feature_es(arg, paths, game):
    from flipnet.base.shipped import resolve
    from flipnet.play.es import ESAgent

    path, _ = resolve(arg or paths.get("es") or "es", suffix=".json")
    return ESAgent.load(path)


def _student_es(arg, paths, game):
    from flipnet.play.student_es import StudentES

    if not game.misere:
        raise FlipnetError("the student's ES plays misere Nim only (its fitness is the misere strategy's): add --misere")
    return StudentES(arg or "as-written")


def _neural_halfnim(arg, paths, game):
    from flipnet.nn.nim.mlp import NimMLP, default_weights_path

    mlp = NimMLP()
    mlp.read_weights(arg or paths.get("weights") or default_weights_path())
    return NeuralHalfNim(mlp)


def _neural_flip(arg, paths, game):
    """The named (or given) model; by default the first model of record, best first, that
    is trained here or ships and reads the game's board."""
    from flipnet.base.shipped import resolve
    from flipnet.nn.core.kinds import read_model

    spec = arg or paths.get("model")
    failed = None
    for name in [spec] if spec else DEFAULT_NETWORKS[game.rows == 1]:
        try:
            path, how = resolve(name)
            agent = NeuralFlip(read_model(path)[0], lookahead=paths.get("one_ply", False), loaded=how)
            agent.read_board(game)  # refuses a board the model cannot read, before play starts
            return agent
        except FlipnetError as exc:
            failed = failed or exc
    raise failed


def _simple(agent):
    def factory(arg, paths, game):
        if arg:
            raise FlipnetError(f"the agent takes no argument after ':', got {arg!r}")
        return agent
    return factory


def _optimal(arg, paths, game):
    if arg:
        raise FlipnetError(f"the agent takes no argument after ':', got {arg!r}")
    return Optimal(paths.get("engine"))


def _exact(factory):
    """A factory of an agent that needs exact values: refused at once where they are out of reach."""
    def checked(arg, paths, game):
        check_reach(game)
        return factory(arg, paths, game)
    return checked


# agent name -> {game name (None: any game): factory(argument after ':', paths, game) -> agent}
AGENTS = {
    "random": {None: _simple(random_agent)},
    "optimal": {None: _exact(_optimal)},
    "perfect": {None: _exact(_optimal)},
    "difficulty": {None: _exact(_difficulty)},
    # the course template's players (template.py)
    "random-row": {"nim": _simple(random_row_agent)},
    "lowest": {"nim": _simple(lowest_agent)},
    "nonzero-nimsum": {"nim": _simple(nonzero_nimsum_agent)},
    "normal-nimsum": {"nim": _simple(normal_nimsum_agent)},
    "student-es": {"nim": _student_es},  # the student's per-move ES; :every-row for the other reading
    "feature-es": {"nim": _feature_es},  # flipnet's evolved weights of five features (es.json)
    "neural": {"halfnim": _neural_halfnim, "flip": _neural_flip},
    "network": {"flip": _neural_flip},
}
# the network agent's models, best first, by whether the board is one row
DEFAULT_NETWORKS = {False: ("best", "convmem2d", "xormem2d", "mlp2d-fast"), True: ("xornet1d", "conv1d-fast")}


def make_agent(spec, game, es_path=None, model_path=None, weights_path=None, one_ply=False, engine=None):
    """An agent from its name (`AGENTS`): random, optimal (or perfect), difficulty:P, the
    template's random-row, lowest and nonzero-nimsum, normal-nimsum, student-es[:READING],
    feature-es[:PATH], neural[:PATH], network[:NAME] (flip: a trained model by name or
    path, by default the shipped best one for its board; `one_ply`: with its lookahead).
    `engine`: the `solve.engine.Engine` an exact player asks (None: one of its own)."""
    name, _, arg = spec.partition(":")
    if name not in AGENTS:
        raise FlipnetError(f"unknown agent {spec!r}: choose from {', '.join(AGENTS)} (difficulty:P)")
    by_game = AGENTS[name]
    factory = by_game.get(game.name) or by_game.get(None)
    if factory is None:
        raise FlipnetError(f"the {name} agent plays {', '.join(by_game)} only, not {game.name}")
    return factory(arg, {"es": es_path, "model": model_path, "weights": weights_path, "one_ply": one_ply,
                         "engine": engine}, game)


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
