import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest
from conftest import interrupt_epochs_at, use_python_linker, write_tiny_dataset

from flipnet.cli import main

pytestmark = pytest.mark.usefixtures("py_mode")


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One run of `flipnet train` that the module's tests read (none writes beside it)."""
    where = tmp_path_factory.mktemp("cli_nn")
    data, results = where / "flip8.h5", where / "results"
    write_tiny_dataset(data)
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, redirect_stdout(out), redirect_stderr(err):
        use_python_linker(mp.setattr)
        code = main([str(a) for a in ("train", "conv1d", "--data", data, "--bucket", 0, "--epochs", 3,
                                      "--batch", 10, "--eval-batch", 0, "--optimizer", "adam", "--lr", 0.01,
                                      "--seed", 3, "--out", "tiny", "--results-dir", results)])
    assert code == 0, err.getvalue()
    assert "test error" in out.getvalue() and "tiny.json" in out.getvalue()
    return data, results


@pytest.mark.slow
def test_train_writes_results_with_the_flags(trained):
    _, results = trained
    data = json.loads((results / "tiny.json").read_text())
    assert data["config"]["optimizer"] == "adam" and data["config"]["epochs"] == 3
    assert data["seed"] == 3 and data["name"] == "tiny"


@pytest.mark.slow
def test_evaluate_prints_every_part(trained, capsys):
    _, results = trained
    code, out, _ = run(capsys, "evaluate", results / "tiny.npz")
    assert code == 0
    summary = json.loads((results / "tiny.json").read_text())
    test_line = next(line for line in out.splitlines() if line.strip().startswith("test"))
    assert f"{summary['test_error']:.4%}" in test_line
    assert "train" in out and "valid" in out


@pytest.mark.slow
def test_predict_one_position(trained, capsys):
    _, results = trained
    code, out, _ = run(capsys, "predict", results / "tiny.npz", "11011110")
    assert code == 0 and "predicted nim-value" in out and "true 3" in out  # G(2) ^ G(4) = 1 ^ 2


@pytest.mark.slow
def test_predict_reports_the_true_value(trained, capsys):
    from flipnet.solve.kayles import dawson_kayles

    _, results = trained
    for text in ("11111111", "10101010", "11011110"):
        code, out, _ = run(capsys, "predict", results / "tiny.npz", text)
        runs = [len(run) for run in text.split("0") if run]
        value = 0
        for k in runs:
            value ^= dawson_kayles(k)
        assert f"true {value} " in out


@pytest.mark.parametrize("argv, message", [
    (["train", "conv1d", "--lr", "-1"], "--lr must be a positive finite number, got -1.0"),
    (["train", "conv1d", "--optimizer", "rmsprop"], "invalid choice: 'rmsprop'"),
    (["train", "nope"], "unknown recipe 'nope'"),
    (["train", "conv1d", "--data", "/nonexistent.h5"], "/nonexistent.h5 not found"),
    (["train", "conv1d", "--epochs", "ten"], "invalid int value: 'ten'"),
    (["evaluate", "/nonexistent.npz"], "model file /nonexistent.npz not found"),
    (["predict", "/nonexistent.npz", "1111"], "model file /nonexistent.npz not found"),
])
def test_bad_input(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_predict_checks_the_position_length(trained, capsys):
    _, results = trained
    code, _, err = run(capsys, "predict", results / "tiny.npz", "1111")
    assert code == 2 and "position has 4 cells, expected 8" in err


def test_evaluate_rejects_a_foreign_file(tmp_path, capsys):
    bad = tmp_path / "x.npz"
    bad.write_text("not a zip")
    code, _, err = run(capsys, "evaluate", bad)
    assert code == 2 and "is not a flipnet model file" in err


@pytest.mark.slow
def test_arena_with_a_neural_flip_agent(trained, capsys):
    _, results = trained
    code, out, err = run(capsys, "arena", "flip", "--shape", "1x8", "--agents", "random,neural,optimal",
                         "--model", results / "tiny.npz", "--matches", 10, "--json")
    assert code == 0, err
    rates = json.loads(out)["win_rate"]
    assert set(rates["neural"]) == {"random", "optimal"}
    assert 0 <= rates["neural"]["random"] <= 1


@pytest.mark.slow
def test_neural_agent_refuses_another_board(trained, capsys):
    _, results = trained
    code, _, err = run(capsys, "arena", "flip", "--shape", "2x4", "--agents", "random,neural",
                       "--model", results / "tiny.npz", "--matches", 2)
    assert code == 2 and "the network reads 1x8 boards, not 2x4" in err


@pytest.mark.slow
def test_ctrl_c_during_train_exits_130_with_a_resume_hint(tmp_path, capsys, monkeypatch):
    data = tmp_path / "flip8.h5"
    write_tiny_dataset(data)
    interrupt_epochs_at(monkeypatch, 2)
    code, _, err = run(capsys, "train", "conv1d", "--data", data, "--bucket", 0, "--epochs", 5,
                       "--batch", 10, "--eval-batch", 0, "--results-dir", tmp_path / "r")
    assert code == 130 and err == "flipnet train: interrupted after epoch 1; resume with --resume\n"
