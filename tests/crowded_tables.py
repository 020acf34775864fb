"""Tables already holding facts about large components, and keys that share a bucket:
the one-word table has at least 2^19 entries, so a test that wants entries replaced
while a search runs leaves each bucket a slot or two, as a long search's table would."""

import numpy as np

from flipnet.base.kernels import njit
from flipnet.solve.cram import entries

LARGE = 8 << 7 | 8  # the shape word of an 8x8 box: keys of about 32 cells, more than a test's components


@njit(cache=True)
def _fill(tt, log, free, stats):
    rest = np.uint64(64 + entries.BUCKET_LOG - log)
    for bucket in range(tt.shape[0] >> entries.BUCKET_LOG):
        for j in range((1 << entries.BUCKET_LOG) - free):
            z = (np.uint64(bucket) << rest) | np.uint64(j + 1)  # the key's mix names this bucket
            entries.tt_store(tt, log, entries._unmix(z, LARGE), LARGE, 0, stats)


def crowd(solver, free=1):
    """Fill every bucket of the solver's table but `free` slots with facts about 8x8 keys."""
    _fill(solver.tt, solver.tt_log, free, np.zeros(8, np.int64))


@njit(cache=True)
def _lines(keys, shape, log, out):
    for k in range(keys.size):
        out[k] = entries.tt_line(keys[k], shape, log)


def keys_of_one_bucket(shape, log, count, bucket=0):
    """`count` keys of the shape's box, of as many different numbers of cells, that a table
    of 2^log entries keeps in one bucket (made by inverting the mix; `lines` checks them)."""
    rest = 64 + entries.BUCKET_LOG - log
    by_cells = {}
    for r in range(1, 1 << 16):
        key = int(entries._unmix(np.uint64(bucket << rest | r), shape))
        by_cells.setdefault(bin(key).count("1"), key)
        if len(by_cells) == count:
            return np.array(list(by_cells.values()), np.uint64)
    raise AssertionError("too few numbers of cells")


def lines(keys, shape, log):
    """The first slot of each key's bucket."""
    out = np.zeros(keys.size, np.int64)
    _lines(keys, shape, log, out)
    return out
