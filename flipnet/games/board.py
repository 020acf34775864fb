"""Games on an R x C grid of cells, a state being an int with bit r*cols + c for cell (r, c).

Text form: one character per cell in bit order, '1' for a full cell and '0' for an
empty one, rows joined by '/'. `parse` and `format` are exact inverses.
"""

from flipnet.base.errors import BadInput

FULL, EMPTY = "1", "0"


class BoardGame:
    """Rules shared by every grid game: the encoding, move masks, legality.

    A move is the bitmask of the cells it clears. Subclasses list their masks in
    `_masks()`; everything else is common.
    """

    name = "board"
    rule = "normal"  # "normal": the last mover wins; "misere": the last mover loses
    default_shape = (1, 20)
    OPTIONS = ("shape",)  # what `games.make` may pass to configure (subclasses add theirs)
    MAX_CELLS = 4096  # far beyond anything solvable; bounds the memory of the move list

    def __init__(self, rows, cols):
        if not (isinstance(rows, int) and isinstance(cols, int)) or rows < 1 or cols < 1:
            raise BadInput(f"board shape must be at least 1x1, got {rows}x{cols}")
        if rows * cols > self.MAX_CELLS:
            raise BadInput(f"a {rows}x{cols} board has {rows * cols} cells; boards stop at "
                             f"{self.MAX_CELLS} cells")
        self.rows, self.cols = rows, cols
        self.move_masks = tuple(self._masks())

    @classmethod
    def configure(cls, shape=None, **options):
        """`shape`: (rows, cols), or text as the command line takes it ("5x5", "20")."""
        rows, cols = shape_argument(shape) if shape is not None else cls.default_shape
        return cls(rows, cols, **options)

    @classmethod
    def for_position(cls, text, **options):
        return cls.configure(shape=cls.shape_of(text), **options)

    def _masks(self):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.rows}, {self.cols})"

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash((type(self).__name__, self.rows, self.cols))

    @property
    def shape(self):
        return f"{self.rows}x{self.cols}"

    @property
    def n_cells(self):
        return self.rows * self.cols

    @property
    def start(self):
        """The full board."""
        return (1 << self.n_cells) - 1

    def bit(self, r, c):
        """The bit of cell (r, c), a Python int: `1 << bit` then holds all 64 bits of a
        board (a numpy int64 would wrap at the last cell)."""
        return int(r) * self.cols + int(c)

    def cells(self, mask):
        """The (row, col) cells of a bitmask, in bit order."""
        return [divmod(b, self.cols) for b in range(self.n_cells) if mask >> b & 1]

    def legal_moves(self, state):
        return [m for m in self.move_masks if state & m == m]

    def play(self, state, move):
        state, move = int(state), int(move)
        if move not in self.move_masks or state & move != move:
            raise BadInput(f"illegal move {self.format_move(move)} in {self.format(state)}")
        return state & ~move

    def is_over(self, state):
        return not self.legal_moves(state)

    def format(self, state):
        bits = "".join(FULL if state >> b & 1 else EMPTY for b in range(self.n_cells))
        return "/".join(bits[r * self.cols:(r + 1) * self.cols] for r in range(self.rows))

    def parse(self, text):
        """The state written as `text`; a ValueError names the first problem and its place."""
        rows = _split_rows(text)
        if len(rows) != self.rows:
            raise BadInput(f"{len(rows)} rows given, a {self.shape} board has {self.rows}")
        state = 0
        for r, row in enumerate(rows):
            if len(row) != self.cols:
                where = f"row {r + 1} has" if self.rows > 1 else "position has"
                raise BadInput(f"{where} {len(row)} cells, expected {self.cols}")
            for c, ch in enumerate(row):
                if ch == FULL:
                    state |= 1 << self.bit(r, c)
                elif ch != EMPTY:
                    raise BadInput(f"bad character {ch!r} at {_place(self.rows, r, c)}: "
                                     f"expected '{FULL}' or '{EMPTY}'")
        return state

    def format_move(self, move):
        """'r,c+r,c' for 2D boards, 'i+j' (cell indices) for one row."""
        cells = self.cells(move)
        if self.rows == 1:
            return "+".join(str(c) for _, c in cells)
        return "+".join(f"{r},{c}" for r, c in cells)

    def parse_move(self, text, state=None):
        """A move written as format_move writes it; with `state`, it must also be legal there."""
        try:
            cells = [tuple(int(x) for x in part.split(",")) for part in text.strip().split("+")]
            if self.rows == 1:
                cells = [(0,) + c if len(c) == 1 else c for c in cells]
            mask = 0
            for r, c in cells:
                if not (0 <= r < self.rows and 0 <= c < self.cols):
                    raise BadInput
                mask |= 1 << self.bit(r, c)
        except ValueError:
            raise BadInput(f"cannot read move {text.strip()!r}: write cells like "
                             f"{self.format_move(self.move_masks[0]) if self.move_masks else '0+1'}") from None
        if mask not in self.move_masks:
            raise BadInput(f"{text.strip()!r} is not a move of {self.name}")
        if state is not None and state & mask != mask:
            raise BadInput(f"{text.strip()!r} is not legal here: a cell is already empty")
        return mask

    def check_playable(self, state):
        """Every position of this game can be played move by move."""

    def parse_start(self, text):
        return self.parse(text)

    def describe_start(self, state):
        return self.format(state)

    def render(self, state):
        """The position as the console shows it: o for a full cell, . for an empty one."""
        columns = " ".join(str(c % 10) for c in range(self.cols))
        rows = [" ".join("o" if ch == FULL else "." for ch in row) for row in self.format(state).split("/")]
        if self.rows == 1:
            return f"  {rows[0]}\n  {columns}"
        return "\n".join([f"     {columns}"] + [f"  {r:>2} {row}" for r, row in enumerate(rows)])

    def move_hint(self, state):
        return "cells, e.g. 3+4" if self.rows == 1 else "cells as ROW,COL+ROW,COL+..., e.g. 0,0+0,1"

    @classmethod
    def shape_of(cls, text):
        """(rows, cols) of a text position, checking that every row has the same length."""
        rows = _split_rows(text)
        for r, row in enumerate(rows[1:], start=2):
            if len(row) != len(rows[0]):
                raise BadInput(f"row {r} has {len(row)} cells but row 1 has {len(rows[0])}")
        if not rows[0]:
            raise BadInput("empty position: write one '0' or '1' per cell")
        return len(rows), len(rows[0])


def _split_rows(text):
    if not isinstance(text, str):
        raise BadInput(f"a position is text, got {type(text).__name__}")
    return text.strip().split("/")


def _place(n_rows, r, c):
    return f"position {c + 1}" if n_rows == 1 else f"row {r + 1}, column {c + 1}"


def shape_argument(shape):
    """(rows, cols) from what a caller gave as a shape, refused in one line if it is neither
    a pair of whole numbers nor a shape's text."""
    if isinstance(shape, str):
        return parse_shape(shape)
    try:
        rows, cols = shape
    except (TypeError, ValueError):
        raise BadInput(f"shape is (rows, cols) or text like '5x5', not {shape!r}") from None
    return rows, cols


def parse_shape(text):
    """'5x5' -> (5, 5); a bare '20' means one row of 20."""
    try:
        parts = [int(p) for p in text.lower().split("x")]
    except ValueError:
        parts = []
    if len(parts) == 1:
        parts = [1] + parts
    if len(parts) != 2 or min(parts) < 1:
        raise BadInput(f"bad shape {text!r}: write ROWSxCOLS, e.g. 5x5 or 1x20")
    return tuple(parts)
