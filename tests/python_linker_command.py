"""The `flipnet` command with its PyTensor graphs compiled by the Python linker
(conftest.python_mode), a scan's inner graph too: for a test of what a command does (its
settings, the files it loads) on a graph no other test compiles with Numba, where a cold
cache would pay a Numba compile of a minute for it.
`python python_linker_command.py ARGS` is `flipnet ARGS` otherwise."""

from flipnet.base.process import set_up_command

set_up_command()  # first, as the command's start does: before NumPy loads
from conftest import use_python_linker  # noqa: E402

use_python_linker()

from flipnet.__main__ import run  # noqa: E402  (after the linker is chosen)

if __name__ == "__main__":
    raise SystemExit(run())
