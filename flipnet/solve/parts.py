"""A flip position's connected components, each on its own bounding box, in plain Python.

Both ways of valuing a component read them: the Numba search (`cram`) and the plain
recursion for small ones (`small`), which must not wait for Numba to load.
"""

from flipnet.base.errors import FlipnetError
from flipnet.solve.kayles import kayles_splits

WORD_CELLS = 64  # cells of the largest box whose positions are one 64-bit word (the one-word search, a batch)
MAX_FRAME = 2 * WORD_CELLS  # cells of a component's bounding box the search takes (two words)


def groups(cells):
    """The connected groups of cells (single cells too), as sets."""
    cells = set(cells)
    out = []
    while cells:
        stack = [cells.pop()]
        group = set(stack)
        while stack:
            r, c = stack.pop()
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb in cells:
                    cells.remove(nb)
                    group.add(nb)
                    stack.append(nb)
        out.append(group)
    return out


def components(cells, with_origin=False):
    """The connected components of two or more cells: (bits, h, w) on each one's bounding
    box (and its top-left cell with `with_origin`), cell (r, c) of the box at bit r * w + c.
    A component whose box exceeds MAX_FRAME cells is refused unless it is a straight run
    (Kayles' closed form values those)."""
    out = []
    for group in groups(cells):
        if len(group) < 2:
            continue
        r0, c0 = min(r for r, _ in group), min(c for _, c in group)
        h, w = max(r for r, _ in group) - r0 + 1, max(c for _, c in group) - c0 + 1
        if h * w > MAX_FRAME and min(h, w) > 1:
            raise FlipnetError(f"a component of {len(group)} cells spans {h}x{w}; the solver takes "
                               f"components whose box has at most {MAX_FRAME} cells")
        bits = 0 if h * w > MAX_FRAME else sum(1 << ((r - r0) * w + (c - c0)) for r, c in group)
        out.append((bits, h, w, r0, c0) if with_origin else (bits, h, w))
    out.sort()
    return out


def mirror_zero(cells):
    """Whether the mirror strategy proves the position 0, whatever its size: it is its own
    image under the half-turn of its bounding box, and no domino of it meets its own image
    (which only a domino across the centre does), so the second player answers every move
    by its image. The one-word search tests each component the same way first."""
    cells = set(cells)
    if not cells:
        return True
    rows, cols = [r for r, _ in cells], [c for _, c in cells]
    r_sum, c_sum = min(rows) + max(rows), min(cols) + max(cols)
    for r, c in cells:
        image = (r_sum - r, c_sum - c)
        if image not in cells:
            return False
        for other in ((r + 1, c), (r, c + 1)):
            # a domino meets its image where one cell is the other's image, or either is the centre
            if other in cells and (image in ((r, c), other) or (r_sum - other[0], c_sum - other[1]) == other):
                return False
    return True


def cells_of(bits, h, w, r0, c0):
    """The board cells of a component found by `components` (a straight run longer than a
    word has no bits: all of its box)."""
    if min(h, w) == 1 and h * w > MAX_FRAME:
        return [(r0 + i, c0) if h > 1 else (r0, c0 + i) for i in range(h * w)]
    return [(r0 + k // w, c0 + k % w) for k in range(h * w) if int(bits) >> k & 1]


def kayles_moves(h, w, r0, c0, target):
    """Winning dominoes of a straight run, by Kayles' values."""
    n = max(h, w)
    cells = [(r0 + i, c0) if h > 1 else (r0, c0 + i) for i in range(n)]
    return [(cells[i], cells[i + 1]) for i in kayles_splits(n, target)]


def box_dominoes(bits, h, w):
    """[(a, b)] bit pairs of the dominoes inside a component's box, a < b, in bit order of
    a, the horizontal one before the vertical one at the same a."""
    out = []
    for a in range(h * w):
        if bits >> a & 1:
            if (a + 1) % w and bits >> (a + 1) & 1:
                out.append((a, a + 1))
            if a + w < h * w and bits >> (a + w) & 1:
                out.append((a, a + w))
    return out


def widened(bits, h, w, width):
    """A position of an h x w frame (bit r * w + c) on a frame `width` columns wide."""
    row = (1 << w) - 1
    return sum(((bits >> (r * w)) & row) << (r * width) for r in range(h))


def transposed(bits, h, w):
    """A position of an h x w frame turned about its diagonal: on w x h, (r, c) -> (c, r)."""
    out = 0
    while bits:
        low = bits & -bits
        k = low.bit_length() - 1
        out |= 1 << ((k % w) * h + k // w)
        bits ^= low
    return out


def own_frame(bits, w):
    """(bits, h, w) of a group of cells given on a frame `w` columns wide, on its own
    bounding box."""
    top, bottom = ((bits & -bits).bit_length() - 1) // w, (bits.bit_length() - 1) // w
    row, columns = (1 << w) - 1, 0
    for r in range(top, bottom + 1):
        columns |= (bits >> (r * w)) & row
    left = (columns & -columns).bit_length() - 1
    width = columns.bit_length() - left
    keep = (1 << width) - 1
    own = sum(((bits >> (r * w + left)) & keep) << ((r - top) * width) for r in range(top, bottom + 1))
    return own, bottom - top + 1, width
