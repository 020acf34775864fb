"""Neural networks as hand-built PyTensor graphs, in two families:

    core  <-  training  <-  paper, components  <-  evaluation        (nim: core only)

`core` holds what both share, `paper` the study's networks, `components` the models that
add up a position from its components; `training` runs either, `evaluation` measures them.

Everything here sees arrays (state integers and labels), never games. Graphs are built
in `FLOAT`: float32 unless the environment variable FLIPNET_FLOAT says float64 (Theano's
default floatX, for checking that precision does not change a result). It is read once,
at import. PyTensor's own setting (`floatX`, which types the Python numbers a graph holds)
is FLOAT only while flipnet builds a graph (`in_float`): the host program's stays its own.
PyTensor's default linker (Numba) compiles the graphs.
"""

import functools
import os

from flipnet.base.errors import FlipnetError

FLOATS = ("float32", "float64")
FLOAT = os.environ.get("FLIPNET_FLOAT") or "float32"
if FLOAT not in FLOATS:
    raise FlipnetError(f"FLIPNET_FLOAT must be {' or '.join(FLOATS)}, got {FLOAT!r}")


def in_float(build):
    """Decorate a function that builds (and compiles) graphs: inside it PyTensor's floatX is
    FLOAT, and the caller's setting comes back after."""
    @functools.wraps(build)
    def building(*args, **kwargs):
        import pytensor

        with pytensor.config.change_flags(floatX=FLOAT):
            return build(*args, **kwargs)
    return building
