"""Flush-to-zero (base/denormals.py): subnormal floats are zero inside the block, in its
thread (not in threads already running), and the control register is as it was after it;
a training run with `flush_denormals` runs its epochs that way."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import write_tiny_dataset

from flipnet.base.denormals import DAZ, FTZ, SUPPORTED, flushed, read_mxcsr
from flipnet.nn.paper import train as nn_train
from flipnet.nn.training.recipes import config_for

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="FTZ and DAZ are bits of the x86-64 MXCSR")

SUBNORMAL = np.float32(1e-39)  # below float32's smallest normal number, 1.18e-38


def products():
    """(a subnormal times one, the sum of 64 subnormals by a matrix product)."""
    a = np.full((64, 64), SUBNORMAL, np.float32)
    return (a * np.float32(1.0))[0, 0], (a @ np.ones((64, 64), np.float32))[0, 0]


def test_subnormals_are_zero_inside_the_block_and_back_after_it():
    before = read_mxcsr()
    assert products() == (SUBNORMAL, pytest.approx(64 * 1e-39, rel=1e-3))
    with flushed() as on:
        assert on
        assert products() == (0.0, 0.0)  # DAZ: read as zero, so even their sum is zero
    assert products() == (SUBNORMAL, pytest.approx(64 * 1e-39, rel=1e-3))
    assert read_mxcsr() & (FTZ | DAZ) == before & (FTZ | DAZ)


def test_disabled_or_in_another_thread_nothing_changes():
    with flushed(False) as on:
        assert not on
        assert products()[0] == SUBNORMAL
    seen, go = [], threading.Event()

    def other():  # a thread made before the block keeps its own register
        go.wait()
        seen.append(products()[0])

    worker = threading.Thread(target=other)
    worker.start()
    with flushed():
        go.set()
        worker.join()
        assert products()[0] == 0.0
    assert seen == [SUBNORMAL]


@pytest.mark.slow
def test_a_run_with_flush_denormals_trains_flushed_and_restores(tmp_path, monkeypatch):
    data = tmp_path / "flip8.h5"
    write_tiny_dataset(data)
    flags = []
    real = nn_train.run_epoch

    def recording(*args, **kwargs):
        flags.append(read_mxcsr() & (FTZ | DAZ))
        return real(*args, **kwargs)

    monkeypatch.setattr(nn_train, "run_epoch", recording)
    for flush in (True, False):
        flags.clear()
        config = config_for("conv1d", data=str(data), bucket=0, epochs=2, batch=10, eval_batch=0,
                            results_dir=str(tmp_path / f"results-{flush}"), flush_denormals=flush)
        results = nn_train.train(config, log=lambda *_: None)
        assert results["config"]["flush_denormals"] is flush
        assert flags == [FTZ | DAZ if flush else 0] * 2
        assert read_mxcsr() & (FTZ | DAZ) == 0


PRODUCT = """from flipnet.base.process import set_up_command
set_up_command()  # what the command does first
import os, numpy as np
from flipnet.base.denormals import flushed
a = np.full((1024, 1024), 1e-21, np.float32)  # each term 1e-42, their sums about 1e-39
with flushed():
    c = a @ a
print(os.environ["OPENBLAS_NUM_THREADS"], np.count_nonzero(c))
"""


@pytest.mark.slow
def test_flipnet_keeps_blas_in_the_flushed_thread_unless_told_otherwise():
    """A large product is split among OpenBLAS's threads; the command keeps it in the calling
    thread, so flushing holds for all of it. A thread count the caller sets is kept."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    alone = subprocess.run([sys.executable, "-c", PRODUCT], env=env, capture_output=True,
                           text=True, check=True)
    assert alone.stdout.split() == ["1", "0"]
    told = subprocess.run([sys.executable, "-c", PRODUCT], env={**env, "OPENBLAS_NUM_THREADS": "2"},
                          capture_output=True, text=True, check=True)
    threads, nonzero = told.stdout.split()
    assert threads == "2"
    if (os.cpu_count() or 1) > 1:  # the worker thread does not flush: what flipnet avoids
        assert int(nonzero) > 0
