"""Rules only: states, legal moves, text forms, console rendering. No solving here, and
nothing else of flipnet is imported.

`GAMES` maps a game's name to its class; `make(name, **options)` builds one, passing on
only the options that game takes (shape, heaps, misere, max_take).
"""

from flipnet.games.board import BoardGame, parse_shape
from flipnet.games.flip import FlipGame
from flipnet.games.gridnim import GridNim
from flipnet.games.halfnim import HalfNim
from flipnet.games.nim import Nim

GAMES = {cls.name: cls for cls in (FlipGame, GridNim, HalfNim, Nim)}

__all__ = ["GAMES", "BoardGame", "FlipGame", "GridNim", "HalfNim", "Nim", "make", "for_position",
           "parse_shape", "stuck_player_wins"]


def _game_class(name):
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose from {', '.join(GAMES)}")
    return GAMES[name]


def make(name, **options):
    """The game `name` with the options it takes; options set to None keep their defaults."""
    cls = _game_class(name)
    return cls.configure(**{k: v for k, v in options.items() if v is not None})


def for_position(name, text, **options):
    """The game `name` sized to fit a position written as text (a board's shape, Nim's heaps)."""
    cls = _game_class(name)
    return cls.for_position(text, **{k: v for k, v in options.items() if v is not None})


def stuck_player_wins(game):
    """Whether the player left without a move has won: under misere play the opponent
    took the last object and lost; under normal play the stuck player loses."""
    return game.rule == "misere"
