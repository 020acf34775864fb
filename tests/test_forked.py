"""Tasks shared with forked copies of this process (`base/forked.py`): the results of one
process, in order, whatever the number of workers; a helper that fails or dies reported
in one line; a stop asked for here (a real Ctrl-C included) ends the helpers. The model's
answers through it, bit for bit, are in test_convmem.py."""

import multiprocessing
import os
import signal
import time

import numpy as np
import pytest

from flipnet.base import signals
from flipnet.base.errors import FlipnetError, Interrupted
from flipnet.base.forked import forked_map

PARENT = os.getpid()


def square_and_pid(task):
    return task * task, os.getpid()


@pytest.mark.parametrize("workers, n", [(1, 5), (2, 5), (3, 7), (4, 2), (2, 0)])
def test_the_results_are_one_process_results_in_order_and_each_is_reported_once(workers, n):
    seen = []
    results = forked_map(square_and_pid, range(n), workers, lambda index, result: seen.append(index))
    assert [value for value, _ in results] == [k * k for k in range(n)]
    assert sorted(seen) == list(range(n))
    pids = {pid for _, pid in results}
    assert len(pids) == min(workers, n) and (n == 0 or results[0][1] == PARENT)
    assert not multiprocessing.active_children()


def test_the_model_work_is_the_same_bit_for_bit():
    """Floating-point work done in another process: the same bits (each task alone)."""
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(64, 16))
    tasks = [rng.normal(size=(100, 64)) for _ in range(5)]

    def forward(x):
        return np.tanh(x @ weights)
    shared = forked_map(forward, tasks, 2)
    assert all(np.array_equal(a, forward(x)) for a, x in zip(shared, tasks))


def failing_on_5(task):
    if task == 5:
        raise ArithmeticError("task 5")
    return task


def dying_on_4(task):
    if task == 4 and os.getpid() != PARENT:
        os._exit(3)
    return task


@pytest.mark.parametrize("task, message", [
    (failing_on_5, r"^a helper process failed: ArithmeticError: task 5 \(.*test_forked.py:\d+\)$"),
    (dying_on_4, r"^a helper process stopped \(exit code 3\) with 2 of its tasks undone$"),
], ids=["fails", "dies"])
def test_a_helper_that_fails_or_dies_is_one_line_and_no_helper_is_left(task, message):
    with pytest.raises(FlipnetError, match=message):
        forked_map(task, range(6), 2)
    assert not multiprocessing.active_children()


def test_a_real_ctrl_c_to_the_group_stops_here_and_the_helpers_ignore_it():
    """SIGINT to this process and to the helpers, as a terminal sends it to the whole
    group, under flipnet's handler: the stop is answered in `done`, the helpers die of
    no SIGINT (they are ended by the parent), and none is left."""
    helpers = []

    def slow(task):
        if os.getpid() == PARENT and task == 0:
            helpers.extend(multiprocessing.active_children())
            for process in helpers:
                os.kill(process.pid, signal.SIGINT)
            os.kill(PARENT, signal.SIGINT)
        elif os.getpid() != PARENT:
            time.sleep(0.05)  # still at work when the signal comes
        return task

    def done(index, result):
        if signals.requested():
            raise Interrupted("stopped")

    before = signal.getsignal(signal.SIGINT)
    signals.install()
    try:
        with signals.deferred(), pytest.raises(Interrupted, match="^stopped$"):
            forked_map(slow, range(40), 2, done)
    finally:
        signal.signal(signal.SIGINT, before)
    assert helpers and not multiprocessing.active_children()
    assert all(process.exitcode in (0, -signal.SIGKILL) for process in helpers)
