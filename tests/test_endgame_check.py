"""The endgame database proves itself before a value is read: each way of damaging it
(the same length zeroed, one byte, a block, swapped or wild offsets, a description cut
short, a foreign format) ends in a rebuild that says why, never in a value read from
it; and a nimber no position of its size allows never leaves the solver."""

import json
import subprocess
import sys

import numpy as np
import pytest
from cli_cases import environment

from flipnet.base.errors import FlipnetError
from flipnet.games import FlipGame
from flipnet.solve import table
from flipnet.solve.cram import CramSolver
from flipnet.solve.cram.endgame import Endgame
from flipnet.solve.cram.limits import MIN_TABLE_LOG

SMALL = ((2, 6), (3, 4))  # 2048 + 2048 bytes, two positions a byte: small enough to build in every test
FULL_3X4 = (4096 + 4095) // 2  # the byte of the full 3x4 board's value (1), its upper half


def _bin(d):
    return d / "cram-endgame.bin"


def _meta(d):
    return json.loads((d / "cram-endgame.json").read_text())


def _edit_bytes(at, value):
    def edit(d):
        data = np.memmap(_bin(d), dtype=np.uint8, mode="r+")
        data[at] = value
        data.flush()
    return edit


def _edit_meta(change):
    def edit(d):
        meta = _meta(d)
        change(meta)
        (d / "cram-endgame.json").write_text(json.dumps(meta))
    return edit


def _swap_offsets(meta):
    meta["offsets"][0][2], meta["offsets"][1][2] = meta["offsets"][1][2], meta["offsets"][0][2]


DAMAGE = {
    "zeroed": _edit_bytes(slice(None), 0),
    "one-byte-0": _edit_bytes(FULL_3X4, 0),
    "one-byte-200": _edit_bytes(FULL_3X4, 200),
    "block-ff": _edit_bytes(slice(2048, 4096), 0xFF),
    "swapped-offsets": _edit_meta(_swap_offsets),
    "wild-offset": _edit_meta(lambda m: m["offsets"][1].__setitem__(2, 10 ** 12)),
    "text-offset": _edit_meta(lambda m: m["offsets"][1].__setitem__(2, "x")),
    "no-offsets": _edit_meta(lambda m: m.pop("offsets")),
    "no-checksums": _edit_meta(lambda m: m.pop("crc32")),
    "wrong-bytes": _edit_meta(lambda m: m.__setitem__("bytes", 99)),
    "truncated": lambda d: _bin(d).write_bytes(_bin(d).read_bytes()[:1000]),
    "foreign-format": _edit_meta(lambda m: m.__setitem__("format", "flipnet-cram-endgame-1")),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_database_is_never_read_but_built_again(tmp_path, damage):
    Endgame.load_or_build(tmp_path, boxes=SMALL)
    assert Endgame.is_built(tmp_path)
    DAMAGE[damage](tmp_path)
    assert not Endgame.is_built(tmp_path)
    said = []
    endgame = Endgame.load_or_build(tmp_path, log=said.append)
    assert len(said) == 1 and ("fails its check" in said[0] or "building the endgame database" in said[0])
    assert endgame.boxes[:, :2].tolist() == [list(b) for b in SMALL]  # the boxes it had, built again
    assert np.array_equal(endgame.box_table(1), table(FlipGame(3, 4)))
    assert Endgame.is_built(tmp_path)
    solver = CramSolver(endgame=endgame, progress=False, tt_log=MIN_TABLE_LOG)
    assert solver.value([(r, c) for r in range(3) for c in range(4)]) == table(FlipGame(3, 4))[-1]


def test_the_check_names_what_is_wrong(tmp_path):
    Endgame.load_or_build(tmp_path, boxes=SMALL)
    _edit_bytes(70, 3)(tmp_path)
    said = []
    Endgame.load_or_build(tmp_path, log=said.append)
    assert said[0].startswith(f"the endgame database in {tmp_path} fails its check: bytes 0..4095, "
                              f"in table 2x6, fail their checksum; building it again")
    _edit_meta(_swap_offsets)(tmp_path)
    said.clear()
    Endgame.load_or_build(tmp_path, log=said.append)
    assert "its offsets are not the layout of boxes 2x6, 3x4" in said[0]


def test_a_nimber_the_position_cannot_have_never_leaves_the_solver():
    """A table damaged in memory (past any file check): 15 for the full 3x4 board, which
    has 12 cells and so a value below 8, is refused in one line, not answered."""
    good = Endgame.build(boxes=SMALL)
    data = np.array(good.data)
    full_board = (good.boxes[1, 2] + 4095) // 2  # its byte: the upper half (an odd position)
    data[full_board] = data[full_board] & 0x0F | 0xF0
    solver = CramSolver(endgame=Endgame(data, good.boxes), progress=False, tt_log=MIN_TABLE_LOG)
    full = [(r, c) for r in range(3) for c in range(4)]
    with pytest.raises(FlipnetError, match=r"^the search gave nimber 15 to a position of 12 cells, which "
                                           r"allows values below 8: the endgame database"):
        solver.value(full)
    with pytest.raises(FlipnetError, match="the search gave nimber 15"):
        solver.values_of_states([(1 << 12) - 1], 3, 4)


@pytest.mark.slow
def test_flipnet_endgame_checks_what_it_claims_to_check(tmp_path):
    """Through the command: a damaged database is built again, with the reason on one line."""
    Endgame.load_or_build(tmp_path, boxes=SMALL)
    _edit_bytes(slice(None), 0)(tmp_path)

    def endgame():
        return subprocess.run([sys.executable, "-m", "flipnet", "endgame", "--dir", str(tmp_path)],
                              capture_output=True, text=True, env=environment(), timeout=120)
    proc = endgame()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "fails its check: bytes 0..4095, in table 2x6, fail their checksum; building it again" in lines[0]
    assert lines[1].startswith(f"endgame database in {tmp_path}: boxes 2x6, 3x4, 0 MB, checked and ready in")
    again = endgame()
    assert again.returncode == 0 and len(again.stdout.splitlines()) == 1  # sound now: loaded, not built
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cram-endgame.bin", "cram-endgame.json"]


def test_a_stamped_database_is_trusted_without_reading_it_until_a_write(tmp_path, monkeypatch):
    """After its full check the file is stamped; a process then reads no block to trust it.
    Every write that keeps its length is still seen: random small values over a whole
    table (of the right length), and a write whose mtime is set back to the stamp's."""
    from flipnet.solve.cram import endgame as module

    Endgame.load_or_build(tmp_path, boxes=SMALL)
    Endgame.is_built(tmp_path)  # the build's own check stamped it
    assert _meta(tmp_path)["stamp"]
    reads = []
    real = module._block_crcs
    monkeypatch.setattr(module, "_block_crcs", lambda data: reads.append(1) or real(data))
    assert Endgame.is_built(tmp_path) and reads == []  # one stat, no block read
    Endgame.load_or_build(tmp_path, full_check=True)
    assert reads == [1]  # `flipnet endgame` reads every block
    data = np.memmap(_bin(tmp_path), dtype=np.uint8, mode="r+")
    data[2048:] = np.random.default_rng(0).integers(0, 4, size=2048) * 0x11  # the 3x4 table: values it could hold
    data.flush()
    del data
    assert not Endgame.is_built(tmp_path)
    Endgame.load_or_build(tmp_path)  # built again
    stamp = _meta(tmp_path)["stamp"]
    _edit_bytes(FULL_3X4, 0)(tmp_path)
    import os
    os.utime(_bin(tmp_path), ns=(stamp[3], stamp[3]))  # the mtime set back: the ctime moved on
    assert not Endgame.is_built(tmp_path)


def test_a_set_of_larger_boxes_kept_in_the_cache_will_do_where_asked(tmp_path, monkeypatch):
    """The peer bench asks for the 30-cell set or larger: the 32-cell one kept there is
    read, not built over; asked for a set exactly, the cache gets that set."""
    from flipnet.solve.cram import endgame as module
    from flipnet.solve.engine import endgame_database

    monkeypatch.setattr(module, "BOX_SETS", {8: ((2, 4),), 12: SMALL})
    Endgame.load_or_build(tmp_path, boxes=SMALL)
    said = []
    kept = endgame_database(tmp_path, cells=8, log=said.append, full_check=False, or_larger=True)
    assert kept.box_names == "2x6, 3x4" and said == []
    exact = endgame_database(tmp_path, cells=8, log=said.append, full_check=False)
    assert exact.box_names == "2x4" and len(said) == 1 and "holds other boxes" in said[0]
    assert endgame_database(tmp_path, cells=12, full_check=False, or_larger=True).box_names == "2x6, 3x4"


def test_what_a_build_would_make_is_said_before_it(tmp_path):
    """The background build says what it will build: the default set where nothing is
    there, else the boxes the description names, of an earlier layout or damaged."""
    assert Endgame.to_build(tmp_path) == ("2x12, 3x9, 4x7, 5x5", 226_492_416)
    Endgame.load_or_build(tmp_path, boxes=SMALL)
    _edit_meta(lambda m: m.__setitem__("format", "flipnet-cram-endgame-2"))(tmp_path)
    assert not Endgame.is_built(tmp_path)
    assert Endgame.to_build(tmp_path) == ("2x6, 3x4", 4096)


def test_the_32_cell_set_reads_a_group_of_4x7_from_its_own_box():
    """4x8 holds every group 4x7 holds; 4x7 comes first, so the search and the plain
    recursion read such a group from its 134 MB, not from 4x8's 2.1 GB."""
    from flipnet.solve.cram import search
    from flipnet.solve.cram.endgame import BOX_SETS, _layout

    offsets, size = _layout(BOX_SETS[32])
    assert [(h, w) for h, w, _ in offsets] == [(2, 15), (3, 10), (4, 7), (4, 8), (5, 6)] and size == 3_892_314_112
    boxes = np.array(offsets, np.int64)
    rows = np.zeros(64, np.uint64)
    rows[:4] = (1 << 7) - 1  # a full 4x7 group
    assert search.db_index(boxes, rows, 4, 7) == offsets[2][2] + (1 << 28) - 1  # the last position of 4x7
    rows[:4] = (1 << 8) - 1  # a full 4x8 one
    assert search.db_index(boxes, rows, 4, 8) == offsets[3][2] + (1 << 32) - 1
    reader = Endgame(np.zeros(1, np.uint8), offsets)
    assert reader.holds(7, 4) and reader.holds(8, 4) and not reader.holds(4, 9) and not reader.holds(6, 6)
