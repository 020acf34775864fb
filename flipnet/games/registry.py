"""Every game flipnet knows, registered once with what each layer reads of it: the rules
(`games.make`), the theory that values its positions (`solve`), the players and limits a
page offers (`explore`), the small configurations the conformance test plays. The CLI's
choices, the API's names, the explorer's menus and the tests all read this registry, so
a game registered here is offered everywhere at once and nowhere else names it.

A game's registration sits in its rules file (`REGISTRATION` at its end); a program may
register one of its own with `register` (in the manner of OpenSpiel's game registry).
"""

import contextlib
import importlib
import re
from dataclasses import dataclass, field
from typing import Callable

from flipnet.base.errors import BadInput
from flipnet.games.board import BoardGame


@dataclass(frozen=True)
class Registration:
    """What each layer needs to know of one game."""

    rules: type  # its rules: `name`, `OPTIONS`, text forms and moves (the games' protocol)
    # the object that values its positions (a `solve.position.Theory`), or "module:attribute"
    # naming one, read at its first use: a theory lives above the rules, which may not import it
    theory: object
    title: str  # how a menu names it
    about: str  # its rules in a sentence or two, for a person
    start: str  # the position a page opens with
    form: tuple  # (a regular expression every position's text matches, how to write one)
    players: dict  # agent name -> how a page names it: the players offered, best first
    examples: tuple  # small configurations (options of `games.make`) the conformance test plays
    # (game, state) -> why the explorer will not answer a position this large, or None
    too_large: Callable = field(default=lambda game, state: None)
    limits: dict = field(default_factory=dict)  # the bounds of `too_large` a page checks as a person types
    rule_choice: bool = False  # whether a page offers both normal and misère play
    # how a program may hold a position besides its text (`flipnet.value`): "cells" (rows of
    # 0/1), "heaps" (a list of sizes), "pile" (a whole number), or "text" only
    held_as: str = "text"
    # how `flipnet play` plays it when the user does not say (of "ai", "first", "ask_start" and
    # "describe_ai": "module:attribute" of a function of the match, printed beside the AI's move)
    console: dict = field(default_factory=dict)
    page: str = "games"  # the explorer's page that shows it: "games", or "board" (flip's own)
    # How its moves are made: "masks", a board game whose moves each clear a fixed set of
    # cells (`move_masks`), legal where they are all full (what a table of every state, a
    # `ByTable` theory and `flipnet solve` need); "rules", any other (its own `legal_moves`, `play`)
    moves: str = "rules"
    # Whether a position's value is the XOR of its connected parts' (flip in normal play):
    # a theory may give its `components`, and the conformance test checks they XOR to it
    splits: bool = False

    @property
    def name(self):
        return self.rules.name

    def __post_init__(self):
        if self.moves not in MOVES:
            raise BadInput(f"a registration's moves are one of {', '.join(MOVES)}, not {self.moves!r}")
        if self.moves == "masks" and not self.board:
            raise BadInput(f"{self.name}: moves='masks' is for a board game (`games.BoardGame`)")

    @property
    def board(self):
        """Whether a position is a board of cells (`games.BoardGame`)."""
        return issubclass(self.rules, BoardGame)


REGISTRY = {}  # name -> Registration, in the order registered
MOVES = ("masks", "rules")  # how a registration's moves are made (`Registration.moves`)


def fixed_masks(game):
    """Whether `game`'s moves are fixed masks of cells, as its registration declares (an
    unregistered board game: by its class's own masks, as flipnet's boards are)."""
    registered = REGISTRY.get(game.name)
    return registered.moves == "masks" if registered is not None else isinstance(game, BoardGame)


def check_fixed_masks(game, why="a table of every state"):
    """Refuse at once a game whose moves are not fixed masks of cells: `why` needs them."""
    if not fixed_masks(game):
        raise BadInput(f"{game.name}'s moves are not fixed sets of cells (its registration says moves="
                       f"{REGISTRY[game.name].moves!r}): {why} cannot value it")


def register(registration):
    """Offer a game everywhere: a name taken already is refused."""
    name = registration.name
    if name in REGISTRY:
        raise BadInput(f"a game named {name!r} is registered already")
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,31}", name):
        raise BadInput(f"a game's name is lower-case letters, digits and '-', not {name!r}")
    REGISTRY[name] = registration
    return registration


def unregister(name):
    REGISTRY.pop(name, None)


@contextlib.contextmanager
def registered(registration):
    """A game offered for the length of a `with` block (a test's, or a notebook's)."""
    register(registration)
    try:
        yield registration
    finally:
        unregister(registration.name)


def registration(name):
    """A game's registration, or a one-line error naming the games there are."""
    if name not in REGISTRY:
        raise BadInput(f"unknown game {name!r}: choose from {', '.join(REGISTRY)}")
    return REGISTRY[name]


def named(thing):
    """`thing`, or the object it names as "module:attribute" (a registration's theory or
    console note, which live above the rules and are read at their first use)."""
    if not isinstance(thing, str):
        return thing
    module, _, attribute = thing.partition(":")
    return getattr(importlib.import_module(module), attribute)


def names():
    """The registered games' names, sorted (the CLI's choices)."""
    return tuple(sorted(REGISTRY))
