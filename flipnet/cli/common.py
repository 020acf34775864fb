"""What several of the command line's stages share: the games offered and the rule flags."""

from flipnet import games


GAME_NAMES = tuple(sorted(games.GAMES))  # the games' registry, read: a new game is offered at once


def rule_options(p):
    p.add_argument("--misere", action="store_true", default=None,
                   help="the last mover loses (grid Nim's default)")
    p.add_argument("--normal", dest="misere", action="store_false",
                   help="the last mover wins (flip's and Nim's default)")
    p.add_argument("--max-take", type=int, default=None, help="gridnim: stones per move at most (3)")
