"""Boards of 64 cells use every bit of a position, the last one too: values and winning
moves of random positions on 8x8, 4x16, 2x32 and 1x64 boards against an independent
recursion (flood-filled components, each valued by a memoised mex over its dominoes),
through the library and through the command; and the other paths that hold a position
(parsing, formatting, moves, the component split of the datasets, the optimal agent)."""

import json
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest
from cli_cases import environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flipnet import games
from flipnet.datasets.components import Components
from flipnet.play.agents import optimal_agent
from flipnet.solve import analyse

SHAPES = ((8, 8), (4, 16), (2, 32), (1, 64))


def flood_components(cells):
    cells, out = set(cells), []
    while cells:
        stack = [cells.pop()]
        group = set(stack)
        while stack:
            r, c = stack.pop()
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb in cells:
                    cells.remove(nb)
                    group.add(nb)
                    stack.append(nb)
        out.append(group)
    return out


@lru_cache(maxsize=None)
def component_value(cells):
    """The nimber of a connected set of cells (a frozenset, moved to the origin)."""
    options = set()
    for r, c in cells:
        for nb in ((r + 1, c), (r, c + 1)):
            if nb in cells:
                options.add(position_value(cells - {(r, c), nb}))
    value = 0
    while value in options:
        value += 1
    return value


def position_value(cells):
    value = 0
    for group in flood_components(cells):
        r0, c0 = min(r for r, _ in group), min(c for _, c in group)
        value ^= component_value(frozenset((r - r0, c - c0) for r, c in group))
    return value


def independent_answer(cells):
    """(value, the positions after each winning move, as sets of cells)."""
    cells = frozenset(cells)
    after = [cells - {(r, c), nb} for r, c in cells for nb in ((r + 1, c), (r, c + 1)) if nb in cells]
    return position_value(cells), sorted(sorted(a) for a in after if position_value(a) == 0)


def random_cells(rows, cols, seed, density=0.5):
    """Random full cells, the last two always full so that bit 63 is in play."""
    rng = np.random.default_rng(seed)
    full = rng.random((rows, cols)) < density
    full[-1, -2:] = True
    return [(r, c) for r in range(rows) for c in range(cols) if full[r, c]]


def text_of(cells, rows, cols):
    cells = set(cells)
    return "/".join("".join("1" if (r, c) in cells else "0" for c in range(cols)) for r in range(rows))


def cells_of(text):
    return sorted((r, c) for r, row in enumerate(text.split("/")) for c, ch in enumerate(row) if ch == "1")


@pytest.mark.slow
@settings(max_examples=24, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(SHAPES), seed=st.integers(0, 2 ** 32 - 1))
def test_values_and_winning_moves_of_64_cell_boards(shape, seed):
    rows, cols = shape
    cells = random_cells(rows, cols, seed)
    game = games.make("flip", shape=shape)
    state = game.parse(text_of(cells, rows, cols))
    assert state >> 63 & 1 and game.format(state) == text_of(cells, rows, cols)
    value, after = independent_answer(cells)
    analysis = analyse(game, state)
    assert analysis.value == value
    assert sorted(cells_of(p) for _, p in analysis.winning_moves) == after
    if value:  # the optimal agent plays one of them
        move = optimal_agent(game, state, np.random.default_rng(seed))
        assert sorted(cells_of(game.format(game.play(state, move)))) in after


@pytest.mark.parametrize("shape", SHAPES, ids=[f"{r}x{c}" for r, c in SHAPES])
def test_moves_and_play_hold_the_last_cell(shape):
    """Every move, the one on the last two cells among them, as Python ints and numpy's."""
    game = games.make("flip", shape=shape)
    last = (1 << 63) | (1 << 62)  # the last two cells of the last row
    assert last in game.move_masks
    for state in (game.start, np.uint64(game.start)):
        after = game.play(state, last)
        assert after == game.start & ~last and isinstance(after, int)
        assert len(game.legal_moves(int(state))) == len(game.move_masks)
    assert game.format(game.start) == "/".join(["1" * shape[1]] * shape[0])


@pytest.mark.parametrize("shape", SHAPES, ids=[f"{r}x{c}" for r, c in SHAPES])
def test_the_datasets_component_split_holds_the_last_cell(shape):
    rows, cols = shape
    positions = [random_cells(rows, cols, seed) for seed in range(20)]
    states = np.array([sum(1 << (r * cols + c) for r, c in cells) for cells in positions], np.uint64)
    parts = Components(rows, cols).split(states)
    for cells, row in zip(positions, parts):
        expected = sorted(sum(1 << (r * cols + c) for r, c in g) for g in flood_components(cells) if len(g) > 1)
        assert sorted(int(p) for p in row if p) == expected


@pytest.mark.slow
def test_the_command_values_64_cell_boards():
    for k, (rows, cols) in enumerate(SHAPES):
        cells = random_cells(rows, cols, 100 + k)
        text = text_of(cells, rows, cols)
        proc = subprocess.run([sys.executable, "-m", "flipnet", "value", "flip", text, "--json"],
                              capture_output=True, text=True, env=environment(), timeout=300)
        assert proc.returncode == 0, proc.stderr
        answer = json.loads(proc.stdout)
        value, after = independent_answer(cells)
        assert answer["nim_value"] == value
        assert sorted(cells_of(m["position"]) for m in answer["winning_moves"]) == after
