"""The engine's front door (`flipnet.Engine`, `flipnet.EngineSettings`): two engines in
one process, each with its own settings, tables, threads and time limits, give their own
answers; settings are checked as they are made, and read from the environment only where
a program asks for it. Values are checked against the table of every state."""

import time

import pytest

import flipnet
from flipnet.base.errors import FlipnetError, TimedOut
from flipnet.games import FlipGame
from flipnet.solve import table
from flipnet.solve.cram.limits import MIN_TABLE_LOG


def full(rows, cols):
    return "/".join(["1" * cols] * rows)


def test_two_engines_in_one_process_each_answer_by_their_own_settings():
    plain = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="off"))
    searched = flipnet.Engine(flipnet.EngineSettings(workers=2, endgame="off", plain=False, mirror=False))
    board = full(4, 5)
    truth = int(table(FlipGame(4, 5))[(1 << 20) - 1])
    assert flipnet.value(board, engine=plain, moves=False).value == truth
    assert flipnet.value(board, engine=searched, moves=False).value == truth
    assert plain.report()["by"] == "plain recursion" and not plain.searching  # no search built, no Numba asked
    assert searched.report()["positions"] > 0 and "by" not in searched.report()

    mirrored = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="off"))
    even = full(4, 6)
    assert flipnet.value(even, engine=mirrored, moves=False).value == 0
    assert flipnet.value(even, engine=searched, moves=False).value == 0
    assert mirrored.report()["positions"] == 0  # the mirror rule: no position searched
    assert searched.report()["positions"] > 0  # without it, the same 0 searched for


def test_each_engine_keeps_its_own_threads_and_time_limit():
    from flipnet.base.cores import usable_cores

    one = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="off"))
    two = flipnet.Engine(flipnet.EngineSettings(workers=2, endgame="off"))
    hurried = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="off", time_limit=0.02, plain=False))
    board = full(5, 6)  # 100 thousand positions: a fifth of a second
    hurried.search().value({(0, 0), (0, 1)})  # the kernels loaded: the limit is the search's alone
    with pytest.raises(TimedOut, match="no answer within --timeout 0.02 s"):
        # half a million positions: the limit is looked at every 0.2 s
        flipnet.value(full(5, 7), engine=hurried, moves=False)
    assert flipnet.value(board, engine=one, moves=False).value == 2  # docs/cram.md: 5x6 is 2
    assert flipnet.value(board, engine=two, moves=False).value == 2
    assert one.search().workers == 1 and two.search().workers == min(2, usable_cores())
    started = time.perf_counter()
    with one.time_limit(0.02), pytest.raises(TimedOut):
        flipnet.value(full(5, 7), engine=one, moves=False)  # the limit of the engine in use only
    assert time.perf_counter() - started < 5
    assert flipnet.value(full(3, 7), engine=two, moves=False).value == int(table(FlipGame(3, 7))[(1 << 21) - 1])


def test_settings_are_checked_as_they_are_made_and_name_what_is_wrong():
    with pytest.raises(FlipnetError, match="^workers must be a whole number from 1 to 256, or None, got 0$"):
        flipnet.EngineSettings(workers=0)
    with pytest.raises(FlipnetError, match="^endgame must be one of auto, cached, off, got 'maybe'$"):
        flipnet.EngineSettings(endgame="maybe")
    with pytest.raises(FlipnetError, match="^sets_up_to must be a whole number from -1 to 63"):
        flipnet.EngineSettings(sets_up_to=64)
    with pytest.raises(FlipnetError, match="^time_limit must be a number of seconds above 0"):
        flipnet.EngineSettings(time_limit=-1)
    with pytest.raises(FlipnetError, match="^engine is a flipnet.Engine, not str$"):
        flipnet.value("11/11", engine="fast")
    settings = flipnet.EngineSettings(workers=1)
    with pytest.raises(AttributeError):
        settings.workers = 2  # frozen: an engine's settings never change under it
    assert settings.replace(mirror=False).mirror is False and settings.mirror is True


def test_the_environment_is_read_only_where_a_program_asks_for_it():
    read = flipnet.EngineSettings.from_environment
    assert read({}) == flipnet.EngineSettings()
    assert read({"FLIPNET_ENDGAME": "off", "FLIPNET_MIRROR": "off", "FLIPNET_SETS_UP_TO": "-1",
                 "FLIPNET_MEMORY_LIMIT": "2G", "FLIPNET_CHECKPOINT_SECONDS": "0.5"}) == \
        flipnet.EngineSettings(endgame="off", mirror=False, sets_up_to=-1, memory_limit=2 << 30, checkpoint_seconds=0.5)
    assert read({"FLIPNET_MIRROR": "off"}, mirror=True).mirror is True  # what the program gives wins
    for environ, said in (({"FLIPNET_MIRROR": "maybe"}, "FLIPNET_MIRROR='maybe': give on or off"),
                          ({"FLIPNET_SETS_UP_TO": "99"}, "FLIPNET_SETS_UP_TO='99': must be a whole number from -1 to 63"),
                          ({"FLIPNET_WIDE_FROM": "x"}, "FLIPNET_WIDE_FROM='x' is not a whole number"),
                          ({"FLIPNET_ENDGAME": "sometimes"}, "FLIPNET_ENDGAME='sometimes': give on, off or cached")):
        with pytest.raises(FlipnetError) as caught:
            read(environ)
        assert str(caught.value) == said
    # the suite's own environment (conftest: FLIPNET_ENDGAME=off) reaches the default engine
    assert flipnet.default_engine().settings.endgame == "off"


def test_a_limit_holds_over_the_questions_asked_inside_it():
    """A question in stages (the explorer's: the value, then each move's) is limited as a
    whole: a question inside asked without a limit of its own keeps the outer one, before
    and after it."""
    engine = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="off", plain=False))
    engine.search().value({(0, 0), (0, 1)})  # the kernels loaded
    started = time.perf_counter()
    with engine.time_limit(0.5), pytest.raises(TimedOut, match="no answer within --timeout 0.5 s"):
        flipnet.value(full(2, 3), engine=engine, moves=False)  # at once, under the limit
        flipnet.value(full(5, 7), engine=engine, moves=False)  # seconds: the outer limit ends it
    assert time.perf_counter() - started < 5
    assert flipnet.value(full(3, 4), engine=engine, moves=False).value == 1  # no limit left behind


def test_a_solver_gives_back_its_tables_and_answers_the_same_after(monkeypatch):
    """`release_memory` (what the explorer calls between questions past its budget): the
    table back at its first size, empty, and the next answers as before."""
    from flipnet.solve.cram.solver import CramSolver

    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, grow_table=True)
    board = [(r, c) for r in range(5) for c in range(6)]
    value = solver.value(board)
    assert solver.tt_log > MIN_TABLE_LOG  # grown to the question
    solver.release_memory()
    assert solver.tt_log == MIN_TABLE_LOG and solver.tt.shape[0] == 1 << MIN_TABLE_LOG and not solver.tt.any()
    assert solver.value(board) == value == 2  # docs/cram.md: 5x6 is 2
