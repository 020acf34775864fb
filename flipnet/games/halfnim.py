"""The C++ NIM program's game: one pile of n; a move takes k blocks, 1 <= k <= n // 2.

A player facing a single block cannot move and loses (normal play). A state is n. The
original program plays piles of 2..127 (its network reads 7 bits): `start_range`.
"""

from flipnet.base.errors import BadInput
from flipnet.games.registry import Registration


class HalfNim:
    name = "halfnim"
    rule = "normal"
    start_range = (2, 127)  # the piles the original program lets a game start from
    start = 127
    OPTIONS = ()  # one rule, one pile
    MAX_DIGITS = 4000  # a bound on the text of a pile (the closed form takes any size)
    MAX_PLAY_PILE = 100_000  # every move is listed when a game is played: n // 2 of them

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
            raise BadInput(f"illegal move: take 1..{n // 2} from {n}, not {k}")
        return n - k

    def is_over(self, n):
        return n < 2

    def format(self, n):
        return str(n)

    def parse(self, text):
        """A pile size in plain digits (no sign, '_', spaces or exponent), bounded text."""
        text = str(text).strip()
        if not (text.isascii() and text.isdigit()):
            raise BadInput(f"a HalfNim position is a pile size in digits, not {text[:40]!r}")
        if len(text) > self.MAX_DIGITS:
            raise BadInput(f"a pile of {len(text)} digits; piles stop at {self.MAX_DIGITS} digits")
        n = int(text)
        if n < 1:
            raise BadInput(f"a pile holds at least 1 block, got {n}")
        return n

    def check_playable(self, state):
        """Refuse a pile too big to list its moves (its value needs no such bound)."""
        if state > self.MAX_PLAY_PILE:
            raise BadInput(f"a pile of {state} has {state // 2} moves; moves are listed for piles of at "
                           f"most {self.MAX_PLAY_PILE} (`flipnet value halfnim N --no-moves` answers any size)")

    def parse_start(self, text):
        """A starting pile, within the original program's range."""
        n = self.parse(text)
        low, high = self.start_range
        if not low <= n <= high:
            raise BadInput(f"a game starts from {low} to {high} blocks, not {n}")
        return n

    def format_move(self, k):
        return str(k)

    def parse_move(self, text, n=None):
        text = text.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > self.MAX_DIGITS:
            raise BadInput(f"not a number: {text[:40]!r}")
        k = int(text)
        if n is not None and not 1 <= k <= n // 2:
            raise BadInput(f"take between 1 and {n // 2}, not {k}")
        return k

    def describe_start(self, n):
        return f"n = {n}"

    def render(self, n):
        return f"{n} blocks remain"

    def move_hint(self, n):
        return f"take 1-{n // 2}"


EXPLORER_PILE = 1000  # the explorer lists every move: n // 2 of them


def _beyond_the_explorer(game, n):
    if n > EXPLORER_PILE and len(str(n)) > len(str(EXPLORER_PILE)):
        return f"a HalfNim pile here is a number from 1 to {EXPLORER_PILE}, not {str(n)[:20]!r}"
    if n > EXPLORER_PILE:
        return f"a HalfNim pile here holds at most {EXPLORER_PILE} blocks, not {n}"
    return None


REGISTRATION = Registration(
    rules=HalfNim, theory="flipnet.solve.position:HALFNIM", title="HalfNim (the NIM perceptron's game)",
    about="One pile: take from 1 to half of it (rounded down). Whoever faces a single block cannot move "
          "and loses; the lost piles are 2^j - 1.",
    start="9", form=(r"[0-9]{1,4}", "a pile size like 9"),
    players={"neural": "the NIM perceptron", "optimal": "the optimal player (the C++ DP)", "random": "a random player"},
    examples=(dict(),), too_large=_beyond_the_explorer, held_as="pile", limits={"objects": EXPLORER_PILE},
    console={"ai": "neural", "first": "ai", "ask_start": True, "describe_ai": "flipnet.play.console:halfnim_note"})
