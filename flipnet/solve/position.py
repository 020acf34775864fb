"""One position of any game: its value, who wins, and the winning moves.

A game's registration (`games.registry`) names the theory object that values its
positions (its value and winning moves, every move's value, its components or none, the
largest board an optimal player can play through): flip by `Cram` (components, Kayles
lines, the Cram solver's search; misere play, which does not split, by the table), grid
Nim by `ByTable` (a table of the sub-game on the full cells), HalfNim and Nim by their
`ClosedForm`s. The functions below ask a game's theory; none branches on a game's name.
"""

import contextlib
import os
import sys
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from flipnet.base.errors import FlipnetError
from flipnet.games.registry import REGISTRY, named
from flipnet.solve.dp import MAX_TABLE_CELLS, induced_game, solve_states
from flipnet.solve.halfnim import halfnim_value, halfnim_winning_moves
from flipnet.solve.kayles import dawson_kayles, line_value_and_winning_moves
from flipnet.solve.nim import nim_outcome, nim_winning_moves


class Move(NamedTuple):
    """A move as the game writes it, and the position it leaves."""
    move: str
    position: str


class MoveValue(NamedTuple):
    """A move, the position it leaves and that position's value (0: the move wins)."""
    move: str
    position: str
    value: int


class Component(NamedTuple):
    """A connected part of a flip position (the rest emptied) and its nim-value."""
    position: str
    value: int


@dataclass
class Result:
    """What a position is worth: its `value`, `winner`, `winning_moves`, and where asked
    every move with the value it leaves (`moves`) and its `components` (flip)."""

    game: str
    rule: str
    position: str
    value: int  # the nim-value (normal play) or 1/0 for a win/loss of the player to move (misere)
    winning_moves: list = field(default_factory=list)  # [Move] that leave the opponent lost
    moves: list = None  # [MoveValue] of every legal move, best first (`analyse(..., moves="all")`)
    components: list = None  # [Component] of a flip position in normal play, whose values XOR to `value`

    @property
    def first_player_wins(self):
        """Whether the player to move wins with perfect play."""
        return self.value != 0

    @property
    def winner(self):
        """"first" (the player to move) or "second"."""
        return "first" if self.first_player_wins else "second"

    def to_json(self):
        """A JSON object (`flipnet value --json`): "nim_value" (misère: "win"), the moves
        and components as objects."""
        key = "nim_value" if self.rule == "normal" else "win"
        out = {
            "game": self.game,
            "rule": self.rule,
            "position": self.position,
            key: self.value,
            "first_player_wins": self.first_player_wins,
            "winning_moves": [{"move": m, "position": p} for m, p in self.winning_moves],
        }
        if self.moves is not None:
            out["moves"] = [{"move": m, "position": p, "value": v} for m, p, v in self.moves]
        if self.components is not None:
            out["components"] = [{"position": p, "value": v} for p, v in self.components]
        return out


def analyse(game, state, moves=True):
    """The position's value, its components (flip in normal play) and, with `moves`, its
    winning moves (True) or every legal move with the value it leaves ("all"), as text."""
    value, parts = value_and_components(game, state)
    analysis = Result(game.name, game.rule, game.format(state), int(value), components=parts)
    if moves == "all":
        valued = sorted(move_values(game, state), key=lambda mv: (mv[1], mv[0]))
        analysis.moves = [MoveValue(game.format_move(m), game.format(game.play(state, m)), int(v))
                          for m, v in valued]
        analysis.winning_moves = [Move(m, p) for m, p, v in analysis.moves if v == 0]
    elif moves:
        _, winning = value_and_winning_moves(game, state)
        analysis.winning_moves = [Move(game.format_move(m), game.format(game.play(state, m))) for m in winning]
    return analysis


def value_and_components(game, state):
    """(value, [Component] or None): a game whose theory splits a position (flip in normal
    play: its connected components, lines valued by Kayles) gives its parts; the others
    None."""
    theory = theory_of(game)
    parts = theory.components(game, state)
    if parts is None:
        return theory.value(game, state), None
    value = 0
    for _, v in parts:
        value ^= v
    return value, [Component(game.format(_mask(game, cells)), int(v)) for cells, v in parts]


def move_values(game, state):
    """[(move, value of the position it leaves)] for every legal move."""
    return theory_of(game).move_values(game, state)


def _runs(game, state):
    """The runs of full cells of a one-row or one-column board, as lists of cells (two
    cells or more)."""
    line = [(0, c) for c in range(game.cols)] if game.rows == 1 else [(r, 0) for r in range(game.rows)]
    runs, run = [], []
    for cell in line + [None]:
        if cell is not None and state >> game.bit(*cell) & 1:
            run.append(cell)
        else:
            if len(run) > 1:
                runs.append(run)
            run = []
    return runs


def _mask(game, cells):
    mask = 0
    for r, c in cells:
        mask |= 1 << game.bit(r, c)
    return mask


def value_and_winning_moves(game, state):
    """(value, [moves that leave the opponent lost]) with moves as the game writes them."""
    return theory_of(game).value_and_winning_moves(game, state)


def theory_of(game):
    """The theory that values the game's positions (its registration's)."""
    if game.name not in REGISTRY:
        raise FlipnetError(f"no theory for {game!r}: the game is not registered")
    return named(REGISTRY[game.name].theory)


def winning_moves(game, state):
    return value_and_winning_moves(game, state)[1]


# What a question asked of the search before the search was loaded (a small position
# never loads it): its workers, and the time limits still open, entered at its first use
_ASKED = {"workers": None, "limits": []}


def solver():
    """The shared Cram solver, imported at first use: it loads Numba (0.2-0.7 s), which no
    other answer here needs."""
    from flipnet.solve.cram import solver as shared

    search = shared()
    if _ASKED["workers"] is not None:
        search.use_workers(_ASKED["workers"])
        _ASKED["workers"] = None
    for limit in _ASKED["limits"]:
        if not limit["entered"]:
            limit["entered"] = True
            left = None if limit["seconds"] is None else limit["seconds"] - (time.perf_counter() - limit["since"])
            limit["stack"].enter_context(search.time_limit(left if left is None else max(left, 1e-3),
                                                           asked=limit["seconds"]))
    return search


def _search_loaded():
    return "flipnet.solve.cram" in sys.modules


def by_recursion(ask):
    """ask(answerer) by the plain recursion (`small`), which needs no Numba; None where a
    component is too large for it, or with FLIPNET_PLAIN=off (every position searched,
    `make bench`). No answer is None itself."""
    from flipnet.solve.small import Plain, TooLarge

    if os.environ.get("FLIPNET_PLAIN", "on") == "off":
        return None
    try:
        return ask(Plain())
    except TooLarge:
        return None


def exact(ask):
    """ask(answerer) of a flip position's cells: by the plain recursion when its components
    are small, else by the shared solver's search."""
    answer = by_recursion(ask)
    return ask(solver()) if answer is None else answer


def searched(game):
    """Whether the game's positions are valued by the Cram solver's search."""
    return game.name in REGISTRY and theory_of(game).searched(game)


def use_workers(game, workers):
    """Search this game's positions with `workers` threads (`CramSolver.use_workers`), at
    most the cores the process may use: more threads would only take turns on them, each
    searching ahead what the others may not need (on two cores, 4 threads took 12-13%
    longer than 2: docs/cram.md, step 8)."""
    from flipnet.base.cores import usable_cores

    workers = min(workers, usable_cores())
    if searched(game):
        if _search_loaded():
            solver().use_workers(workers)
        else:
            _ASKED["workers"] = workers


def use_checkpoint(checkpoint):
    """The shared solver keeps the facts of its searches in `checkpoint`
    (`cram.checkpoint.Checkpoint`), starting from those it holds."""
    solver().use_checkpoint(checkpoint)


def save_checkpoint():
    """Write the shared solver's checkpoint once more (a finished solve's facts, its value
    among them); (facts, bytes), or None where no search ran."""
    search = solver()
    if search.checkpoint is None or search.checkpoint.facts_identity is None:
        return None
    return search.save_checkpoint()


@contextlib.contextmanager
def time_limit(game, seconds):
    """One limit in seconds (None: none) for every search a question about this game's
    positions takes: the Cram solver's; the other games' positions, and small flip
    positions, are answered at once."""
    if not searched(game):
        yield
    elif _search_loaded():
        with solver().time_limit(seconds):
            yield
    else:
        with contextlib.ExitStack() as stack:
            limit = {"seconds": seconds, "since": time.perf_counter(), "stack": stack, "entered": False}
            _ASKED["limits"].append(limit)
            try:
                yield
            finally:
                _ASKED["limits"].remove(limit)


def value_of(game, state):
    """The value alone (for flip, one search instead of one per move)."""
    return theory_of(game).value(game, state)


class Theory:
    """How a game's positions are valued (a registration's `theory`). This one answers from
    `value_and_winning_moves` alone, each move's value by valuing the position it leaves."""

    def value_and_winning_moves(self, game, state):
        raise NotImplementedError

    def value(self, game, state):
        return self.value_and_winning_moves(game, state)[0]

    def components(self, game, state):
        """[(cells, value)] of the parts whose values XOR to the position's, or None: a
        game that does not split."""
        return None

    def move_values(self, game, state):
        game.check_playable(state)  # a player's bound on how many moves it lists
        return [(m, self.value(game, game.play(state, m))) for m in game.legal_moves(state)]

    def searched(self, game):
        """Whether the Cram solver's search values this game's positions."""
        return False

    def may_search(self, game):
        """Whether the game, under its rule, is one whose positions the Cram solver's search
        may value (some shapes; what a checkpoint or pieces of a solve are for)."""
        return False

    def reach(self, game):
        """(cells, why) of the largest board whose games an optimal player can play
        through, or None: any position is answered at once."""
        return None


class ClosedForm(Theory):
    """A closed form of (game, state) -> (value, winning moves): HalfNim, Nim."""

    def __init__(self, answer):
        self.answer = answer

    def value_and_winning_moves(self, game, state):
        return self.answer(game, state)


class ByTable(Theory):
    """A board position valued by a table of the game on its full cells only."""

    def value_and_winning_moves(self, game, state):
        return _by_table(game, state)

    def move_values(self, game, state):
        return _by_table(game, state, every_move=True)

    def reach(self, game):
        return MAX_TABLE_CELLS, f"{game.rule} play is solved by a table of the full cells"


class Cram(ByTable):
    """flip: in normal play the XOR of its components, a line by Dawson's Kayles' closed
    form (the study's 1D game loads no search), a board by the plain recursion or the Cram
    solver's search; in misère play, which does not split, by the table."""

    def searched(self, game):
        return game.rule == "normal" and min(game.rows, game.cols) > 1

    def may_search(self, game):
        return game.rule == "normal"

    def value_and_winning_moves(self, game, state):
        if game.rule == "misere":
            return super().value_and_winning_moves(game, state)
        if not self.searched(game):
            value, firsts = line_value_and_winning_moves(state, game.n_cells)
            return value, sorted((1 << i) | (1 << (i + 1)) for i in firsts)
        value, dominoes = exact(lambda answerer: answerer.winning_moves(game.cells(state)))
        return value, sorted(1 << game.bit(*a) | 1 << game.bit(*b) for a, b in dominoes)

    def value(self, game, state):
        if self.searched(game):  # one search, not one per move
            return exact(lambda answerer: answerer.value(game.cells(state)))
        return super().value(game, state)

    def components(self, game, state):
        if game.rule == "misere":
            return None
        if self.searched(game):
            return exact(lambda answerer: answerer.valued_components(game.cells(state)))
        return [(run, dawson_kayles(len(run))) for run in _runs(game, state)]

    def move_values(self, game, state):
        if game.rule == "misere":
            return super().move_values(game, state)
        if self.searched(game):
            _, valued = exact(lambda answerer: answerer.move_values(game.cells(state)))
            return [(1 << game.bit(*a) | 1 << game.bit(*b), v) for (a, b), v in valued]
        total = value_and_components(game, state)[0]
        out = []
        for run in _runs(game, state):
            rest = total ^ dawson_kayles(len(run))
            out += [(_mask(game, run[i:i + 2]), rest ^ dawson_kayles(i) ^ dawson_kayles(len(run) - 2 - i))
                    for i in range(len(run) - 1)]
        return out

    def reach(self, game):
        if game.rule == "misere":
            return super().reach(game)
        return FLIP_PLAY_CELLS, "the Cram solver answers boards up to 7x7 in minutes"


def _by_table(game, state, every_move=False):
    """Value of a board position by a table of the game on its full cells only, and its
    winning moves (or, `every_move`, every legal move with the value it leaves)."""
    cells, masks = induced_game(state, game.move_masks)
    if len(cells) > MAX_TABLE_CELLS:
        raise FlipnetError(f"{game.name} ({game.rule} play) positions are solved by a table of "
                           f"their full cells: {len(cells)} full cells is above the limit of "
                           f"{MAX_TABLE_CELLS}")
    values = solve_states(len(cells), masks, game.rule, threads=1)
    full = (1 << len(cells)) - 1
    legal = [(m, int(values[full & ~mi])) for m, mi in zip((m for m in game.move_masks if state & m == m), masks)]
    if every_move:
        return legal
    return values[full], [m for m, v in legal if v == 0]


def _halfnim(game, n):
    return halfnim_value(n), halfnim_winning_moves(n)


def _nim(game, heaps):
    return nim_outcome(heaps, game.misere), nim_winning_moves(heaps, game.misere)


# The theories the games' registrations name
CRAM, BY_TABLE, HALFNIM, NIM = Cram(), ByTable(), ClosedForm(_halfnim), ClosedForm(_nim)

# The largest flip board (full cells) whose games the optimal player can play through: the
# first moves of a full 7x7 board take minutes (docs/results.md), 8x8 is out of reach.
FLIP_PLAY_CELLS = 49


def check_reach(game):
    """Refuse at once a game whose positions the exact theory cannot value move after move
    (an optimal player would hang on its first turns)."""
    reach = theory_of(game).reach(game)
    if reach is None:
        return
    limit, how = reach
    if game.n_cells > limit:
        raise FlipnetError(f"a {game.shape} board has {game.n_cells} cells; a player that needs exact "
                           f"values plays boards of at most {limit} ({how})")
