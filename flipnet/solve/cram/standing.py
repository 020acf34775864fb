"""Where a long solve stands: what its checkpoint proves of the board's value, read while
the solve goes on (each write is atomic) or after a stop, searching nothing.

A checkpoint keeps the facts of the largest components, those nearest the root: for a
board of one large component, its children. What they say of the board follows from the
mex. The value is at least m once children of every value below m are known, and it is
none of theirs; it is m once every child is shown not to be m (its value known, or m
among the values it was shown not to have). So for each component the search values, the
report gives every move (one for each set of symmetric ones), what is proven of the
position it leaves, the least value the component can have, and how far the question
that decides it ("is it m?") has come: a count of children settled, which a search's
bar of positions cannot give. The record of a solve in pieces (`pieces.py`) adds the
children it valued.
"""

import itertools

import numpy as np

from flipnet.base.errors import BadInput, DamagedFile
from flipnet.games.flip import FlipGame
from flipnet.solve.cram import search
from flipnet.solve.cram.checkpoint import Checkpoint, search_version
from flipnet.solve.cram.endgame import Endgame
from flipnet.solve.cram.limits import MIN_TABLE_LOG
from flipnet.solve.cram.solver import CramSolver
from flipnet.solve.cram.symmetry import canonical
from flipnet.solve.cram.wide import split_words
from flipnet.solve.kayles import dawson_kayles
from flipnet.solve.parts import components


def standing(path, board=None, settings=None):
    """{"board", "work", "facts", "same_search", "written_by", "database", "pieces",
    "components"} of the checkpoint at `path` (of `board`, if given: another board's file
    is refused in one line, as `value --checkpoint` refuses it). Each component: its
    "cells", "box" and place ("at"); its "value" where proven, else "at_least" (the value
    whose question is under way) and how many of its "children" are "settled" for it; and
    "moves": for each child up to symmetry, the moves that leave it and what is proven of
    it ("value", or "not": values it does not have). The pieces recorded count for a board
    of one component (its children are then the board's). `settings`: the engine's
    (`engine.Settings`): its endgame database and wide kernels read the facts."""
    checkpoint = Checkpoint(path, board, only_read=True)
    recorded = checkpoint.recorded_identity() or {}
    checkpoint.facts_identity = recorded  # read whatever search wrote them: `same_search` says which
    solver, facts = _solver_with_facts(checkpoint, recorded.get("mirror", True), settings)
    try:
        game = FlipGame.for_position(checkpoint.board)
        state = game.parse(checkpoint.board)
    except BadInput as exc:
        raise DamagedFile(f"checkpoint {path} is damaged (its board: {exc})") from None
    record = checkpoint.pieces()
    parts = components(game.cells(state), with_origin=True)
    return {"board": checkpoint.board, "work": checkpoint.work_before, "facts": facts,
            "same_search": recorded.get("search", search_version()) == search_version(),
            "written_by": checkpoint.recorded_writer(),
            "database": solver.endgame.box_names, "pieces": len(record),
            "components": [_component(solver, game, state, part, record if len(parts) == 1 else {})
                           for part in parts]}


def in_a_line(solver, bits, h, w):
    """Where the search of one component (bits on its h x w frame) stands, from what the
    solver's tables hold now, in a few words for its progress line: read between two runs
    of a question, when no kernel writes them (a checkpoint's pauses)."""
    part = _component(solver, FlipGame(h, w), int(bits), (bits, h, w, 0, 0), {})
    if "value" in part:
        return f"value {part['value']}"
    return f"value >= {part['at_least']}, {part['settled']}/{part['children']} children settled"


def _solver_with_facts(checkpoint, mirror, settings=None):
    """A solver of one worker holding the file's facts in tables sized to them, set as the
    engine's `settings`, the mirror rule as the solve had it, with the database this
    machine has (none if it has none: nothing is built); (solver, facts)."""
    (bits, _), (wide_bits, _) = checkpoint.read()
    wanted = settings is None or settings.endgame != "off"
    endgame = Endgame.load_or_build() if wanted and Endgame.is_built() else Endgame.empty()
    more = {} if settings is None else {"wide_from": settings.wide_from, "sets_up_to": settings.sets_up_to}
    solver = CramSolver(endgame, tt_log=_log_for(bits.size), progress=False, mirror=mirror, **more)
    solver.use_wide_table(_log_for(len(wide_bits)))
    facts = checkpoint.restore(solver.tt, solver.tt_log, solver.stats, solver.wide_tt, solver.wide_log)
    return solver, facts


def _log_for(facts):
    """A table four times the facts, so that restoring them loses none."""
    return max(MIN_TABLE_LOG, int(facts).bit_length() + 2)


def _component(solver, game, state, part, record):
    """`standing`'s entry of one component (`components`' frame with its place) of the
    board `state` of `game`; `record`: the pieces recorded, {child's text: its answer}."""
    bits, h, w, r0, c0 = part
    about = {"cells": h * w if min(h, w) == 1 else int(bits).bit_count(), "box": f"{h}x{w}", "at": [r0, c0]}
    if min(h, w) == 1:
        return {**about, "value": dawson_kayles(h * w), "by": "a line (Dawson's Kayles)"}
    own, moves = _facts(solver, bits, h, w)
    children = {}
    for (a, b), x, n, meta in moves:
        move = 1 << game.bit(r0 + a // w, c0 + a % w) | 1 << game.bit(r0 + b // w, c0 + b % w)
        child = canonical(game.format(game.play(state, move)))
        known = children.setdefault(child, {"moves": [], "value": None, "not": set()})
        known["moves"].append(game.format_move(move))
        if n == 0:
            known["value"] = int(x)
        elif n == 1:  # the child is its unknown part beside parts of XOR x
            known["not"] |= {e ^ int(x) for e in _excluded(meta)}
        if child in record:
            if "value" in record[child]:
                known["value"] = record[child]["value"]
            known["not"] |= set(record[child].get("not", ()))
    known_values = {c["value"] for c in children.values() if c["value"] is not None}
    own_value, ruled_out = _value(own), _excluded(own) | known_values
    least = next(v for v in itertools.count() if v not in known_values)  # the mex of the children known
    # the value is none of those ruled out, so at least the first above that is not: every
    # value below it is then a child's, known or not
    least = next(v for v in itertools.count(least) if v not in ruled_out)
    settled = sum(c["value"] is not None or least in c["not"] for c in children.values())
    about["moves"] = [{"moves": c["moves"], "value": c["value"]} if c["value"] is not None else
                      {"moves": c["moves"], "not": sorted(c["not"])} for c in children.values()]
    if own_value is None and settled == len(children):
        own_value = least  # at least `least`, and no child has it
    if own_value is not None:
        return {**about, "value": own_value, "children": len(children)}
    return {**about, "at_least": least, "settled": settled, "children": len(children)}


def _facts(solver, bits, h, w):
    """(its own meta word, [((a, b), x, n, meta)] of its dominoes) of a component
    (`search.facts_of_moves`)."""
    if solver.is_wide(h, w):
        lo, hi = split_words([bits])
        dominoes = search.wide_dominoes(lo[0], hi[0], h, w)
        kernel, args, ctx = search.wide_move_facts, (lo[0], hi[0], h, w), solver.wide_ctx_of(0)
    else:
        dominoes = search.dominoes(np.uint64(bits), h, w)
        kernel, args, ctx = search.facts_of_moves, (np.uint64(bits), h, w), solver.ctx
    x, n, meta = np.zeros(len(dominoes), np.int64), np.zeros(len(dominoes), np.int64), \
        np.zeros(len(dominoes), np.uint64)
    _, own = kernel(*args, x, n, meta, ctx)
    return own, list(zip(map(tuple, dominoes.tolist()), x.tolist(), n.tolist(), meta.tolist()))


def _value(meta):
    """The nimber a table entry's meta word holds, or None."""
    v = int(search.tt_value(np.uint64(meta)))
    return v if v >= 0 else None


def _excluded(meta):
    """The values a table entry's meta word shows its component not to have."""
    bits = int(search.tt_excluded(np.uint64(meta)))
    return {k for k in range(search.EXCLUDABLE) if bits >> k & 1}
