"""The search's settings that a caller may choose, with their defaults and bounds: read by
`flipnet.solve.engine.Settings` without loading the search (no Numba here)."""

from flipnet.base.errors import FlipnetError

SAMPLE_LANES = 2  # a sample's positions dealt to two lanes, one per worker on two cores
SETS_UP_TO = 1  # the largest value a question may want and still go by sets (docs/cram.md, step 5)
# log2 of a table's entries (8 bytes each): 4 MB .. 8.6 GB; fewer than 2^19 leave an entry too few bits
# for its key (entries.py)
MIN_TABLE_LOG, MAX_TABLE_LOG = 19, 30
CHECKPOINT_SECONDS = 120.0  # between two writes of a checkpoint during a search
COMPILING = "compiling the solver (once, about half a minute)"  # what a progress line says meanwhile
COMPILING_MORE = "compiling another part of the solver (once)"  # what a later one says


UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory_limit(text):
    """A memory limit written as FLIPNET_MEMORY_LIMIT is (bytes, or a number with K, M, G or
    T after it) in bytes; None for no text; a text that is not one is refused in one line."""
    text = (text or "").strip()
    if not text:
        return None
    number, unit = text.rstrip("KMGTkmgt"), text[len(text.rstrip("KMGTkmgt")):].upper()
    try:
        limit = float(number) * UNITS[unit]
    except (ValueError, KeyError):
        limit = -1.0
    if not 0 < limit < float("inf"):
        raise FlipnetError(f"FLIPNET_MEMORY_LIMIT={text!r}: give bytes, or a number with K, M, G or T (8G)")
    return int(limit)
