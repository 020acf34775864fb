"""The models of record pinned (recipe_pins.py): the masked-convolution models on one core, from convmem2d
to the distillation of convmem2d-gated12."""

import pytest
from recipe_pins import CONVMEM, check_pins, make_slices


@pytest.mark.slow
def test_the_convmem_models_are_pinned(tmp_path, py_mode):
    check_pins(CONVMEM, make_slices(tmp_path / "slices"), tmp_path / "results")
