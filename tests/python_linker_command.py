"""The `flipnet` command with its PyTensor graphs compiled by the Python linker
(conftest.python_mode), a scan's inner graph too: for a test of what a command does (its
settings, files, signals, two processes) on a graph no other test compiles with Numba,
where a cold cache would pay a Numba compile of a minute for it.
`python python_linker_command.py ARGS` is `flipnet ARGS` otherwise."""

from functools import partial

import flipnet  # noqa: F401  (first: it sets OPENBLAS_NUM_THREADS before NumPy loads)
import pytensor
from conftest import python_mode

pytensor.config.mode = python_mode()
pytensor.scan = partial(pytensor.scan, mode=python_mode())

from flipnet.__main__ import run  # noqa: E402  (after the linker is chosen)

if __name__ == "__main__":
    raise SystemExit(run())
