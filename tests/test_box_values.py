"""The endgame database's builder against the table DP, an independent computation (a
checkerboard split of the cells, one-hot words, whole layers at once), on every box
shape it is given: wide, square and tall, two to five rows."""

import numpy as np
import pytest

from flipnet.games import FlipGame
from flipnet.solve import table
from flipnet.solve.cram.box_values import fill_box_values
from flipnet.solve.cram.endgame import Endgame, unpacked


@pytest.mark.parametrize("h, w", [(2, 3), (2, 9), (3, 4), (3, 6), (4, 4), (4, 5), (5, 3), (5, 4)])
def test_every_position_of_a_box_has_the_table_dps_value(h, w):
    values = np.full(1 << (h * w - 1), 0xFF, np.uint8)  # nothing left unwritten: 15, no value of these boxes
    fill_box_values(values, h, w)
    assert np.array_equal(unpacked(values), table(FlipGame(h, w)))


def test_progress_counts_every_position_once_in_several_steps():
    seen = []
    fill_box_values(np.zeros(1 << 19, np.uint8), 4, 5, seen.append)
    assert sum(seen) == 1 << 20 and len(seen) > 5 and min(seen) > 0


def test_a_database_built_in_memory_reports_its_progress_to_the_end():
    reports = []
    endgame = Endgame.build(boxes=((2, 6), (3, 4)), progress=lambda done, total: reports.append((done, total)))
    assert reports[-1] == (2 * endgame.nbytes, 2 * endgame.nbytes)  # positions, two a byte
    assert [d for d, _ in reports] == sorted({d for d, _ in reports})  # rising, no step twice


@pytest.mark.parametrize("size, dtype, h, w, message", [
    (1 << 12, np.uint8, 3, 5, "a 3x5 box has 32768 positions, two a uint8"),
    (1 << 11, np.int64, 3, 4, "two a uint8"),
    (1 << 11, np.uint8, 3, 11, "at most 32 cells"),
    (1 << 4, np.uint8, 1, 4, "boxes need 2 or more rows"),
])
def test_a_wrong_array_or_box_is_refused_before_any_write(size, dtype, h, w, message):
    values = np.zeros(size, dtype)
    with pytest.raises(ValueError, match=message):
        fill_box_values(values, h, w)
    assert not values.any()


def test_a_nimber_past_four_bits_is_flagged_not_wrapped():
    """A nimber of 16 would wrap to 0 in four bits. Given options valued 0..15, the full
    2x9 position (whose vertical and lower-row moves leave positions of other blocks, not
    recomputed here) gets 16: the fill flags it."""
    from flipnet.solve.cram.box_values import _fill_blocks

    h, w = 2, 9
    full = (1 << (h * w)) - 1
    others = [full ^ (1 << c | 1 << (c + w)) for c in range(w)]  # vertical dominoes
    others += [full ^ (3 << (w + c)) for c in range(w - 1)]  # the lower row's horizontal ones
    values = np.zeros(1 << (h * w - 1), np.uint8)
    for nimber, p in enumerate(others[:16]):
        values[p >> 1] |= nimber << (4 * (p & 1))
    overflow = np.zeros(1, np.uint8)
    _fill_blocks(values, np.array([(1 << w) - 1]), h, w, overflow)  # the block whose last row is full
    assert overflow[0] == 1
    fill_box_values(values, h, w)  # from scratch: every true nimber fits, nothing is refused
    assert np.array_equal(unpacked(values), table(FlipGame(h, w)))


def test_the_largest_nimber_is_read_a_block_at_a_time_across_blocks():
    from flipnet.solve.cram.endgame import BLOCK_BYTES, _largest_nimber

    data = np.zeros(BLOCK_BYTES + 3, np.uint8)
    assert _largest_nimber(data) == 0
    data[BLOCK_BYTES + 1] = 0x70  # 7, the upper half of a byte in the second block
    data[5] = 0x05
    assert _largest_nimber(data) == 7 == int(unpacked(data).max())
