"""The C++ NIM program's game: one pile of n; a move takes k blocks, 1 <= k <= n // 2.

A player facing a single block cannot move and loses (normal play). A state is n. The
original program plays piles of 2..127 (its network reads 7 bits): `start_range`.
"""


class HalfNim:
    name = "halfnim"
    rule = "normal"
    start_range = (2, 127)  # the piles the original program lets a game start from
    start = 127
    OPTIONS = ()  # one rule, one pile

    def __repr__(self):
        return "HalfNim()"

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash("HalfNim")

    @classmethod
    def configure(cls):
        return cls()

    @classmethod
    def for_position(cls, text):
        return cls()

    def legal_moves(self, n):
        return list(range(1, n // 2 + 1))

    def play(self, n, k):
        if not 1 <= k <= n // 2:
            raise ValueError(f"illegal move: take 1..{n // 2} from {n}, not {k}")
        return n - k

    def is_over(self, n):
        return n < 2

    def format(self, n):
        return str(n)

    def parse(self, text):
        try:
            n = int(str(text).strip())
        except ValueError:
            raise ValueError(f"a HalfNim position is a pile size, not {str(text).strip()!r}") from None
        if n < 1:
            raise ValueError(f"a pile holds at least 1 block, got {n}")
        return n

    def check_playable(self, state):
        """Every position of this game can be played move by move."""

    def parse_start(self, text):
        """A starting pile, within the original program's range."""
        n = self.parse(text)
        low, high = self.start_range
        if not low <= n <= high:
            raise ValueError(f"a game starts from {low} to {high} blocks, not {n}")
        return n

    def format_move(self, k):
        return str(k)

    def parse_move(self, text, n=None):
        try:
            k = int(text.strip())
        except ValueError:
            raise ValueError(f"not a number: {text.strip()!r}") from None
        if n is not None and not 1 <= k <= n // 2:
            raise ValueError(f"take between 1 and {n // 2}, not {k}")
        return k

    def describe_start(self, n):
        return f"n = {n}"

    def render(self, n):
        return f"{n} blocks remain"

    def move_hint(self, n):
        return f"take 1-{n // 2}"
