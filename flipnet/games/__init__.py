"""Rules only: states, legal moves, text forms. No solving here."""

from flipnet.games.board import BoardGame, parse_shape
from flipnet.games.flip import FlipGame
from flipnet.games.gridnim import GridNim
from flipnet.games.halfnim import HalfNim
from flipnet.games.nim import Nim

__all__ = ["BoardGame", "FlipGame", "GridNim", "HalfNim", "Nim", "parse_shape"]
