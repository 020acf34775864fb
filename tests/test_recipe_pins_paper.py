"""The models of record pinned (recipe_pins.py): the paper's networks and their fast recipes."""

import pytest
from recipe_pins import PAPER, check_pins, make_slices
from recipe_pins import KEPT

from flipnet.nn.training.recipes import RECIPES


@pytest.mark.slow
def test_the_paper_networks_are_pinned(tmp_path):
    check_pins(PAPER, make_slices(tmp_path / "slices"), tmp_path / "results")


def test_every_model_of_record_is_a_recipe_and_pinned():
    assert set(KEPT) <= set(RECIPES)
