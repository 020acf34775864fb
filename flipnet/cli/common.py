"""What several of the command line's stages share: the games offered and the rule flags."""

from flipnet import games


def game_names():
    """The registered games, read when a parser is built: a new game is offered at once."""
    return games.registry.names()


def board_game_names():
    """The registered games whose moves are fixed sets of cells (`moves="masks"`): those
    `flipnet solve` tabulates."""
    return tuple(name for name in game_names() if games.registration(name).moves == "masks")


def rule_options(p):
    p.add_argument("--misere", action="store_true", default=None,
                   help="the last mover loses (grid Nim's default)")
    p.add_argument("--normal", dest="misere", action="store_false",
                   help="the last mover wins (flip's and Nim's default)")
    p.add_argument("--max-take", type=int, default=None, help="gridnim: stones per move at most (3)")


def engine_from_environment():
    """A command's exact engine (`flipnet.Engine`), its settings read here, where the
    program starts, from the environment (FLIPNET_ENDGAME, FLIPNET_MIRROR, ...)."""
    import os

    from flipnet.api.positions import Engine, EngineSettings

    return Engine(EngineSettings.from_environment(os.environ))
