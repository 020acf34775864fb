"""One position of any game: its value, who wins, and the winning moves.

Flip positions of any size go through `decompose`; grid Nim through a table of the
sub-game on its full cells (misere play does not split into groups); HalfNim and Nim
through their closed forms.
"""

from dataclasses import dataclass, field

from flipnet.decompose import position_value, row_value, row_winning_moves, winning_dominoes
from flipnet.errors import FlipnetError
from flipnet.games import FlipGame, GridNim, HalfNim, Nim
from flipnet.solve import MAX_TABLE_CELLS, halfnim_value, induced_game, solve_states


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


def analyse(game, state):
    value, moves = value_and_winning_moves(game, state)
    return Analysis(game.name, game.rule, game.format(state), int(value),
                    [(game.format_move(m), game.format(game.play(state, m))) for m in moves])


def value_and_winning_moves(game, state):
    """(value, [moves that leave the opponent lost]) with moves as the game writes them."""
    if isinstance(game, FlipGame):
        return _flip(game, state)
    if isinstance(game, GridNim):
        return _board_by_table(game, state)
    if isinstance(game, HalfNim):
        return halfnim_value(state), _halfnim_winning_moves(state)
    if isinstance(game, Nim):
        moves = [m for m in game.legal_moves(state) if not nim_outcome(game.play(state, m), game.misere)]
        return nim_outcome(state, game.misere), moves
    raise FlipnetError(f"no analysis for {game!r}")


def nim_outcome(heaps, misere=False):
    """Normal play: the nim-sum. Misere: 1 if the player to move wins, else 0.

    Misere Nim is won like normal Nim while some heap holds 2 or more; when every heap
    holds at most 1, the player to move wins iff the number of 1-heaps is even.
    """
    nim_sum = 0
    for h in heaps:
        nim_sum ^= h
    if not misere:
        return nim_sum
    if max(heaps, default=0) <= 1:
        return int(sum(heaps) % 2 == 0)
    return int(nim_sum != 0)


def _flip(game, state):
    if game.rows == 1:
        bits = [state >> c & 1 for c in range(game.cols)]
        value = row_value(bits)
        moves = [1 << i | 1 << (i + 1) for i in row_winning_moves(bits)]
        return value, moves
    cells = game.cells(state)
    value = position_value(cells)
    moves = [1 << game.bit(*a) | 1 << game.bit(*b) for a, b in winning_dominoes(cells)]
    return value, sorted(moves)


def _board_by_table(game, state):
    cells, masks = induced_game(state, game.move_masks)
    if len(cells) > MAX_TABLE_CELLS:
        raise FlipnetError(f"{game.name} positions are solved by a table of their full cells: "
                           f"{len(cells)} full cells is above the limit of {MAX_TABLE_CELLS}")
    values = solve_states(len(cells), masks, game.rule, threads=1)
    full = (1 << len(cells)) - 1
    win_value = values[full]
    moves = [m for m, mi in zip((m for m in game.move_masks if state & m == m), masks)
             if values[full & ~mi] == 0]
    return win_value, moves


def _halfnim_winning_moves(n):
    """The moves to a pile 2^j - 1 (the losing piles), without walking n // 2 moves."""
    return [n - (2 ** j - 1) for j in range(1, n.bit_length() + 1) if 1 <= n - (2 ** j - 1) <= n // 2]
