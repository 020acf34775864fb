"""Rules only: states, legal moves, text forms, console rendering. No solving here, and
nothing else of flipnet is imported but its errors (a bad position or move raises
`BadInput`, a user's error the CLI and the explorer report in one line).

Every game is registered once (`registry`: its rules, theory, players and limits) and
every layer reads the registry. `GAMES` maps a registered game's name to its rules class;
`make(name, **options)` builds one. A class lists the options it takes in `OPTIONS` (of
shape, heaps, misere, max_take); any other option given is refused by name, never passed
on or dropped in silence.
"""

from collections.abc import Mapping

from flipnet.base.errors import BadInput
from flipnet.games import flip, gridnim, halfnim, nim, registry
from flipnet.games.board import BoardGame, parse_shape
from flipnet.games.flip import FlipGame
from flipnet.games.gridnim import GridNim
from flipnet.games.halfnim import HalfNim
from flipnet.games.nim import Nim
from flipnet.games.registry import Registration, register, registered, registration

for _game in (flip, nim, halfnim, gridnim):  # the order of the explorer's menus
    register(_game.REGISTRATION)


class _Rules(Mapping):
    """name -> rules class of every registered game, read live: a game registered later
    is in it at once."""

    def __getitem__(self, name):
        return registry.REGISTRY[name].rules

    def __iter__(self):
        return iter(registry.REGISTRY)

    def __len__(self):
        return len(registry.REGISTRY)


GAMES = _Rules()

__all__ = ["GAMES", "BoardGame", "FlipGame", "GridNim", "HalfNim", "Nim", "Registration", "make",
           "for_position", "parse_shape", "register", "registered", "registration", "stuck_player_wins"]


def _game_class(name):
    return registration(name).rules


# how an option is named to the person who gave it (the command line's flags, less the dashes)
OPTION_NAMES = {"shape": "shape", "heaps": "heaps", "misere": "misere/normal", "max_take": "max-take"}


def make(name, **options):
    """The game `name` with the options it takes; options set to None keep their defaults."""
    cls = _game_class(name)
    return cls.configure(**_given(cls, options))


def for_position(name, text, **options):
    """The game `name` sized to fit a position written as text (a board's shape, Nim's heaps)."""
    cls = _game_class(name)
    return cls.for_position(text, **_given(cls, options))


def _given(cls, options):
    """The options set (not None), refused by name if the game does not take one."""
    given = {k: v for k, v in options.items() if v is not None}
    for option in given:
        if option not in cls.OPTIONS:
            takes = ", ".join(OPTION_NAMES.get(o, o) for o in cls.OPTIONS) or "none"
            raise BadInput(f"{cls.name} takes no {OPTION_NAMES.get(option, option)} option "
                             f"(its options: {takes})")
    return given


def stuck_player_wins(game):
    """Whether the player left without a move has won: under misere play the opponent
    took the last object and lost; under normal play the stuck player loses."""
    return game.rule == "misere"
