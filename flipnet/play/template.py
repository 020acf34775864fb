"""The Nim players of the course template the student benchmarked ("the template given
strategies": lab 2 of the computational-intelligence course, 2023-24, as its students'
copies hold it; docs/sources.md section 4), each written from a reading of its code and
named for what it does. A state is a tuple of heaps; a move is (heap, count).

- `random_row_agent` (the template's `pure_random`): a non-empty row at random, then a
  count from 1 to its size at random. Not uniform over moves: a row of 9 and a row of 1
  are chosen alike.
- `lowest_agent` (its fixed rule, `gabriele`): everything from the lowest non-empty row.
- `nonzero_nimsum_agent` (its `optimal`): a move at random among those that leave a
  non-zero nim-sum, else any move at random. Despite its name it avoids the moves to
  nim-sum 0 that normal-play strategy makes.
"""

from flipnet.solve import nim_sum


def random_row_agent(game, state, rng):
    rows = [r for r, h in enumerate(state) if h > 0]
    row = rows[int(rng.integers(len(rows)))]
    return (row, int(rng.integers(1, state[row] + 1)))


def lowest_agent(game, state, rng):
    row = next(r for r, h in enumerate(state) if h)
    return (row, state[row])


def nonzero_nimsum_agent(game, state, rng):
    moves = [(r, k) for r, h in enumerate(state) for k in range(1, h + 1)]  # the template's order
    nonzero = [m for m in moves if nim_sum(game.play(state, m)) != 0]
    pool = nonzero or moves
    return pool[int(rng.integers(len(pool)))]
