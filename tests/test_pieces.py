"""A solve in pieces (`flipnet value flip BOARD --pieces`): the root's children up to
symmetry, each asked only what the root's value needs, here or as tasks on Dask
distributed. Its value and winning moves are the one search's, at about its cost in
positions; Ctrl-C keeps what the pieces said in the checkpoint and the same command asks
only the rest; a worker killed in the middle of a piece (a scheduler and two workers on
127.0.0.1, as a user starts them) has it asked again, and the answer is the same. Boards
are searched without the endgame database (the tests' own setting)."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from cli_cases import dask_cluster, environment, wait_for

import flipnet
from flipnet import games
from flipnet.base.errors import DamagedFile, FlipnetError
from flipnet.solve.cram.checkpoint import Checkpoint
from flipnet.solve.cram.limits import MIN_TABLE_LOG
from flipnet.solve.cram.memory import memory_limit, usable_memory
from flipnet.solve.cram.pieces import ask_piece, canonical, images, piece_checkpoint, pieces_of
from flipnet.solve.engine import Engine, Settings

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

BOARD = "/".join(["1" * 5] * 4)  # 4x5: 10 pieces
LOPSIDED = "11100/11111/01101"  # no symmetry: every child a piece of its own (13)
# no symmetry either, and pieces of 30 cells: a solve of a few seconds, stopped in the middle
LONG_LOPSIDED = "1111110/1111111/1111111/1111111/0111011"


def value_command(board, *more):
    return [sys.executable, "-m", "flipnet", "value", "flip", board, "--json", *map(str, more)]


def answer_of(proc):
    """(value, winning moves as (move, position) in order, the search's report)."""
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return out["nim_value"], sorted((m["move"], m["position"]) for m in out["winning_moves"]), out["search"]


def one_search(board):
    """The value and winning moves (in order) of one search of the whole board, here."""
    result = flipnet.value(board, workers=1)
    return result.value, sorted(result.winning_moves)


def test_a_position_and_its_images_have_one_canonical_text_and_one_value():
    rng = np.random.default_rng(5)
    for rows, cols in ((3, 5), (4, 4), (2, 7)):
        grid = rng.random((rows, cols)) < 0.7
        text = "/".join("".join("1" if c else "0" for c in row) for row in grid)
        found = images(text)
        assert len(found) == 8 and text in found
        assert "/".join("".join(row[c] for row in text.split("/")) for c in range(cols)) in found  # the transpose
        assert {canonical(image) for image in found} == {canonical(text)}
        assert len({flipnet.value(image, moves=False).value for image in found}) == 1  # each valued on its own


def test_the_pieces_are_the_children_up_to_symmetry():
    game = games.for_position("flip", BOARD)
    pieces = pieces_of(game, game.parse(BOARD))
    moves = [move for group in pieces.values() for move in group]
    assert sorted(moves) == sorted(game.legal_moves(game.parse(BOARD))) and len(moves) == 31
    assert len(pieces) == 10  # 31 dominoes under the four symmetries of a 4x5 rectangle
    lopsided = games.for_position("flip", LOPSIDED)
    state = lopsided.parse(LOPSIDED)
    assert len(pieces_of(lopsided, state)) == len(lopsided.legal_moves(state))


@pytest.mark.slow
def test_ctrl_c_keeps_the_pieces_done_and_the_same_command_values_only_the_rest(tmp_path):
    """On this machine, one thread, a board with no symmetry: 51 pieces."""
    env = environment()
    path = tmp_path / "lopsided.ckpt"
    proc = subprocess.Popen(value_command(LONG_LOPSIDED, "--pieces", "--checkpoint", path, "--workers", 1),
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, start_new_session=True)
    try:
        deadline = 300
        while not path.exists() and deadline > 0 and proc.poll() is None:  # the first piece is in
            deadline -= 0.05
            subprocess.run(["sleep", "0.05"])
        assert proc.poll() is None, "the solve ended before it could be stopped"
        os.killpg(proc.pid, signal.SIGINT)  # a Ctrl-C at the terminal
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    line = err.strip().splitlines()[-1]
    assert line.startswith("flipnet value: interrupted") and f"{path} keeps what" in line, err
    assert line.endswith("pieces said: the same command goes on from there"), err
    assert "Traceback" not in err and not out
    assert err.startswith(f"flipnet: {path}: a new checkpoint") and len(err.strip().splitlines()) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["lopsided.ckpt"]  # no temporary file left
    kept = Checkpoint(path, LONG_LOPSIDED).pieces()
    assert 0 < len(kept) < 51

    value, moves, report = answer_of(subprocess.run(value_command(LONG_LOPSIDED, "--pieces", "--checkpoint", path),
                                                    capture_output=True, text=True, env=env, cwd=tmp_path,
                                                    timeout=300))
    assert (value, moves) == one_search(LONG_LOPSIDED)
    assert report["by"] == "pieces" and (report["recorded"], report["pieces"]) == (len(kept), 51)
    said = Checkpoint(path, LONG_LOPSIDED).pieces()
    assert all(said[piece] == kept[piece] for piece in kept if "value" in kept[piece])  # not asked again
    assert {piece for piece, known in said.items() if known.get("value") == 0} == \
        {canonical(position) for _, position in moves}  # every child of value 0 known: the winning moves


def test_the_checkpoint_keeps_the_pieces_and_the_facts_each_beside_the_other(tmp_path):
    from flipnet.solve.cram import CramSolver

    board = "/".join(["1" * 5] * 4)
    path = tmp_path / "c.ckpt"
    record = {"01111/01111/11111/11111": {"value": 2, "positions": 10, "seconds": 0.5}}
    Checkpoint(path, board).save_pieces(record)
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG)
    solver.use_checkpoint(Checkpoint(path, board))
    solver.value([(r, c) for r in range(4) for c in range(5)])
    facts, _ = solver.checkpoint.save(solver.tt, solver.wide_tt)
    assert facts > 0 and Checkpoint(path, board).pieces() == record  # the facts written, the pieces kept
    Checkpoint(path, board).save_pieces({**record, "11111/11111/11111/00111": record["01111/01111/11111/11111"]})
    again = Checkpoint(path, board)
    again.bind(solver.endgame, True)
    assert again.read()[0][0].size == facts  # the pieces written, the facts kept
    with pytest.raises(FlipnetError, match="is of another board"):
        Checkpoint(path, "1111/1111").pieces()
    broken = tmp_path / "broken.ckpt"
    Checkpoint(broken, board).save_pieces({"11111": {"value": -1, "positions": 0, "seconds": 0}})
    with pytest.raises(DamagedFile, match="broken.ckpt is damaged \\(its record of pieces\\)"):
        Checkpoint(broken, board).pieces()


def test_a_piece_goes_on_from_a_checkpoint_of_its_own_search_until_it_is_answered(tmp_path):
    """On a cluster, a piece keeps a checkpoint in the pieces' directory: an earlier run's
    facts there spare the search, and the file goes once the piece is answered."""
    child = "0111111/1111111/1111111/1111111"
    settings = Settings(workers=1, endgame="off", progress=False)
    own = piece_checkpoint(tmp_path, child)
    earlier = Engine(settings)  # a run of the piece that kept its facts, as a stopped one does
    earlier.use_checkpoint(earlier.checkpoint(own, child))
    truth = flipnet.value(child, moves=False, engine=earlier).value
    earlier.save_checkpoint()
    assert own.exists()
    fresh = ask_piece(Engine(settings), child, truth)  # no place: a search from nothing
    again = ask_piece(Engine(settings), child, truth, tmp_path)
    assert fresh["is"] and again["is"] and again["positions"] < fresh["positions"] and not own.exists()
    assert not ask_piece(Engine(settings), child, truth + 1)["is"]
    assert piece_checkpoint(tmp_path, child) != piece_checkpoint(tmp_path, "1" + child[1:])


def test_what_one_worker_proves_reaches_the_pieces_another_starts_after_it(tmp_path):
    """On a cluster each worker keeps a table of its own; through the pieces' directory
    each hands the others its largest facts after a piece and reads theirs before its
    next search, so a piece another worker answered costs a small part of a search here.
    Facts of another search (here: another mirror rule) are not read."""
    child = "0111111/1111111/1111111/1111111"
    settings = Settings(workers=1, endgame="off", progress=False)
    truth = flipnet.value(child, moves=False).value
    alone = ask_piece(Engine(settings), child, truth)  # no directory: from nothing
    first = ask_piece(Engine(settings), child, truth, tmp_path)  # one worker
    assert first["positions"] == alone["positions"] and len(list(tmp_path.glob("facts-*.npz"))) == 1
    other = Engine(settings)  # another worker
    helped = ask_piece(other, child, truth, tmp_path)
    assert helped["is"] and other.search().shared.taken > 0 and helped["positions"] * 10 < alone["positions"]
    unlike = Engine(settings.replace(mirror=False))
    ask_piece(unlike, child, truth, tmp_path)
    assert unlike.search().shared.taken == 0


def test_a_process_keeps_to_the_memory_it_is_given(monkeypatch):
    assert memory_limit("3G") == 3 << 30 and usable_memory(memory_limit("3G")) <= 3 << 30
    assert usable_memory(123456789) <= 123456789
    for bad in ("0", "-5G", "lots", "1e999"):
        with pytest.raises(FlipnetError, match="FLIPNET_MEMORY_LIMIT=.*give bytes"):
            memory_limit(bad)


def busy_workers(command_pid):
    """The worker processes that `dask worker` started which are asking a piece now: busy
    on the processor over a fifth of a second."""
    try:
        processes = psutil.Process(command_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.cpu_percent(None)  # from now
    time.sleep(0.2)
    busy = []
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess):
            if process.cpu_percent(None) > 30:
                busy.append(process)
    return busy


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_piece_has_it_run_again_and_the_value_is_the_same(tmp_path):
    """A scheduler and two workers as a user starts them, a record of pieces begun
    elsewhere, and the worker running a piece killed."""
    env = environment()
    with dask_cluster(tmp_path, env) as (address, workers, started):
        # a record begun elsewhere (three pieces valued here, one search each): the cluster does the rest
        game = games.for_position("flip", LONG_LOPSIDED)
        begun = {piece: {"value": flipnet.value(piece, moves=False).value, "positions": 0, "seconds": 0.0}
                 for piece in list(pieces_of(game, game.parse(LONG_LOPSIDED)))[:3]}
        Checkpoint(tmp_path / "5x7.ckpt", LONG_LOPSIDED).save_pieces(begun)
        solve = subprocess.Popen(value_command(LONG_LOPSIDED, "--pieces", "--scheduler", address, "--checkpoint",
                                               "5x7.ckpt"),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
        started.append(solve)
        worker = wait_for(lambda: busy_workers(workers.pid), 120, "piece under way")[0]
        worker.kill()  # the worker process asking the piece, not its nanny (which starts a fresh one)
        out, err = solve.communicate(timeout=300)
        value, moves, report = answer_of(subprocess.CompletedProcess(solve.args, solve.returncode, out, err))
        assert (value, moves) == one_search(LONG_LOPSIDED) and not worker.is_running() and len(moves) > 0
        assert (report["pieces"], report["recorded"]) == (51, 3) and report["run"] > 0 and "Traceback" not in err
        said = Checkpoint(tmp_path / "5x7.ckpt", LONG_LOPSIDED).pieces()
        assert {piece for piece, known in said.items() if known.get("value") == 0} == \
            {canonical(position) for _, position in moves}


def test_the_record_is_small_enough_to_carry(tmp_path):
    """A record of every piece of 4x5 in the checkpoint: a few kB, readable elsewhere."""
    game = games.for_position("flip", BOARD)
    record = {piece: {"value": 1, "positions": 10 ** 9, "seconds": 3600.0}
              for piece in pieces_of(game, game.parse(BOARD))}
    Checkpoint(tmp_path / "r.ckpt", BOARD).save_pieces(record)
    moved = tmp_path / "elsewhere.ckpt"
    moved.write_bytes((tmp_path / "r.ckpt").read_bytes())
    assert Checkpoint(moved, BOARD).pieces() == record and os.path.getsize(moved) < 8000
