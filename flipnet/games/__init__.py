"""Rules only: states, legal moves, text forms. No solving here."""

from flipnet.games.board import BoardGame, parse_shape
from flipnet.games.flip import FlipGame
from flipnet.games.gridnim import GridNim
from flipnet.games.halfnim import HalfNim
from flipnet.games.nim import Nim

__all__ = ["BoardGame", "FlipGame", "GridNim", "HalfNim", "Nim", "parse_shape", "stuck_player_wins"]


def stuck_player_wins(game):
    """Whether the player left without a move has won: under misere play the opponent
    took the last object and lost; under normal play the stuck player loses."""
    return game.rule == "misere"
