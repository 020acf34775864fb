"""A component's shape as the search keys it, for the layers above: its canonical form
under the rectangle's symmetries (`canonical`), its cells' neighbours and parts (`neighbours`,
`split`), and the packed key of its box (`packed_key`, `key_frame`, ...). The datasets group
positions by these shapes; they are the search's own Numba functions, so a dataset's shape
and the search's table entry are one key."""

from flipnet.solve.cram.bits import canonical, neighbours, split
from flipnet.solve.cram.keys import KEY_BITS, MAX_KEY_BOX, key_frame, key_sides, packed_key, shape_cols, shape_rows

__all__ = ["KEY_BITS", "MAX_KEY_BOX", "canonical", "key_frame", "key_sides", "neighbours", "packed_key", "shape_cols",
           "shape_rows", "split"]
