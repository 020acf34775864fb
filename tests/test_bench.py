"""`make bench` must end: sections of unbounded time run only when named."""

import pytest

from flipnet.report import bench


def test_make_bench_leaves_out_the_unbounded_sections():
    assert "cram-large" in bench.SECTIONS
    assert "cram-large" not in bench.default_sections()
    assert {"solve", "train1d", "train2d", "cram"} <= set(bench.default_sections())


def test_a_board_over_its_limit_is_reported_not_waited_for(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FLIPNET_CACHE", str(tmp_path))  # the child stops while it starts up
    bench.MEASURED.clear()
    bench._cram_boards([(6, 7, 5, None)], limit=2)
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.split()[:7] == ["6x7", "-", "5", "over", "2", "over", "2"]
    assert bench.MEASURED["cram 6x7"]["over_limit"] == 2 and bench.MEASURED["cram 6x7"]["flipnet_seconds"] is None


def test_boards_name_the_full_boards_to_time(capsys, monkeypatch):
    timed = []
    monkeypatch.setattr(bench, "BOARDS", {"5x8", "4x11"})
    monkeypatch.setattr(bench, "_child_json", lambda code, rows, cols, mirror, workers, timeout: timed.append(
        (rows, cols, workers)) or {"value": 1, "seconds": 1.0, "positions": 1, "peak_mb": 1.0})
    bench._cram_boards(bench.CRAM_LARGE)
    assert timed == [(5, 8, 1), (5, 8, 2), (4, 11, 1), (4, 11, 2)]


@pytest.mark.slow
def test_the_sample_row_times_one_worker_against_two(capsys):
    bench.MEASURED.clear()
    bench._cram_sample(count=60)
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("6x6 sample, 2 workers") and "1 worker (the same file)" in out[-1]
    measured = bench.MEASURED["6x6 sample, 2 workers"]
    assert measured["reference_seconds"] > 0 and measured["flipnet_seconds"] > 0
