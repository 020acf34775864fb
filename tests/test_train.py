import json
from pathlib import Path

import numpy as np
import pytest
from conftest import interrupt_epochs_at, write_tiny_dataset

from flipnet.base.errors import FlipnetError, Interrupted
from flipnet.nn.core import compile as nn_compile
from flipnet.nn.core.kinds import read_model
from flipnet.nn.core.store import load_npz
from flipnet.nn.paper.train import train
from flipnet.nn.training.loop import check_points
from flipnet.nn.training.recipes import config_for


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "flip8.h5"
    values = write_tiny_dataset(path)
    return path, values


def config(tmp_path, data, model="conv1d", **overrides):
    tmp_path.mkdir(parents=True, exist_ok=True)
    settings = dict(data=str(data), bucket=0, epochs=4, batch=10, lr=0.01, eval_batch=0,
                    improvement_threshold=1.0, results_dir=str(tmp_path / "results"))
    settings.update(overrides)
    return config_for(model, **settings)


def quiet(*_):
    pass


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
def test_learns_the_length_8_game(tmp_path, tiny):
    """The network fits every training state (zero error) and the best-validation model
    generalizes far beyond the majority-class guess on the held-out states."""
    from flipnet.datasets.hdf5 import read_split
    from flipnet.nn.core.compile import Predictor
    from flipnet.nn.core.kinds import build

    data, values = tiny
    results = train(config(tmp_path, data, epochs=60, optimizer="adam", lr=0.01, batch=8), log=quiet)
    split = read_split(data, 0)
    final, _ = load_npz(tmp_path / "results" / "conv1d.ckpt.npz", "checkpoint")
    model = build("conv1d", 0, 1, 8)
    model.set_values({n: final[f"param/{n}"] for n in model.names})
    assert np.array_equal(Predictor(model)(split.train[0]), split.train[1])
    majority_error = 1 - np.bincount(split.test[1]).max() / split.test[1].size
    assert results["test_error"] < majority_error / 2
    best, meta = read_model(tmp_path / "results" / "conv1d.npz")
    assert meta["best_epoch"] == results["best_epoch"]
    assert np.mean(Predictor(best)(split.test[0]) != split.test[1]) == results["test_error"]


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
def test_results_json(tmp_path, tiny):
    data, values = tiny
    results = train(config(tmp_path, data, epochs=3), log=quiet)
    on_disk = json.loads((tmp_path / "results" / "conv1d.json").read_text())
    assert on_disk == results
    assert [c["epoch"] for c in results["curve"]] == [1, 2, 3]
    assert results["best_epoch"] == 1 + int(np.argmin([c["valid_error"] for c in results["curve"]]))
    assert results["valid_error"] == min(c["valid_error"] for c in results["curve"])
    n_test = results["sizes"]["test"]
    confusion = np.array(results["confusion"])
    assert confusion.sum() == n_test
    assert results["test_error"] == pytest.approx(1 - np.trace(confusion) / n_test)
    assert set(results) >= {"model", "config", "seed", "bucket", "sizes", "per_class_test_error",
                            "seconds", "seconds_per_epoch", "paper_protocol"}
    assert results["paper_protocol"] is False
    assert results["trained"]["commit"] and results["trained"]["cpu"]  # the code and CPU that made it


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
@pytest.mark.parametrize("settings", [
    {"optimizer": "momentum"},
    # the draws of the augmentation come from the checkpointed generator too
    {"optimizer": "adam", "weight_decay": 0.01, "augment": "symmetry", "tta": True, "shuffle": "epoch"},
    {"validate_every": 7},  # checks inside epochs, and the best model taken at one of them
])
def test_resume_continues_to_the_same_result(tmp_path, tiny, settings):
    data, _ = tiny
    straight = train(config(tmp_path / "a", data, epochs=6, **settings), log=quiet)
    train(config(tmp_path / "b", data, epochs=3, **settings), log=quiet)
    resumed = train(config(tmp_path / "b", data, epochs=6, **settings), resume=True, log=quiet)
    strip = lambda curve: [{k: v for k, v in c.items() if k != "seconds"} for c in curve]  # noqa: E731
    assert strip(resumed["curve"]) == strip(straight["curve"])
    a, _ = load_npz(tmp_path / "a" / "results" / "conv1d.npz")
    b, _ = load_npz(tmp_path / "b" / "results" / "conv1d.npz")
    assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
def test_ctrl_c_leaves_a_resumable_checkpoint(tmp_path, tiny, monkeypatch):
    data, _ = tiny
    real = interrupt_epochs_at(monkeypatch, 3)
    with pytest.raises(Interrupted, match="^interrupted after epoch 2; resume with --resume$"):
        train(config(tmp_path, data, epochs=5), log=quiet)
    assert not (tmp_path / "results" / "conv1d.json").exists()
    _, meta = load_npz(tmp_path / "results" / "conv1d.ckpt.npz", "checkpoint")
    assert meta["epoch"] == 2
    monkeypatch.setattr("flipnet.nn.paper.train.epoch_function", real)
    results = train(config(tmp_path, data, epochs=5), resume=True, log=quiet)
    assert results["epochs_run"] == 5


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
def test_resume_refuses_a_changed_config(tmp_path, tiny):
    data, _ = tiny
    train(config(tmp_path, data, epochs=2), log=quiet)
    with pytest.raises(FlipnetError, match="lr=0.01 \\(now 0.02\\).*drop --resume"):
        train(config(tmp_path, data, epochs=3, lr=0.02), resume=True, log=quiet)


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
def test_patience_stops_on_validation_only(tmp_path, tiny):
    data, _ = tiny
    results = train(config(tmp_path, data, epochs=50, lr=1e-6, patience=3), log=quiet)
    assert results["stopped_early"] and results["epochs_run"] == results["best_epoch"] + 3


def test_config_errors(tmp_path, tiny):
    data, _ = tiny
    with pytest.raises(FlipnetError, match="--lr must be a positive finite number"):
        config(tmp_path, data, lr=-1)
    with pytest.raises(FlipnetError, match="unknown optimizer 'rmsprop'"):
        config(tmp_path, data, optimizer="rmsprop")
    with pytest.raises(FlipnetError, match="unknown recipe 'big'"):
        config(tmp_path, data, model="big")
    with pytest.raises(FlipnetError, match="--batch 500 is larger than the"):
        train(config(tmp_path, data, batch=500), log=quiet)
    with pytest.raises(FlipnetError, match="none.h5 not found: give the path of a flipnet dataset"):
        train(config(tmp_path, tmp_path / "none.h5"), log=quiet)


@pytest.mark.slow
def test_numba_backend_trains(tmp_path, tiny):
    """The real path: PyTensor's default (Numba) linker, epoch compiled as one scan; with
    conv1d's own optimizer (SGD), so that its graph is the one test_interrupts.py's runs of
    the command compile, and a cold cache compiles it once for both."""
    data, _ = tiny
    results = train(config(tmp_path, data, epochs=3, lr=0.05), log=quiet)
    losses = [c["loss"] for c in results["curve"]]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
@pytest.mark.parametrize("shuffle", ["once", "epoch"])
def test_shuffle_once_keeps_one_order(tmp_path, tiny, monkeypatch, shuffle):
    data, _ = tiny
    real, seen = nn_compile.epoch_function, []

    def recording(model, optimizer):
        fn = real(model, optimizer)

        def epoch(states, labels, lr):
            seen.append(states.copy())
            return fn(states, labels, lr)
        return epoch

    monkeypatch.setattr("flipnet.nn.paper.train.epoch_function", recording)
    train(config(tmp_path, data, epochs=3, shuffle=shuffle), log=quiet)
    same = [np.array_equal(seen[0], s) for s in seen[1:]]
    assert all(same) if shuffle == "once" else not any(same)
    assert sorted(seen[0].ravel().tolist()) != seen[0].ravel().tolist()  # shuffled, not in state order


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
def test_an_epoch_in_chunks_makes_the_same_updates():
    from flipnet.nn.core import kinds as models
    from flipnet.nn.core import optim
    from flipnet.nn.core.compile import epoch_function, run_epoch

    rng = np.random.default_rng(3)
    states = rng.integers(0, 1 << 8, size=(7, 4)).astype(np.uint32)
    labels = rng.integers(0, 3, size=(7, 4))
    lr = np.float32(0.1)
    finals, losses = [], []
    for chunk in (7, 3):  # one call, then calls of 3 + 3 + 1 batches
        model = models.build("conv1d", 0, 1, 8)
        adam = optim.make("adam", model.params)
        losses.append(run_epoch(epoch_function(model, adam), states, labels, lr, chunk=chunk))
        finals.append(model.get_values())
    for name in finals[0]:
        np.testing.assert_allclose(finals[1][name], finals[0][name], rtol=1e-6, atol=1e-7)
    assert losses[1] == pytest.approx(losses[0], rel=1e-6)


@pytest.mark.parametrize("n_batches, every", [(10, 4), (10, 5), (10, 10), (7, 3), (5, 12)])
def test_check_points_count_minibatches_across_epochs(n_batches, every):
    for epoch in range(6):
        run_counts = range(epoch * n_batches + 1, (epoch + 1) * n_batches + 1)
        want = sorted({c - epoch * n_batches for c in run_counts if c % every == 0} | {n_batches})
        assert check_points(epoch, n_batches, every) == want
    assert check_points(3, n_batches, 0) == [n_batches]


@pytest.mark.slow
@pytest.mark.usefixtures("py_mode")
def test_validating_inside_epochs_keeps_the_best_check(tmp_path, tiny):
    """The same updates as a run that validates at epoch ends only; the best model is the
    one of the best check, wherever it fell."""
    data, _ = tiny
    plain = train(config(tmp_path / "a", data, epochs=4), log=quiet)
    checked = train(config(tmp_path / "b", data, epochs=4, validate_every=5), log=quiet)
    for a, b in zip(checked["curve"], plain["curve"]):
        assert a["valid_error"] == b["valid_error"] and a["loss"] == pytest.approx(b["loss"], rel=1e-6)
    checks = [c for entry in checked["curve"] for c in entry["checks"]]
    n_batches = checked["sizes"]["train"] // 10
    assert [c["at"] for c in checks] == [round(e + s / n_batches, 6) for e in range(4)
                                         for s in check_points(e, n_batches, 5)]
    best = min(checks, key=lambda c: c["valid_error"])  # the first of equals, as the trainer
    assert checked["valid_error"] == best["valid_error"] and checked["best_at"] == best["at"]
    assert checked["best_epoch"] == int(np.ceil(best["at"]))
    assert checked["valid_error"] <= plain["valid_error"]


def test_provenance_names_this_checkout_and_its_cpu():
    import subprocess

    from flipnet.base.provenance import provenance

    record = provenance()
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          cwd=Path(__file__).parents[1]).stdout.strip()
    assert record["commit"].split("+")[0] == head
    assert record["cpu"] and record["flipnet"]
