"""One position of any game: its value, who wins, and the winning moves.

`THEORIES` says how each game (by name) is valued: flip positions of any size by the
Cram solver (`cram`: components, Kayles lines, search), flip lines (the 1D game) by
Dawson's Kayles alone, with no search to load, grid Nim and misere flip by a
table of the sub-game on the full cells (misere play does not split into components),
HalfNim and Nim by their closed forms. Adding a game adds one line here.
"""

import contextlib
from dataclasses import dataclass, field

from flipnet.base.errors import FlipnetError
from flipnet.solve.dp import MAX_TABLE_CELLS, induced_game, solve_states
from flipnet.solve.halfnim import halfnim_value, halfnim_winning_moves
from flipnet.solve.kayles import line_value_and_winning_moves
from flipnet.solve.nim import nim_outcome, nim_winning_moves


@dataclass
class Analysis:
    game: str
    rule: str
    position: str
    value: int  # the nim-value (normal play) or 1/0 for a win/loss of the player to move (misere)
    winning_moves: list = field(default_factory=list)  # [(move text, resulting position text)]

    @property
    def first_player_wins(self):
        return self.value != 0

    def to_json(self):
        key = "nim_value" if self.rule == "normal" else "win"
        return {
            "game": self.game,
            "rule": self.rule,
            "position": self.position,
            key: self.value,
            "first_player_wins": self.first_player_wins,
            "winning_moves": [{"move": m, "position": p} for m, p in self.winning_moves],
        }


def analyse(game, state, moves=True):
    """The position's value and (with `moves`) its winning moves, as text."""
    if not moves:
        return Analysis(game.name, game.rule, game.format(state), int(value_of(game, state)))
    value, moves = value_and_winning_moves(game, state)
    return Analysis(game.name, game.rule, game.format(state), int(value),
                    [(game.format_move(m), game.format(game.play(state, m))) for m in moves])


def value_and_winning_moves(game, state):
    """(value, [moves that leave the opponent lost]) with moves as the game writes them."""
    if game.name not in THEORIES:
        raise FlipnetError(f"no theory for {game!r}")
    return THEORIES[game.name](game, state)


def winning_moves(game, state):
    return value_and_winning_moves(game, state)[1]


def solver():
    """The shared Cram solver, imported at first use: it loads Numba (0.4 s), which no
    other answer here needs."""
    from flipnet.solve.cram import solver as shared

    return shared()


def searched(game):
    """Whether the game's positions are valued by the Cram solver's search."""
    return game.name == "flip" and game.rule == "normal" and min(game.rows, game.cols) > 1


def use_workers(game, workers):
    """Search this game's positions with 1 or 2 workers (`CramSolver.use_workers`)."""
    if searched(game):
        solver().use_workers(workers)


def time_limit(game, seconds):
    """One limit in seconds (None: none) for every search a question about this game's
    positions takes: the Cram solver's; the other games' positions are answered at once."""
    return solver().time_limit(seconds) if searched(game) else contextlib.nullcontext()


def value_of(game, state):
    """The value alone (for flip, one search instead of one per move)."""
    if searched(game):
        return solver().value(game.cells(state))
    return value_and_winning_moves(game, state)[0]


def _flip(game, state):
    if game.rule == "misere":
        return _by_table(game, state)
    if not searched(game):  # a line (the study's 1D game): Kayles' closed form
        value, firsts = line_value_and_winning_moves(state, game.n_cells)
        return value, sorted((1 << i) | (1 << (i + 1)) for i in firsts)
    value, dominoes = solver().winning_moves(game.cells(state))
    return value, sorted(1 << game.bit(*a) | 1 << game.bit(*b) for a, b in dominoes)


def _by_table(game, state):
    """Value of a board position by a table of the game on its full cells only."""
    cells, masks = induced_game(state, game.move_masks)
    if len(cells) > MAX_TABLE_CELLS:
        raise FlipnetError(f"{game.name} ({game.rule} play) positions are solved by a table of "
                           f"their full cells: {len(cells)} full cells is above the limit of "
                           f"{MAX_TABLE_CELLS}")
    values = solve_states(len(cells), masks, game.rule, threads=1)
    full = (1 << len(cells)) - 1
    moves = [m for m, mi in zip((m for m in game.move_masks if state & m == m), masks)
             if values[full & ~mi] == 0]
    return values[full], moves


def _halfnim(game, n):
    return halfnim_value(n), halfnim_winning_moves(n)


def _nim(game, heaps):
    return nim_outcome(heaps, game.misere), nim_winning_moves(heaps, game.misere)


THEORIES = {"flip": _flip, "gridnim": _by_table, "halfnim": _halfnim, "nim": _nim}

# The largest flip board (full cells) whose games the optimal player can play through: the
# first moves of a full 7x7 board take minutes (docs/results.md), 8x8 is out of reach.
FLIP_PLAY_CELLS = 49


def check_reach(game):
    """Refuse at once a game whose positions the exact theory cannot value move after move
    (an optimal player would hang on its first turns)."""
    if game.name == "flip" and game.rule == "normal":
        limit, how = FLIP_PLAY_CELLS, "the Cram solver answers boards up to 7x7 in minutes"
    elif game.name in ("flip", "gridnim"):
        limit, how = MAX_TABLE_CELLS, f"{game.rule} play is solved by a table of the full cells"
    else:
        return
    if game.n_cells > limit:
        raise FlipnetError(f"a {game.shape} board has {game.n_cells} cells; a player that needs exact "
                           f"values plays boards of at most {limit} ({how})")
