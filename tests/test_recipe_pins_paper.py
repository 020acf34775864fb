"""The models of record pinned (recipe_pins.py): the paper's networks and their fast recipes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from recipe_pins import KEPT, PAPER, PINS, check_pins, make_slices, pinned_run, same_weights, weights_fingerprint

from flipnet.nn.core.store import load_npz
from flipnet.nn.training.recipes import RECIPES, config_for


@pytest.mark.slow
def test_the_paper_networks_are_pinned(tmp_path, py_mode):
    check_pins(PAPER, make_slices(tmp_path / "slices"), tmp_path / "results")


def test_every_model_of_record_is_a_recipe_and_pinned():
    assert set(KEPT) <= set(RECIPES) and set(KEPT) == set(json.loads(PINS.read_text()))


OTHER_BLAS = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from recipe_pins import pinned_run, weights_fingerprint
from flipnet.nn.core.store import load_npz
print(json.dumps(weights_fingerprint(load_npz(pinned_run("mlp2d", Path(sys.argv[2]), Path(sys.argv[3])))[0])))
"""


@pytest.mark.slow
def test_a_pin_takes_another_cpus_rounding_and_not_a_change_of_behaviour(tmp_path):
    """mlp2d's pinned run on the Numba linker, here and with OpenBLAS's Sandy Bridge
    kernels, which sum in another order as another CPU's kernels do: other numbers, the
    same pin. With a learning rate 1% larger: not the pin."""
    slices = make_slices(tmp_path / "slices")
    pinned = json.loads(PINS.read_text())["mlp2d"]["weights"]
    here = weights_fingerprint(load_npz(pinned_run("mlp2d", slices, tmp_path / "here"))[0])
    other = subprocess.run([sys.executable, "-c", OTHER_BLAS, str(Path(__file__).parent), str(slices),
                            str(tmp_path / "other")], capture_output=True, text=True,
                           env={**os.environ, "OPENBLAS_CORETYPE": "Sandybridge"})
    assert other.returncode == 0, other.stderr
    other = json.loads(other.stdout.splitlines()[-1])
    assert other["projections"] != here["projections"]  # the kernels did round otherwise
    assert same_weights(here, pinned) and same_weights(other, pinned)
    faster = pinned_run("mlp2d", slices, tmp_path / "faster", lr=config_for("mlp2d").lr * 1.01)
    assert not same_weights(weights_fingerprint(load_npz(faster)[0]), pinned)
