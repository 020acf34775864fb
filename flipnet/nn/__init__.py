"""Neural networks as hand-built PyTensor graphs, in two families:

    core  <-  training  <-  paper, components  <-  evaluation        (nim: core only)

`core` holds what both share, `paper` the study's networks, `components` the models that
add up a position from its components; `training` runs either, `evaluation` measures them.

Everything here sees arrays (state integers and labels), never games. Graphs are built
in `FLOAT`: float32 unless the environment variable FLIPNET_FLOAT says float64 (Theano's
default floatX, for checking that precision does not change a result). It is read once,
at import. PyTensor's default linker (Numba) compiles the graphs.
"""

import os

import pytensor

from flipnet.base.errors import FlipnetError

FLOATS = ("float32", "float64")
FLOAT = os.environ.get("FLIPNET_FLOAT") or "float32"
if FLOAT not in FLOATS:
    raise FlipnetError(f"FLIPNET_FLOAT must be {' or '.join(FLOATS)}, got {FLOAT!r}")
pytensor.config.floatX = FLOAT  # Python float constants in graphs stay in FLOAT
