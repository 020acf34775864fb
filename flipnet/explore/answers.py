"""The explorer's answers, as JSON-ready dicts: what a position is worth (exact), what a
model says of it, and an agent's move. Each reads its request's fields, checks them
against the explorer's limits first, and calls the public API; nothing here writes a
file or reads a path a request names (models by name only)."""

import contextlib
import functools
import re

import numpy as np

from flipnet import games
from flipnet.games import registry
from flipnet.api.models import load_model, models
from flipnet.api.positions import value
from flipnet.base.errors import FlipnetError
from flipnet.solve.parts import groups
from flipnet.solve.position import searched, tabled

MAX_TEXT = 1000  # characters of a position's text
TABLE_CELLS = 20  # a board valued by a table of its full cells (grid Nim, misère flip): 2^20 states, under
# a second, so --limit holds (the table cannot stop midway; 25 full cells took 18 s)
MODEL_NAME = re.compile(r"[a-z0-9][a-z0-9_.+-]{0,79}")


def game_list():
    """What a page needs to offer each registered game (`/api/games`): its menu title,
    rules, opening position, how a position is written, its players and its page."""
    out = []
    for name, entry in registry.REGISTRY.items():
        pattern, words = entry.form
        out.append({"name": name, "title": entry.title, "about": entry.about, "start": entry.start,
                    "form": pattern, "form_words": words, "players": entry.players, "board": entry.board,
                    "limits": entry.limits, "rule_choice": entry.rule_choice, "page": entry.page})
    return out


def players():
    """{game: (agent, ...)}: the players each game offers here, best first."""
    return {name: tuple(registry.registration(name).players) for name in registry.names()}


def check_position(game, text, misere=None):
    """(game, state) of a request's position, or a one-line error naming the limit."""
    entry = registry.registration(game)  # an unknown game: one line naming those there are
    if not text or len(text) > MAX_TEXT:
        raise FlipnetError(f"a position is 1 to {MAX_TEXT} characters")
    board = games.for_position(game, text, misere=misere)
    state = board.parse(text)
    too_large = entry.too_large(board, state)
    if too_large:
        raise FlipnetError(too_large)
    if entry.board and tabled(board) and bin(state).count("1") > TABLE_CELLS:
        played = "misère " if board.rule == "misere" else ""
        raise FlipnetError(f"{played}{game} is valued here up to {TABLE_CELLS} full cells (a table of them), "
                           f"not {bin(state).count('1')}")
    return board, state


def _cells(board, mask):
    return [list(cell) for cell in board.cells(mask)]


# Full cells from which a position is answered in stages: below, one call values every move
# at once in milliseconds (random 7x7 boards of density 0.5: 1.4 ms median, 5.7 ms in stages)
STAGED_FROM = 30


def position(engine, game, text, misere=None, limit=None, share=None):
    """The exact value, winner, components and every move's value (best first). A flip
    board in normal play of more than STAGED_FROM full cells is answered in stages, each
    handed to `share` as it is known: the value and components first (the mirror rule
    answers a full 8x8 board at once), then every move with the value it leaves, null
    until its own search ends."""
    board, state = check_position(game, text, misere)
    staged = share is not None and isinstance(board, games.BoardGame) and searched(board) \
        and bin(state).count("1") > STAGED_FROM
    if not staged:
        result = value(text, game, misere=misere, moves="all", timeout=limit, engine=engine)
        out = _head(board, result)
        out["moves"] = [_move(board, state, board.parse_move(m.move, state), m.value) for m in result.moves]
        out["complete"] = True
        return out
    with engine.time_limit(limit) if limit is not None else contextlib.nullcontext():
        out = _head(board, value(text, game, misere=misere, moves=False, engine=engine))
        legal = board.legal_moves(state)
        out["moves"] = [_move(board, state, mask, None) for mask in legal]
        order = {entry["move"]: mask for entry, mask in zip(out["moves"], legal)}
        out["complete"] = False
        share(_best_first(out, order))
        for entry in out["moves"]:
            entry["value"] = value(entry["position"], game, misere=misere, moves=False, engine=engine).value
            share(_best_first(out, order))
    out["complete"] = True
    return _best_first(out, order)


def _head(board, result):
    """What a position's answer says before its moves: value, winner, board, components."""
    out = {"game": result.game, "rule": result.rule, "position": result.position, "value": result.value,
           "winner": result.winner}
    if isinstance(board, games.BoardGame):
        out.update(rows=board.rows, cols=board.cols)
    if result.components is not None:
        out["components"] = [{"cells": _cells(board, board.parse(c.position)), "value": c.value}
                             for c in result.components]
    return out


def _move(board, state, mask, leaves):
    """One move of an answer: its text, the position it leaves and that position's value."""
    entry = {"move": board.format_move(mask), "position": board.format(board.play(state, mask)), "value": leaves}
    if isinstance(board, games.BoardGame):
        entry["cells"] = _cells(board, mask)
    return entry


def _best_first(out, order):
    """A copy of the answer with its moves best first (the least value left, then the
    move's mask, `order`, as `flipnet.value` lists them), those not yet valued last."""
    moves = sorted(out["moves"], key=lambda m: (m["value"] is None, m["value"] or 0, order[m["move"]]))
    return {**out, "moves": [dict(m) for m in moves]}


def model_names(models_=None):
    """The flip models a request may name: those that ship and those trained here ("best"
    marks the one that name stands for). With `models_` (loaded here, once each), what each
    reads: any board (`size_free`) or its own, and whether it has one ply of lookahead."""
    from flipnet.base.shipped import canonical

    out = []
    for m in models():
        entry = {"name": m.name, "kind": m.kind, "board": m.board, "source": m.source,
                 "best": m.name == canonical("best"), "test_error": m.figures.get("test error")}
        if models_ is not None:
            try:
                network = models_.get(m.name).network
                entry.update(size_free=bool(network.size_free), one_ply=bool(network.values_shapes),
                             reads=_reach(network))
            except FlipnetError as e:  # a damaged file trained here: listed, with why it cannot be used
                entry["error"] = str(e)
        out.append(entry)
    return out


def _reach(network):
    """What a model reads, as its picker says: its own board, or (size-free) components
    whose box its frames hold, found by asking it for square boards of growing sides."""
    if not network.size_free:
        return f"{network.rows}x{network.cols} boards only"
    from flipnet.datasets.components import MAX_BOX

    side = 1
    while side < 16:
        try:
            network.for_board(side + 1, side + 1)
        except FlipnetError:
            break
        side += 1
    return (f"any board, component by component: each in a box of at most {min(MAX_BOX, side * side)} cells "
            f"and {side} a side")


def check_model_name(name, known=None):
    """A model is asked for by name only: never a path, never a file the request names.
    `known`: the names there are (default: read now)."""
    if not MODEL_NAME.fullmatch(name or "") or ".." in name or name.endswith((".npz", ".json", ".txt")):
        raise FlipnetError(f"models are asked for by name (flipnet models lists them), not {name[:80]!r}")
    known = known if known is not None else {m["name"] for m in model_names()} | {"best"}
    if name not in known:
        raise FlipnetError(f"no model named {name!r}: {', '.join(sorted(known))}")
    return name


class Models:
    """Models loaded once and kept, each answering one request at a time."""

    def __init__(self):
        import threading

        self._loaded, self._lock = {}, threading.Lock()
        self._names = set()  # the names there were when last read

    def get(self, name):
        if name not in self._loaded and name not in self._names:  # a model trained since: read the names again
            self._names = {m["name"] for m in model_names()} | {"best"}
        name = check_model_name(name, self._names)
        with self._lock:
            if name not in self._loaded:
                self._loaded[name] = load_model(name)
            return self._loaded[name]

    def lock(self):
        return self._lock


def network(models_, name, text, one_ply=False):
    """A model's value of the position and of each move's result, its distribution, and
    its components with whether training fixed each one's value. A size-free model that
    cannot read the whole board reads it component by component (`_by_component`)."""
    board, state = check_position("flip", text)
    model = models_.get(name)
    try:
        return _whole(models_, model, board, state, text, one_ply)
    except FlipnetError as refused:
        if not model.size_free:
            raise
        return _by_component(models_, model, board, state, text, one_ply, str(refused))


def _whole(models_, model, board, state, text, one_ply):
    children = [(mask, board.play(state, mask)) for mask in board.legal_moves(state)]
    texts = [text] + [board.format(after) for _, after in children]
    with models_.lock():
        predicted = model.predict(texts, one_ply=one_ply)
        probabilities = model.probabilities(text)
        parts = model.components(text)
    out = {"model": model.name, "kind": model.kind, "board": model.board, "size_free": model.size_free,
           "one_ply": bool(one_ply), "position": text, "value": int(predicted[0]),
           "probabilities": [round(float(p), 6) for p in probabilities],
           "moves": [{"move": board.format_move(mask), "value": int(v), "cells": _cells(board, mask)}
                     for (mask, _), v in zip(children, predicted[1:])]}
    if parts is not None:
        measured = error_by_size(model.name)
        out["components"] = []
        for p, v, known in parts:
            cells = _cells(board, board.parse(p))
            out["components"].append({"cells": cells, "value": v, "known": known,
                                      "new_shapes_of_its_size": measured.get(len(cells))})
    return out


def _by_component(models_, model, board, state, text, one_ply, refused):
    """What a size-free model says of a board it cannot read whole (a line past its
    frame, a component's box past its largest): each component alone, cut to its box. A
    component it cannot read has its reason and no value, and so has the position, and
    every move that leaves that component as it is; the rest have their values."""
    said = {}  # a component's box text -> (value, known, error)

    def of(cells):
        box = _box_text(cells)
        if box not in said:
            try:
                with models_.lock():
                    value = int(model.predict(box, one_ply=one_ply))
                    parts = model.components(box) or [(box, value, True)]
                said[box] = (value, all(known for _, _, known in parts), None)
            except FlipnetError as e:
                said[box] = (None, True, str(e))
        return said[box]

    def xor(parts):
        values = [of(cells)[0] for cells in parts]
        return None if None in values else functools.reduce(lambda a, b: a ^ b, values, 0)

    parts = _parts(board.cells(state))
    moves = []
    for mask in board.legal_moves(state):
        taken = set(board.cells(mask))
        hit = next(i for i, cells in enumerate(parts) if taken <= set(cells))
        left = parts[:hit] + parts[hit + 1:] + _parts([c for c in parts[hit] if c not in taken])
        moves.append({"move": board.format_move(mask), "value": xor(left), "cells": _cells(board, mask)})
    components = []
    for cells in parts:
        value, known, error = of(cells)
        components.append({"cells": [list(c) for c in sorted(cells)], "value": value, "known": known,
                           **({"error": error} if error else {})})
    return {"model": model.name, "kind": model.kind, "board": model.board, "size_free": True,
            "one_ply": bool(one_ply), "position": text, "value": xor(parts), "probabilities": None,
            "moves": moves, "components": components, "refused": refused, "by_component": True}


def _parts(cells):
    """The components of a set of full cells (`parts.groups` of two cells or more), each
    as its cells in order."""
    return sorted(sorted(group) for group in groups(map(tuple, cells)) if len(group) > 1)


def _box_text(cells):
    """The component alone on the board of its box, as text."""
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    rows, cols = max(r for r, _ in cells) - r0 + 1, max(c for _, c in cells) - c0 + 1
    grid = [["0"] * cols for _ in range(rows)]
    for r, c in cells:
        grid[r - r0][c - c0] = "1"
    return "/".join("".join(row) for row in grid)


@functools.lru_cache(maxsize=None)
def error_by_size(name):
    """{cells: {"error", "shapes", "board"}}: how often the model's network is wrong on
    shapes of that many cells its training never fixed, from `flipnet by-size` (its
    results files, shipped or made here); at each size the board with the most shapes.
    Read once a model, as the model itself is (`Models`), not at every request."""
    from flipnet.base.fields import Fields
    from flipnet.base.files import RESULTS_DIR, read_json
    from flipnet.base.shipped import RESULTS_SHIPPED

    out = {}
    for folder in (RESULTS_SHIPPED, RESULTS_DIR):
        for path in sorted(folder.glob(f"bysize-beyond-{name}-*.json")):
            data = Fields(read_json(path, "by-size results"), path)
            board = data.take("board", str)
            for i, entry in enumerate(data.take("sizes", list)):
                row = Fields(entry, path, f"sizes.{i}.")
                cells, shapes = row.take("cells", int), row.take("shapes", int)
                if shapes and shapes > out.get(cells, {}).get("shapes", 0):
                    out[cells] = {"error": row.take("network_error", float), "shapes": shapes, "board": board}
    return out


def check_move(game, text, agent, misere=None):
    """(game, state) of a request for an agent's move, or a one-line error."""
    board, state = check_position(game, text, misere)
    offered = registry.registration(game).players
    if agent not in offered:
        raise FlipnetError(f"the agents of {game} here: {', '.join(offered)}")
    if not board.legal_moves(state):
        raise FlipnetError("the game is over: no move is left")
    return board, state


def move(engine, models_, game, text, agent, model=None, seed=0, ply=0, misere=None, limit=None):
    """An agent's move from the position, and the position it leaves. The same seed and
    ply give the same move; the perfect player's search ends after `limit` seconds."""
    from flipnet.play.agents import NeuralFlip, make_agent

    board, state = check_move(game, text, agent, misere)
    if agent == "network":
        loaded = models_.get(model or "best")
        player = NeuralFlip(loaded.network)
        player.read_board(board)
    else:
        player = make_agent(agent, board, engine=engine)
    rng = np.random.default_rng([int(seed), int(ply)])
    limited = engine.time_limit(limit) if searched(board) else contextlib.nullcontext()
    with models_.lock() if agent == "network" else contextlib.nullcontext(), limited:
        chosen = player(board, state, rng)
    after = board.play(state, chosen)
    out = {"move": board.format_move(chosen), "position": board.format(after)}
    if isinstance(board, games.BoardGame):
        out["cells"] = _cells(board, chosen)
    return out
