import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

from flipnet.base.errors import FlipnetError
from flipnet.nn.core import optim
from flipnet.nn.core.kinds import build

pytestmark = pytest.mark.usefixtures("py_mode")


def test_conv1d_shapes_and_zero_initialised_parts():
    model = build("conv1d", seed=0)
    values = model.get_values()
    assert {k: v.shape for k, v in values.items()} == {
        "conv_w": (209,), "conv_b": (19,), "hidden_W": (190, 64), "hidden_b": (64,),
        "out_W": (64, 7), "out_b": (7,)}
    for zero in ("hidden_b", "out_W", "out_b"):
        assert not values[zero].any()
    assert all(v.dtype == np.float32 for v in values.values())


def test_initialisation_statistics_follow_the_paper():
    conv_w, conv_b, hidden = [], [], []
    for seed in range(60):
        v = build("conv1d", seed).get_values()
        conv_w.append(v["conv_w"][-20:])  # the width-20 filter
        conv_b.append(v["conv_b"])
        hidden.append(v["hidden_W"].ravel())
    assert abs(np.std(conv_w) - np.sqrt(1 / 20)) < 0.02
    assert abs(np.std(conv_b) - 1.0) < 0.1
    assert abs(np.std(hidden) - np.sqrt(1 / 64)) < 0.002
    assert abs(np.mean(hidden)) < 0.002


def test_same_seed_same_weights():
    a, b, c = build("fc1d", 5).get_values(), build("fc1d", 5).get_values(), build("fc1d", 6).get_values()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["fc_W"], c["fc_W"])


@pytest.mark.parametrize("name, length, width", [("conv1d", 20, 190), ("fc1d", 20, 190), ("conv1d", 8, 28)])
def test_logits_shape(name, length, width):
    model = build(name, 0, 1, length)
    states = pt.vector(dtype="uint32")
    fn = pytensor.function([states], model.logits(states))
    assert fn(np.arange(5, dtype=np.uint32)).shape == (5, 7)
    assert model.get_values()["hidden_W"].shape[0] == width


def test_build_errors():
    with pytest.raises(FlipnetError, match="unknown model 'resnet': choose from conv1d, "):
        build("resnet", 0)
    with pytest.raises(ValueError, match="conv1d reads one row of cells, not 5 rows"):
        build("conv1d", 0, 5, 5)


def numpy_momentum(p, grads, lr, mu):
    v = np.zeros_like(p)
    for g in grads:
        v = mu * v - lr * g
        p = p + v
    return p


def numpy_adam(p, grads, lr, b1=0.9, b2=0.999, eps=1e-8):
    m = s = np.zeros_like(p)
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        s = b2 * s + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(s / (1 - b2 ** t)) + eps)
    return p


@pytest.mark.parametrize("name", ["sgd", "momentum", "adam"])
def test_optimizer_steps_match_numpy(name):
    start = np.float32([1.0, -2.0, 0.5])
    grads = [np.float32([0.3, -0.1, 0.2]), np.float32([-0.5, 0.4, 0.1]), np.float32([0.2, 0.2, -0.3])]
    param = pytensor.shared(start.copy(), name="p")
    opt = optim.make(name, [param], momentum=0.8)
    g = pt.vector(dtype="float32")
    new_params, new_state = opt.step([param], [g], opt.state, np.float32(0.1))
    fn = pytensor.function([g], [], updates=[(param, new_params[0]), *zip(opt.state, new_state)])
    for grad in grads:
        fn(grad)
    expected = {"sgd": start - 0.1 * sum(grads), "momentum": numpy_momentum(start, grads, 0.1, 0.8),
                "adam": numpy_adam(start, grads, 0.1)}[name]
    np.testing.assert_allclose(param.get_value(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, n_params", [
    ("mlp2d", 25 * 300 + 300 + 300 * 60 + 60 + 60 * 10 + 10),
    ("logreg2d", 25 * 10 + 10),
    ("convmlp2d", 2 * 14 * 15 + 40 + 300 * 300 + 300 + 300 * 60 + 60 + 60 * 10 + 10),
])
def test_2d_models(name, n_params):
    model = build(name, seed=0)
    assert model.n_parameters() == n_params and (model.rows, model.cols) == (5, 5)
    states = pt.vector(dtype="uint32")
    assert pytensor.function([states], model.logits(states))(np.arange(7, dtype=np.uint32)).shape == (7, 10)


def test_2d_initialisation_follows_the_paper():
    hidden, biases = [], []
    for seed in range(10):
        v = build("mlp2d", seed).get_values()
        hidden.append(v["W1"].ravel())
        biases.append(v["b0"])
    assert abs(np.std(hidden) - np.sqrt(1 / 60)) < 0.003
    assert abs(np.std(biases) - 1.0) < 0.05


def test_adamw_decays_matrices_only():
    W = pytensor.shared(np.float32([[1.0, -2.0]]), name="W")
    b = pytensor.shared(np.float32([0.5, 1.0]), name="b")
    opt = optim.make("adam", [W, b], weight_decay=0.1)
    zero = [pt.zeros_like(W), pt.zeros_like(b)]
    new_params, new_state = opt.step([W, b], zero, opt.state, np.float32(0.5))
    pytensor.function([], [], updates=[(W, new_params[0]), (b, new_params[1]), *zip(opt.state, new_state)])()
    np.testing.assert_allclose(W.get_value(), [[1.0 * (1 - 0.05), -2.0 * (1 - 0.05)]], rtol=1e-6)
    np.testing.assert_allclose(b.get_value(), [0.5, 1.0])


@pytest.mark.parametrize("name", ["sgd", "momentum"])
def test_sgd_weight_decay_is_the_gradient_of_an_l2_penalty_on_matrices(name):
    """Two steps with decay d on a loss equal two plain steps on loss + d/2 * |W|^2, the
    gradient taken by pytensor.grad; the bias is not penalised."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3)).astype(np.float32)

    def run(decay, penalised):
        W = pytensor.shared(np.float32([[1.0, -2.0], [0.5, 0.3], [-1.0, 0.2]]), name="W")
        b = pytensor.shared(np.float32([0.5, 1.0]), name="b")
        loss = pt.sum(pt.tanh(pt.dot(x, W) + b) ** 2)
        if penalised:
            loss = loss + np.float32(0.1 / 2) * pt.sum(W ** 2)
        opt = optim.make(name, [W, b], momentum=0.8, weight_decay=decay)
        new_params, new_state = opt.step([W, b], pytensor.grad(loss, [W, b]), opt.state, np.float32(0.3))
        step = pytensor.function([], [], updates=[*zip([W, b], new_params), *zip(opt.state, new_state)])
        step(), step()
        return W.get_value(), b.get_value()

    decayed, penalised, plain = run(0.1, False), run(0.0, True), run(0.0, False)
    for got, want in zip(decayed, penalised):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert not np.allclose(decayed[0], plain[0], atol=1e-3)


def test_one_cycle_schedule_warms_up_then_decays():
    from flipnet.nn.training.loop import SCHEDULES

    rates = [SCHEDULES["onecycle"](1.0, done, 30) for done in range(30)]
    assert rates[0] == pytest.approx(0.1) and max(rates) == pytest.approx(1.0)
    peak = rates.index(max(rates))
    assert peak == 3 and all(a < b for a, b in zip(rates[:peak], rates[1:peak + 1]))
    assert all(a > b for a, b in zip(rates[peak:], rates[peak + 1:])) and 0 < rates[-1] < 0.01


@pytest.mark.slow
def test_tta_predictor_averages_over_symmetries():
    from flipnet.datasets.symmetry import Symmetries
    from flipnet.nn.core.compile import Predictor

    model = build("mlp2d", seed=3)
    sym = Symmetries(5, 5)
    states = np.random.default_rng(0).integers(0, 1 << 25, size=50).astype(np.uint32)
    s = pt.vector(dtype="uint32")
    probs = pytensor.function([s], pt.special.softmax(model.logits(s), axis=-1))
    expected = np.argmax(sum(probs(sym.image(states, g)) for g in range(8)), axis=-1)
    assert np.array_equal(Predictor(model, symmetries=sym)(states), expected)
    assert np.array_equal(Predictor(model)(states), np.argmax(probs(states), axis=-1))
