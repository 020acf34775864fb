"""igsolve at its best (flipnet/report/peer.py): the options its boards are run with, its
output read, its database built in a run stopped at its search, and its own peak memory."""

import time

import pytest

from flipnet.report import bench, peer


def test_the_database_takes_as_many_columns_as_fit_one_slice():
    for rows, cols in [(r, c) for r in range(2, 9) for c in range(2, 17)]:
        *_, flag, edb_cols, short, long = peer.options(rows, cols)
        assert flag == "--edb-cols" and (int(short), int(long)) == (min(rows, cols), max(rows, cols))
        edb_cols = int(edb_cols)
        assert 1 <= edb_cols <= int(long) and int(short) * edb_cols <= peer.EDB_CELLS
        assert edb_cols == int(long) or int(short) * (edb_cols + 1) > peer.EDB_CELLS


@pytest.mark.parametrize("text, seconds", [("9.89s", 9.89), ("261.71ms", 0.26171), ("15µs", 15e-6),
                                           ("3us", 3e-6), ("120ns", 120e-9), ("0s", 0.0)])
def test_a_rust_duration_is_read_in_seconds(text, seconds):
    assert peer.seconds_of(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["9.89", "1m", "ms", "1.2 h"])
def test_what_is_not_a_duration_is_named(text):
    with pytest.raises(ValueError, match="not a duration igsolve prints"):
        peer.seconds_of(text)


def _stand_in(folder, body):
    """An executable named igsolve that runs `body` (a shell script)."""
    program = folder / "igsolve"
    program.write_text("#!/bin/sh\n" + body)
    program.chmod(0o755)
    return str(program)


def test_the_database_run_stops_once_the_search_begins(tmp_path):
    program = _stand_in(tmp_path, "echo 'Time: slice 1ms'\necho built > db.edb\necho 'Searching (max 9):'\n"
                                  "sleep 30\necho 'Nimber of initial position: 1'\n")
    start = time.perf_counter()
    built = peer.build_database(program, 3, 5, tmp_path / "cache", limit=20)
    assert built is not None and time.perf_counter() - start < 10
    assert (tmp_path / "cache" / "db.edb").read_text() == "built\n"  # run in the database's folder


def test_a_database_run_past_its_limit_is_stopped_and_reported_none(tmp_path):
    program = _stand_in(tmp_path, "sleep 30\n")
    start = time.perf_counter()
    assert peer.build_database(program, 3, 5, tmp_path, limit=1.0) is None
    assert time.perf_counter() - start < 10


def test_a_run_gives_the_value_its_search_time_and_its_own_peak(tmp_path):
    """The stand-in's peak is a shell's few MB, not the test process's (hundreds of MB:
    a child's ru_maxrss would count those)."""
    program = _stand_in(tmp_path, "sleep 0.3\necho 'Nimber of initial position: 4'\n"
                                  "echo 'Calculation time: 250.5ms'\n")
    ran = peer.run(program, 3, 16, tmp_path, limit=20)
    assert ran["value"] == 4 and ran["search_seconds"] == pytest.approx(0.2505)
    assert 0.3 <= ran["seconds"] < 10 and 0 < ran["peak_mb"] < 50


def test_a_run_that_says_no_nimber_is_an_error_not_a_number(tmp_path):
    program = _stand_in(tmp_path, "echo 'Searching (max 9):'\n")
    with pytest.raises(RuntimeError, match="igsolve said no nimber for 3x5"):
        peer.run(program, 3, 5, tmp_path, limit=20)
    assert peer.run(_stand_in(tmp_path, "sleep 30\n"), 3, 5, tmp_path, limit=0.5) is None


def test_the_peer_boards_run_from_30_to_56_cells_and_none_even_by_even():
    cells = [r * c for r, c, *_ in bench.PEER_BOARDS]
    assert min(cells) == 30 and max(cells) <= 56
    assert not any(r % 2 == 0 and c % 2 == 0 for r, c, *_ in bench.PEER_BOARDS)
    assert "cram-peer" not in bench.default_sections()
