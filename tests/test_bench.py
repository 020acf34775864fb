"""`make bench` must end: sections of unbounded time run only when named."""

import pytest

from flipnet.report import bench


def test_make_bench_leaves_out_the_unbounded_sections():
    assert "cram-large" in bench.SECTIONS
    assert "cram-large" not in bench.default_sections()
    assert {"solve", "train1d", "train2d", "cram"} <= set(bench.default_sections())


@pytest.mark.slow
def test_a_board_over_its_limit_is_reported_not_waited_for(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FLIPNET_CACHE", str(tmp_path))  # the command stops while it starts up
    run = bench.Bench(limit=2.0)  # --limit, over the section's own
    bench._cram_boards(run, [(6, 7, 5, None)], limit=1800)
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.split()[:10] == ["6x7", "-", "5", "not", "given", "over", "2", "-", "over", "2"]
    assert run.measured["cram 6x7"]["over_limit"] == 2 and run.measured["cram 6x7"]["flipnet_seconds"] is None


def test_boards_name_the_full_boards_to_time(capsys, monkeypatch):
    timed = []
    monkeypatch.setattr(bench, "_flipnet_board", lambda rows, cols, mirror, workers, limit: timed.append(
        (rows, cols, workers)) or {"value": 1, "seconds": 1.0, "positions": 1, "peak_mb": 1.0})
    monkeypatch.setattr(bench, "_igsolve_board", lambda igsolve, rows, cols, limit: {})
    bench._cram_boards(bench.Bench(boards={"5x8", "4x11"}), bench.CRAM_LARGE)
    assert timed == [(5, 8, 1), (5, 8, 2), (4, 11, 1), (4, 11, 2)]


@pytest.mark.slow
def test_igsolve_is_timed_beside_the_whole_commands(capsys, tmp_path, monkeypatch):
    """A stand-in for igsolve (its output's line) on the 2x3 board: its seconds, the ratio
    of its time to flipnet's one worker, and both of flipnet's whole commands."""
    stand_in = tmp_path / "igsolve"
    stand_in.write_text("#!/bin/sh\nsleep 0.5\necho 'Nimber of initial position: 1'\n")
    stand_in.chmod(0o755)
    run = bench.Bench(igsolve=str(stand_in))
    bench._cram_boards(run, [(2, 3, 1, None)], limit=120)
    board, value, published, igsolve, one, ratio, two, *_ = capsys.readouterr().out.splitlines()[-1].split()
    assert (board, value, published) == ("2x3", "1", "1") and float(igsolve) >= 0.5
    measured = run.measured["cram 2x3"]
    assert ratio == f"{measured['reference_seconds'] / measured['seconds']:.2f}x" and float(two) > 0
    assert float(igsolve) == pytest.approx(measured["reference_seconds"], abs=0.005)
    assert 20 < measured["peak_mb"] < 1000  # the command's own program: Python, NumPy, Numba, a 16 MB table
    assert measured["reference"] == "igsolve, one thread, whole command" and measured["positions"] >= 1
    stand_in.write_text("#!/bin/sh\necho 'Nimber of initial position: 2'\n")
    with pytest.raises(AssertionError, match="igsolve: 2 is not the published 1"):
        bench._cram_boards(run, [(2, 3, 1, None)], limit=120)


@pytest.mark.slow
def test_the_sample_row_times_one_worker_against_two(capsys):
    run = bench.Bench()
    bench._cram_sample(run, count=60)
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("6x6 sample, 2 workers") and "1 worker (the same file)" in out[-1]
    measured = run.measured["6x6 sample, 2 workers"]
    assert measured["reference_seconds"] > 0 and measured["flipnet_seconds"] > 0


def test_the_former_shift_matrix_convolution_computes_what_the_layouts_do():
    """The bench's "shift" row times convmem2d's former convolution in place of
    `layouts.conv3x3`: the same numbers, so the row compares two ways of one function."""
    import numpy as np
    import pytensor
    import pytensor.tensor as pt
    from conftest import python_mode

    from flipnet.nn.components import layouts

    side, batch, c_in, c_out = 3, 2, 3, 4
    rng = np.random.default_rng(0)
    h_value = rng.normal(size=(batch, side * side, c_in))
    w_value = rng.normal(size=(9 * c_in, c_out))
    h, w = pt.tensor3("h", dtype="float64"), pt.matrix("w", dtype="float64")
    mode = python_mode()
    former, present = (pytensor.function([h, w], conv(h, w, side, batch), mode=mode)(h_value, w_value)
                       for conv in (bench._shift_matrix_conv, layouts.conv3x3))
    framed = np.pad(h_value.reshape(batch, side, side, c_in), ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.concatenate([framed[:, 1 + dr:1 + dr + side, 1 + dc:1 + dc + side] for dr, dc in layouts.OFFSETS],
                             axis=3)
    by_hand = windows.reshape(batch * side * side, 9 * c_in) @ w_value
    np.testing.assert_allclose(present.reshape(-1, c_out), by_hand, rtol=1e-12)
    np.testing.assert_allclose(former, present, rtol=1e-12, atol=1e-12)


def test_the_bench_keeps_its_run_in_one_object_and_its_programs_in_a_module():
    """No module state set by `global`, no program written in a string for `python -c`:
    the child programs are bench_child.py's, which the layering test and a linter read."""
    import ast
    import inspect

    source = inspect.getsource(bench)
    assert not [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Global)]
    assert '"-c"' not in source
    assert bench._start_seconds(["--help"], repeat=1) > 0  # the flipnet command, through the child module
    with pytest.raises(RuntimeError):  # a child that fails is its last line, not a hang
        bench._child_json("cram-random", "x", 0.5, 1, 1)
