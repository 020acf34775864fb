"""The student's evolution strategy for misère Nim, as the report describes it (docs/sources.md
section 4): a (1 + lambda) search run anew at every move, over individuals that each hold a
row, the counts that row allows and a weight for each count.

- Population: "For each state, we start with populating the population by selecting one
  Individual for each row." Each draws its weights uniformly from [0, 1), then a count
  with probability proportional to its weight.
- Fitness, as the report lists it: -1 for an empty row; 3 in the special state (one row
  alone holds two objects or more) on that row with the right count (all of it when the
  non-empty rows are even in number, all but one when odd), 2 there with another count; 1
  for a move to nim-sum 0; 0 otherwise.
- Mutation: "The weights ... gets mutated with a gaussian with fixed values mu = 0 and
  sigma = 0.01. The mutation rate is fixed at the value of 0.5": each weight, with
  probability 0.5, moves by N(0, 0.01); one that falls to 0 or below is set to 0.1 (the
  student's code).
- Selection: "the resulting population at the end of each generation is given by:
  lambda children + parent. From here we select the individual with the best fitness to
  be the parent of the next generation"; lambda = 5, 1000 / lambda generations; the move
  played is the last parent's.

Where the report leaves a choice open, `READINGS` names the two readable ones:
- "as-written" (the default, and what the student's notebook does): after the first
  generation the population is the parent and its children only; a child keeps its
  parent's row (only weights are mutated); a tie goes to the first in order (the lower
  row among the first individuals; a child before the parent it ties with).
- "every-row": the first individuals stay in the population, one per row, and a child
  takes any non-empty row at random, mutating that row's individual; ties are drawn at
  random.
"""

from dataclasses import dataclass

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.solve import nim_sum

SIGMA, RATE, LAMBDA, BUDGET = 0.01, 0.5, 5, 1000
FLOOR = 0.1  # a weight mutated to 0 or below becomes this


@dataclass(frozen=True)
class Reading:
    keep_every_row: bool  # the first individuals stay in the population, and children take any row
    random_ties: bool


READINGS = {"as-written": Reading(False, False), "every-row": Reading(True, True)}


def fitness(state, row, count):
    """The report's five values of taking `count` from `row` (count None: an empty row)."""
    if count is None:
        return -1
    big = [r for r, heap in enumerate(state) if heap >= 2]
    if big == [row]:  # the special state, on its one row of two or more
        nonempty = sum(1 for heap in state if heap)
        right = state[row] if nonempty % 2 == 0 else state[row] - 1
        return 3 if count == right else 2
    after = state[:row] + (state[row] - count,) + state[row + 1:]
    return 1 if nim_sum(after) == 0 else 0


class StudentES:
    """The per-move search as a player `(game, state, rng) -> move` (misère Nim)."""

    def __init__(self, reading="as-written", budget=BUDGET):
        """`budget`: children searched a move (the report's 1000: lambda = 5 children in each
        of 1000 / lambda generations)."""
        if reading not in READINGS:
            raise FlipnetError(f"the student's ES reads the report as {' or '.join(READINGS)}, not {reading!r}")
        self.reading = READINGS[reading]
        self.name, self.budget = reading, budget

    def __call__(self, game, state, rng):
        first = [self._individual(state, row, rng.uniform(0.0, 1.0, heap), rng) for row, heap in enumerate(state)]
        parent = self._best(first, rng)
        for _ in range(self.budget // LAMBDA):
            children = []
            for _ in range(LAMBDA):
                source = parent
                if self.reading.keep_every_row:
                    rows = [r for r, heap in enumerate(state) if heap]
                    source = first[rows[int(rng.integers(len(rows)))]]
                children.append(self._individual(state, source[1], _mutated(source[2], rng), rng))
            pool = children + [parent] + (first if self.reading.keep_every_row else [])
            parent = self._best(pool, rng)
        return (parent[1], parent[3])

    def _individual(self, state, row, weights, rng):
        """(fitness, row, weights, count): a count drawn by the weights, and its fitness."""
        count = None
        if state[row]:
            count = 1 + int(np.searchsorted(np.cumsum(weights), rng.random() * weights.sum(), side="right"))
            count = min(count, state[row])
        return (fitness(state, row, count), row, weights, count)

    def _best(self, pool, rng):
        top = max(individual[0] for individual in pool)
        best = [individual for individual in pool if individual[0] == top]
        return best[int(rng.integers(len(best)))] if self.reading.random_ties else best[0]


def _mutated(weights, rng):
    mutate = rng.random(weights.size) < RATE
    out = weights + mutate * rng.normal(0.0, SIGMA, weights.size)
    out[out <= 0] = FLOOR
    return out
