"""The original study's train/valid/test protocols, as per-state arrays.

Every state gets a bucket (0..9) and a part (0 train, 1 valid, 2 test); an experiment
uses one bucket. Both protocols are seeded: the same seed gives the same split.
"""

import numpy as np

TRAIN, VALID, TEST = 0, 1, 2
PART_NAMES = ("train", "valid", "test")
N_BUCKETS = 10
SEED = 2016


def stratified(values, seed=SEED, n_buckets=N_BUCKETS):
    """The 1D protocol: each nim-value class is shuffled and dealt round-robin over the
    buckets; inside a bucket, per class, the first 1/6 (rounded down) is test, 1/11 of
    the rest (rounded down) is validation and the remainder is training."""
    rng = np.random.default_rng(seed)
    bucket = np.empty(values.size, dtype=np.uint8)
    part = np.empty(values.size, dtype=np.uint8)
    for v in np.unique(values):
        members = rng.permutation(np.flatnonzero(values == v))
        rank = np.arange(members.size)
        bucket[members] = rank % n_buckets
        in_bucket = rank // n_buckets  # order of the member inside its bucket
        size = np.bincount(rank % n_buckets, minlength=n_buckets)[rank % n_buckets]
        n_test = size // 6
        n_valid = (size - n_test) // 11
        part[members] = np.where(in_bucket < n_test, TEST,
                                 np.where(in_bucket < n_test + n_valid, VALID, TRAIN))
    return bucket, part


def uniform(n_states, seed=SEED, n_buckets=N_BUCKETS, probs=(0.7, 0.1, 0.2)):
    """The 2D protocol: a uniformly random bucket per state, then train/valid/test with
    probabilities 0.7/0.1/0.2, drawn independently per state."""
    rng = np.random.default_rng(seed)
    bucket = rng.integers(0, n_buckets, size=n_states, dtype=np.uint8)
    u = rng.random(n_states, dtype=np.float32)
    part = (u >= probs[0]).view(np.uint8) + (u >= probs[0] + probs[1]).view(np.uint8)  # 0, 1 or 2
    return bucket, part


# (game name, rows, cols) -> the protocol the original study used for that table
PROTOCOLS = {
    ("flip", 1, 20): ("stratified", "nim-value classes dealt evenly over 10 buckets; per class "
                      "in a bucket: test 1/6, valid 1/11 of the rest, train the remainder; "
                      "the study used bucket 0"),
    ("flip", 5, 5): ("uniform", "uniformly random bucket of 10 per state; inside a bucket "
                     "train/valid/test with probability 0.7/0.1/0.2; the study used bucket 1"),
}


def original_split(game, values, seed=SEED):
    """(bucket, part, attributes) of the original protocol for this table, or None."""
    key = (game.name, game.rows, game.cols)
    if key not in PROTOCOLS:
        return None
    protocol, description = PROTOCOLS[key]
    if protocol == "stratified":
        bucket, part = stratified(values, seed)
    else:
        bucket, part = uniform(values.size, seed)
    attrs = {"protocol": protocol, "description": description, "seed": seed,
             "n_buckets": N_BUCKETS, "part_names": ",".join(PART_NAMES)}
    return bucket, part, attrs
