"""Where a long solve stands (`flipnet value flip --checkpoint FILE --status`): what a
checkpoint's facts prove of each child of the board and of the board's value, held to
every position's value in the exact table, for searches stopped at many points. The
searches here run without the endgame database (the tests' own setting)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_cases import environment

from flipnet.base.errors import DamagedFile
from flipnet.games.flip import FlipGame
from flipnet.solve import table
from flipnet.solve.cram import CramSolver
from flipnet.solve.cram.checkpoint import Checkpoint
from flipnet.solve.cram.limits import MIN_TABLE_LOG
from flipnet.solve.cram.pieces import canonical
from flipnet.solve.cram.standing import standing
from flipnet.solve.engine import Settings

ROOT = Path(__file__).resolve().parent.parent
NO_DATABASE = Settings(endgame="off")  # the suite's own setting, whatever database this machine keeps
BUDGETS = (10, 30, 100, 300, 1000, 3000, 10000, 0)  # positions searched before the stop (0: none)


def stopped_solve(path, game, budget):
    """The checkpoint of a search of the full board stopped after `budget` positions, as a
    stopped command writes it."""
    solver = CramSolver(progress=False, tt_log=MIN_TABLE_LOG, mirror=False)
    solver.values_of_states(np.array([game.start], np.uint64), game.rows, game.cols, budget=budget)
    checkpoint = Checkpoint(path, game.format(game.start))
    checkpoint.bind(solver.endgame, False)
    searched = solver.report()
    checkpoint.save(solver.tt, solver.wide_tt, searched["positions"], searched["seconds"])
    return searched["positions"]


@pytest.mark.parametrize("shape", [(3, 8), (4, 6)])
def test_what_a_checkpoint_proves_holds_wherever_the_search_stopped(tmp_path, shape):
    game = FlipGame(*shape)
    values = table(game)
    truth = int(values[game.start])
    seen = set()
    for budget in BUDGETS:
        searched = stopped_solve(tmp_path / f"{budget}.ckpt", game, budget)
        report = standing(tmp_path / f"{budget}.ckpt", settings=NO_DATABASE)
        assert report["board"] == game.format(game.start) and report["facts"] > 0 and report["same_search"]
        assert report["work"]["runs"] == 1 and report["work"]["positions"] == searched
        [part] = report["components"]
        moves = [move for child in part["moves"] for move in child["moves"]]
        assert sorted(moves) == sorted(game.format_move(m) for m in game.legal_moves(game.start))
        for child in part["moves"]:
            after = [game.play(game.start, game.parse_move(move)) for move in child["moves"]]
            assert len({canonical(game.format(state)) for state in after}) == 1  # one child up to symmetry
            v = int(values[after[0]])
            assert child.get("value", v) == v and v not in child.get("not", []), (budget, child, v)
        assert part["children"] == len(part["moves"])
        if "value" in part:
            assert part["value"] == truth
            seen.add("value")
            continue
        assert part["at_least"] <= truth
        settled = sum("value" in child or part["at_least"] in child["not"] for child in part["moves"])
        assert part["settled"] == settled < part["children"]
        seen.add("some settled" if settled else "none settled")
    assert seen == {"none settled", "some settled", "value"}, seen  # every kind of stop was met


def test_the_command_says_where_the_solve_stands_in_text_and_json(tmp_path):
    game = FlipGame(3, 8)
    searched = stopped_solve(tmp_path / "3x8.ckpt", game, 1000)
    expected = standing(tmp_path / "3x8.ckpt", settings=NO_DATABASE)
    part = expected["components"][0]
    assert "at_least" in part and 0 < part["settled"] < part["children"]
    base = [sys.executable, "-m", "flipnet", "value", "flip", "--checkpoint", "3x8.ckpt", "--status"]
    out = subprocess.run(base + ["--json"], capture_output=True, text=True, env=environment(), cwd=tmp_path)
    assert out.returncode == 0 and json.loads(out.stdout) == json.loads(json.dumps(expected)), out.stderr
    text = subprocess.run(base, capture_output=True, text=True, env=environment(), cwd=tmp_path)
    lines = text.stdout.splitlines()
    assert text.returncode == 0 and text.stderr == ""
    assert lines[0] == f"3x8.ckpt: flip {game.format(game.start)}"
    assert lines[1] == (f"  {expected['facts']:,} facts kept, 0 pieces recorded; in all {searched:,} positions and "
                        f"{expected['work']['seconds']:.1f} s of search over 1 run")
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    at = rf" at commit {head[:12]}( with changes)?" if head else ""  # a copy outside git names no commit
    assert re.fullmatch(rf"  its facts written by flipnet \S+{at}", lines[2]), lines[2]
    del lines[2]
    least = part["at_least"]
    assert lines[2] == (f"component of 24 cells in a 3x8 box at 0,0: value at least {least}; is it {least}? "
                        f"{part['settled']} of {part['children']} children (up to symmetry) settled, "
                        f"{part['children'] - part['settled']} open")
    assert len(lines) == 3 + part["children"]
    assert sum(line.endswith("(open)") for line in lines) == part["children"] - part["settled"]
    other = subprocess.run(base[:5] + ["11/11"] + base[5:], capture_output=True, text=True, env=environment(),
                           cwd=tmp_path)
    assert other.returncode == 2 and other.stderr == (
        f"flipnet value: error: checkpoint 3x8.ckpt is of another board ({game.format(game.start)!r}, asked: '11/11'): "
        f"leave BOARD out to read it\n"), other.stderr


def test_a_finished_solve_and_a_solve_in_pieces_give_the_value(tmp_path):
    """A finished search keeps the board's own value; the record of a solve in pieces
    gives each child's as it comes, and the board's once every child is there."""
    game = FlipGame(3, 8)
    values = table(game)
    stopped_solve(tmp_path / "done.ckpt", game, 0)
    assert standing(tmp_path / "done.ckpt", settings=NO_DATABASE)["components"][0]["value"] == values[game.start]
    checkpoint = Checkpoint(tmp_path / "pieces.ckpt", game.format(game.start))
    children = {canonical(game.format(game.play(game.start, m))): int(values[game.play(game.start, m)])
                for m in game.legal_moves(game.start)}
    record = {}
    for child, v in children.items():
        checkpoint.save_pieces(record)
        report = standing(tmp_path / "pieces.ckpt", settings=NO_DATABASE)
        assert report["pieces"] == len(record) and report["facts"] == 0
        [part] = report["components"]
        for entry in part["moves"]:  # a recorded child has its value; another may have it by a rule
            after = canonical(game.format(game.play(game.start, game.parse_move(entry["moves"][0]))))
            assert entry.get("value", -1) == children[after] or after not in record and "not" in entry
        record[child] = {"value": v, "positions": 1, "seconds": 0.0}
    checkpoint.save_pieces(record)
    assert standing(tmp_path / "pieces.ckpt", settings=NO_DATABASE)["components"][0]["value"] == values[game.start]


def test_a_checkpoint_it_cannot_read_is_refused_in_one_line_that_never_says_delete_it(tmp_path):
    game = FlipGame(3, 8)
    stopped_solve(tmp_path / "good.ckpt", game, 100)
    with np.load(tmp_path / "good.ckpt") as f:
        saved = {name: f[name].copy() for name in f.files}
    identity = json.loads(str(saved["identity"]))
    for name, board, message in (("none", None, "is damaged (its board)"),
                                 ("bad", "11x/111", "is damaged (its board: bad character 'x' at row 1")):
        about = {**identity, "board": board} if board else {k: v for k, v in identity.items() if k != "board"}
        with open(tmp_path / f"{name}.ckpt", "wb") as f:
            np.savez(f, **{**saved, "identity": np.array(json.dumps(about))})
        with pytest.raises(DamagedFile, match=re.escape(f"checkpoint {tmp_path / name}.ckpt {message}")):
            standing(tmp_path / f"{name}.ckpt", settings=NO_DATABASE)
    with open(tmp_path / "older.ckpt", "wb") as f:  # read, never written: no advice to delete it
        np.savez(f, **{**saved, "identity": np.array(json.dumps({**identity, "format": "flipnet-cram-checkpoint-2"}))})
    with pytest.raises(DamagedFile, match=r"older.ckpt is a checkpoint of another version of flipnet "
                                          r"\('flipnet-cram-checkpoint-2', this one reads '.*'\): the flipnet that "
                                          r"wrote it reads it$"):
        standing(tmp_path / "older.ckpt", settings=NO_DATABASE)
