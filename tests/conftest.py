import os
from functools import lru_cache, partial
from pathlib import Path

import pytest

os.environ["FLIPNET_PROGRESS"] = "0"
# Numba's LLVM at -O1, for the suite and the commands it runs: a cold compile of convmem2d's
# training graph takes 80 s against 106 s at the default -O3, and every pinned digest is the same.
# Their compiled kernels go to a cache of their own: Numba's cache key does not hold the
# optimisation level, so kernels cached beside the sources would serve -O1 code to the
# checkout's own commands (`make bench` among them) after a `make test`.
if "NUMBA_OPT" not in os.environ:
    os.environ["NUMBA_OPT"] = "1"
    os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).resolve().parent.parent / ".numba-tests"))
# The Cram solver's endgame database is not loaded by a command's solver, nor built in the
# user's cache (226 MB) by a test: the tests that need one build a small one where they say.
os.environ["FLIPNET_ENDGAME"] = "off"


def mex(values):
    values = set(values)
    v = 0
    while v in values:
        v += 1
    return v


def recursive_values(game):
    """An independent solver: plain recursion with a memo, one state at a time.

    Normal play: the Grundy value. Misere: 1 if the player to move wins (a position with
    no move is a win) else 0.
    """

    @lru_cache(maxsize=None)
    def value(state):
        children = [value(state & ~m) for m in game.move_masks if state & m == m]
        if game.rule == "misere":
            return int(not children or 0 in children)
        return mex(children)

    return [value(s) for s in range(1 << game.n_cells)]


@pytest.fixture(scope="session")
def table_5x5():
    from flipnet.games import FlipGame
    from flipnet.solve import table

    return table(FlipGame(5, 5))


def python_mode():
    """PyTensor's Python linker, graphs only merged (equal subgraphs computed once) and
    given the rewrites the linker requires: seconds instead of a cold Numba compile per
    graph, and no second of rewriting a deep network's graph ("fast_compile" spent 1.6 s on
    each of the gated networks' graphs). Sums and products stay binary, as written: the
    linker cannot run an Add of more than 32 terms (a deep network's gradient norm) and
    runs a Mul of three in Python, one element at a time."""
    from pytensor.compile.mode import Mode

    return Mode(linker="py", optimizer="merge")


def use_python_linker(set_attribute=setattr):
    """Compile PyTensor graphs with the Python linker (`python_mode`), a scan's inner graph
    too: left to itself, Scan compiles its inner graph with the C linker, which a cold
    cache pays for in minutes of g++. The Numba path has its own tests. `set_attribute`:
    a test's `monkeypatch.setattr` (undone after it), or `setattr` for the rest of a
    process (a command's, started for a test)."""
    import pytensor

    mode = python_mode()
    set_attribute(pytensor.config, "mode", mode)
    set_attribute(pytensor, "scan", partial(pytensor.scan, mode=mode))


@pytest.fixture
def py_mode(monkeypatch):
    use_python_linker(monkeypatch.setattr)


@pytest.fixture(scope="module")
def python_linker_module():
    """`py_mode` for a whole module (its fixtures too): a module that loads the shipped
    models and predicts with them, where a cold Numba compile of each model's graph would
    cost more than the test."""
    with pytest.MonkeyPatch.context() as patch:
        use_python_linker(patch.setattr)
        yield


def numeric_grad(f, arrays, eps=1e-6):
    """Central finite differences of the scalar f(*arrays) with respect to every array."""
    import numpy as np

    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            up = f(*arrays)
            a[i] = old - eps
            down = f(*arrays)
            a[i] = old
            g[i] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def write_tiny_dataset(path, cols=8, seed=0, rows=1):
    """A rows x cols flip table with a stratified split into a single bucket."""
    from flipnet.datasets.hdf5 import write_table
    from flipnet.datasets.splits import stratified
    from flipnet.games import FlipGame
    from flipnet.solve import table

    game = FlipGame(rows, cols)
    values = table(game)
    bucket, part = stratified(values, seed=seed, n_buckets=1)
    write_table(path, game, values, (bucket, part, {"protocol": "stratified", "seed": seed,
                                                    "n_buckets": 1, "description": "test"}))
    return values


def interrupt_epochs_at(monkeypatch, call):
    """Make the trainer's epoch function raise KeyboardInterrupt on its `call`-th call."""
    from flipnet.nn.core import compile as nn_compile

    real = nn_compile.epoch_function

    def interrupting(model, optimizer):
        fn, calls = real(model, optimizer), []

        def epoch(*args):
            calls.append(1)
            if len(calls) == call:
                raise KeyboardInterrupt
            return fn(*args)
        return epoch

    monkeypatch.setattr("flipnet.nn.paper.train.epoch_function", interrupting)
    return real


# The files that take longest on a cold Numba cache (their compiles included), handed out
# first (`make test` keeps this order with --no-loadscope-reorder), so that the two
# processes end at about the same time. The wide kernels' file (a minute of compiling)
# follows the bad-input corpus, whose servers compile the one-word kernels it builds on.
LONGEST_FIRST = ("test_convmem.py", "test_bad_input.py", "test_cram_wide.py", "test_wheel.py", "test_train.py",
                 "test_recipe_pins_convmem.py", "test_parallel.py", "test_shipped.py", "test_interrupts.py", "test_sweep.py",
                 "test_pieces.py", "test_recipe_pins_paper.py", "test_all_bits.py", "test_xornet.py", "test_sampled.py",
                 "test_recipe_pins_best.py", "test_heap.py", "test_cram.py", "test_explore_browser.py", "test_api.py")


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: order kept within
