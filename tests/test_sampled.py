"""A sampled dataset's build stopped by a real Ctrl-C goes on from the densities it had
valued: only the rest are solved again, and the file is the one an unbroken build writes.
The registered samples take minutes a density, so these run `make_sample` on a small
6x6 protocol in a child process (`flipnet data` calls the same function)."""

import json
import subprocess
import sys

import numpy as np
import pytest
from cli_cases import environment

from flipnet.datasets import sampled
from flipnet.datasets.sampled import SampledDataset, make_sample, partial_path, read, resuming_note
from flipnet.solve.cram import solver

SPEC = SampledDataset("tiny6x6", 6, 6, (0.4, 0.6), 250, "a small protocol for tests")

CHILD = """
import json, os, signal, sys
from flipnet.base import signals
from flipnet.base.errors import Interrupted
from flipnet.datasets.sampled import SampledDataset, make_sample
from flipnet.solve.cram import solver

spec = SampledDataset("tiny6x6", 6, 6, (0.4, 0.6), 250, "a small protocol for tests")
stop_at, solved, sent = float(sys.argv[2]), [], []
inner = solver()

class Solver:  # the real solver: records the draws it values; one Ctrl-C at the first news of stop_at's
    def values_of_states(self, states, rows, cols, budget, tell):
        solved.append(len(states))
        def told(done):
            if stop_at in spec.densities and len(solved) == spec.densities.index(stop_at) + 1 and not sent:
                sent.append(os.kill(os.getpid(), signal.SIGINT))
            tell(done)
        return inner.values_of_states(states, rows, cols, budget, told)

signals.install()
try:
    make_sample(spec, sys.argv[1], Solver())
except Interrupted as exc:
    print(exc, file=sys.stderr)
    sys.exit(130)
print(json.dumps(solved))
"""


def child(path, stop_at=0.0):
    return subprocess.run([sys.executable, "-c", CHILD, str(path), str(stop_at)], capture_output=True,
                          text=True, timeout=300, env=environment())


@pytest.mark.slow
def test_ctrl_c_keeps_the_densities_valued_and_the_build_goes_on_from_there(tmp_path):
    path = tmp_path / "tiny6x6.h5"
    stopped = child(path, stop_at=0.6)
    assert stopped.returncode == 130, stopped.stderr
    assert stopped.stderr.strip().splitlines()[-1].endswith(
        f"at density 0.6; density 0.4 valued and kept in {partial_path(path)}: the same command "
        "goes on from there")
    assert not path.exists() and partial_path(path).exists()
    assert resuming_note(SPEC, path) == (f"going on with {path}: density 0.4 valued before "
                                         f"({partial_path(path)})")
    assert resuming_note(SPEC, path, seed=1) is None  # another protocol's densities are not reused

    went_on = child(path)
    assert went_on.returncode == 0, went_on.stderr
    assert len(json.loads(went_on.stdout)) == 1  # only density 0.6 was solved again
    assert not partial_path(path).exists()

    unbroken = tmp_path / "unbroken.h5"
    make_sample(SPEC, unbroken, solver())
    got, want = read(path), read(unbroken)
    for name in ("states", "values", "density"):
        assert np.array_equal(getattr(got, name), getattr(want, name))
    assert got.attrs.keys() == want.attrs.keys()
    for name in set(got.attrs) - {"solve_seconds"}:
        assert np.array_equal(got.attrs[name], want.attrs[name]), name


@pytest.mark.slow
def test_a_partial_file_unreadable_or_not_of_this_draw_is_not_used(tmp_path):
    path = tmp_path / "tiny6x6.h5"
    partial_path(path).write_bytes(b"not a zip file")
    assert sampled.valued_before(SPEC, path) == {}
    make_sample(SPEC, path, solver())  # replaced as it goes, removed at the end
    assert not partial_path(path).exists()
    whole = read(path)
    # values kept for a draw of another length (a file edited, or lost in part) are valued again
    sampled._keep_partial(SPEC, path, {0.4: (np.zeros(3, np.int64), 0, 1.0)})
    make_sample(SPEC, path, solver())
    assert np.array_equal(read(path).values, whole.values)
