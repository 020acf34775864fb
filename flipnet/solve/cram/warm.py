"""Compile the search kernels into Numba's cache, in a process of their own.

`python -m flipnet.solve.cram.warm [--endgame]` asks a fresh solver small questions (a
value, its winning moves, every move's value), with the endgame database when it is built
and `--endgame` is given, so that the compiled kernels land in the cache for those
argument types. The solver starts it, detached, when a `--timeout` ran out while the
kernels were still compiling: the compile then survives the timeout, and the next call
starts at once instead of compiling again and running out of time again. The explorer
calls `compile_kernels` in a thread of its own when it starts (`explore/server.py`).
"""

import subprocess
import sys


def compile_kernels(with_endgame):
    from flipnet.solve.cram.solver import CramSolver
    from flipnet.solve.cram.endgame import Endgame
    from flipnet.solve.cram.limits import MIN_TABLE_LOG

    endgame = Endgame.load_or_build() if with_endgame and Endgame.is_built() else None
    solver = CramSolver(endgame=endgame, tt_log=MIN_TABLE_LOG, progress=False)
    solver.winning_moves([(0, 0), (0, 1), (1, 0)])  # an L: value 1, so its moves are searched too
    solver.move_values([(0, 0), (0, 1), (1, 0), (1, 1), (2, 1)])  # every move's value: the explorer's question


def start_in_background(with_endgame):
    """Run this module in a detached process (it outlives the caller); quietly nothing
    if it cannot be started."""
    argv = [sys.executable, "-m", __name__] + (["--endgame"] if with_endgame else [])
    try:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass


if __name__ == "__main__":
    compile_kernels("--endgame" in sys.argv[1:])
