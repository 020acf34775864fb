import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from conftest import numeric_grad

from flipnet.nn.core.layers import (band_layout, decode_bits, dense, log_softmax, mean_cross_entropy,
                               multiwidth_conv1d, tanh)

pytestmark = pytest.mark.usefixtures("py_mode")
rng = np.random.default_rng(0)


def compile_scalar(build, shapes):
    """f(*arrays) -> float for a scalar graph over float64 inputs of the given shapes."""
    inputs = [pt.tensor(dtype="float64", shape=(None,) * len(s)) for s in shapes]
    fn = pytensor.function(inputs, build(*inputs))
    grads = pytensor.function(inputs, pt.grad(build(*inputs), inputs))
    return (lambda *a: float(fn(*a))), grads


def assert_gradients_match(build, arrays, atol=1e-6):
    f, grads = compile_scalar(build, [a.shape for a in arrays])
    for symbolic, numeric in zip(grads(*arrays), numeric_grad(f, arrays)):
        np.testing.assert_allclose(symbolic, numeric, atol=atol, rtol=1e-5)


def test_fast_tanh_matches_numpy_in_float32():
    x = pt.vector(dtype="float32")
    fn = pytensor.function([x], tanh(x))
    values = np.linspace(-20, 20, 20_001).astype(np.float32)
    assert np.max(np.abs(fn(values) - np.tanh(values.astype(np.float64)))) < 5e-7


def test_fast_tanh_gradient_is_one_minus_y_squared():
    x = pt.vector(dtype="float32")
    y = tanh(x)
    fn = pytensor.function([x], [y, pt.grad(pt.sum(y * np.arange(5, dtype=np.float32)), x)])
    values = np.float32([-3, -0.5, 0, 0.7, 9])
    out, grad = fn(values)
    np.testing.assert_allclose(grad, (1 - out ** 2) * np.arange(5), atol=1e-6)


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "linear"])
def test_dense_gradient(activation):
    x, W, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 5)), rng.normal(size=5)
    xs, Ws, bs = pt.dmatrix(), pt.dmatrix(), pt.dvector()
    expected = {"tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z)), "linear": lambda z: z}
    np.testing.assert_allclose(pytensor.function([xs, Ws, bs], dense(xs, Ws, bs, activation))(x, W, b),
                               expected[activation](W.T @ x + b[:, None]), atol=1e-12)
    weights = rng.normal(size=(5, 4))
    assert_gradients_match(lambda x, W, b: pt.sum(dense(x, W, b, activation) * weights), [x, W, b])


def correlate_loop(x, weights, biases, widths):
    """The multi-width valid correlation, one output at a time."""
    out, offset = [], 0
    for f, k in enumerate(widths):
        w = weights[offset:offset + k]
        for i in range(x.shape[1] - k + 1):
            out.append(np.tanh(x[:, i:i + k] @ w + biases[f]))
        offset += k
    return np.stack(out, axis=1)


def test_conv_matches_a_numpy_loop():
    widths = tuple(range(2, 21))
    x = rng.integers(0, 2, size=(6, 20)).astype(np.float64)
    w, b = rng.normal(size=sum(widths)), rng.normal(size=len(widths))
    layout = band_layout(20, widths)
    assert layout[0].shape == (20, 190)
    xs, ws, bs = pt.dmatrix(), pt.dvector(), pt.dvector()
    fn = pytensor.function([xs, ws, bs], multiwidth_conv1d(xs, ws, bs, layout))
    np.testing.assert_allclose(fn(x.T, w, b), correlate_loop(x, w, b, widths).T, atol=1e-12)


def test_conv_gradient():
    widths = (2, 3, 5)
    layout = band_layout(6, widths)
    x, w, b = rng.normal(size=(6, 3)), rng.normal(size=sum(widths)), rng.normal(size=3)
    weights = rng.normal(size=(layout[0].shape[1], 3))
    assert_gradients_match(lambda x, w, b: pt.sum(multiwidth_conv1d(x, w, b, layout) * weights),
                           [x, w, b])


def test_cross_entropy_value_gradient_and_stability():
    z = rng.normal(size=(5, 4)) * 3
    y = np.array([0, 3, 1, 1, 2])
    expected = np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(5), y])
    zs = pt.dmatrix()
    fn = pytensor.function([zs], mean_cross_entropy(zs, y))
    assert abs(float(fn(z)) - expected) < 1e-12
    assert_gradients_match(lambda z: mean_cross_entropy(z, y), [z])
    huge = np.array([[1000.0, -1000.0, 0.0, 0.0]] * 5)
    assert np.isfinite(fn(huge))
    lsm = pytensor.function([zs], log_softmax(zs))(huge)
    np.testing.assert_allclose(np.exp(lsm).sum(axis=1), 1.0)


def test_decode_bits():
    states = pt.vector(dtype="uint32")
    fn = pytensor.function([states], decode_bits(states, 20))
    values = rng.integers(0, 1 << 20, size=50).astype(np.uint32)
    expected = (values[None, :] >> np.arange(20)[:, None]) & 1
    np.testing.assert_array_equal(fn(values), expected)


def correlate_2d_loop(x, weights, biases, rows, cols, shapes, maps):
    """The 2D block, one output at a time, filters in the layout's order."""
    boards = x.reshape(-1, rows, cols)
    out, offset, f = [], 0, 0
    for h, w in shapes:
        for _ in range(maps):
            kernel = weights[offset:offset + h * w].reshape(h, w)
            for r in range(rows - h + 1):
                for c in range(cols - w + 1):
                    out.append(np.tanh((boards[:, r:r + h, c:c + w] * kernel).sum(axis=(1, 2)) + biases[f]))
            offset += h * w
            f += 1
    return np.stack(out, axis=1)


def test_2d_correlation_matches_a_numpy_loop():
    from flipnet.nn.core.layers import correlation_layout, multi_filter_correlation
    from flipnet.nn.paper.models import CONV_SHAPES_2D

    layout = correlation_layout(5, 5, CONV_SHAPES_2D, maps=2)
    assert layout[0].shape == (25, 300)
    n_weights = 2 * sum(i * j for i, j in CONV_SHAPES_2D)
    x = rng.integers(0, 2, size=(4, 25)).astype(np.float64)
    w, b = rng.normal(size=n_weights), rng.normal(size=2 * len(CONV_SHAPES_2D))
    xs, ws, bs = pt.dmatrix(), pt.dvector(), pt.dvector()
    fn = pytensor.function([xs, ws, bs], multi_filter_correlation(xs, ws, bs, layout))
    expected = correlate_2d_loop(x, w, b, 5, 5, CONV_SHAPES_2D, 2)
    np.testing.assert_allclose(fn(x.T, w, b), expected.T, atol=1e-12)


def test_2d_correlation_gradient():
    from flipnet.nn.core.layers import correlation_layout, multi_filter_correlation

    shapes = [(2, 1), (2, 2)]
    layout = correlation_layout(3, 3, shapes, maps=2)
    x, w, b = rng.normal(size=(9, 2)), rng.normal(size=2 * (2 + 4)), rng.normal(size=4)
    weights = rng.normal(size=(layout[0].shape[1], 2))
    assert_gradients_match(lambda x, w, b: pt.sum(multi_filter_correlation(x, w, b, layout) * weights),
                           [x, w, b])

