"""The plain recursion for small components against the compiled search, its hand-over to
the search, its reads of the endgame database, and the command that answers a small
position (or a board a box holds) without loading Numba."""

import json
import subprocess
import sys

import numpy as np
import pytest

import flipnet
from cli_cases import environment
from flipnet.solve.cram import CramSolver
from flipnet.solve.cram.endgame import Endgame
from flipnet.solve.parts import own_frame, transposed, widened
from flipnet.solve.small import SMALL_CELLS, Plain, TooLarge


@pytest.fixture(scope="module")
def search():
    return CramSolver(progress=False, tt_log=20)


def random_cells(rng, rows, cols, fill):
    return {(r, c) for r in range(rows) for c in range(cols) if rng.random() < fill}


@pytest.mark.parametrize("rows, cols", [(2, 7), (3, 5), (4, 4), (5, 5), (3, 9), (6, 6)])
def test_every_answer_is_the_searchs(search, rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    plain, compared = Plain(), 0
    for _ in range(40):
        cells = random_cells(rng, rows, cols, rng.uniform(0.4, 0.85))
        try:
            got = (plain.value(cells), plain.valued_components(cells), plain.winning_moves(cells),
                   plain.move_values(cells))
        except TooLarge:
            continue
        assert got == (search.value(cells), search.valued_components(cells), search.winning_moves(cells),
                       search.move_values(cells)), sorted(cells)
        compared += 1
    assert compared >= 20  # most of these boards are small enough


def test_a_long_straight_run_is_kayles(search):
    run = {(0, c) for c in range(70)} | {(2, 0), (2, 1), (3, 1)}  # a run past one word, and an L
    assert Plain().move_values(run) == search.move_values(run)


def test_a_large_component_or_a_long_walk_goes_to_the_search():
    with pytest.raises(TooLarge):
        Plain().value({(r, c) for r in range(3) for c in range(7)})  # 21 cells
    assert SMALL_CELLS == 20
    with pytest.raises(TooLarge):
        Plain(budget=50).value({(r, c) for r in range(4) for c in range(5)})  # 20 cells, a long walk


def test_a_small_position_is_answered_without_numba(tmp_path):
    program = ("import sys; from flipnet.cli import main; code = main(['value', 'flip', '11011/11111/00111', "
               "'--json']); print('numba' in sys.modules, file=sys.stderr); sys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          env=environment(), timeout=120)
    assert proc.returncode == 0 and proc.stderr.strip() == "False", proc.stderr
    assert '"nim_value": 2' in proc.stdout


# The endgame database read in plain Python: a component a box holds, however large,
# is one read of the map, with no kernel loaded

DATABASE_BOXES = ((2, 6), (3, 4))  # built in memory by the search's own builder


@pytest.fixture(scope="module")
def small_database():
    return Endgame.build(boxes=DATABASE_BOXES)


def test_frames_and_turns_keep_every_cell():
    rng = np.random.default_rng(7)
    for _ in range(300):
        h, w, width = int(rng.integers(1, 6)), int(rng.integers(1, 6)), 8
        cells = {(r, c) for r in range(h) for c in range(w) if rng.random() < 0.5}
        bits = sum(1 << (r * w + c) for r, c in cells)
        assert widened(bits, h, w, width) == sum(1 << (r * width + c) for r, c in cells)
        assert transposed(bits, h, w) == sum(1 << (c * h + r) for r, c in cells)
        if cells:
            r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
            own_h, own_w = max(r for r, _ in cells) - r0 + 1, max(c for _, c in cells) - c0 + 1
            assert own_frame(bits, w) == (sum(1 << ((r - r0) * own_w + c - c0) for r, c in cells), own_h, own_w)


def test_the_databases_reads_are_the_recursions(small_database):
    rng = np.random.default_rng(11)
    plain, read = Plain(), 0
    for _ in range(400):
        h, w = int(rng.integers(2, 7)), int(rng.integers(2, 7))
        cells = random_cells(rng, h, w, rng.uniform(0.5, 1.0))
        bits = sum(1 << (r * w + c) for r, c in cells)
        got = small_database.value_of(bits, h, w)
        if not small_database.holds(h, w):
            assert got is None, (h, w)  # 5x5, 4x6, 3x5, ...: no box holds the frame either way
            continue
        assert got == plain.value(cells), (h, w, sorted(cells))
        read += 1
    assert read >= 150


@pytest.mark.parametrize("rows, cols", [(2, 6), (6, 2), (3, 4), (4, 3), (3, 5)])
def test_large_components_a_box_holds_are_read(search, small_database, monkeypatch, rows, cols):
    """With SMALL_CELLS lowered to 6, the 12-cell boxes hold components too large for the
    recursion: the answers, moves and components are still the search's."""
    import flipnet.solve.small as small

    monkeypatch.setattr(small, "SMALL_CELLS", 6)
    rng = np.random.default_rng(rows * 10 + cols)
    plain, compared, left = Plain(endgame=lambda: small_database), 0, 0
    for _ in range(30):
        cells = random_cells(rng, rows, cols, rng.uniform(0.6, 1.0))
        try:
            got = (plain.value(cells), plain.valued_components(cells), plain.move_values(cells))
        except TooLarge:
            left += 1
            continue
        assert got == (search.value(cells), search.valued_components(cells), search.move_values(cells)), \
            sorted(cells)
        compared += 1
    assert compared >= 5 and plain.report()["database_hits"] > 0
    assert (left > 0) == ((rows, cols) == (3, 5))  # no box holds 3x5: a component of 7 cells or more is left


def test_a_database_not_built_yet_is_asked_for_again():
    calls, built = [], {"endgame": None}

    def load():
        calls.append(1)
        return built["endgame"]

    plain = Plain(endgame=load)
    assert plain.value({(0, 0), (0, 1)}) == 1 and not calls  # no large component: no database wanted
    with pytest.raises(TooLarge):
        plain.value({(r, c) for r in range(3) for c in range(7)})
    with pytest.raises(TooLarge):
        plain.value({(r, c) for r in range(3) for c in range(7)})
    assert len(calls) == 2


def test_a_board_of_a_box_is_answered_from_the_database_without_numba(tmp_path):
    """The command, given a cache whose database holds 4x6: the full board (24 cells) and
    every move read from it, the same as the search without a database, Numba never imported."""
    Endgame.load_or_build(tmp_path, boxes=((4, 6),))
    board = "111111/111111/111111/111111"
    program = ("import sys; from flipnet.cli import main; code = main(['value', 'flip', "
               f"{board!r}, '--json']); print('numba' in sys.modules, file=sys.stderr); sys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          env=environment(FLIPNET_CACHE=str(tmp_path), FLIPNET_ENDGAME="on"), timeout=120)
    assert proc.returncode == 0 and proc.stderr.strip() == "False", proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["search"]["by"] == "plain recursion" and answer["search"]["database_hits"] > 0
    searched = flipnet.value(board, workers=1)
    assert answer["nim_value"] == searched.value
    assert [m["move"] for m in answer["winning_moves"]] == [m.move for m in searched.winning_moves]


def test_an_engines_recursion_reads_the_database_its_search_has_loaded(search, small_database, monkeypatch):
    import flipnet.solve.small as small

    monkeypatch.setattr(small, "SMALL_CELLS", 6)
    engine = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="cached", progress=False))
    engine.search().endgame = small_database  # as a search that loaded it: one map of the file, not two
    board = {(r, c) for r in range(2) for c in range(6)}
    assert engine.plain.value(board) == search.value(board) and engine.plain.report()["database_hits"] == 1
    assert engine.plain._endgame is small_database
    off = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="off", progress=False))
    off.search().endgame = small_database
    with pytest.raises(TooLarge):  # endgame "off": the recursion reads no database either
        off.plain.value(board)


def test_the_recursions_seconds_count_the_walk_of_the_moves_too(monkeypatch):
    import flipnet.solve.small as small

    class Clock:  # one second a reading
        readings = iter(range(100))

        @classmethod
        def perf_counter(cls):
            return next(cls.readings)

    monkeypatch.setattr(small, "time", Clock)
    plain = Plain()
    plain.move_values({(0, 0), (0, 1), (0, 2), (1, 1)})
    assert plain.report()["seconds"] == 2  # the value's walk, then the moves'
