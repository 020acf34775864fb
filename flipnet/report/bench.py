"""`make bench` (`flipnet bench`): flipnet's timings beside a reference run in the same
process, as ratios.

`flipnet bench [--only SECTION ...] [--out FILE]`. Timings are wall-clock seconds on
whatever machine runs it; first calls (thread pools, compilation) are kept out.
"""

import contextlib
import ctypes
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from flipnet.base.files import check_writable, write_json

# The sections, by name (filled as the module is read), and those of unbounded time, run
# only when named (`make bench-large`)
SECTIONS = {}
LONG = set()
CHILD = [sys.executable, "-m", "flipnet.report.bench_child"]  # the child programs (bench_child.py)


class Bench:
    """One run of the benchmarks, handed to each section: its settings and what it
    measured. `boards`: the Cram boards to time ("6x7", ...), None for all of a section's
    (--boards); `igsolve`: igsolve's binary, timed beside the Cram solver where given;
    `against`: the Python of another flipnet (a worktree's), whose Cram commands and first
    answer are timed beside this one's, one after the other (`--against`);
    `limit`: seconds a Cram board's command may take before it is stopped, None for the
    section's own; `measured`: task -> {"reference", "reference_seconds",
    "flipnet_seconds", ...}, written by --out."""

    def __init__(self, boards=None, igsolve=None, limit=None, against=None):
        self.boards, self.igsolve, self.limit = boards, igsolve, limit
        self.against = against  # another flipnet's Python (`--against`), timed beside this one
        self.measured = {}

    def row(self, task, reference, ref_seconds, ours_seconds, note=""):
        """Print a task's timing beside its reference's, and keep both."""
        self.measured[task] = {"reference": reference, "reference_seconds": ref_seconds,
                               "flipnet_seconds": ours_seconds}
        ratio = f"{ref_seconds / ours_seconds:8.1f}x" if ref_seconds else "       -"
        ref = f"{ref_seconds:9.3f} s" if ref_seconds else "  skipped"
        print(f"{task:<30} {reference:<26} {ref} {ours_seconds:9.3f} s {ratio}  {note}", flush=True)

    def chosen(self, boards):
        """The boards of a section that --boards names (all of them without --boards)."""
        return [b for b in boards if self.boards is None or board_label(*b[:2]) in self.boards]


def section(name, long=False):
    def register(fn):
        SECTIONS[name] = fn
        if long:
            LONG.add(name)
        return fn
    return register


def default_sections():
    return [name for name in SECTIONS if name not in LONG]


def timed(fn, repeat=1):
    """(best wall seconds over `repeat` runs, last result)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def header(title):
    print(f"\n== {title}")
    print(f"{'task':<30} {'reference':<26} {'ref time':>11} {'flipnet':>11} {'speed-up':>9}")


@section("solve")
def bench_solve(bench):
    from flipnet.games import FlipGame, GridNim
    from flipnet.solve import table
    from flipnet.solve.reference import plain_table

    header("exact tables (vectorized bitmask DP)")
    table(FlipGame(2, 2))  # warm-up: imports, thread pool
    for game, label in ((FlipGame(1, 20), "flip 1x20 (2^20 states)"),
                        (GridNim(4, 4), "grid Nim 4x4 (2^16 states)")):
        ours, fast = timed(lambda: table(game), repeat=3)
        ref, plain = timed(lambda: plain_table(game.n_cells, game.move_masks, game.rule))
        assert np.array_equal(fast, plain), f"{label}: tables differ"
        bench.row(label, "plain Python loop", ref, ours)

    game = FlipGame(5, 5)
    ours, fast = timed(lambda: table(game), repeat=2)
    original = _cpp_reference()
    if original is None:
        bench.row("flip 5x5 (2^25 states)", "C++ -O2 (no g++ here)", None, ours)
    else:
        out = np.empty(1 << 25, dtype=np.uint8)
        ref, _ = timed(lambda: original(5, 5, out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))))
        assert np.array_equal(out, fast), "5x5 tables differ"
        bench.row("flip 5x5 (2^25 states)", "C++ -O2, original method", ref, ours)
    one, _ = timed(lambda: table(game, threads=1))
    print(f"  5x5 on one thread: {one:.3f} s")
    grid = GridNim(5, 5)
    seconds, win = timed(lambda: table(grid))
    print(f"  grid Nim 5x5 (2^25 states, misere; the original script: out of reach): {seconds:.1f} s, "
          f"the full board is {'won' if win[grid.start] else 'lost'} for the player to move")
    print(f"  peak memory of a 5x5 solve (fresh process): {_peak_mb('solve-5x5'):.0f} MB")


@section("train1d")
def bench_train_1d(bench):
    header("1D training epoch: paper's conv1d, SGD, batch 20, 79,440 states")
    bench_epoch(bench, "conv1d", rows=1, cols=20, n_states=79_447, batch=20, repeat=3)


@section("train2d")
def bench_train_2d(bench):
    header("2D training epoch: paper's mlp2d, SGD, batch 50, 2,348,675 states")
    bench_epoch(bench, "mlp2d", rows=5, cols=5, n_states=2_348_675, batch=50, repeat=1)


def bench_epoch(bench, model_name, rows, cols, n_states, batch, repeat):
    """One epoch as one compiled scan beside one compiled call per minibatch.

    Random states and labels: an epoch's cost does not depend on them. The first call of
    each function (Numba compiles then) is kept out of the timings.
    """
    from flipnet.nn import FLOAT
    from flipnet.nn.core import optim
    from flipnet.nn.core.compile import epoch_function, step_function
    from flipnet.nn.core.kinds import build

    rng = np.random.default_rng(0)
    model = build(model_name, 0, rows, cols)
    n_batches = n_states // batch
    states = rng.integers(0, 1 << (rows * cols), size=(n_batches, batch)).astype(np.uint32)
    labels = rng.integers(0, model.n_classes, size=(n_batches, batch))
    lr = np.asarray(0.01, dtype=FLOAT)
    scan_epoch = epoch_function(model, optim.make("sgd", model.params))
    one_step = step_function(model, optim.make("sgd", model.params))
    start = time.perf_counter()
    scan_epoch(states[:2], labels[:2], lr)
    one_step(states[0], labels[0], lr)
    print(f"  compile and first calls: {time.perf_counter() - start:.1f} s (cached on disk afterwards)")

    def plain_epoch():
        for s, y in zip(states, labels):
            one_step(s, y, lr)

    ref, _ = timed(plain_epoch, repeat=repeat)
    ours, _ = timed(lambda: scan_epoch(states, labels, lr), repeat=repeat)
    bench.row(f"{model_name} epoch ({n_batches} steps)", "one call per minibatch", ref, ours,
        f"{ours / n_batches * 1e6:.0f} us per step")


@section("convmem")
def bench_convmem(bench):
    header("convmem2d-deep training step: 8 residual layers, batch 512, 5x5 frame, 60% of cells live")
    ours, framed = convmem_step_seconds("live"), convmem_step_seconds("frame")
    bench.row("20 steps, live cells only", "20 steps over the whole frame", framed, ours,
        f"{ours / 20 * 1e3:.0f} ms per step (the same function: nn/components/layouts.py)")
    bench.row("20 steps, frame: 3x3 windows", "frame: 0/1 shift-matrix product", convmem_step_seconds("shift"),
        framed, f"{framed / 20 * 1e3:.0f} ms per step (the former frame gathering)")
    halves = convmem_step_seconds("live", n=40, batch=256)
    bench.row("10,240 shapes at batch 256", "the same at batch 512", ours, halves,
        f"{halves / 40 * 1e3:.0f} ms per step (an epoch at batch 256 against one at 512)")
    shared = convmem_step_seconds("live", workers=2)
    bench.row("20 steps on two processes", "20 steps on one", ours, shared,
        f"{shared / 20 * 1e3:.0f} ms per step (--workers 2, nn/components/parallel.py; needs a second idle core)")
    valid, labels = convmem_forward_seconds()
    bench.row("validation on two processes", "on one", valid[0], valid[1],
        f"{valid[1] * 1e3:.0f} ms for {valid[2]:,} new shapes (base/forked.py; the same bits)")
    bench.row("1-ply labels on two processes", "on one", labels[0], labels[1],
        f"{labels[1]:.1f} s for {labels[2]:,} drawn shapes (the same labels)")
    # the allocator is set once per process: both runs in fresh ones, glibc left alone in one
    kept = _child_json("convmem-steps")
    system = _child_json("convmem-steps", env={**os.environ, "FLIPNET_HEAP": "system"})
    bench.row("20 steps, freed memory kept", "glibc's default malloc", system, kept, "fresh processes")


def convmem_forward_seconds():
    """([one, two] seconds, n) of convmem2d-deep's validation pass over the n new shapes
    of 20,000 seeded 5x5 boards, and ([one, two] seconds, n) of 1-ply labels of n of them
    (a table holding the shapes of 2,000 other boards, all valued 0: the work, not the
    answers, is timed): in one process, then shared with a forked one (`base/forked.py`).
    The function is built and run once first, as in a run."""
    from flipnet.datasets.components import Components
    from flipnet.nn.components.convmem import ConvMemory
    from flipnet.nn.components.drawn import draw_shapes, one_ply_labels
    from flipnet.nn.components.lookup import ShapeLookup
    from flipnet.nn.components.maskconv import MaskedConvNet

    boards = np.random.default_rng([0, 1]).integers(0, 1 << 25, size=2000, dtype=np.uint64)
    table = ShapeLookup.fit(boards, np.zeros(boards.size, np.int64), 5, 5)
    model = ConvMemory(MaskedConvNet(0, layers=8), table, 5, 5)
    model.network_probabilities(np.unique(Components(5, 5).shapes(boards[:10])))  # built and run once
    keys = draw_shapes(5, 5, 20000, 0, np.unique(Components(5, 5).shapes(boards)))
    valid = [timed(lambda: model.network_probabilities(keys, workers))[0] for workers in (1, 2)]
    labelled = keys[:4096]
    labels = [timed(lambda: one_ply_labels(model, labelled, workers=workers))[0] for workers in (1, 2)]
    return (*valid, keys.size), (*labels, labelled.size)


def convmem_step_seconds(layout, n=20, batch=512, workers=1, **network):
    """Seconds of `n` training steps of a fresh convmem2d-deep network (after one) on
    minibatches of `batch` shapes with 60% of their cells live (a taught shape has 15 of
    25), over the live cells ("live", flipnet's), over the whole frame with 3x3 windows
    gathered by slices ("frame") or by a shift-matrix product ("shift", the former way);
    `workers` > 1: each step shared by that many processes (`nn/components/parallel.py`, live cells);
    `network`: MaskedConvNet settings beside its 8 layers."""
    from unittest import mock

    from flipnet.base.denormals import flushed
    from flipnet.nn import FLOAT
    from flipnet.nn.components import layouts
    from flipnet.nn.components import maskconv
    from flipnet.nn.components.parallel import SplitStep
    from flipnet.nn.components.shapetrain import step_function
    from flipnet.nn.core import optim

    rng = np.random.default_rng(0)
    cells = (rng.random((batch, 25)) < 0.6).astype(FLOAT)
    values, lr = rng.integers(0, 8, batch), np.asarray(1e-3, FLOAT)
    gather = _shift_matrix_conv if layout == "shift" else layouts.conv3x3
    rows = layouts.LiveCells if layout == "live" else layouts.FrameCells
    with mock.patch.object(layouts, "conv3x3", gather), flushed(), contextlib.ExitStack() as stack:
        net = maskconv.MaskedConvNet(0, layers=8, **network)
        adam = optim.make("adam", net.params, clip_norm=2.0)
        step = step_function(net, adam, 5, layout=rows) if workers == 1 else \
            stack.enter_context(SplitStep(net, adam, 5, workers, batch, flush_denormals=True))
        step(cells, values, lr)
        return timed(lambda: [step(cells, values, lr) for _ in range(n)])[0]


def _shift_matrix_conv(h, weights, side, batch):
    """convmem2d's former convolution: each cell's neighbourhood gathered by a product with
    a constant (n, 9 n) 0/1 matrix, then the weights (`layouts.conv3x3`'s arguments)."""
    import pytensor.tensor as pt

    from flipnet.nn import FLOAT
    from flipnet.nn.components import layouts

    n = side * side
    shift = np.zeros((n, 9 * n), dtype=FLOAT)
    for j in range(n):
        r, c = divmod(j, side)
        for k, (dr, dc) in enumerate(layouts.OFFSETS):
            if 0 <= r + dr < side and 0 <= c + dc < side:
                shift[(r + dr) * side + c + dc, k * n + j] = 1
    channels = layouts.channels_in(weights)
    gathered = pt.dot(h.dimshuffle(0, 2, 1).reshape((batch * channels, n)), pt.constant(shift))
    windows = gathered.reshape((batch, channels, 9, n)).dimshuffle(0, 3, 2, 1).reshape((batch * n, 9 * channels))
    return pt.dot(windows, weights).reshape((batch, n, weights.shape[1]))


# Full boards: (rows, cols, published nimber, seconds of the C++ Lemoine-Viennot solver of
# MCGS without a database, as docs/sources.md quotes them; None where none is quoted)
CRAM_BOARDS = [(6, 6, 0, 289.0), (5, 7, 1, 98.0), (4, 9, 1, 117.0), (3, 14, 3, None)]
CRAM_LARGE = [(3, 13, 2, 175.0), (3, 15, 1, None), (5, 8, 1, None), (4, 10, 0, None), (3, 17, 0, None),
              (4, 11, 1, None), (3, 16, 4, None), (3, 18, 1, None), (5, 9, 1, None), (6, 7, 5, None),
              (3, 19, 0, None), (5, 10, 2, None), (4, 13, 3, None), (7, 7, 1, None)]
CRAM_RANDOM = [(n, d) for n in (6, 7, 8) for d in (0.5, 0.6, 0.7)]
RANDOM_LIMIT = 60.0  # seconds per random position: a slower one is counted, not waited for
LARGE_LIMIT = 7200.0  # seconds per large board (make bench-large)

def _child_json(program, *args, timeout=1800, env=None):
    """The JSON line a child program (bench_child.py) printed last."""
    proc = subprocess.run([*CHILD, program, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          env=env)
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cram_prepare(cells=None, or_larger=False):
    """Build the endgame database (boxes of at most `cells` cells, or larger with
    `or_larger` where the cache holds such a set; default: the one in the cache, else the
    default set) and compile the solver once (reported, then kept out)."""
    from flipnet.base.places import cache_dir
    from flipnet.solve.engine import Engine, Settings, endgame_database

    start = time.perf_counter()
    endgame = endgame_database(cells=cells, log=lambda line: print(f"  {line}"), full_check=False,
                               or_larger=or_larger)
    built = time.perf_counter() - start
    start = time.perf_counter()
    Engine(Settings(progress=False, plain=False, endgame="off")).search().value({(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)})
    print(f"  endgame database: boxes {endgame.box_names}, {endgame.nbytes / 1e6:.0f} MB in {cache_dir()}, "
          f"ready in {built:.1f} s; solver compiled or loaded from the Numba cache in "
          f"{time.perf_counter() - start:.1f} s")
    return endgame


def board_label(rows, cols):
    return f"{rows}x{cols}"


def _command(argv, timeout, env=None):
    """(wall seconds, stdout, stderr, ru_maxrss in MB) of a whole command in a process of
    its own; None if it did not end within `timeout` seconds (it is then killed). The
    kernel's ru_maxrss of a child also counts this process's memory at the fork (nearly
    1 GB after the training sections): a true peak comes from the command itself."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env)
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                process.kill()
                process.wait()
                return None
            time.sleep(0.01)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, with its resource usage
        out.seek(0)
        err.seek(0)
        if process.returncode:
            last = (err.read().strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"{' '.join(map(str, argv[:6]))} ... ended with status {process.returncode}: {last}")
        return seconds, out.read(), err.read(), usage.ru_maxrss / 1024


def _flipnet_board(rows, cols, mirror, workers, limit, python=None):
    """The whole command `flipnet value flip BOARD --no-moves --workers N` (the endgame
    database in the cache): {"value", "seconds", "positions", "peak_mb"} or None. `python`:
    another flipnet's (`--against`), else this one's."""
    text = "/".join(["1" * cols] * rows)
    env = {**os.environ, "FLIPNET_PROGRESS": "0", **({} if mirror else {"FLIPNET_MIRROR": "off"})}
    child = CHILD if python is None else [python, *CHILD[1:]]
    ran = _command([*child, "flipnet", "--peak", "value", "flip", text, "--no-moves", "--workers", str(workers),
                    "--json"], limit, env)
    if ran is None:
        return None
    seconds, out, err, _ = ran
    answer = json.loads(out)
    peak_kb = int(re.findall(r"^peak_kb (\d+)$", err, re.MULTILINE)[-1])
    return {"value": answer["nim_value"], "seconds": seconds, "positions": answer["search"]["positions"],
            "search_seconds": answer["search"].get("seconds"), "peak_mb": peak_kb / 1024}


def _igsolve_board(igsolve, rows, cols, limit):
    """igsolve's whole command on one thread (its default pruning, a 4 GB table, no end
    database; `peer.py` runs it at its best): {"value", "seconds"}, None past the limit, or
    {} without igsolve."""
    from flipnet.report import peer

    if igsolve is None:
        return {}
    ran = _command([igsolve, "--tt_size", "4", "cram", str(rows), str(cols)], limit)
    if ran is None:
        return None
    seconds, out, _, _ = ran  # not its ru_maxrss: that counts this process's memory at the fork
    return {"value": peer.value_of(out, board_label(rows, cols)), "seconds": seconds}


def _cram_boards(bench, boards, limit=1800):
    """Each full board as whole commands, each in a process of its own: igsolve on one
    thread (where `--igsolve` names it), flipnet with one worker and with two; a command
    that gives no answer within `limit` seconds is stopped and reported so."""
    boards, limit = bench.chosen(boards), bench.limit or limit
    print(f"{'board':<21} {'nimber':>6} {'published':>9} {'igsolve s':>10} {'1 worker s':>10} {'ratio':>6} "
          f"{'2 workers s':>11} {'positions (1 / 2)':>23} {'peak MB':>8}")
    for rows, cols, published, anchor in boards:
        for mirror in ((True, False) if rows % 2 == 0 and cols % 2 == 0 else (True,)):
            label = board_label(rows, cols) + ("" if mirror else " (no mirror rule)")
            ig = _igsolve_board(bench.igsolve, rows, cols, limit) if mirror else {}
            runs = {workers: _flipnet_board(rows, cols, mirror, workers, limit) for workers in (1, 2)}
            for who, r in [("igsolve", ig), ("flipnet, 1 worker", runs[1]), ("flipnet, 2 workers", runs[2])]:
                assert not r or r["value"] == published, f"{label}, {who}: {r['value']} is not the published {published}"
            one, two = runs[1], runs[2]

            def seconds(r, absent="-"):
                return absent if r == {} else f"{r['seconds']:.2f}" if r else f"over {limit:g}"
            value = (one or two or ig or {}).get("value", "-")
            ratio = f"{ig['seconds'] / one['seconds']:.2f}x" if ig and one else "-"
            positions = " / ".join(f"{r['positions']:,}" if r else "-" for r in (one, two))
            peak = max((r["peak_mb"] for r in (one, two) if r), default=None)
            absent = "-" if not mirror else "not given"
            print(f"{label:<21} {value:>6} {published:>9} {seconds(ig, absent):>10} {seconds(one):>10} {ratio:>6} "
                  f"{seconds(two):>11} {positions:>23} {'-' if peak is None else format(peak, '.0f'):>8}", flush=True)
            if bench.against is not None:
                _beside_another(bench, label, rows, cols, mirror, limit, runs)
            bench.measured[f"cram {label}"] = {
                "reference": "igsolve, one thread, whole command" if ig else "C++ Lemoine-Viennot (MCGS), quoted",
                "reference_seconds": ig["seconds"] if ig else anchor if ig == {} else None,
                "published": published, "limit": limit,
                **{f"{key}{suffix}": (r[key] if r else None) for suffix, r in (("", one), ("_two_workers", two))
                   for key in ("seconds", "positions", "peak_mb")},
                "flipnet_seconds": one["seconds"] if one else None,
                **({"over_limit": limit} if one is None else {}), **({"nimber": value} if one or two else {})}


def _beside_another(bench, label, rows, cols, mirror, limit, ours):
    """The same board's commands by the flipnet of `--against`, one worker and two, printed
    as the ratio of its seconds to this one's (above 1: this one is faster); the same value
    and, with one worker, the same positions asserted. Each side runs twice, in turn (this
    one's first run is `ours`), and keeps its faster: the first command on a board reads
    pages of the database the later ones find in memory, so one run each favoured whichever
    ran second (0.6x and 1.2x seen on boards whose runs in turn differ by under 5%)."""
    runs = {(side, workers): [ours[workers]] if side == "ours" else [] for side in ("ours", "theirs")
            for workers in (1, 2)}
    for side in ("theirs", "ours", "theirs"):
        for workers in (1, 2):
            python = bench.against if side == "theirs" else None
            runs[side, workers].append(_flipnet_board(rows, cols, mirror, workers, limit, python))
    best = {key: min((r for r in found if r), key=lambda r: r["seconds"], default=None) for key, found in runs.items()}
    parts = []
    for workers in (1, 2):
        mine, other = best["ours", workers], best["theirs", workers]
        if mine and other:
            assert mine["value"] == other["value"], f"{label}: {mine['value']} here, {other['value']} there"
            assert workers == 2 or mine["positions"] == other["positions"], f"{label}: other positions there"
            parts.append(f"{workers} worker{'s' if workers > 1 else ''} {other['seconds']:.2f} s, "
                         f"{other['seconds'] / mine['seconds']:.3f}x")
        bench.measured[f"cram {label} against, {workers} workers"] = {
            "reference": f"flipnet of {bench.against}", "reference_seconds": other and other["seconds"],
            "flipnet_seconds": mine and mine["seconds"]}
    print(f"  {label} by the flipnet of --against (each side's faster of two runs in turn): "
          f"{'; '.join(parts) or 'no answer within the limit'}", flush=True)


@section("start")
def bench_start(bench):
    header("a command's start: what it loads (best of 5, each a new process)")
    for argv in (["--help"], ["value", "nim", "1,3,5"], ["value", "flip", "11011111110111111111"]):
        eager, lazy = _start_seconds(argv, eager=True), _start_seconds(argv)
        bench.row(" ".join(["flipnet", *argv[:2]]), "PyTensor, Numba first", eager, lazy)
    header("the README's first answer, 11011/11111/00111 (best of 5, each a new process)")
    first = ["value", "flip", "11011/11111/00111"]
    floor = timed(lambda: subprocess.run([*CHILD, "numpy"], check=True), 5)[0]
    theirs = _igsolve_board(bench.igsolve, 3, 5, 60)  # a board of that size (igsolve takes full rectangles)
    beside = f"; igsolve's whole command on the full 3x5: {theirs['seconds']:.3f} s" if theirs else ""
    ours = _start_seconds(first)
    bench.row("flipnet value flip", "by the search (Numba)", _start_seconds(first, env={"FLIPNET_PLAIN": "off"}),
        ours, f"floor, a process importing numpy: {floor:.3f} s{beside}")
    if bench.against is not None:
        bench.row("flipnet value flip", "the flipnet of --against", _start_seconds(first, python=bench.against), ours)
    _start_floor(bench)
    header("a flip line's value and winning moves: 2,000 random 20-cell strings")
    from flipnet.solve.engine import Engine, Settings
    from flipnet.solve.kayles import line_value_and_winning_moves

    states = np.random.default_rng(0).integers(0, 1 << 20, 2000).tolist()
    cram = Engine(Settings(progress=False, table_log=20, endgame="off")).search()
    cells = [[(0, c) for c in range(20) if s >> c & 1] for s in states]
    cram.winning_moves(cells[0])  # the kernels' first call: loaded from Numba's cache
    search, _ = timed(lambda: [cram.winning_moves(c) for c in cells])
    kayles, _ = timed(lambda: [line_value_and_winning_moves(s, 20) for s in states])
    bench.row("2,000 lines of 20", "Cram search (before)", search, kayles, "Dawson's Kayles")


def _start_floor(bench, board="1111111/1111111/1111111/1111111/1111111"):
    """What a first answer of the search spends before and beside its search, part by part
    (5x7, the README's example; the best of 3 processes for each part): what can go, goes
    (a question's command leaves without the interpreter's teardown, `flipnet.__main__`)."""
    runs = [_child_json("start-parts", board, timeout=600) for _ in range(3)]
    parts = {name: min(run[name] for run in runs) for name in runs[0]}
    python = timed(lambda: subprocess.run([*CHILD, "nothing"], check=True), 5)[0]
    whole = _start_seconds(["value", "flip", board, "--no-moves"], repeat=3)
    print(f"  the start of `flipnet value flip <5x7> --no-moves` ({whole:.3f} s, best of 3), part by part (best of "
          f"3 processes each): Python itself {python:.3f} s; " +
          "; ".join(f"{name} {seconds:.3f} s" for name, seconds in parts.items()), flush=True)
    bench.measured["start parts 5x7"] = {"whole": whole, "python": python, **parts}


def _start_seconds(argv, eager=False, repeat=5, env=None, python=None):
    """Best wall seconds of a process running flipnet's command line on `argv`; `eager`:
    with PyTensor and Numba imported first (before they were loaded on use, every command
    loaded PyTensor, and all but --help Numba); `env`: added to the environment; `python`:
    another flipnet's (`--against`)."""
    child = CHILD if python is None else [python, *CHILD[1:]]
    command = [*child, "flipnet", *(["--eager"] if eager else []), *argv]
    environment = {**os.environ, **(env or {})}
    return timed(lambda: subprocess.run(command, capture_output=True, check=True, env=environment), repeat)[0]


@section("cram")
def bench_cram(bench):
    print("\n== exact values of large boards (Cram solver): each in a fresh process")
    _cram_prepare()
    _cram_boards(bench, CRAM_BOARDS)
    print(f"random positions, each cell full with probability d (50 per row, one process per row, "
          f"at most {RANDOM_LIMIT:g} s each):")
    for n, density in CRAM_RANDOM:
        r = _child_json("cram-random", n, density, 50, RANDOM_LIMIT)
        tail = (f"mean {1000 * r['mean']:.1f} ms, max {r['max']:.2f} s" if not r["over_limit"] else
                f"{r['over_limit']} of 50 without an answer within {RANDOM_LIMIT:g} s")
        median = f"{1000 * r['median']:.1f} ms" if r["median"] is not None else f"over {RANDOM_LIMIT:g} s"
        print(f"  {n}x{n} d={density}: median {median}, {tail}", flush=True)
        bench.measured[f"cram random {n}x{n} d={density}"] = r
    _cram_sample(bench)


def _cram_sample(bench, rows=6, cols=6, density=0.6, count=2000):
    """A sample's positions valued in lanes (`flipnet data`), one worker against two in
    this process: the same values, asserted."""
    from flipnet.datasets.sampled import SampledDataset, draw
    from flipnet.solve.engine import Engine, Settings

    spec = SampledDataset("bench", rows, cols, (density,), count, "bench")  # the registered budget
    states = draw(spec, density, np.random.default_rng(spec.seed))
    solvers = {workers: Engine(Settings(progress=False, workers=workers, endgame="off", table_log=26)).search()
               for workers in (1, 2)}
    solvers[1].values_of_sample(states[:20], rows, cols)  # the kernel's first call: loaded from Numba's cache
    one, values = timed(lambda: solvers[1].values_of_sample(states, rows, cols, spec.budget))
    two, same = timed(lambda: solvers[2].values_of_sample(states, rows, cols, spec.budget))
    assert np.array_equal(values, same), "two workers valued a sample otherwise than one"
    header(f"a sample's values (flipnet data): {states.size:,} random {rows}x{cols} positions, density {density}")
    bench.row(f"{rows}x{cols} sample, 2 workers", "1 worker (the same file)", one, two)


@section("cram-large", long=True)
def bench_cram_large(bench):
    print(f"\n== exact values of the largest boards here, each command in a fresh process (at most "
          f"{bench.limit or LARGE_LIMIT:g} s each), with the 30-cell endgame database or the larger set the "
          f"cache holds")

    _cram_prepare(30, or_larger=True)
    _cram_boards(bench, CRAM_LARGE, limit=LARGE_LIMIT)


# Boards of 30 to 54 cells, none of them even by even (where both answer at once by the
# mirror rule), with their published nimbers: flipnet beside igsolve at its best
PEER_BOARDS = [(5, 6, 2, None), (3, 10, 2, None), (5, 7, 1, None), (4, 9, 1, None), (3, 12, 1, None),
               (3, 13, 2, None), (5, 8, 1, None), (3, 14, 3, None), (6, 7, 5, None), (4, 11, 1, None),
               (5, 9, 1, None), (3, 15, 1, None), (3, 16, 4, None), (3, 17, 0, None), (3, 18, 1, None)]
PEER_LIMIT = 900.0  # seconds a command may take on one of these boards


@section("cram-peer", long=True)
def bench_cram_peer(bench):
    """flipnet, one worker (core for core) and its default, beside igsolve at its best
    (peer.py): search against search, whole command against whole command, one run each."""
    from flipnet.base.cores import usable_cores
    from flipnet.base.places import cache_dir
    from flipnet.report import peer

    limit, workers, folder = bench.limit or PEER_LIMIT, usable_cores(), cache_dir() / "igsolve"
    print(f"\n== flipnet beside igsolve at its best (its database of at most {peer.EDB_CELLS} cells built "
          f"before, in {folder}; a {peer.TABLE_GB} GB table): one run each, at most {limit:g} s a command")
    database = Path(_cram_prepare(30, or_larger=True).data.filename)
    print(f"{'board':<6} {'nimber':>6} | igsolve: {'build':>7} {'search':>8} {'whole':>8} {'MB':>5} | flipnet, "
          f"1 worker: {'search':>8} {'whole':>8} {'MB':>5} | ratio: {'search':>6} {'whole':>6} | flipnet, "
          f"{workers} workers: {'whole':>8} {'MB':>5} {'ratio':>6}")
    for rows, cols, published, _ in bench.chosen(PEER_BOARDS):
        label = board_label(rows, cols)
        built = peer.build_database(bench.igsolve, rows, cols, folder, limit)
        theirs = peer.run(bench.igsolve, rows, cols, folder, limit) if built is not None else None
        _read_through(database)  # as warm as igsolve's: what its runs or builds pushed out, back in memory
        one, default = (_flipnet_board(rows, cols, True, n, limit) for n in (1, workers))
        for who, r in (("igsolve", theirs), ("flipnet, 1 worker", one), ("flipnet, default", default)):
            assert not r or r["value"] == published, f"{label}, {who}: {r['value']} is not the published {published}"

        def cell(r, key, width, unit=".3f"):
            return format(format(r[key], unit) if r and r.get(key) is not None else "-", f">{width}")

        def ratio(key, ours):
            return f"{theirs[key] / ours[key]:.2g}x" if theirs and ours and ours.get(key) else "-"
        print(f"{label:<6} {published:>6} | igsolve: {format(built, '.1f') if built else '-':>7} "
              f"{cell(theirs, 'search_seconds', 8)} {cell(theirs, 'seconds', 8)} {cell(theirs, 'peak_mb', 5, '.0f')} "
              f"| flipnet, 1 worker: {cell(one, 'search_seconds', 8)} {cell(one, 'seconds', 8)} "
              f"{cell(one, 'peak_mb', 5, '.0f')} | ratio: {ratio('search_seconds', one):>6} {ratio('seconds', one):>6} "
              f"| flipnet, {workers} workers: {cell(default, 'seconds', 8)} {cell(default, 'peak_mb', 5, '.0f')} "
              f"{ratio('seconds', default):>6}", flush=True)
        bench.measured[f"cram-peer {label}"] = {
            "reference": f"igsolve {' '.join(peer.options(rows, cols))}", "limit": limit, "published": published,
            "reference_build_seconds": built, "reference_seconds": theirs and theirs["seconds"],
            "reference_search_seconds": theirs and theirs["search_seconds"], "reference_peak_mb": theirs and theirs["peak_mb"],
            "flipnet_seconds": one and one["seconds"], "flipnet_search_seconds": one and one["search_seconds"],
            "flipnet_peak_mb": one and one["peak_mb"], "workers": workers,
            "default_seconds": default and default["seconds"], "default_peak_mb": default and default["peak_mb"]}


def _read_through(path, chunk=1 << 24):
    """Read a file once, so that its pages are in memory, as a later question finds them."""
    buffer = bytearray(chunk)
    with open(path, "rb", buffering=0) as file:
        while file.readinto(buffer):
            pass


CRAM_WORKERS = [(5, 8, 1, None), (4, 11, 1, None), (6, 7, 5, None)]  # boards timed with 1, 2, 3, ... workers


@section("cram-workers", long=True)
def bench_cram_workers(bench):
    from flipnet.base.cores import usable_cores

    cores = usable_cores()
    counts = list(range(1, max(2, cores) + 1))  # a command takes at most the usable cores
    print(f"\n== one search on N workers (threads sharing one table), each command in a fresh process "
          f"(at most {bench.limit or LARGE_LIMIT:g} s each), 30-cell endgame database or larger; this process may use "
          f"{cores} cores")
    _cram_prepare(30, or_larger=True)
    print(f"{'board':<7} {'nimber':>6} " + " ".join(f"{f'N={n} s':>9} {f'N={n} positions':>16}" for n in counts))
    for rows, cols, published, _ in bench.chosen(CRAM_WORKERS):
        label = board_label(rows, cols)
        runs = {n: _flipnet_board(rows, cols, True, n, bench.limit or LARGE_LIMIT) for n in counts}
        for n, r in runs.items():
            assert not r or r["value"] == published, f"{label}, {n} workers: {r['value']} is not {published}"
        cells = " ".join(f"{r['seconds']:>9.2f} {r['positions']:>16,}" if r else f"{'over':>9} {'-':>16}"
                         for r in runs.values())
        print(f"{label:<7} {published:>6} {cells}", flush=True)
        bench.measured[f"cram workers {label}"] = {"reference": "flipnet, 1 worker", "published": published,
                                             "cores": cores, **{f"workers_{n}": r for n, r in runs.items()}}


# (board, the table's megabytes): a table the board's search crowds, one it nearly fills, one it leaves half empty
TABLE_USE = ((5, 9, 32), (5, 9, 128), (5, 9, 512))


@section("table", long=True)
def bench_table(bench):
    """Facts per byte: the same search of a frontier board in tables of a fixed size, this
    flipnet's and (with --against) the other's, their runs in turn."""
    print("\n== the search's table: one search of a full board on one worker in a table of a fixed size, "
          "each in a fresh process; the facts it holds after it, and what each costs (30-cell endgame database or "
          "larger)")
    _cram_prepare(30, or_larger=True)
    sides = [("this flipnet", sys.executable)] + ([("--against", bench.against)] if bench.against else [])
    print(f"{'board':<6} {'table':>7} {'flipnet':<13} {'entry B':>7} {'facts held':>12} {'B a fact':>8} "
          f"{'facts a GB':>12} {'positions':>12} {'seconds':>8}")
    for rows, cols, megabytes in TABLE_USE:
        label = board_label(rows, cols)
        if bench.boards is not None and label not in bench.boards:
            continue
        for side, python in sides:
            proc = subprocess.run([python, str(Path(__file__).with_name("bench_child.py")), "table-use", label,
                                   str(megabytes)], capture_output=True, text=True, timeout=bench.limit or LARGE_LIMIT)
            if proc.returncode:
                print(f"{label:<6} {megabytes:>4} MB {side:<13} failed: {proc.stderr.strip()[-200:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"{label:<6} {megabytes:>4} MB {side:<13} {r['entry_bytes']:>7} {r['held']:>12,} "
                  f"{r['table_bytes'] / r['held']:>8.1f} {r['held'] / (r['table_bytes'] / 2**30):>12,.0f} "
                  f"{r['positions']:>12,} {r['seconds']:>8.2f}", flush=True)
            bench.measured[f"table {label} {megabytes} MB, {side}"] = r


def _peak_mb(program):
    """Peak resident memory of a fresh process running a child program (bench_child.py)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([*CHILD, program], check=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(peak, before) / 1024


def _cpp_reference():
    """The original method compiled with g++ -O2 and loaded with ctypes, or None."""
    compiler = shutil.which("g++")
    if compiler is None:
        return None
    source = Path(__file__).with_name("bench_ref.cpp")
    build = Path(tempfile.mkdtemp(prefix="flipnet-bench-"))
    lib = build / "bench_ref.so"
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", str(source), "-o", str(lib)], check=True)
    fn = ctypes.CDLL(str(lib)).flip_table
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_uint8)]
    return fn


def run(only=None, out=None, boards=None, igsolve=None, limit=None, against=None):
    """The sections named in `only` (default: all but the long ones), printed; with `out`,
    also as JSON. `boards` ("5x8,4x11"): time only these of the Cram sections' full boards;
    `igsolve`: the path of an igsolve binary to time beside them; `limit`: the seconds each
    of their commands may take; `against`: another flipnet's Python, whose Cram commands
    and first answer are timed beside this one's."""
    from flipnet.base.checks import check_seconds
    from flipnet.base.errors import FlipnetError

    unknown = set(only or ()) - set(SECTIONS)
    if unknown:
        raise FlipnetError(f"unknown bench sections {sorted(unknown)}: choose from {', '.join(SECTIONS)}")
    chosen = None
    if boards is not None:
        known = [board_label(*b[:2]) for b in CRAM_BOARDS + CRAM_LARGE + CRAM_WORKERS + PEER_BOARDS]
        chosen = {b.strip() for b in boards.split(",") if b.strip()}
        strange = sorted(chosen - set(known))
        if strange or not chosen:
            raise FlipnetError(f"unknown bench board {', '.join(strange) or repr(boards)}: choose from "
                               f"{', '.join(dict.fromkeys(known))}")
    binary = None
    if igsolve is not None:
        binary = shutil.which(igsolve) or igsolve
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise FlipnetError(f"--igsolve {igsolve}: no program there (build it from beling/impartial-games)")
    if "cram-peer" in (only or ()) and binary is None:
        raise FlipnetError("bench --only cram-peer times igsolve beside flipnet: give its binary with --igsolve PATH")
    if against is not None and not (os.path.isfile(against) and os.access(against, os.X_OK)):
        raise FlipnetError(f"--against {against}: no Python there (give a worktree's .venv/bin/python)")
    bench = Bench(chosen, binary, check_seconds(limit, "--limit"), against)
    if out:
        check_writable(out)
    os.environ.setdefault("FLIPNET_PROGRESS", "0")
    print(f"flipnet bench: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}")
    for name in only or default_sections():
        SECTIONS[name](bench)
    if out:
        machine = {"cores": os.cpu_count(), "python": platform.python_version(), "numpy": np.__version__}
        write_json(out, {"machine": machine, **bench.measured})
        print(f"\nwrote {out}")
    return bench
