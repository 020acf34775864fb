"""The bench's child programs, each run in a process of its own (a fresh start, a peak
memory of its own) as `python -m flipnet.report.bench_child NAME ARGS`.

`flipnet [--eager] [--peak] ARGS` is the flipnet command itself, run as `python -m
flipnet` runs it (a program started, not a module of the layers above imported):
`--eager` loads PyTensor and Numba first (as every command once did), `--peak` prints the
program's peak resident memory on stderr at its exit (VmHWM: the pages of the parent's
fork are not counted). The others print one JSON line. Nothing is imported here but what the program named needs, at
its call, so that the command's start-up is timed as a user meets it.
"""

import sys


def flipnet(*argv):
    """The flipnet command line on `argv` (with the options above in front)."""
    argv = list(argv)
    if argv[:1] == ["--eager"]:
        argv.pop(0)
        import numba  # noqa: F401
        import pytensor  # noqa: F401
    if argv[:1] == ["--peak"]:
        argv.pop(0)
        import atexit

        atexit.register(_print_peak)
    sys.argv = ["flipnet", *argv]
    import runpy

    runpy.run_module("flipnet", run_name="__main__", alter_sys=True)  # as `python -m flipnet ARGS` runs


def _print_peak():
    with open("/proc/self/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    print(f"peak_kb {kb}", file=sys.stderr, flush=True)


def nothing():
    """The floor of every process: Python started (with this module) and ended."""


def numpy():
    """The floor of a command's start: a process that imports NumPy and ends."""
    import numpy  # noqa: F401


def solve_5x5():
    """The 5x5 flip table, for its peak memory."""
    from flipnet.games import FlipGame
    from flipnet.solve import table

    table(FlipGame(5, 5))


def convmem_steps():
    """Seconds of 20 convmem2d-deep training steps over live cells (`bench.convmem_step_seconds`)."""
    from flipnet.report.bench import convmem_step_seconds

    _print_json(convmem_step_seconds("live"))


def cram_random(n, density, count, limit):
    """{"median", "over_limit", "limit", "mean", "max"} of `count` random n x n positions,
    each cell full with probability `density`, each given `limit` seconds (a slower one is
    counted as slower than any answer)."""
    import time

    import numpy as np

    from flipnet.base.errors import FlipnetError
    from flipnet.solve.engine import Engine, Settings

    n, density, count, limit = int(n), float(density), int(count), float(limit)
    engine = Engine(Settings(progress=False, plain=False, table_log=26, workers=1))
    engine.load_endgame()
    solver = engine.search()
    solver.timeout = limit
    rng = np.random.default_rng(int(1000 * n + 100 * density))
    times, over = [], 0
    for _ in range(count):
        cells = {(r, c) for r in range(n) for c in range(n) if rng.random() < density}
        start = time.perf_counter()
        try:
            solver.value(cells)
            times.append(time.perf_counter() - start)
        except FlipnetError:  # no answer within the limit
            times.append(float("inf"))
            over += 1
    median, answered = float(np.median(times)), not over
    _print_json({"median": median if np.isfinite(median) else None, "over_limit": over, "limit": limit,
                 "mean": float(np.mean(times)) if answered else None,
                 "max": float(np.max(times)) if answered else None})


def start_parts(board):
    """Seconds of each part of a first answer's start, in the order a command meets them:
    NumPy, Numba and flipnet's modules imported; the search's modules imported (each
    kernel a Numba dispatcher made) and the endgame database opened; Numba's runtime
    started and the search's kernels loaded from the cache (a board of 21 cells, asked of
    the search: the plain recursion would read it from the database); and the search of
    `board` itself."""
    import time

    marks = [("start", time.perf_counter())]

    def mark(name):
        marks.append((name, time.perf_counter()))

    import numpy  # noqa: F401

    mark("numpy imported")
    import numba  # noqa: F401

    mark("numba imported")
    import os

    from flipnet import games
    from flipnet.solve.engine import Engine, Settings
    from flipnet.solve.position import value_of

    mark("flipnet's modules imported")
    engine = Engine(Settings.from_environment(os.environ).replace(progress=False))
    engine.load_endgame()
    mark("the search's modules (64 kernels declared) and the endgame database")
    engine.search().value({(r, c) for r in range(3) for c in range(7)})  # asked of the search, not the recursion
    mark("Numba's runtime started, the search's kernels loaded (3x7)")
    game = games.for_position("flip", board)
    value_of(game, game.parse(board), engine)
    mark("the search")
    _print_json({name: round(t - before, 4) for (_, before), (name, t) in zip(marks, marks[1:])})


def table_use(board, megabytes):
    """One search of the full `board` on one worker with a table of `megabytes`: the
    positions searched, the facts the table holds after it and the bytes each costs. Run
    as a file by another flipnet's Python too (`flipnet bench --only table --against`), so
    it reads either table layout: one word an entry, or the two-word entries of earlier
    flipnets (a slot held where its meta word, the second, has shape bits)."""
    import os
    import time

    import numpy as np

    from flipnet import games
    from flipnet.solve.engine import Engine, Settings
    from flipnet.solve.position import value_of

    settings = Settings.from_environment(os.environ).replace(progress=False, workers=1)
    smallest = Engine(settings).search().tt
    entry_bytes = smallest.nbytes // smallest.shape[0]
    log = ((int(megabytes) << 20) // entry_bytes).bit_length() - 1
    engine = Engine(settings.replace(table_log=log))
    engine.load_endgame()
    rows, cols = map(int, board.split("x"))
    text = "/".join(["1" * cols] * rows)
    game = games.for_position("flip", text)
    start = time.perf_counter()
    value = value_of(game, game.parse(text), engine)
    seconds = time.perf_counter() - start
    tt = engine.search().tt
    held = int(np.count_nonzero(tt[:, 0] if tt.shape[1] == 1 else tt[:, 1] & np.uint64(0xFFFF)))
    _print_json({"value": int(value), "entry_bytes": int(entry_bytes), "table_bytes": int(tt.nbytes), "held": held,
                 "positions": engine.report()["positions"], "seconds": round(seconds, 2)})


def _print_json(value):
    import json

    print(json.dumps(value))


PROGRAMS = {"flipnet": flipnet, "numpy": numpy, "solve-5x5": solve_5x5, "convmem-steps": convmem_steps,
            "cram-random": cram_random, "start-parts": start_parts, "table-use": table_use,
            "nothing": nothing}


if __name__ == "__main__":
    sys.exit(PROGRAMS[sys.argv[1]](*sys.argv[2:]))
