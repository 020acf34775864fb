import json
import os
import subprocess
import sys

import h5py
import pytest
from conftest import recursive_values

from flipnet.cli import main
from flipnet.games import FlipGame


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_prints_counts_and_writes_a_file(capsys, tmp_path):
    path = tmp_path / "flip.h5"
    code, out, _ = run(capsys, "solve", "flip", "--shape", "1x20", "-o", str(path))
    assert code == 0
    assert "nim-value 6: 6" in out and "nim-value 0: 370716" in out and " s" in out
    with h5py.File(path) as f:
        assert f["nim_value"].shape == (1 << 20,)
        assert "splits/original/bucket" in f


def test_solve_gridnim(capsys):
    code, out, _ = run(capsys, "solve", "gridnim", "--shape", "4x4")
    assert code == 0 and "win 0: 9872" in out and "win 1: 55664" in out


def test_value_json(capsys):
    code, out, _ = run(capsys, "value", "flip", "1111/1101", "--json")
    data = json.loads(out)
    assert code == 0
    assert set(data) >= {"nim_value", "first_player_wins", "winning_moves"}
    code, out, _ = run(capsys, "value", "gridnim", "1100/0000/0000/0000", "--json")
    assert json.loads(out)["win"] == 1
    code, out, _ = run(capsys, "value", "nim", "1,1,1", "--misere", "--json")
    assert json.loads(out)["first_player_wins"] is False


@pytest.mark.slow
def test_value_with_any_number_of_workers_prints_what_one_worker_prints(capsys):
    """By default, and at most, as many workers as the process has usable cores."""
    from flipnet.base.cores import usable_cores
    from flipnet.cli import exact

    board = "111111/111111/111011/111111"  # one component of 23 cells: searched, not in a table
    engines, made = [], exact.engine_from_environment
    try:
        exact.engine_from_environment = lambda: engines.append(made()) or engines[-1]  # each command's own
        outputs = []
        for workers in (1, 2, 3, 4):
            outputs.append(run(capsys, "value", "flip", board, "--workers", str(workers)))
            assert engines[-1].search().workers == min(workers, usable_cores())  # more threads only take turns
            capped = workers > usable_cores()
            assert ("more would only take turns" in outputs[-1][2]) == capped
            outputs[-1] = outputs[-1][:2]
        outputs.append(run(capsys, "value", "flip", board)[:2])
        assert engines[-1].search().workers == usable_cores()
    finally:
        exact.engine_from_environment = made
    assert all(out == outputs[0] for out in outputs) and outputs[0][0] == 0 and "winning moves" in outputs[0][1]


def test_value_of_a_long_row(capsys):
    code, out, _ = run(capsys, "value", "flip", "1" * 500)
    assert code == 0 and "nim-value" in out and "winning moves" in out


@pytest.mark.parametrize("argv, message", [
    (["solve", "chess", "--shape", "2x2"], "invalid choice: 'chess'"),
    (["solve", "flip", "--shape", "5by5"], "bad shape '5by5'"),
    (["solve", "flip", "--shape", "6x6"], "tables stop at 30 cells"),
    (["solve", "flip", "--shape", "2x2", "-o", "/dev/null/x.h5"], "/dev/null is not a directory"),
    (["value", "flip", "11x1"], "bad character 'x' at position 3"),
    (["value", "flip", "111/11"], "row 2 has 2 cells but row 1 has 3"),
    (["value", "nim", "1,-2"], "heap 2 is negative"),
    (["value", "halfnim", "zero"], "not 'zero'"),
    (["value", "flip", "1111", "--workers", "0"], "--workers must be a whole number in 1..256"),
    (["data", "--only", "flip6x6", "--workers", "257"], "--workers must be a whole number in 1..256"),
    (["data", "--scheduler", "tcp://127.0.0.1:9"], "--scheduler values a sampled dataset"),
    (["value", "halfnim", "10", "--misere"], "halfnim takes no misere/normal option (its options: none)"),
    (["value", "nim", "1,2", "--max-take", "2"], "nim takes no max-take option (its options: heaps, misere/normal)"),
    (["solve", "flip", "--shape", "2x2", "--max-take", "2"], "flip takes no max-take option"),
    (["arena", "flip", "--heaps", "1,2", "--agents", "random,optimal"], "flip takes no heaps option (its options: shape, misere/normal)"),
    (["play", "nim", "--shape", "3x3"], "nim takes no shape option"),
    (["data", "--out-dir", "/dev/null/d"], "/dev/null is not a directory"),
    (["solve", "flip", "--shape", "2x2", "-o", "/nonexistent/dir/x.h5"], "directory /nonexistent/dir does not exist"),
])
def test_bad_input_is_one_line_and_nonzero(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_python_dash_m():
    proc = subprocess.run([sys.executable, "-m", "flipnet", "value", "halfnim", "100", "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout)["winning_moves"] == [{"move": "37", "position": "63"}]


@pytest.mark.parametrize("argv", [["--help"], ["value", "nim", "1,3,5"], ["value", "halfnim", "100"],
                                  ["value", "flip", "11011111110111111111"],
                                  ["value", "gridnim", "1101/1111/0011"], ["solve", "flip", "--shape", "1x8"],
                                  ["arena", "nim", "--agents", "random,normal-nimsum", "--matches", "2"]])
def test_commands_without_networks_or_searches_do_not_load_them(argv):
    """PyTensor and Numba take most of a command's start (0.3 and 0.4 s of about 1 s):
    a command that needs neither answers without loading them."""
    code = ("import atexit, sys\nfrom flipnet.__main__ import run\n"  # a question's command leaves at once
            "atexit.register(lambda: print(*(name in sys.modules for name in ('pytensor', 'numba')), file=sys.stderr))\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\n")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.stderr.split()[-2:] == ["False", "False"], proc.stderr


def test_train_flags_are_read_for_train_only(capsys):
    """`train`'s flags come from the training settings, loaded for that command alone."""
    code, out, _ = run(capsys, "train", "--help")
    assert code == 0 and "--epochs" in out and "--workers" in out
    code, _, err = run(capsys, "value", "nim", "1,3", "--epochs", "3")
    assert code == 2 and "unrecognized arguments: --epochs 3" in err


def test_survey_nim_lists_each_seed_and_the_perfect_ones(capsys):
    from flipnet.nn.nim.train import survey

    code, out, _ = run(capsys, "survey-nim", "--seeds", "3:5", "--epochs", "30", "--json")
    assert code == 0
    want = [{"seed": s, "diff_winning": w, "diff_losing": l} for s, w, l in survey([3, 4], 30)]
    assert json.loads(out) == want
    code, out, _ = run(capsys, "survey-nim", "--seeds", "3:5", "--epochs", "30")
    assert code == 0 and "seed     3:" in out and "seed     4:" in out
    assert "seeds with no winning pile missed: none (0 of 2)" in out


@pytest.mark.parametrize("seeds, message", [("7", "FROM:TO (two integers)"),
                                            ("5:2", "0 <= FROM < TO")])
def test_survey_nim_rejects_bad_seed_ranges(capsys, seeds, message):
    code, _, err = run(capsys, "survey-nim", "--seeds", seeds)
    assert code == 2 and message in err and err.count("\n") == 1


def test_value_of_many_positions_one_json_line_each(tmp_path):
    import flipnet
    from cli_cases import FLIPNET, environment

    lines = ["11011/11111/00111", "", "1121", "11/11", "111111/111111/111111/111111", "1110/0111"]
    proc = subprocess.run([*FLIPNET, "value", "flip", "-"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, cwd=tmp_path, env=environment(), timeout=300)
    assert proc.returncode == 2, proc.stderr  # a bad line: the status says so, the rest are answered
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    good = [text for text in lines if text and text != "1121"]
    assert [g for g in got if "error" not in g] == [flipnet.value(text).to_json() for text in good]
    assert [g for g in got if "error" in g] == [{"line": 3, "position": "1121",
                                                 "error": "bad character '2' at position 3: expected '1' or '0'"}]
    assert "standard input, line 3: bad character '2'" in proc.stderr and "Traceback" not in proc.stderr

    path = tmp_path / "heaps.txt"
    path.write_text("1,2,3\n4,5\n")
    proc = subprocess.run([*FLIPNET, "value", "nim", "--file", str(path), "--no-moves"], capture_output=True,
                          text=True, cwd=tmp_path, env=environment(), timeout=300)
    assert proc.returncode == 0
    assert [json.loads(line)["nim_value"] for line in proc.stdout.splitlines()] == [0, 1]
    proc = subprocess.run([*FLIPNET, "value", "nim", "--file", str(tmp_path / "none.txt")], capture_output=True,
                          text=True, cwd=tmp_path, env=environment(), timeout=300)
    assert proc.returncode == 2 and proc.stderr.strip().endswith("none.txt: no such file")


@pytest.mark.parametrize("argv, status", [(["value", "flip", "1111/1111/0111", "--json"], 0),
                                          (["value", "flip", "11x1"], 2)])
def test_a_question_leaves_at_once_with_its_output_whole_its_status_and_its_exit_handlers(tmp_path, argv, status):
    """`value` skips the interpreter's teardown (`flipnet.__main__._leave`): what it prints,
    its exit status and what is registered to run at exit all survive."""
    mark = tmp_path / "ran"
    code = ("import atexit, sys\nfrom flipnet.__main__ import run\n"
            f"atexit.register(lambda: open({str(mark)!r}, 'w').close())\n"
            "sys.exit(run())\n")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.returncode == status and mark.exists()
    if status == 0:
        game = FlipGame(3, 4)
        assert json.loads(proc.stdout)["nim_value"] == recursive_values(game)[game.parse("1111/1111/0111")]
    else:
        assert proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1
