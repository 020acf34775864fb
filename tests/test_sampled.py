"""A sampled dataset's build stopped by a real Ctrl-C goes on from the densities it had
valued: only the rest are solved again, and the file is the one an unbroken build writes.
One worker and two write the same file, byte for byte, and so does a solver that was asked
other questions before. The registered samples take minutes a density, so these run
`make_sample` on a small 6x6 protocol in a child process (`flipnet data` calls the same
function). Their solvers take a table of 2^16 entries: a lane's table starts empty and
is the same size with one worker or two, whatever its size, and on these small samples
the default's 1 GB a lane, zeroed page by page as it is touched, costs more than the
search (test_bench.py values a sample with the default)."""

import json
import subprocess
import sys

import numpy as np
import pytest
from cli_cases import environment

from flipnet.base.errors import Interrupted
from flipnet.datasets import sampled
from flipnet.datasets.sampled import SampledDataset, make_sample, partial_path, read, resuming_note
from flipnet.solve.cram import CramSolver
from flipnet.solve.engine import value_lane

SPEC = SampledDataset("tiny6x6", 6, 6, (0.4, 0.6), 250, "a small protocol for tests")
TABLE_LOG = 19  # the smallest table


def small_solver(workers=1):
    return CramSolver(progress=False, workers=workers, tt_log=TABLE_LOG)


CHILD = """
import json, os, signal, sys
from flipnet.base import signals
from flipnet.base.errors import Interrupted
from flipnet.datasets.sampled import SampledDataset, make_sample
from flipnet.solve.cram import CramSolver

spec = SampledDataset("tiny6x6", 6, 6, (0.4, 0.6), 250, "a small protocol for tests")
stop_at, solved, sent = float(sys.argv[2]), [], []
inner = CramSolver(progress=False, workers=int(sys.argv[3]), tt_log=int(sys.argv[4]))

class Solver:  # the real solver: records the draws it values; one Ctrl-C at the first news of stop_at's
    def values_of_sample(self, states, rows, cols, budget, tell):
        solved.append(len(states))
        def told(done):
            if stop_at in spec.densities and len(solved) == spec.densities.index(stop_at) + 1 and not sent:
                sent.append(os.kill(os.getpid(), signal.SIGINT))
            tell(done)
        return inner.values_of_sample(states, rows, cols, budget, told)

signals.install()
try:
    make_sample(spec, sys.argv[1], Solver())
except Interrupted as exc:
    print(exc, file=sys.stderr)
    sys.exit(130)
print(json.dumps(solved))
"""


def child(path, stop_at=0.0, workers=1):
    return subprocess.run([sys.executable, "-c", CHILD, str(path), str(stop_at), str(workers), str(TABLE_LOG)],
                          capture_output=True, text=True, timeout=300, env=environment())


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_keeps_the_densities_valued_and_the_build_goes_on_from_there(tmp_path, workers):
    path = tmp_path / "tiny6x6.h5"
    stopped = child(path, stop_at=0.6, workers=workers)
    assert stopped.returncode == 130, stopped.stderr
    assert stopped.stderr.strip().splitlines()[-1].endswith(
        f"at density 0.6; density 0.4 valued and kept in {partial_path(path)}: the same command "
        "goes on from there")
    assert not path.exists() and partial_path(path).exists()
    assert resuming_note(SPEC, path) == (f"going on with {path}: density 0.4 valued before "
                                         f"({partial_path(path)})")
    assert resuming_note(SPEC, path, seed=1) is None  # another protocol's densities are not reused

    went_on = child(path, workers=3 - workers)  # gone on with the other number of workers
    assert went_on.returncode == 0, went_on.stderr
    assert len(json.loads(went_on.stdout)) == 1  # only density 0.6 was solved again
    assert not partial_path(path).exists()

    unbroken = tmp_path / "unbroken.h5"
    make_sample(SPEC, unbroken, small_solver())
    assert path.read_bytes() == unbroken.read_bytes()


@pytest.mark.slow
def test_one_worker_and_two_value_a_sample_alike_whatever_was_asked_before(tmp_path):
    """Every position valued as a fresh solver values it alone, the positions over a small
    budget the same ones with one worker and two, and the same after other questions."""
    rng = np.random.default_rng(5)
    states = np.unique((rng.random((300, 36)) < 0.6) @ (np.uint64(1) << np.arange(36, dtype=np.uint64)))
    budget = 40
    found = {}
    for workers in (1, 2, 1):
        valuer = small_solver(workers)
        if len(found) == 2:  # a solver that has answered other questions: its table is not used
            valuer.values_of_states(states[::-1], 6, 6)
        found[len(found)] = valuer.values_of_sample(states, 6, 6, budget)
    assert np.array_equal(found[0], found[1]) and np.array_equal(found[0], found[2])
    over = found[0] < 0
    assert 0 < over.sum() < over.size / 2  # the budget drops some, not most
    exact = small_solver().values_of_states(states, 6, 6)
    assert np.array_equal(found[0][~over], exact[~over])
    assert (exact[over] >= 0).all()


@pytest.mark.slow
def test_the_file_is_the_same_with_one_worker_and_two(tmp_path):
    files = []
    for workers in (1, 2):
        valuer = small_solver(workers)
        files.append(tmp_path / f"workers{workers}.h5")
        make_sample(SPEC, files[-1], valuer)
    assert files[0].read_bytes() == files[1].read_bytes()
    assert read(files[0]).values.size > 400


@pytest.mark.slow
def test_a_partial_file_unreadable_or_not_of_this_draw_is_not_used(tmp_path):
    path = tmp_path / "tiny6x6.h5"
    partial_path(path).write_bytes(b"not a zip file")
    assert sampled.valued_before(SPEC, path) == {}
    make_sample(SPEC, path, small_solver())  # replaced as it goes, removed at the end
    assert not partial_path(path).exists()
    whole = read(path)
    # values kept for a draw of another length (a file edited, or lost in part) are valued again
    sampled._keep_partial(SPEC, path, {0.4: (np.zeros(3, np.int64), 0, 1.0)})
    make_sample(SPEC, path, small_solver())
    assert np.array_equal(read(path).values, whole.values)


@pytest.mark.slow
def test_a_lane_valued_as_a_task_gives_what_the_solver_gives_over_a_budget():
    """A task values a lane as the solver does (an empty table of the solver's size, its
    rules): the same values and the same positions over the budget."""
    rng = np.random.default_rng(5)
    states = np.unique((rng.random((300, 36)) < 0.6) @ (np.uint64(1) << np.arange(36, dtype=np.uint64)))
    solver = small_solver(2)
    here = solver.values_of_sample(states, 6, 6, 40)
    lanes = [value_lane(states[lane::2], 6, 6, 40, solver.lane_settings())[0] for lane in (0, 1)]
    assert np.array_equal(here[0::2], lanes[0]) and np.array_equal(here[1::2], lanes[1])
    assert (here < 0).any()


class StopsAtTheSecondDensity:
    """A solver that values the first density and is interrupted at the second."""

    def __init__(self, solver):
        self.solver, self.asked = solver, 0

    def values_of_sample(self, *args):
        self.asked += 1
        if self.asked == 2:
            raise Interrupted("interrupted")
        return self.solver.values_of_sample(*args)


@pytest.mark.slow
def test_a_sample_valued_on_a_dask_cluster_is_the_same_file_and_goes_on_from_a_partial(tmp_path):
    distributed = pytest.importorskip("distributed")
    here = tmp_path / "here.h5"
    make_sample(SPEC, here, small_solver())
    kept = tmp_path / "kept.h5"
    with pytest.raises(Interrupted):
        make_sample(SPEC, kept, StopsAtTheSecondDensity(small_solver()))
    assert list(sampled.valued_before(SPEC, kept)) == [0.4]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        there = tmp_path / "there.h5"
        make_sample(SPEC, there, small_solver(), scheduler=cluster.scheduler_address)
        assert there.read_bytes() == here.read_bytes()
        told = []  # the kept density is told at once, then the other one's two lanes as they come
        make_sample(SPEC, kept, small_solver(), progress=told.append, scheduler=cluster.scheduler_address)
    assert kept.read_bytes() == here.read_bytes() and not partial_path(kept).exists()
    drawn = [sampled.draw(SPEC, d, rng) for rng in [np.random.default_rng(SPEC.seed)] for d in SPEC.densities]
    assert told == [drawn[0].size, drawn[1][0::2].size, drawn[1][1::2].size] or \
        told == [drawn[0].size, drawn[1][1::2].size, drawn[1][0::2].size]
