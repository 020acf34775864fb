import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

from flipnet.base.errors import FlipnetError
from flipnet.nn.nim.mlp import (NimMLP, backward_graph, bits_of, build_database, compare, decode,
                               inputs_of, read_weights_file, squared_error_graph)
from flipnet.nn.nim.train import survey, train_many
from flipnet.solve import halfnim_values

rng = np.random.default_rng(7)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def numpy_forward(x, w, wo):
    h = sigmoid(x @ w)
    h[..., 0] = 1.0
    return h, sigmoid(h @ wo)


def numpy_backward(x, yd, w, wo, eta):
    """The C++ backward: deltas first (old weights), then the updates."""
    h, y = numpy_forward(x, w, wo)
    delta_out = (yd - y) * y * (1 - y)
    delta_hidden = h * (1 - h) * (wo @ delta_out)
    delta_hidden[0] = 0.0
    return w + eta * np.outer(x, delta_hidden), wo + eta * np.outer(h, delta_out)


def test_hand_written_update_is_minus_eta_times_the_gradient():
    x, yd, w, wo = pt.dvector(), pt.dvector(), pt.dmatrix(), pt.dmatrix()
    new_w, new_wo = backward_graph(x, yd, w, wo, 0.12)
    grad_w, grad_wo = pt.grad(squared_error_graph(x, yd, w, wo), [w, wo])
    fn = pytensor.function([x, yd, w, wo], [new_w - w + 0.12 * grad_w, new_wo - wo + 0.12 * grad_wo])
    for _ in range(20):
        args = (inputs_of(int(rng.integers(2, 128))), bits_of(int(rng.integers(1, 64))),
                rng.normal(size=(8, 15)), rng.normal(size=(15, 6)))
        for difference in fn(*args):
            assert np.max(np.abs(difference)) < 1e-10


def test_forward_and_backward_match_numpy():
    mlp = NimMLP(seed=3)
    x, yd = inputs_of(77), bits_of(13)
    _, expected = numpy_forward(x, mlp.w, mlp.wo)
    np.testing.assert_allclose(mlp.forward(x), expected, atol=1e-14)
    batch = np.stack([inputs_of(n) for n in (2, 50, 127)])
    np.testing.assert_allclose(mlp.forward(batch), numpy_forward(batch, mlp.w, mlp.wo)[1], atol=1e-14)
    want_w, want_wo = numpy_backward(x, yd, mlp.w, mlp.wo, 0.12)
    mlp.backward(yd, x)
    np.testing.assert_allclose(mlp.w, want_w, atol=1e-14)
    np.testing.assert_allclose(mlp.wo, want_wo, atol=1e-14)


def test_compiled_training_equals_per_sample_updates():
    db = build_database(seed=1)
    a, b = NimMLP(seed=5), NimMLP(seed=5)
    a.train(db, 2)
    for _ in range(2):
        for x, yd in zip(db.inputs, db.labels):
            b.backward(yd, x)
    np.testing.assert_allclose(a.w, b.w, atol=1e-12)
    np.testing.assert_allclose(a.wo, b.wo, atol=1e-12)


def test_a_stack_of_networks_trains_like_each_alone():
    db = build_database(seed=3)
    nets = train_many([4, 9, 4], db, 3)
    for seed, stacked in zip([4, 9, 4], nets):
        alone = NimMLP(seed=seed)
        alone.train(db, 3)
        np.testing.assert_allclose(stacked.w, alone.w, atol=1e-12)
        np.testing.assert_allclose(stacked.wo, alone.wo, atol=1e-12)
    assert not np.allclose(nets[0].w, nets[1].w)


def test_survey_compares_every_seed_with_the_dp():
    db = build_database(seed=0)
    for seed, diff_winning, diff_losing in survey([1, 2], 20):
        alone = NimMLP(seed=seed)
        alone.train(db, 20)
        _, want_winning, want_losing = compare(alone, db)
        assert (diff_winning, diff_losing) == (want_winning, want_losing)


def test_database():
    db = build_database(seed=2)
    g = halfnim_values(127)
    assert db.piles.tolist() == list(range(2, 128))
    assert db.inputs.shape == (126, 8) and db.labels.shape == (126, 6)
    for n, k, x, y in zip(db.piles, db.moves, db.inputs, db.labels):
        assert x[0] == 1 and sum(int(b) << i for i, b in enumerate(x[1:])) == n
        assert sum(int(b) << i for i, b in enumerate(y)) == k
        assert 1 <= k <= n // 2
        winning = [j for j in range(1, n // 2 + 1) if g[n - j] == 0]
        if winning:
            assert k == winning[0]
    again = build_database(seed=2)
    assert np.array_equal(db.moves, again.moves)


def test_decode_like_out2move():
    assert decode([0.3, 0.1, 0.9, 0, 0, 0]) == 0b101
    assert decode([0.3, 0.1, 0.9, 0, 0, 0], threshold=0.5) == 0b100
    assert decode([0.1] * 6) == 1  # a decoded 0 becomes 1


def test_compare_splits_winning_and_losing():
    db = build_database(seed=0)
    mlp = NimMLP(seed=0)
    rows, diff_winning, diff_losing = compare(mlp, db)
    assert len(rows) == 126
    assert set(diff_losing) <= {3, 7, 15, 31, 63, 127}
    assert sorted(diff_winning + diff_losing) == [n for n, k, net in rows if k != net]


def test_weights_round_trip_is_exact(tmp_path):
    mlp = NimMLP(seed=11)
    mlp.w += rng.normal(size=mlp.w.shape) * 1e-9
    path = tmp_path / "nimWeights.txt"
    mlp.save_weights(path)
    lines = path.read_text().splitlines()
    assert len(lines) == 23 and [len(line.split()) for line in lines] == [15] * 8 + [6] * 15
    other = NimMLP(seed=12)
    other.read_weights(path)
    assert np.array_equal(other.w, mlp.w) and np.array_equal(other.wo, mlp.wo)


def test_any_whitespace_layout(tmp_path):
    numbers = rng.normal(size=210)
    path = tmp_path / "w.txt"
    path.write_text("  ".join(repr(float(v)) for v in numbers[:100]) + "\n\n\t"
                    + "\n".join(repr(float(v)) for v in numbers[100:]))
    w, wo = read_weights_file(path)
    assert np.array_equal(np.concatenate([w.ravel(), wo.ravel()]), numbers)


@pytest.mark.parametrize("text, message", [
    ("1 " * 209, "too few numbers, 209 of 210"),
    (("1 " * 15 + "\n") * 14 + "1 2", "line 15: too many numbers, expected 210"),
    ("1 2\n3 abc", "line 2: 'abc' is not a number"),
    ("1 nan", "line 1: 'nan' is not a finite number"),
    ("", "too few numbers, 0 of 210"),
])
def test_bad_weights_files(tmp_path, text, message):
    path = tmp_path / "nimWeights.txt"
    path.write_text(text)
    with pytest.raises(FlipnetError, match=message) as info:
        read_weights_file(path)
    assert str(path) in str(info.value)


def test_missing_weights_file(tmp_path):
    with pytest.raises(FlipnetError, match="weights file .*none.txt not found"):
        read_weights_file(tmp_path / "none.txt")


def test_shipped_weights_play_the_dp_move_on_every_winning_pile():
    """data/nimWeights.txt (from `make train-nim`) plays the one right move of every
    winning pile."""
    from pathlib import Path

    mlp = NimMLP()
    mlp.read_weights(Path(__file__).resolve().parent.parent / "data" / "nimWeights.txt")
    _, diff_winning, _ = compare(mlp, build_database(seed=0))
    assert diff_winning == []
    for n in range(2, 128):
        if n & (n + 1):  # a winning pile: the one right move leaves 2^j - 1 (not via the DP)
            left = n - mlp.move(n)
            assert left & (left + 1) == 0 and left >= n - n // 2, n


def test_the_shipped_weights_are_found_from_any_directory(tmp_path, monkeypatch):
    """Wherever the command runs, the default is the shipped file, unless weights were
    trained there (results/nimWeights.txt, as a model asked for by name)."""
    from pathlib import Path

    from flipnet.nn.nim.mlp import default_weights_path

    monkeypatch.chdir(tmp_path)
    assert default_weights_path() == Path(__file__).resolve().parent.parent / "data" / "nimWeights.txt"
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "nimWeights.txt").write_text("")  # a folder named data is nothing special
    assert default_weights_path() == Path(__file__).resolve().parent.parent / "data" / "nimWeights.txt"
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "nimWeights.txt").write_text("")
    assert default_weights_path() == Path("results/nimWeights.txt")  # trained here comes first
