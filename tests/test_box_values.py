"""The endgame database's builder against the table DP, an independent computation (a
checkerboard split of the cells, one-hot words, whole layers at once), on every box
shape it is given: wide, square and tall, two to five rows."""

import numpy as np
import pytest

from flipnet.games import FlipGame
from flipnet.solve import table
from flipnet.solve.cram.box_values import fill_box_values
from flipnet.solve.cram.endgame import Endgame


@pytest.mark.parametrize("h, w", [(2, 3), (2, 9), (3, 4), (3, 6), (4, 4), (4, 5), (5, 3), (5, 4)])
def test_every_position_of_a_box_has_the_table_dps_value(h, w):
    values = np.full(1 << (h * w), 99, np.uint8)  # nothing left unwritten
    fill_box_values(values, h, w)
    assert np.array_equal(values, table(FlipGame(h, w)))


def test_progress_counts_every_position_once_in_several_steps():
    seen = []
    fill_box_values(np.zeros(1 << 20, np.uint8), 4, 5, seen.append)
    assert sum(seen) == 1 << 20 and len(seen) > 5 and min(seen) > 0


def test_a_database_built_in_memory_reports_its_progress_to_the_end():
    reports = []
    endgame = Endgame.build(boxes=((2, 6), (3, 4)), progress=lambda done, total: reports.append((done, total)))
    assert reports[-1] == (endgame.nbytes, endgame.nbytes)
    assert [d for d, _ in reports] == sorted({d for d, _ in reports})  # rising, no step twice


@pytest.mark.parametrize("size, dtype, h, w, message", [
    (1 << 12, np.uint8, 3, 5, "a 3x5 box has 32768 positions, one uint8 each"),
    (1 << 12, np.int64, 3, 4, "one uint8 each"),
    (1 << 4, np.uint8, 1, 4, "boxes need 2 or more rows"),
])
def test_a_wrong_array_or_box_is_refused_before_any_write(size, dtype, h, w, message):
    values = np.zeros(size, dtype)
    with pytest.raises(ValueError, match=message):
        fill_box_values(values, h, w)
    assert not values.any()
