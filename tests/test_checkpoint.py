"""A long solve that survives its stops (`flipnet value flip BOARD --checkpoint FILE`):
killed with SIGKILL in the middle and run again, it gives the unbroken run's value and
moves and searches less; a checkpoint of another question, or a damaged one, is refused
in one line. The boards here are searched without the endgame database (the tests' own
setting), so that a second or two of search is left to stop."""

import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from cli_cases import environment

from flipnet.base.errors import DamagedFile, FlipnetError
from flipnet.solve.cram import CramSolver
from flipnet.solve.cram.checkpoint import Checkpoint, facts_of
from flipnet.solve.cram.standing import in_a_line
from flipnet.solve.cram.limits import MIN_TABLE_LOG

BOARD = "/".join(["1" * 9] * 4)  # 4x9: over a second of search, 37 winning moves
SMALL = "/".join(["1" * 5] * 4)


def cells(board):
    return [(r, c) for r, row in enumerate(board.split("/")) for c, ch in enumerate(row) if ch == "1"]


def command(board, *more, env=None):
    return [sys.executable, "-m", "flipnet", "value", "flip", board, "--json", "--workers", "1", *map(str, more)]


def answer(proc):
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return out["nim_value"], out["winning_moves"], out["search"]["positions"]


@pytest.mark.slow
def test_a_solve_killed_in_the_middle_goes_on_from_its_checkpoint(tmp_path):
    env = environment(FLIPNET_CHECKPOINT_SECONDS="0.2")
    unbroken = answer(subprocess.run(command(BOARD), capture_output=True, text=True, env=env, cwd=tmp_path))
    path = tmp_path / "4x9.ckpt"
    proc = subprocess.Popen(command(BOARD, "--checkpoint", path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    first = path.stat().st_mtime_ns
    while path.stat().st_mtime_ns == first and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # a second write: facts found on the way, not only at the start
    assert proc.poll() is None, "the search ended before it could be stopped"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("4x9")] == ["4x9.ckpt"]  # no temporary left
    assert proc.stderr.read().startswith(f"flipnet: {path}: a new checkpoint, written every 0.2 s and when stopped "
                                         f"(`flipnet value flip --checkpoint {path} --status` says where")

    resumed = subprocess.run(command(BOARD, "--checkpoint", path), capture_output=True, text=True, env=env,
                             cwd=tmp_path)
    value, moves, positions = answer(resumed)
    assert (value, moves) == unbroken[:2]
    assert positions < 0.9 * unbroken[2], (positions, unbroken[2])  # what the facts answer is not searched again
    read = int(resumed.stderr.strip().splitlines()[-1].split("(")[1].split()[0].replace(",", ""))
    assert read > 0 and f"{path}:" in resumed.stderr
    work = json.loads(resumed.stdout)["search"]["all_runs"]  # the killed run's last write, and this run
    assert work["runs"] == 2 and work["positions"] > positions and work["seconds"] > 0, work
    assert resumed.stderr.rstrip().endswith(f"in all {work['positions']:,} positions and "
                                            f"{work['seconds']:.1f} s of search over 2 runs"), resumed.stderr
    before = Checkpoint(path, BOARD)  # the killed run's record, which the resumed run says it goes on from
    before.work_before = {"runs": 1, "positions": work["positions"] - positions}
    assert resumed.stderr.startswith(f"flipnet: going on from {path}: {read:,} facts; in all "
                                     f"{before.work_before['positions']:,} positions and "), resumed.stderr
    assert " of search over 1 run before this one (`flipnet value flip --checkpoint" in resumed.stderr



def test_the_facts_kept_are_those_of_the_largest_components():
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    solver.value(cells(SMALL))
    every = np.sort(np.bitwise_count(facts_of(solver.tt)[0]))[::-1]
    largest = np.bitwise_count(facts_of(solver.tt, most=50)[0])
    assert largest.size == 50 and np.array_equal(np.sort(largest)[::-1], every[:50]) and every[0] == 20


def test_another_questions_or_a_damaged_checkpoint_is_refused(tmp_path):
    path = tmp_path / "c.ckpt"
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    solver.use_checkpoint(Checkpoint(path, SMALL))
    value = solver.value(cells(SMALL))
    solver.checkpoint.save(solver.tt, solver.wide_tt)
    assert path.exists()

    def read(board, mirror=False):
        checkpoint = Checkpoint(path, board)
        checkpoint.bind(solver.endgame, mirror)
        return checkpoint.read()

    assert read(SMALL)[0][0].size > 0
    with pytest.raises(FlipnetError, match=r"c.ckpt is of another board \('11111/11111/11111/11111'"):
        read("111/111")
    with pytest.raises(FlipnetError, match="is of another mirror rule"):
        read(SMALL, mirror=True)
    fresh = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    fresh.use_checkpoint(Checkpoint(path, SMALL))
    assert fresh.value(cells(SMALL)) == value and fresh.report()["positions"] < solver.report()["positions"]
    for log in (19, 24):  # the table's size is no part of it: a fact holds in any table
        other = CramSolver(progress=False, tt_log=log, mirror=False)
        other.use_checkpoint(Checkpoint(path, SMALL))
        assert other.value(cells(SMALL)) == value and other.report()["positions"] < solver.report()["positions"]

    with np.load(path) as f:
        saved = {name: f[name].copy() for name in f.files}
    for work, ok in (("[1]", False), ('{"runs": 1, "positions": -5, "seconds": 0}', False), (None, True)):
        changed = {k: v for k, v in saved.items() if k != "work"}  # None: a file written before the record was kept
        if work is not None:
            changed["work"] = np.array(work)
        with open(path, "wb") as f:
            np.savez(f, **changed)
        checkpoint = Checkpoint(path, SMALL)
        checkpoint.bind(solver.endgame, False)
        if ok:
            assert checkpoint.read()[0][0].size > 0 and checkpoint.work_before == {"runs": 0, "positions": 0,
                                                                                   "seconds": 0.0}
        else:
            with pytest.raises(DamagedFile, match="c.ckpt is damaged \\(its record of work\\)"):
                checkpoint.read()
    saved["bits"][0] ^= np.uint64(1 << 40)  # a fact of no component
    with open(path, "wb") as f:
        np.savez(f, **saved)
    with pytest.raises(DamagedFile, match="c.ckpt is damaged: fact 0 is of no component"):
        read(SMALL)
    saved["identity"] = np.array(json.dumps({"format": "flipnet-cram-checkpoint-2", "board": SMALL}))
    with open(path, "wb") as f:
        np.savez(f, **saved)
    with pytest.raises(DamagedFile, match="c.ckpt is a checkpoint of another version of flipnet "
                                          "\\('flipnet-cram-checkpoint-2'"):
        read(SMALL)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(DamagedFile, match="c.ckpt is damaged"):
        read(SMALL)


def test_a_checkpoint_moved_to_another_search_names_the_flipnet_that_goes_on_from_it(tmp_path):
    """A solve carried to a machine whose flipnet searches otherwise is refused, and told
    which flipnet wrote the facts (version and commit); a file written before that record
    was kept is read as before, and a damaged record is refused."""
    path = tmp_path / "c.ckpt"
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    solver.use_checkpoint(Checkpoint(path, SMALL))
    solver.value(cells(SMALL))
    solver.checkpoint.save(solver.tt, solver.wide_tt)
    writer = Checkpoint(path).recorded_writer()
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    assert writer["flipnet"] == importlib.metadata.version("flipnet")
    assert writer["commit"] in ((head, head + "+changes") if head else (None,))  # outside git: no commit

    def reading(**changed):
        with np.load(path) as f:
            saved = {name: f[name].copy() for name in f.files}
        about = json.loads(str(saved["facts_identity"]))
        saved["facts_identity"] = np.array(json.dumps({**about, "search": "0123456789abcdef"}))
        for name, text in changed.items():
            if text is None:
                del saved[name]
            else:
                saved[name] = np.array(text)
        with open(tmp_path / "moved.ckpt", "wb") as f:
            np.savez(f, **saved)
        checkpoint = Checkpoint(tmp_path / "moved.ckpt", SMALL)
        checkpoint.bind(solver.endgame, False)
        return checkpoint.read

    mine = solver.checkpoint.facts_identity["search"]
    refusal = f"moved.ckpt is of another version of the search ('0123456789abcdef', this solve: '{mine}'): "
    for record, who in ((None, ""), ('{"flipnet": "0.0.9", "commit": "abcdef0123456789abcd+changes"}',
                                     "flipnet 0.0.9 at commit abcdef012345 with changes wrote it and goes on from "
                                     "it; or "),
                        ('{"flipnet": null, "commit": null}', "a flipnet pip never installed wrote it and goes on "
                                                              "from it; or ")):
        with pytest.raises(FlipnetError, match=re.escape(refusal + who + "give another file, or delete it to start "
                                                                         "over") + "$"):
            reading(written_by=record)()
    with pytest.raises(DamagedFile, match=re.escape("moved.ckpt is damaged (the flipnet that wrote it)")):
        reading(written_by='{"flipnet": 1}')()


def test_the_work_of_a_run_is_counted_once_however_often_it_writes_and_reads(tmp_path):
    """Each write records the runs before this one and this one's total so far; a run that
    reads the file again after its own writes (its table grown) does not count itself twice."""
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    checkpoint = Checkpoint(tmp_path / "c.ckpt", SMALL)
    checkpoint.bind(solver.endgame, False)
    checkpoint.read()
    checkpoint.save(solver.tt, solver.wide_tt, 10, 1.0)
    checkpoint.read()
    checkpoint.save(solver.tt, solver.wide_tt, 25, 2.5)
    assert checkpoint.work == {"runs": 1, "positions": 25, "seconds": 2.5}
    later = Checkpoint(tmp_path / "c.ckpt", SMALL)
    later.bind(solver.endgame, False)
    later.read()
    later.save(solver.tt, solver.wide_tt, 5, 0.5)
    assert later.work == {"runs": 2, "positions": 30, "seconds": 3.0}
    assert later.work_text() == "in all 30 positions and 3.0 s of search over 2 runs"
    for seconds, text in ((2550, "42.5 min"), (23472, "6.52 h")):
        later.work["seconds"] = seconds
        assert later.work_text() == f"in all 30 positions and {text} of search over 2 runs"


@pytest.mark.slow
def test_the_command_refuses_a_checkpoint_it_cannot_keep(tmp_path):
    for args, message in ((["nim", "1,2", "--checkpoint", "c"], "flip positions in normal play"),
                          (["flip", "-", "--checkpoint", "c"], "keeps the search of one position"),
                          (["flip", "11/11", "--checkpoint", tmp_path / "none" / "c"], "does not exist")):
        proc = subprocess.run([sys.executable, "-m", "flipnet", "value", *map(str, args)], capture_output=True,
                              text=True, env=environment(), cwd=tmp_path, input="")
        assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


@pytest.mark.slow
def test_a_board_answered_without_a_search_leaves_its_checkpoint_alone(tmp_path):
    """A small board (the recursion) and a 6x4 one (the mirror rule) need no search: the
    command says so and neither reads nor writes the file, here one that is not a checkpoint."""
    (tmp_path / "other.ckpt").write_text("not a checkpoint")
    for board in ("111/111", "/".join(["1" * 4] * 6)):
        proc = subprocess.run(command(board, "--checkpoint", tmp_path / "other.ckpt"), capture_output=True,
                              text=True, env=environment(), cwd=tmp_path, input="")
        assert answer(proc)[0] == (1 if board == "111/111" else 0)
        assert proc.stderr == (f"flipnet value: answered without a search (small components, lines or the mirror "
                               f"rule): {tmp_path / 'other.ckpt'} not written\n"), proc.stderr
        assert (tmp_path / "other.ckpt").read_text() == "not a checkpoint" and len(list(tmp_path.iterdir())) == 1


def test_a_stopped_search_writes_its_checkpoint_and_says_so(tmp_path):
    path, board = tmp_path / "4x9.ckpt", "/".join(["1" * 9] * 4)
    stopped = CramSolver(progress=False, tt_log=20, timeout=0.3)
    stopped.use_checkpoint(Checkpoint(path, board))
    with pytest.raises(FlipnetError, match=r"no answer within --timeout 0.3 s .*; .*4x9.ckpt keeps what it found "
                                           r"\([\d,]+ facts; in all [\d,]+ positions and [\d.]+ s of search over 1 "
                                           r"run\): the same command goes on from there"):
        stopped.value(cells(board))
    first = stopped.report()
    assert stopped.checkpoint.work == {"runs": 1, "positions": first["positions"],
                                       "seconds": round(first["seconds"], 1)}
    resumed = CramSolver(progress=False, tt_log=20)
    resumed.use_checkpoint(Checkpoint(path, board))
    unbroken = CramSolver(progress=False, tt_log=20)
    assert resumed.value(cells(board)) == unbroken.value(cells(board)) == 1
    assert resumed.checkpoint.facts_read > 0 and resumed.report()["positions"] < unbroken.report()["positions"]
    resumed.save_checkpoint()  # as the command does once it has its answer: the work of both runs
    assert resumed.checkpoint.work == {"runs": 2, "positions": first["positions"] + resumed.report()["positions"],
                                       "seconds": round(round(first["seconds"], 1) + resumed.report()["seconds"], 1)}
    assert Checkpoint(path, board)._contents(("work",))["work"] == json.dumps(resumed.checkpoint.work)


def test_a_search_paused_for_each_write_shows_one_progress_line(tmp_path, monkeypatch, capfd):
    """The runs between writes are one question's: one bar, its count going on, and a time
    limit counted from the question's start, not from the last write."""
    import re

    from flipnet.solve.cram import supervisor

    monkeypatch.setenv("FLIPNET_PROGRESS", "1")
    monkeypatch.setattr(supervisor, "PROGRESS_AFTER", 0.05)
    board = "/".join(["1" * 9] * 4)
    solver = CramSolver(progress=True, tt_log=20, mirror=False, standing_line=in_a_line)
    solver.use_checkpoint(Checkpoint(tmp_path / "4x9.ckpt", board, seconds=0.1))
    assert solver.value(cells(board)) == 1
    said, err = capfd.readouterr().err.split("\n", 1)
    assert said.startswith(f"flipnet: {tmp_path / '4x9.ckpt'}: a new checkpoint"), said  # once, not at each write
    counts = [float(n) * {"": 1, "k": 1e3, "M": 1e6}[unit]
              for n, unit in re.findall(r"search(?: \([^)]*\))?: ([\d.]+)([kM]?)pos", err)]
    assert len(counts) > 3 and counts == sorted(counts), err[-500:]
    assert_the_line_says_where_the_proof_stands(err, board, 1)
    assert err.count("\n") == 1, err[-500:]  # the line closed once, at the end
    longer = "/".join(["1" * 8] * 5)  # 5x8: seconds of search, where 4x9's can end within the limit
    timed = CramSolver(progress=False, tt_log=20, mirror=False, timeout=0.5)
    timed.use_checkpoint(Checkpoint(tmp_path / "timed.ckpt", longer))
    start = time.perf_counter()
    with pytest.raises(FlipnetError, match="no answer within --timeout 0.5 s"):
        timed.value(cells(longer))
    assert time.perf_counter() - start < 5


def assert_the_line_says_where_the_proof_stands(err, board, value):
    """After the first pause for a write, the progress line says how far the proof has come
    (`standing.in_a_line`): the least value, never above the value found, and the children
    settled, of as many as the board has up to symmetry."""
    import re

    from flipnet.games import FlipGame
    from flipnet.solve.cram.pieces import canonical

    game = FlipGame.for_position(board)
    start = game.parse(board)
    children = len({canonical(game.format(game.play(start, move))) for move in game.legal_moves(start)})
    said = [tuple(map(int, found)) for found in
            re.findall(r"search \(value >= (\d+), (\d+)/(\d+) children settled\)", err)]
    assert said and all(least <= value and settled <= n == children for least, settled, n in said), said


def test_a_checkpoint_the_disk_cannot_hold_is_refused_before_the_work(tmp_path, monkeypatch):
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(1 << 30, 1 << 30, 10 << 20))
    with pytest.raises(FlipnetError, match=r"--checkpoint .*c.ckpt: 10 MB free on its disk; a checkpoint takes up "
                                           r"to 43 MB, written beside the last one \(twice that\)"):
        Checkpoint(tmp_path / "c.ckpt", SMALL).check_place()
    assert not list(tmp_path.iterdir())


def test_the_seconds_a_process_was_stopped_are_no_search():
    """A long solve paused with SIGSTOP (while timings run beside it) and continued: the
    seconds of search it counts, and a checkpoint's hours with them, leave the pause out."""
    code = ("import time\nimport numpy as np\nfrom flipnet.solve.cram.supervisor import Supervisor\n"
            "watcher = Supervisor(progress=False)\nprint('started', flush=True)\n"
            "start = time.perf_counter()\n"
            "watcher.run([lambda: time.sleep(2.0)], [np.zeros(8, np.int64)], [np.zeros(8, np.int64)])\n"
            "print(watcher.seconds, time.perf_counter() - start)")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    time.sleep(0.5)
    child.send_signal(signal.SIGSTOP)
    time.sleep(4.0)
    child.send_signal(signal.SIGCONT)
    searched, wall = map(float, child.communicate(timeout=60)[0].split())
    assert wall > 4.0 and searched < 2.5, (searched, wall)
