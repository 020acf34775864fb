"""Multi-heap Nim: take any positive number from one heap. Normal play (the last mover
wins) or misere (the last mover loses). A state is a tuple of heap sizes; a move is
(heap index, count)."""

from flipnet.base.errors import BadInput
from flipnet.games.registry import Registration


class Nim:
    name = "nim"
    MAX_HEAPS = 10_000  # bounds on the text a position may take, not on the theory
    MAX_DIGITS = 4000
    MAX_PLAY_OBJECTS = 1000  # players list every move: a game of N objects lists up to N^2
    OPTIONS = ("heaps", "misere")

    def __init__(self, heaps=(1, 3, 5, 7, 9), misere=False):
        heaps = tuple(heaps)
        if not heaps or any(not isinstance(h, int) or h < 0 for h in heaps):
            raise BadInput(f"heaps must be non-negative integers, got {heaps}")
        self.heaps = heaps
        self.misere = misere
        self.rule = "misere" if misere else "normal"

    def __repr__(self):
        return f"Nim({self.heaps}, misere={self.misere})"

    def __eq__(self, other):
        return type(self) is type(other) and (self.heaps, self.misere) == (other.heaps, other.misere)

    def __hash__(self):
        return hash(("Nim", self.heaps, self.misere))

    @classmethod
    def configure(cls, heaps=None, misere=False):
        return cls(cls.parse(heaps) if isinstance(heaps, str) else heaps or (1, 3, 5, 7, 9), misere)

    @classmethod
    def for_position(cls, text, misere=False):
        return cls(cls.parse(text), misere)

    @property
    def start(self):
        return self.heaps

    def check_playable(self, state):
        """Refuse a position too big to play move by move (values need no such bound)."""
        if sum(state) > self.MAX_PLAY_OBJECTS:
            raise BadInput(f"the heaps hold {sum(state)} objects; games are played with at most "
                             f"{self.MAX_PLAY_OBJECTS} (`flipnet value nim` answers any size)")

    def legal_moves(self, state):
        """Every move, one per heap and count: only for heaps small enough to list."""
        return [(i, k) for i, h in enumerate(state) for k in range(1, h + 1)]

    def play(self, state, move):
        i, k = move
        if not (0 <= i < len(state) and 1 <= k <= state[i]):
            raise BadInput(f"illegal move: take {k} from heap {i + 1} of {self.format(state)}")
        return state[:i] + (state[i] - k,) + state[i + 1:]

    def is_over(self, state):
        return not any(state)

    def format(self, state):
        return ",".join(str(h) for h in state)

    @staticmethod
    def parse(text):
        """Heap sizes written as '1,3,5'; any size (the theory needs only XOR), bounded text."""
        parts = str(text).strip().split(",")
        if len(parts) > Nim.MAX_HEAPS:
            raise BadInput(f"{len(parts)} heaps given; positions stop at {Nim.MAX_HEAPS} heaps")
        heaps = []
        for i, part in enumerate(parts, start=1):
            part = part.strip()
            digits = part[1:] if part.startswith("-") else part
            if not (digits.isascii() and digits.isdigit()):  # no '1e9', '0x..', '1.5'
                raise BadInput(f"heap {i} is {part!r}, not a number")
            if len(digits) > Nim.MAX_DIGITS:
                raise BadInput(f"heap {i} has {len(digits)} digits; heaps stop at {Nim.MAX_DIGITS}")
            if part.startswith("-"):
                raise BadInput(f"heap {i} is negative ({part})")
            heaps.append(int(digits))
        return tuple(heaps)

    def format_move(self, move):
        i, k = move
        return f"{k}@{i + 1}"

    def parse_move(self, text, state=None):
        """'k@h': take k from heap h (heaps counted from 1)."""
        try:
            k, h = (int(x) for x in text.strip().split("@"))
        except ValueError:
            raise BadInput(f"cannot read move {text.strip()!r}: write COUNT@HEAP, e.g. 2@3") from None
        move = (h - 1, k)
        if state is not None:
            if not 1 <= h <= len(state):
                raise BadInput(f"there is no heap {h}: heaps are 1..{len(state)}")
            if not 1 <= k <= state[h - 1]:
                raise BadInput(f"heap {h} holds {state[h - 1]}: take 1..{state[h - 1]}, not {k}")
        return move

    def parse_start(self, text):
        return self.parse(text)

    def describe_start(self, state):
        return self.format(state)

    def render(self, state):
        return "\n".join(f"  heap {i + 1}: {'|' * h if h <= 60 else '|' * 60 + '...'} ({h})"
                         for i, h in enumerate(state))

    def move_hint(self, state):
        return "COUNT@HEAP, e.g. 2@3"


EXPLORER_HEAPS, EXPLORER_OBJECTS = 20, 1000  # the explorer lists every move (the console's bound)


def _beyond_the_explorer(game, state):
    if len(state) > EXPLORER_HEAPS or sum(state) > EXPLORER_OBJECTS:
        return f"Nim here has at most {EXPLORER_HEAPS} heaps and {EXPLORER_OBJECTS} objects"
    return None


REGISTRATION = Registration(
    rules=Nim, theory="flipnet.solve.position:NIM", title="Nim (heaps)",
    about="Take any number of objects from one heap. Normal play: whoever takes the last object wins; "
          "misère: loses. Moves are written COUNT@HEAP, the heaps counted from 1 at the left.",
    start="1,3,5,7,9", form=(r"[0-9]{1,4}(,[0-9]{1,4}){0,19}", "heap sizes like 1,3,5"),
    players={"optimal": "the optimal player", "student-es": "the student's evolution strategy",
             "feature-es": "flipnet's evolved policy", "nonzero-nimsum": "the course template's optimal",
             "random-row": "the course template's random player"},
    examples=(dict(heaps="1,3,5"), dict(heaps="2,2,3", misere=True)),
    too_large=_beyond_the_explorer, rule_choice=True, held_as="heaps",
    limits={"heaps": EXPLORER_HEAPS, "objects": EXPLORER_OBJECTS})
