"""The models of record pinned (recipe_pins.py): the XOR networks and the lookup baseline."""

import pytest
from recipe_pins import XOR, check_pins, make_slices


@pytest.mark.slow
def test_the_xor_models_are_pinned(tmp_path, py_mode):
    check_pins(XOR, make_slices(tmp_path / "slices"), tmp_path / "results")
