"""The models of record pinned (recipe_pins.py): the best model's chain, each step on two processes."""

import pytest
from recipe_pins import CONVMEM_TWO_CORES, check_pins, make_slices


@pytest.mark.slow
def test_the_best_models_chain_is_pinned(tmp_path, py_mode):
    check_pins(CONVMEM_TWO_CORES, make_slices(tmp_path / "slices"), tmp_path / "results")
