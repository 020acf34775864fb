"""Range checks of command-line values, each written once: a value out of range is a
one-line FlipnetError that names the flag, the limit and the value given."""

import math

from flipnet.base.errors import BadInput

MAX_SEED = 2 ** 63 - 1  # numpy's generators take any seed below 2^63 in one int64


def check_seed(seed, flag="--seed"):
    """None (the default seed) or a seed numpy takes."""
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise BadInput(f"{flag} must be from 0 to 2^63 - 1, got {seed}")
    return seed


def check_range(flag, value, low, high):
    """An integer setting from `low` to `high`."""
    if not low <= value <= high:
        raise BadInput(f"{flag} must be from {low} to {high}, got {value}")
    return value


def check_seconds(seconds, flag="--timeout"):
    """None (no limit) or a positive, finite number of seconds."""
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise BadInput(f"{flag} must be a positive number of seconds, got {seconds}")
    return seconds
