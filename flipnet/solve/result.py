"""What an answer about a position holds: its value, winner and winning moves (`Result`),
each move with the position it leaves (`Move`), with its value (`MoveValue`), and a flip
position's components (`Component`). Shared by the theories (`position`) and the pieces
of a solve (`cram.pieces`); imports nothing of flipnet."""

from dataclasses import dataclass, field
from typing import NamedTuple


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
