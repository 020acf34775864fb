"""FLIPNET_FLOAT=float64: the same training in double precision (read at import, so each
run is its own process)."""

import json
import os
import subprocess

import numpy as np
import pytest

pytestmark = pytest.mark.slow
from cli_cases import PYTHON_LINKER
from conftest import write_tiny_dataset

from flipnet.nn.core.store import load_npz

TRAIN = ["train", "conv1d", "--bucket", "0", "--epochs", "2", "--batch", "10", "--lr", "0.05",
         "--seed", "5", "--validate-every", "0", "--eval-batch", "0"]


def flipnet(float_type, *args):
    """The command on PyTensor's Python linker (`PYTHON_LINKER`): neither a Numba compile
    nor the C code of FAST_COMPILE, which a cold cache pays for in half a minute of g++ a
    precision; the precision is what differs, not the linker."""
    env = {**os.environ, "FLIPNET_FLOAT": float_type, "FLIPNET_PROGRESS": "0"}
    return subprocess.run([*PYTHON_LINKER, *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "flip8.h5"
    write_tiny_dataset(path)
    return path


def test_float64_trains_the_same_network_in_double(tmp_path, data):
    runs = {}
    for float_type in ("float32", "float64"):
        out = tmp_path / float_type
        proc = flipnet(float_type, *TRAIN, "--data", str(data), "--results-dir", str(out))
        assert proc.returncode == 0, proc.stderr
        arrays, _ = load_npz(out / "conv1d.npz", "model")
        runs[float_type] = json.loads((out / "conv1d.json").read_text()), arrays
    (single, single_params), (double, double_params) = runs["float32"], runs["float64"]
    assert single["backend"]["floatX"] == "float32" and double["backend"]["floatX"] == "float64"
    assert {a.dtype for a in single_params.values()} == {np.dtype("float32")}
    assert {a.dtype for a in double_params.values()} == {np.dtype("float64")}
    # Same initial weights, order and updates: only rounding (and the float32 tanh's
    # rational form) separates the two, so after two epochs the runs still agree closely.
    assert [c["loss"] for c in double["curve"]] == pytest.approx(
        [c["loss"] for c in single["curve"]], rel=1e-4)
    for name, value in single_params.items():
        np.testing.assert_allclose(double_params[name], value, rtol=1e-3, atol=1e-4)


def test_unknown_float_is_a_one_line_error(data):
    proc = flipnet("float16", *TRAIN, "--data", str(data))
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("flipnet train: error: FLIPNET_FLOAT must be float32 or float64, "
                                   "got 'float16'")


def test_resume_refuses_a_checkpoint_of_the_other_precision(tmp_path, data):
    out = str(tmp_path / "results")
    assert flipnet("float32", *TRAIN, "--data", str(data), "--results-dir", out).returncode == 0
    proc = flipnet("float64", *TRAIN, "--epochs", "3", "--data", str(data), "--results-dir", out,
                   "--resume")
    assert proc.returncode == 2
    assert "conv1d.ckpt.npz was made in float32, this run is in float64" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
