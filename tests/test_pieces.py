"""A solve in pieces (`flipnet value flip BOARD --pieces`): the root's children up to
symmetry, each valued by a command of its own as a task on Dask distributed. Its value
and winning moves are the one search's; Ctrl-C keeps the finished pieces in the
checkpoint and the same command values only the rest; a worker killed in the middle of
a piece (a scheduler and two workers on 127.0.0.1, as a user starts them) has it run
again, and the answer is the same. Boards are searched without the endgame database (the
tests' own setting)."""

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from cli_cases import dask_cluster, environment, wait_for

import flipnet
from flipnet import games
from flipnet.base.errors import DamagedFile, FlipnetError
from flipnet.solve.cram.checkpoint import Checkpoint
from flipnet.solve.cram.memory import memory_limit, usable_memory
from flipnet.solve.cram.pieces import canonical, images, pieces_of

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

# Pieces of at most 20 cells, valued by the plain recursion: what is tested here is the
# work's spread, not the search (test_cram*.py), and each piece's command takes half a second
BOARD = "/".join(["1" * 5] * 4)  # 4x5: 10 pieces
LOPSIDED = "11100/11111/01101"  # no symmetry: every child a piece of its own (13)


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
    """On this machine's cores (a LocalCluster), a board with no symmetry: 13 pieces."""
    env = environment()
    path = tmp_path / "lopsided.ckpt"
    proc = subprocess.Popen(value_command(LOPSIDED, "--pieces", "--checkpoint", path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, start_new_session=True)
    try:
        deadline = 300
        while not path.exists() and deadline > 0 and proc.poll() is None:  # the first piece is in
            deadline -= 0.05
            subprocess.run(["sleep", "0.05"])
        assert proc.poll() is None, "the solve ended before it could be stopped"
        os.killpg(proc.pid, signal.SIGINT)  # a Ctrl-C at the terminal: the root, its workers and their pieces
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    line = err.strip().splitlines()[-1]
    assert "interrupted:" in line and f"{path} keeps" in line and "the same command goes on from there" in line, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and not out
    assert not [p for p in psutil.Process().children(recursive=True) if "value" in p.cmdline()]  # no piece left going
    assert [p.name for p in tmp_path.iterdir()] == ["lopsided.ckpt"]  # no temporary file left
    kept = Checkpoint(path, LOPSIDED).pieces()
    assert 0 < len(kept) < 13

    value, moves, report = answer_of(subprocess.run(value_command(LOPSIDED, "--pieces", "--checkpoint", path),
                                                    capture_output=True, text=True, env=env, cwd=tmp_path,
                                                    timeout=300))
    assert (value, moves) == one_search(LOPSIDED) and len(moves) > 0
    assert report["by"] == "pieces" and (report["recorded"], report["run"], report["pieces"]) == \
        (len(kept), 13 - len(kept), 13)
    assert len(Checkpoint(path, LOPSIDED).pieces()) == 13


def test_the_checkpoint_keeps_the_pieces_and_the_facts_each_beside_the_other(tmp_path):
    from flipnet.solve.cram import CramSolver

    board = "/".join(["1" * 5] * 4)
    path = tmp_path / "c.ckpt"
    record = {"01111/01111/11111/11111": {"value": 2, "positions": 10, "seconds": 0.5}}
    Checkpoint(path, board).save_pieces(record)
    solver = CramSolver(progress=False, tt_log=16)
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


def test_a_piece_keeps_a_checkpoint_of_its_own_search_until_it_is_recorded(tmp_path, monkeypatch):
    """The piece's command is given a checkpoint in the pieces' directory (the command's
    own checkpoint is tested in test_checkpoint.py), which goes once the piece is done."""
    from flipnet.solve.cram import pieces

    child = "0111111/1111111/1111111"
    own = pieces.piece_checkpoint(tmp_path, child)
    own.write_bytes(b"what a stopped run of the piece kept")
    ran = []

    def command(argv, stdout):
        ran.append(argv)
        assert own.exists()  # there to go on from
        return {"-": json.dumps({"nim_value": 1, "search": {"positions": 5}}).encode()}

    monkeypatch.setattr("flipnet.base.cluster.command_task", command)
    assert pieces.value_piece(child, 2, tmp_path)["value"] == 1
    assert ran[0][-2:] == ["--checkpoint", str(own)] and "--workers" in ran[0] and not own.exists()
    assert pieces.piece_checkpoint(tmp_path, child) != pieces.piece_checkpoint(tmp_path, "1" + child[1:])


def test_a_process_keeps_to_the_memory_it_is_given(monkeypatch):
    monkeypatch.setenv("FLIPNET_MEMORY_LIMIT", "3G")
    assert memory_limit() == 3 << 30 and usable_memory() <= 3 << 30
    monkeypatch.setenv("FLIPNET_MEMORY_LIMIT", "123456789")
    assert usable_memory() <= 123456789
    for bad in ("0", "-5G", "lots", "1e999"):
        monkeypatch.setenv("FLIPNET_MEMORY_LIMIT", bad)
        with pytest.raises(FlipnetError, match="FLIPNET_MEMORY_LIMIT=.*give bytes"):
            memory_limit()


def pieces_running(worker_pid):
    """The `flipnet value` processes a worker process runs (a piece each)."""
    try:
        children = psutil.Process(worker_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for child in children:
        try:
            if child.cmdline()[3:4] == ["value"] and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_piece_has_it_run_again_and_the_value_is_the_same(tmp_path):
    """A scheduler and two workers as a user starts them, a record of pieces begun
    elsewhere, and the worker running a piece killed."""
    env = environment()
    with dask_cluster(tmp_path, env) as (address, workers, started):
        # a record begun elsewhere (three pieces valued here, one search each): the cluster does the rest
        game = games.for_position("flip", BOARD)
        begun = {piece: {"value": flipnet.value(piece, moves=False).value, "positions": 0, "seconds": 0.0}
                 for piece in list(pieces_of(game, game.parse(BOARD)))[:3]}
        Checkpoint(tmp_path / "4x5.ckpt", BOARD).save_pieces(begun)
        solve = subprocess.Popen(value_command(BOARD, "--pieces", "--scheduler", address, "--checkpoint", "4x5.ckpt"),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
        started.append(solve)
        piece = wait_for(lambda: pieces_running(workers.pid), 120, "piece under way")[0]
        worker = piece.parent()
        worker.kill()  # the worker process running the piece, not its nanny (which starts a fresh one)
        wait_for(lambda: not piece.is_running() or piece.status() == psutil.STATUS_ZOMBIE, 10,
                 "end of the killed worker's piece")  # it ends with its worker: the piece was lost
        out, err = solve.communicate(timeout=300)
        value, moves, report = answer_of(subprocess.CompletedProcess(solve.args, solve.returncode, out, err))
        assert (value, moves) == one_search(BOARD)
        assert (report["pieces"], report["recorded"], report["run"]) == (10, 3, 7) and "Traceback" not in err
        assert len(Checkpoint(tmp_path / "4x5.ckpt", BOARD).pieces()) == 10


def test_the_record_is_small_enough_to_carry(tmp_path):
    """A record of every piece of 4x5 in the checkpoint: a few kB, readable elsewhere."""
    game = games.for_position("flip", BOARD)
    record = {piece: {"value": 1, "positions": 10 ** 9, "seconds": 3600.0}
              for piece in pieces_of(game, game.parse(BOARD))}
    Checkpoint(tmp_path / "r.ckpt", BOARD).save_pieces(record)
    moved = tmp_path / "elsewhere.ckpt"
    moved.write_bytes((tmp_path / "r.ckpt").read_bytes())
    assert Checkpoint(moved, BOARD).pieces() == record and os.path.getsize(moved) < 8000
