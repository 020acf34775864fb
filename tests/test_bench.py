"""`make bench` must end: sections of unbounded time run only when named."""

import pytest

from flipnet.report import bench


def test_make_bench_leaves_out_the_unbounded_sections():
    assert "cram-large" in bench.SECTIONS
    assert "cram-large" not in bench.default_sections()
    assert {"solve", "train1d", "train2d", "cram"} <= set(bench.default_sections())


def test_a_board_over_its_limit_is_reported_not_waited_for(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FLIPNET_CACHE", str(tmp_path))  # the command stops while it starts up
    monkeypatch.setattr(bench, "IGSOLVE", None)
    monkeypatch.setattr(bench, "LIMIT", 2.0)  # --limit, over the section's own
    bench.MEASURED.clear()
    bench._cram_boards([(6, 7, 5, None)], limit=1800)
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.split()[:10] == ["6x7", "-", "5", "not", "given", "over", "2", "-", "over", "2"]
    assert bench.MEASURED["cram 6x7"]["over_limit"] == 2 and bench.MEASURED["cram 6x7"]["flipnet_seconds"] is None


def test_boards_name_the_full_boards_to_time(capsys, monkeypatch):
    timed = []
    monkeypatch.setattr(bench, "BOARDS", {"5x8", "4x11"})
    monkeypatch.setattr(bench, "_flipnet_board", lambda rows, cols, mirror, workers, limit: timed.append(
        (rows, cols, workers)) or {"value": 1, "seconds": 1.0, "positions": 1, "peak_mb": 1.0})
    monkeypatch.setattr(bench, "_igsolve_board", lambda rows, cols, limit: {})
    bench._cram_boards(bench.CRAM_LARGE)
    assert timed == [(5, 8, 1), (5, 8, 2), (4, 11, 1), (4, 11, 2)]


@pytest.mark.slow
def test_igsolve_is_timed_beside_the_whole_commands(capsys, tmp_path, monkeypatch):
    """A stand-in for igsolve (its output's line) on the 2x3 board: its seconds, the ratio
    of its time to flipnet's one worker, and both of flipnet's whole commands."""
    stand_in = tmp_path / "igsolve"
    stand_in.write_text("#!/bin/sh\nsleep 0.5\necho 'Nimber of initial position: 1'\n")
    stand_in.chmod(0o755)
    monkeypatch.setattr(bench, "IGSOLVE", str(stand_in))
    bench.MEASURED.clear()
    bench._cram_boards([(2, 3, 1, None)], limit=120)
    board, value, published, igsolve, one, ratio, two, *_ = capsys.readouterr().out.splitlines()[-1].split()
    assert (board, value, published) == ("2x3", "1", "1") and float(igsolve) >= 0.5
    measured = bench.MEASURED["cram 2x3"]
    assert ratio == f"{measured['reference_seconds'] / measured['seconds']:.2f}x" and float(two) > 0
    assert float(igsolve) == pytest.approx(measured["reference_seconds"], abs=0.005)
    assert measured["reference"] == "igsolve, one thread, whole command" and measured["positions"] >= 1
    stand_in.write_text("#!/bin/sh\necho 'Nimber of initial position: 2'\n")
    with pytest.raises(AssertionError, match="igsolve: 2 is not the published 1"):
        bench._cram_boards([(2, 3, 1, None)], limit=120)


@pytest.mark.slow
def test_the_sample_row_times_one_worker_against_two(capsys):
    bench.MEASURED.clear()
    bench._cram_sample(count=60)
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("6x6 sample, 2 workers") and "1 worker (the same file)" in out[-1]
    measured = bench.MEASURED["6x6 sample, 2 workers"]
    assert measured["reference_seconds"] > 0 and measured["flipnet_seconds"] > 0
