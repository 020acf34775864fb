"""One position of any game: its value, who wins, and the winning moves.

A game's registration (`games.registry`) names the theory object that values its
positions (its value and winning moves, every move's value, its components or none, the
largest board an optimal player can play through): flip by `Cram` (components, Kayles
lines, the Cram solver's search; misere play, which does not split, by the table), grid
Nim by `ByTable` (a table of the sub-game on the full cells), HalfNim and Nim by their
`ClosedForm`s. The functions below ask a game's theory; none branches on a game's name.
A theory that searches asks the `engine.Engine` it is given (`engine`): its settings and
tables are the caller's, none is kept here.
"""

from flipnet.base.errors import FlipnetError
from flipnet.games.registry import REGISTRY, check_fixed_masks, named
from flipnet.solve.dp import MAX_TABLE_CELLS, induced_game, solve_states
from flipnet.solve.halfnim import halfnim_value, halfnim_winning_moves
from flipnet.solve.kayles import dawson_kayles, line_value_and_winning_moves
from flipnet.solve.nim import nim_outcome, nim_winning_moves
from flipnet.solve.result import Component, Move, MoveValue, Result


def analyse(game, state, moves=True, engine=None):
    """The position's value, its components (flip in normal play) and, with `moves`, its
    winning moves (True) or every legal move with the value it leaves ("all"), as text.
    `engine`: the `Engine` a search asks (None: a new one, with the default settings)."""
    engine = _engine(engine)
    value, parts = value_and_components(game, state, engine)
    analysis = Result(game.name, game.rule, game.format(state), int(value), components=parts)
    if moves == "all":
        valued = sorted(move_values(game, state, engine), key=lambda mv: (mv[1], mv[0]))
        analysis.moves = [MoveValue(game.format_move(m), game.format(game.play(state, m)), int(v))
                          for m, v in valued]
        analysis.winning_moves = [Move(m, p) for m, p, v in analysis.moves if v == 0]
    elif moves:
        _, winning = value_and_winning_moves(game, state, engine)
        analysis.winning_moves = [Move(game.format_move(m), game.format(game.play(state, m))) for m in winning]
    return analysis


def _engine(engine):
    """The engine a question asks: the one given, else a new one with default settings."""
    if engine is None:
        from flipnet.solve.engine import Engine

        engine = Engine()
    return engine


def value_and_components(game, state, engine=None):
    """(value, [Component] or None): a game whose theory splits a position (flip in normal
    play: its connected components, lines valued by Kayles) gives its parts; the others
    None."""
    theory, engine = theory_of(game), _engine(engine)
    parts = theory.components(game, state, engine)
    if parts is None:
        return theory.value(game, state, engine), None
    value = 0
    for _, v in parts:
        value ^= v
    return value, [Component(game.format(_mask(game, cells)), int(v)) for cells, v in parts]


def move_values(game, state, engine=None):
    """[(move, value of the position it leaves)] for every legal move."""
    return theory_of(game).move_values(game, state, _engine(engine))


def _runs(game, state):
    """The runs of full cells of a one-row or one-column board, as lists of cells (two
    cells or more)."""
    line = [(0, c) for c in range(game.cols)] if game.rows == 1 else [(r, 0) for r in range(game.rows)]
    runs, run = [], []
    for cell in line + [None]:
        if cell is not None and state >> game.bit(*cell) & 1:
            run.append(cell)
        else:
            if len(run) > 1:
                runs.append(run)
            run = []
    return runs


def _mask(game, cells):
    mask = 0
    for r, c in cells:
        mask |= 1 << game.bit(r, c)
    return mask


def value_and_winning_moves(game, state, engine=None):
    """(value, [moves that leave the opponent lost]) with moves as the game writes them."""
    return theory_of(game).value_and_winning_moves(game, state, _engine(engine))


def theory_of(game):
    """The theory that values the game's positions (its registration's)."""
    if game.name not in REGISTRY:
        raise FlipnetError(f"no theory for {game!r}: the game is not registered")
    return named(REGISTRY[game.name].theory)


def winning_moves(game, state, engine=None):
    return value_and_winning_moves(game, state, engine)[1]


def searched(game):
    """Whether the game's positions are valued by the Cram solver's search."""
    return game.name in REGISTRY and theory_of(game).searched(game)


def tabled(game):
    """Whether the game's positions are valued from a table of their full cells."""
    return game.name in REGISTRY and theory_of(game).tabled(game)


def may_search(game):
    """Whether the game, under its rule, is one whose positions the search may value (what
    a checkpoint or the pieces of a solve are for)."""
    return game.name in REGISTRY and theory_of(game).may_search(game)


def value_of(game, state, engine=None):
    """The value alone (for flip, one search instead of one per move)."""
    return theory_of(game).value(game, state, _engine(engine))


class Theory:
    """How a game's positions are valued (a registration's `theory`). This one answers from
    `value_and_winning_moves` alone, each move's value by valuing the position it leaves.
    Each question takes the `engine.Engine` that a search would ask."""

    def value_and_winning_moves(self, game, state, engine):
        raise NotImplementedError

    def value(self, game, state, engine):
        return self.value_and_winning_moves(game, state, engine)[0]

    def components(self, game, state, engine):
        """[(cells, value)] of the parts whose values XOR to the position's, or None: a
        game that does not split."""
        return None

    def move_values(self, game, state, engine):
        game.check_playable(state)  # a player's bound on how many moves it lists
        return [(m, self.value(game, game.play(state, m), engine)) for m in game.legal_moves(state)]

    def searched(self, game):
        """Whether the Cram solver's search values this game's positions."""
        return False

    def may_search(self, game):
        """Whether the game, under its rule, is one whose positions the Cram solver's search
        may value (some shapes; what a checkpoint or pieces of a solve are for)."""
        return False

    def reach(self, game):
        """(cells, why) of the largest board whose games an optimal player can play
        through, or None: any position is answered at once."""
        return None

    def tabled(self, game):
        """Whether a position is valued from a table of all positions of its full cells
        (which bounds how many full cells a question may have)."""
        return False


class ClosedForm(Theory):
    """A closed form of (game, state) -> (value, winning moves): HalfNim, Nim."""

    def __init__(self, answer):
        self.answer = answer

    def value_and_winning_moves(self, game, state, engine):
        return self.answer(game, state)


class ByTable(Theory):
    """A board position valued by a table of the game on its full cells only."""

    def value_and_winning_moves(self, game, state, engine):
        return _by_table(game, state)

    def move_values(self, game, state, engine):
        return _by_table(game, state, every_move=True)

    def reach(self, game):
        return MAX_TABLE_CELLS, f"{game.rule} play is solved by a table of the full cells"

    def tabled(self, game):
        return True


class Cram(ByTable):
    """flip: in normal play the XOR of its components, a line by Dawson's Kayles' closed
    form (the study's 1D game loads no search), a board by the plain recursion or the Cram
    solver's search; in misère play, which does not split, by the table."""

    def searched(self, game):
        return game.rule == "normal" and min(game.rows, game.cols) > 1

    def may_search(self, game):
        return game.rule == "normal"

    def tabled(self, game):
        return game.rule == "misere"  # a line in normal play: Kayles' closed form, any length

    def value_and_winning_moves(self, game, state, engine):
        if game.rule == "misere":
            return super().value_and_winning_moves(game, state, engine)
        if not self.searched(game):
            value, firsts = line_value_and_winning_moves(state, game.n_cells)
            return value, sorted((1 << i) | (1 << (i + 1)) for i in firsts)
        value, dominoes = engine.exact(lambda answerer: answerer.winning_moves(game.cells(state)))
        return value, sorted(1 << game.bit(*a) | 1 << game.bit(*b) for a, b in dominoes)

    def value(self, game, state, engine):
        if self.searched(game):  # one search, not one per move
            return engine.exact(lambda answerer: answerer.value(game.cells(state)))
        return super().value(game, state, engine)

    def components(self, game, state, engine):
        if game.rule == "misere":
            return None
        if self.searched(game):
            return engine.exact(lambda answerer: answerer.valued_components(game.cells(state)))
        return [(run, dawson_kayles(len(run))) for run in _runs(game, state)]

    def move_values(self, game, state, engine):
        if game.rule == "misere":
            return super().move_values(game, state, engine)
        if self.searched(game):
            _, valued = engine.exact(lambda answerer: answerer.move_values(game.cells(state)))
            return [(1 << game.bit(*a) | 1 << game.bit(*b), v) for (a, b), v in valued]
        total = value_and_components(game, state, engine)[0]
        out = []
        for run in _runs(game, state):
            rest = total ^ dawson_kayles(len(run))
            out += [(_mask(game, run[i:i + 2]), rest ^ dawson_kayles(i) ^ dawson_kayles(len(run) - 2 - i))
                    for i in range(len(run) - 1)]
        return out

    def reach(self, game):
        if game.rule == "misere":
            return super().reach(game)
        return FLIP_PLAY_CELLS, "the Cram solver answers boards up to 7x7 in minutes"


def _by_table(game, state, every_move=False):
    """Value of a board position by a table of the game on its full cells only, and its
    winning moves (or, `every_move`, every legal move with the value it leaves)."""
    check_fixed_masks(game, "a table of its full cells")
    cells, masks = induced_game(state, game.move_masks)
    if len(cells) > MAX_TABLE_CELLS:
        raise FlipnetError(f"{game.name} ({game.rule} play) positions are solved by a table of "
                           f"their full cells: {len(cells)} full cells is above the limit of "
                           f"{MAX_TABLE_CELLS}")
    values = solve_states(len(cells), masks, game.rule, threads=1)
    full = (1 << len(cells)) - 1
    legal = [(m, int(values[full & ~mi])) for m, mi in zip((m for m in game.move_masks if state & m == m), masks)]
    if every_move:
        return legal
    return values[full], [m for m, v in legal if v == 0]


def _halfnim(game, n):
    return halfnim_value(n), halfnim_winning_moves(n)


def _nim(game, heaps):
    return nim_outcome(heaps, game.misere), nim_winning_moves(heaps, game.misere)


# The theories the games' registrations name
CRAM, BY_TABLE, HALFNIM, NIM = Cram(), ByTable(), ClosedForm(_halfnim), ClosedForm(_nim)

# The largest flip board (full cells) whose games the optimal player can play through: the
# first moves of a full 7x7 board take minutes (docs/results.md), 8x8 is out of reach.
FLIP_PLAY_CELLS = 49


def check_reach(game):
    """Refuse at once a game whose positions the exact theory cannot value move after move
    (an optimal player would hang on its first turns)."""
    reach = theory_of(game).reach(game)
    if reach is None:
        return
    limit, how = reach
    if game.n_cells > limit:
        raise FlipnetError(f"a {game.shape} board has {game.n_cells} cells; a player that needs exact "
                           f"values plays boards of at most {limit} ({how})")


class Recursion(Theory):
    """Any game by the mex of its own moves, each position's value remembered (a game whose
    moves are not fixed masks, such as Node Kayles on a small board): for small positions,
    at most RECURSION_POSITIONS of them a question."""

    def value_and_winning_moves(self, game, state, engine):
        memo = {}
        value = _mex_value(game, state, memo)
        return value, [m for m in game.legal_moves(state) if _mex_value(game, game.play(state, m), memo) == 0]

    def value(self, game, state, engine):
        return _mex_value(game, state, {})


RECURSION_POSITIONS = 200_000  # positions one question may value by `Recursion`


def _mex_value(game, state, memo):
    """The Grundy value of `state` by the game's own moves (misère: 1 for a win of the
    player to move, 0 for a loss), iteratively, remembering each position in `memo`."""
    stack = [state]
    while stack:
        top = stack[-1]
        if top in memo:
            stack.pop()
            continue
        children = [game.play(top, m) for m in game.legal_moves(top)]
        waiting = [child for child in children if child not in memo]
        if waiting:
            if len(memo) + len(stack) > RECURSION_POSITIONS:
                raise FlipnetError(f"{game.name}: {game.format(state)} has more than {RECURSION_POSITIONS:,} "
                                   f"positions below it, past what its recursion values")
            stack.extend(waiting)
            continue
        values = {memo[child] for child in children}
        stack.pop()
        if game.rule == "misere":
            memo[top] = int(not children or 0 in values)
        else:
            memo[top] = next(v for v in range(len(values) + 1) if v not in values)
    return memo[state]


RECURSION = Recursion()  # the theory a registration may name: "flipnet.solve.position:RECURSION"
