"""The plain DP of the original programs, kept as the yardstick for `make bench`.

States are walked in increasing order (every move clears bits, so children come first)
and each state collects its children's values in a set. One Python step per state.
"""

import numpy as np

from flipnet.solve.nim import mex


def plain_table(n, masks, rule="normal"):
    """Same values as `solve.solve_states`, computed one state at a time."""
    misere = rule == "misere"
    values = np.zeros(1 << n, dtype=np.uint8)
    for state in range(1 << n):
        seen = {values[state ^ m] for m in masks if state & m == m}
        if misere:
            values[state] = 1 if (not seen or 0 in seen) else 0
        else:
            values[state] = mex(seen)
    return values
