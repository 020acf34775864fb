"""Shapes the training labels leave open, drawn from random boards and valued by a
model's own one ply of lookahead: targets a network can learn from the rules of the game.

A trained convmem2d values a new shape far better with one ply of lookahead (the mex, over
its moves, of the XOR of its own values of the parts each move leaves: `nn/components/oneply.py`)
than alone: 3.4% against 20.4% wrong on 5x5 test positions with a new shape. So the
next network can be taught those 1-ply values: draw random boards from a seeded
generator, keep the shapes of their components that are not in the table, and label each
with the starting model's 1-ply mex. This is the rules of the game used at training
time, as a self-play learner does (docs/findings.md); no solver, no validation or test
position and no label beyond the training ones is read. The drawn shapes are kept in the
model file, so that errors can be split into new shapes drawn and not drawn.
"""

import numpy as np

from flipnet.base import signals
from flipnet.base.errors import Interrupted
from flipnet.base.progress import bar
from flipnet.datasets.components import Components
from flipnet.nn.components.oneply import CHUNK, one_ply_chunks


def draw_shapes(rows, cols, n_boards, seed, known_keys):
    """Sorted keys of the live components of `n_boards` uniform random rows x cols boards
    (generator seeded by [seed, 2]) that are not in `known_keys`."""
    boards = np.random.default_rng([seed, 2]).integers(0, 1 << (rows * cols), size=n_boards, dtype=np.uint64)
    keys = np.unique(Components(rows, cols).shapes(boards))
    return keys[(keys != 0) & ~np.isin(keys, known_keys)]


def one_ply_labels(model, keys, desc="1-ply labels", workers=1):
    """Each key's value by `model`'s 1-ply soft mex (its table and network for the parts),
    with a progress bar; Ctrl-C stops between chunks, or after the last. With `workers`,
    the chunks are shared with forked processes (`base/forked.py`): the same labels."""
    if workers > 1:
        model.compile()  # once, before the forks

    with bar(len(keys), desc, unit="shape") as progress, signals.deferred():
        def done(_, labels):
            progress.update(len(labels))
            _stop_if_asked()

        _stop_if_asked()
        labels = one_ply_chunks(model.probabilities, keys, CHUNK, workers, done)
        _stop_if_asked()  # a Ctrl-C in the last chunk too: the block's end would forget it
    return labels


def _stop_if_asked():
    if signals.requested():
        raise Interrupted("interrupted while labelling the drawn shapes; nothing was saved")
