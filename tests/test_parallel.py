"""A training step shared by processes (`nn/components/parallel.py`): the same step as one process
computes, to rounding (checked against `pytensor.grad` of the whole batch), the same
weights bit for bit for the same number of workers, and a failing or dead helper
reported in one line. The command with --workers, and a real Ctrl-C sent to its whole
process group, are in test_convmem.py. The tests of a helper's failures run on the Python
linker: what they test is the processes, not the compiled step."""

import numpy as np
import pytest

from flipnet.base.errors import FlipnetError
from flipnet.nn import FLOAT
from flipnet.nn.components import parallel
from flipnet.nn.components.maskconv import MaskedConvNet
from flipnet.nn.components.parallel import SplitStep, part_bounds
from flipnet.nn.components.shapetrain import step_function
from flipnet.nn.core import optim

SIDE, BATCH = 5, 37  # a batch that no number of workers below divides evenly


def batch(seed=0):
    rng = np.random.default_rng(seed)
    cells = (rng.random((BATCH, SIDE * SIDE)) < 0.6).astype(FLOAT)
    cells[:, 12] = 1  # no shape without cells
    return cells, rng.integers(0, 16, BATCH)


def network():
    return MaskedConvNet(3, channels=8, layers=2, hidden=16, residual_gates=True)


@pytest.mark.parametrize("n", [1, 7, 37, 512])
@pytest.mark.parametrize("parts", [2, 3, 8])
def test_the_parts_cover_the_batch_in_order_and_differ_by_at_most_one_row(n, parts):
    bounds = part_bounds(n, parts)
    assert len(bounds) == parts and bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(stop == start for (_, stop), (start, _) in zip(bounds, bounds[1:]))
    sizes = [stop - start for start, stop in bounds]
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [2, 3])
def test_a_shared_step_is_the_one_process_step_to_rounding(workers, py_mode):
    """SGD, so that a parameter moves by exactly its gradient: after five steps both
    networks agree to float32 rounding, and so do the losses. On the Python linker: the
    sums over parts are the subject; the next test runs the Numba path."""
    cells, values = batch()
    lr = np.asarray(0.05, FLOAT)
    one, shared = network(), network()
    single = step_function(one, optim.make("sgd", one.params, clip_norm=2.0), SIDE)
    with SplitStep(shared, optim.make("sgd", shared.params, clip_norm=2.0), SIDE, workers, BATCH) as step:
        for _ in range(5):
            assert step(cells, values, lr) == pytest.approx(float(single(cells, values, lr)), rel=1e-5)
    moved = max(np.abs(p.get_value() - q.get_value()).max() for p, q in zip(one.params, network().params))
    worst = max(np.abs(p.get_value() - q.get_value()).max() for p, q in zip(one.params, shared.params))
    assert moved > 1e-2 and worst < 1e-5 * max(1.0, moved)


@pytest.mark.slow
def test_the_same_number_of_workers_gives_the_same_weights_bit_for_bit():
    """On Numba, with residual gates: the suite's compiled run of a gated network, the
    best model's kind (the command's runs in test_convmem.py have no gates)."""
    cells, values = batch(1)
    lr = np.asarray(0.003, FLOAT)
    runs = []
    for _ in range(2):
        net = network()
        with SplitStep(net, optim.make("adam", net.params, clip_norm=2.0), SIDE, 2, BATCH) as step:
            for _ in range(4):
                step(cells, values, lr)
        runs.append(net.get_values())
    assert all(np.array_equal(runs[0][k], runs[1][k]) for k in runs[0])
    assert not all(np.array_equal(runs[0][k], network().get_values()[k]) for k in runs[0])


@pytest.mark.slow
def test_a_helper_that_fails_is_reported_in_one_line_and_nothing_moves(monkeypatch, py_mode):
    """A part whose gradient raises (a stand-in for any failure in the helper: the check
    sees the value 15 only in the helper's part) is one line in this process."""
    real = parallel.gradient_function

    def failing_on_15(*args, **kwargs):
        gradient = real(*args, **kwargs)

        def checked(cells, values, weight):
            if (values == 15).any():
                raise ArithmeticError("a value of 15")
            return gradient(cells, values, weight)
        return checked

    monkeypatch.setattr(parallel, "gradient_function", failing_on_15)
    cells, values = batch()
    values[values == 15] = 0
    values[-1] = 15
    net = network()
    before = net.get_values()
    with SplitStep(net, optim.make("sgd", net.params), SIDE, 2, BATCH) as step:
        with pytest.raises(FlipnetError, match=r"^a training helper process failed: ArithmeticError: "
                                               r"a value of 15 \(.*test_parallel.py:\d+\)$"):
            step(cells, values, np.asarray(0.1, FLOAT))
        assert all(np.array_equal(before[k], v) for k, v in net.get_values().items())
        values[-1] = 0
        step(cells, values, np.asarray(0.1, FLOAT))  # the helper still serves, in step
    after = net.get_values()
    assert not all(np.array_equal(before[k], after[k]) for k in before)


@pytest.mark.slow
def test_a_dead_helper_is_noticed_at_the_next_step_and_the_block_ends_the_others(py_mode):
    cells, values = batch()
    net = network()
    with SplitStep(net, optim.make("sgd", net.params), SIDE, 3, BATCH) as step:
        helpers = [helper for helper, *_ in step.helpers]
        step(cells, values, np.asarray(0.1, FLOAT))
        helpers[0].kill()
        helpers[0].join()
        with pytest.raises(FlipnetError, match=r"^a training helper process stopped \(exit code -9\); "
                                               r"the checkpoint keeps the last finished epoch$"):
            step(cells, values, np.asarray(0.1, FLOAT))
    assert not any(helper.is_alive() for helper in helpers)


@pytest.mark.slow
def test_a_batch_larger_than_the_step_holds_is_refused(py_mode):
    cells, values = batch()
    net = network()
    with SplitStep(net, optim.make("sgd", net.params), SIDE, 2, BATCH - 1) as step:
        with pytest.raises(ValueError, match="a batch of 37 shapes is larger than the 36 this step holds"):
            step(cells, values, np.asarray(0.1, FLOAT))
