"""The XOR-of-components models: their output against an explicit XOR-convolution, the
sparse update of the memory against the dense gradient, and the memory's file round trip."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import write_tiny_dataset

from flipnet.nn import FLOAT
from flipnet.nn.core import optim
from flipnet.nn.core.compile import Predictor, training_step
from flipnet.nn.core.layers import mean_cross_entropy
from flipnet.nn.core.kinds import build

pytestmark = pytest.mark.usefixtures("py_mode")


def component_probabilities(values, masks, n_cells):
    """The component MLP in NumPy: softmax over values for each component mask."""
    x = ((masks[:, None].astype(np.int64) >> np.arange(n_cells)) & 1).astype(np.float64)
    for k in range(3):
        x = x @ values[f"W{k}"] + values[f"b{k}"]
        x = np.maximum(x, 0) if k < 2 else x
    z = np.exp(x - x.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def xor_convolution(p, q):
    out = np.zeros(len(p))
    for a in range(len(p)):
        for b in range(len(q)):
            out[a ^ b] += p[a] * q[b]
    return out


def random_positions(n, cells, seed):
    """Positions with every number of components, the empty board among them."""
    states = np.random.default_rng(seed).integers(0, 1 << cells, size=n)
    states[:3] = [0, 0b11, (1 << cells) - 1]
    return states.astype(np.uint32)


def test_position_distribution_is_the_xor_convolution_of_its_components():
    model = build("xornet2d", seed=1)
    states = random_positions(300, 25, seed=2)
    inputs = model.prepare(states)
    assert len(set((inputs != 0).sum(axis=1))) >= 4  # batches mix component counts
    x = pt.tensor(dtype="uint64", shape=(None, 6))
    log_probs = pytensor.function([x], model.logits(x))(inputs)
    values = model.get_values()
    for row, got in zip(inputs, log_probs):
        expected = np.eye(16)[0]
        for mask in row[row != 0]:
            expected = xor_convolution(expected, component_probabilities(values, mask[None], 25)[0])
        np.testing.assert_allclose(np.exp(got), expected, atol=2e-6)


def fitted_memory_model(seed=0):
    model = build("xormem2d", seed, 3, 3)
    rng = np.random.default_rng(seed)
    train = rng.integers(0, 1 << 9, size=200).astype(np.uint32)
    model.fit(train)
    table = rng.normal(0, 1, model.memory.get_value().shape).astype(FLOAT)
    table[-1] = 0
    model.memory.set_value(table)
    return model, train


def test_memory_vocabulary_and_rows():
    from flipnet.datasets.components import Components

    model, train = fitted_memory_model()
    comps = Components(3, 3)
    assert model.vocabulary.tolist() == sorted(set(comps.shapes(train).tolist()))
    assert model.memory.get_value().shape == (len(model.vocabulary) + 1, 16)
    everything = np.arange(1 << 9, dtype=np.uint64)
    inputs = model.prepare(everything)
    masks, rows = inputs[..., 0], inputs[..., 1]
    keys = comps.encode(everything, model.slots)
    assert np.array_equal(masks, comps.render(keys))  # the network reads the shape's cells
    known = np.isin(keys, model.vocabulary) & (keys != 0)
    assert np.array_equal(model.vocabulary[rows[known]], keys[known])
    assert np.all(rows[~known & (keys != 0)] == len(model.vocabulary))
    assert (~known & (keys != 0)).any()  # some shapes of the full table were never seen


def test_sparse_memory_step_equals_the_dense_gradient():
    model, train = fitted_memory_model(seed=3)
    inputs = model.prepare(train[:64])
    labels = np.random.default_rng(4).integers(0, 4, size=64)
    x = pt.tensor(dtype="uint64", shape=(None, model.slots, 2))
    y = pt.vector(dtype="int64")
    lr = np.float32(0.01)
    sgd = optim.make("sgd", model.dense_params)
    loss, new_params, _, (new_memory,) = training_step(
        model, sgd, x, y, lr, model.dense_params, [], model.memory)
    dense_loss = mean_cross_entropy(model.logits(x), y)  # gathers from the table itself
    dense_grads = pt.grad(dense_loss, model.params)
    fn = pytensor.function([x, y], [loss, dense_loss, new_memory, *new_params, *dense_grads])
    got_loss, want_loss, memory, *rest = fn(inputs, labels)
    params, grads = rest[:len(new_params)], rest[len(new_params):]
    assert got_loss == pytest.approx(want_loss)
    rate = lr * model.memory_gain * len(labels)
    np.testing.assert_allclose(memory, model.memory.get_value() - rate * grads[-1], atol=1e-5)
    assert not np.array_equal(memory, model.memory.get_value())
    for new, old, g in zip(params, model.get_values().values(), grads):
        np.testing.assert_allclose(new, old - lr * g, atol=1e-6)
    untouched = np.setdiff1d(np.arange(len(memory)), inputs[..., 1][inputs[..., 0] != 0])
    assert np.array_equal(memory[untouched], model.memory.get_value()[untouched])


def test_memory_model_file_round_trip(tmp_path):
    from flipnet.nn.core.kinds import read_model
    from flipnet.nn.core.store import save_model

    model, train = fitted_memory_model(seed=5)
    save_model(tmp_path / "m.npz", model, {})
    loaded, _ = read_model(tmp_path / "m.npz")
    assert np.array_equal(loaded.vocabulary, model.vocabulary)
    states = np.arange(1 << 9, dtype=np.uint32)
    assert np.array_equal(Predictor(loaded)(states), Predictor(model)(states))


@pytest.mark.slow
def test_memory_model_trains_and_resumes(tmp_path):
    from flipnet.nn.paper.train import train
    from flipnet.nn.training.recipes import config_for

    data = tmp_path / "flip3x4.h5"
    write_tiny_dataset(data, rows=3, cols=4)

    def run(where, epochs):
        config = config_for("xormem2d", data=str(data), bucket=0, epochs=epochs,
                                       batch=128, lr=0.01, schedule="constant",
                                       results_dir=str(tmp_path / where))
        return train(config, resume=True, log=lambda *_: None)

    straight = run("a", 6)
    run("b", 3)
    resumed = run("b", 6)
    timeless = [[{k: v for k, v in c.items() if k != "seconds"} for c in r["curve"]]
                for r in (straight, resumed)]
    assert timeless[0] == timeless[1]
    assert straight["test_error"] == resumed["test_error"] < 0.2
    known, new = straight["test_error_known_shapes"], straight["test_error_new_shapes"]
    share = straight["test_share_new_shapes"]
    assert 0 < share < 1
    assert straight["test_error"] == pytest.approx(share * new + (1 - share) * known)
    # the share, counted independently through the memory's unseen row
    from flipnet.datasets.hdf5 import read_split
    from flipnet.nn.core.kinds import read_model

    model, _ = read_model(tmp_path / "a" / "xormem2d.npz")
    inputs = model.prepare(read_split(data, 0).test[0])
    unseen = ((inputs[..., 0] != 0) & (inputs[..., 1] == len(model.vocabulary))).any(axis=1)
    assert share == unseen.mean()
