"""flipnet's own evolution strategy for Nim: a (1 + lambda) ES that learns a policy from
match results (`feature-es`; the student's per-move search is `student_es.py`).

The student's ES (docs/sources.md section 4) weighted the choices of each row and scored
them with hand-written rules. Here the fitness is measured play: the win rate of
matches against the course template's random player (`template.random_row_agent`). An individual is the weight vector of a linear
policy over features of the position a move leaves (the move with the highest score is
played, ties broken at random); mutation adds Gaussian noise (sigma 0.01) to each weight
with probability 0.5; lambda = 5 children per generation, 1000 / lambda generations.
Since only the ranking of scores matters, weights start at 0 (a random player) and the
small sigma is no handicap.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from flipnet.base.checks import check_range, check_seed
from flipnet.base.errors import FlipnetError
from flipnet.base.fields import Fields, is_number
from flipnet.base.files import read_json, write_json
from flipnet.base.provenance import provenance
from flipnet.solve import nim_sum

FEATURES = ("nim_sum_zero", "only_small_heaps", "odd_ones_left", "fraction_taken", "empties_heap")
SIGMA, RATE, LAMBDA, BUDGET = 0.01, 0.5, 5, 1000
MAX_GENERATIONS = 100_000  # --generations at most
# The misere strategy written in these features by hand: a move to nim-sum 0 is worth 1,
# leaving an odd number of 1-heaps (and nothing bigger) is worth 2. With them the policy
# is already perfect (`flipnet compare` measures it): the features carry the strategy,
# the evolution only has to find their signs.
HAND_SET = np.array([1.0, 0.0, 2.0, 0.0, 0.0])


def features(before, after):
    """What a move from `before` to `after` leaves behind, as numbers."""
    small = max(after, default=0) <= 1
    taken = sum(before) - sum(after)
    return np.array([nim_sum(after) == 0, small, small and sum(after) % 2 == 1,
                     taken / max(sum(before), 1), any(b > 0 and a == 0 for b, a in zip(before, after))],
                    dtype=np.float64)


@dataclass
class ESAgent:
    """The evolved Nim player: `(game, state, rng) -> move`."""
    weights: np.ndarray = field(default_factory=lambda: np.zeros(len(FEATURES)))
    history: list = field(default_factory=list)  # fitness of the parent per generation

    def __call__(self, game, state, rng):
        moves = game.legal_moves(state)
        scores = np.array([self.weights @ features(state, game.play(state, m)) for m in moves])
        best = np.flatnonzero(scores >= scores.max() - 1e-12)
        return moves[int(best[int(rng.integers(best.size))])]

    def save(self, path, meta):
        write_json(path, {"features": FEATURES, "weights": self.weights.tolist(),
                          "history": self.history, **meta})

    @classmethod
    def load(cls, path):
        fields = Fields(read_json(path, "ES agent"), path)
        weights = fields.take("weights", list)
        if len(weights) != len(FEATURES) or not all(is_number(w) and np.isfinite(w) for w in weights):
            raise fields.fail("weights", f"is not a list of {len(FEATURES)} finite numbers")
        return cls(np.array(weights, dtype=np.float64), fields.take("history", list, []))


def evolve(game, opponent, seed, matches=40, generations=BUDGET // LAMBDA, progress=None):
    """Train an ESAgent for `game` against `opponent`; fitness = win rate over `matches`."""
    from flipnet.play.arena import win_rate

    rng = np.random.default_rng(seed)
    parent = ESAgent()
    parent_fitness = win_rate(game, parent, opponent, matches, rng)
    history = []
    for _ in range(generations):
        children = []
        for _ in range(LAMBDA):
            mutate = rng.random(len(FEATURES)) < RATE
            child = ESAgent(parent.weights + mutate * rng.normal(0.0, SIGMA, len(FEATURES)))
            children.append((win_rate(game, child, opponent, matches, rng), child))
        best_fitness, best = max(children, key=lambda pair: pair[0])
        if best_fitness >= parent_fitness:  # (1 + lambda): the parent competes with its children
            parent, parent_fitness = best, best_fitness
        history.append(parent_fitness)
        if progress:
            progress(parent_fitness)
    parent.history = history
    return parent



def check_settings(seed, matches, generations):
    """The ES run's settings, before any match is played."""
    from flipnet.play.arena import check_matches

    check_range("--generations", generations, 1, MAX_GENERATIONS)
    check_matches(matches)
    check_seed(seed)


def train_to_file(game, opponent, seed, matches, generations, out, progress=None):
    """Evolve an agent against `opponent` and write it to `out` with the run's settings
    and its time; the agent."""
    start = time.perf_counter()
    agent = evolve(game, opponent, seed, matches, generations, progress)
    agent.save(out, {"game": game.format(game.start), "rule": game.rule, "seed": seed,
                     "matches": matches, "generations": generations,
                     "seconds": time.perf_counter() - start, "trained": provenance()})
    return agent
