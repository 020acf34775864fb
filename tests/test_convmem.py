"""convmem2d: the lookup table and a masked convolution for the shapes it lacks. The
network against a direct computation, its independence of the frame, the exact values
it is trained and chosen on, and the trained model on tiny boards and a larger one,
alone and with one ply of lookahead, through the real command."""

import json
import os
import re
import time

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from cli_cases import PYTHON_LINKER, CommandServer, environment, files_in, interrupt_when, start, stderr_lines

from flipnet.base.errors import FlipnetError
from flipnet.datasets.components import Components, key_shape
from flipnet.datasets.hdf5 import write_table
from flipnet.datasets.splits import uniform
from flipnet.games import FlipGame
from flipnet.nn.components.lookup import ShapeLookup
from flipnet.nn.components.maskconv import MaskedConvNet, render_cells
from flipnet.nn.components.oneply import one_ply
from flipnet.nn.core import optim
from flipnet.nn.core.layers import log_softmax
from flipnet.nn.core.store import load_npz
from flipnet.solve import table

OFFSETS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
SERVER = []


@pytest.fixture(scope="module", autouse=True)
def command_server():
    """The module's commands run forked from a server that has flipnet loaded
    (cli_cases.CommandServer; test_bad_input.py holds its runs to a fresh process's):
    about 40 commands, a second of imports each. Those sent a Ctrl-C start as processes
    of their own (`start`)."""
    server = CommandServer(kernels=False)
    SERVER.append(server)
    yield
    SERVER.clear()
    server.close()


def run(argv, cwd, program=None):
    """A command's CompletedProcess, forked from the server; PYTHON_LINKER: its graphs on
    PyTensor's Python linker."""
    return SERVER[0].run(argv, cwd, python_linker=program is PYTHON_LINKER)


def direct_logits(net, cells):
    """The network written out with loops over cells, offsets and channels."""
    p = net.get_values()
    side = int(round(np.sqrt(cells.size)))
    grid = cells.reshape(side, side)

    def conv(h, W, b):  # h: (side, side, c)
        c = h.shape[2]
        out = np.zeros((side, side, W.shape[1]))
        for r in range(side):
            for col in range(side):
                for k, (dr, dc) in enumerate(OFFSETS):
                    if 0 <= r + dr < side and 0 <= col + dc < side:
                        for ch in range(c):
                            out[r, col] += h[r + dr, col + dc, ch] * W[k * c + ch]
        return np.maximum(out + b, 0) * grid[:, :, None]

    count = grid.sum()
    h = conv(grid[:, :, None].astype(float), p["conv_in_W"], p["conv_in_b"])
    for k in range(net.layers):
        gate = p[f"conv{k}_gate"] if net.residual_gates else 1.0
        h = h + gate * conv(h, p[f"conv{k}_W"], p[f"conv{k}_b"])
    cell_rows = h[grid.astype(bool)]  # the maximum over the shape's cells and 0: see _cells_max
    pooled = np.concatenate([cell_rows.sum(0) / count, cell_rows.sum(0) / 25,
                             np.maximum(cell_rows.max(0), 0), [np.log1p(count)]])
    z = np.maximum(pooled @ p["hidden_W"] + p["hidden_b"], 0)
    return z @ p["out_W"] + p["out_b"]


KINDS = {"local": {}, "gated": {"residual_gates": True}}


def small_net(seed=0, kind="local"):
    net = MaskedConvNet(seed, channels=3, layers=2, hidden=8, **KINDS[kind])
    rng = np.random.default_rng(seed + 1)  # biases and gates away from zero: tested too
    net.set_values({k: v + (rng.normal(0, 0.3, v.shape) if k.endswith(("_b", "_gate")) else 0)
                    for k, v in net.get_values().items()})
    return net


def logits_function(net, side):
    cells = pt.matrix("cells", dtype="float32")
    return pytensor.function([cells], net.logits(cells, side))


def some_keys(rows, cols, n, seed=0):
    states = np.random.default_rng(seed).integers(0, 1 << (rows * cols), size=n, dtype=np.uint64)
    keys = np.unique(Components(rows, cols).shapes(states))
    return keys[keys != 0]


# The network's function against direct computations: graphs, so the Python linker
# (`py_mode`); the training and evaluation tests below run its Numba path.
@pytest.mark.parametrize("kind", KINDS)
def test_the_network_is_the_masked_convolution_written_out(kind, py_mode):
    net = small_net(kind=kind)
    keys = some_keys(4, 4, 12)
    cells = render_cells(keys, 4)
    got = logits_function(net, 4)(cells)
    for row, expected in zip(got, (direct_logits(net, c) for c in cells)):
        assert np.allclose(row, expected, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_shape_reads_the_same_in_any_frame_and_anywhere_in_it(kind, py_mode):
    net = small_net(3, kind)
    keys = some_keys(4, 4, 40, seed=1)
    at_corner = logits_function(net, 4)(render_cells(keys, 4))
    for side in (5, 7):
        assert np.allclose(logits_function(net, side)(render_cells(keys, side)), at_corner, atol=1e-5)
    moved = render_cells(keys, 7).reshape(-1, 7, 7)
    moved = np.roll(np.roll(moved, 2, axis=1), 3, axis=2).reshape(-1, 49)  # 4x4 shapes stay inside
    assert np.allclose(logits_function(net, 7)(moved), at_corner, atol=1e-5)
    probs = net.probabilities(keys, 7)
    assert np.allclose(probs.sum(axis=1), 1) and np.allclose(probs, net.probabilities(keys, 5), atol=1e-5)


def test_gradients_are_clipped_to_the_global_norm():
    grads = [pt.constant(np.array([3.0, 0.0], "float32")), pt.constant(np.array([[4.0]], "float32"))]
    scaled = [g.eval() for g in optim.clipped(grads, 2.0)]
    assert np.isclose(np.sqrt(sum((g ** 2).sum() for g in scaled)), 2.0)
    assert np.allclose(scaled[0], [1.2, 0.0])
    assert [g.eval().tolist() for g in optim.clipped(grads, 10.0)] == [[3.0, 0.0], [[4.0]]]


def exact_values(keys, rows=4, cols=4):
    """Each shape's value from the board's DP table (the shape drawn at the corner)."""
    values = table(FlipGame(rows, cols))
    return values[Components(rows, cols).render(keys, (rows, cols)).astype(np.int64)].astype(np.int64)


def write_sparse_4x4(path):
    """A 4x4 table whose split trains on 5% of the positions, so that validation and test
    hold shapes the training labels never fix."""
    game = FlipGame(4, 4)
    bucket, part = uniform(1 << 16, seed=0, n_buckets=1, probs=(0.05, 0.45, 0.5))
    write_table(path, game, table(game), (bucket, part, {"protocol": "uniform", "seed": 0, "n_buckets": 1,
                                                         "description": "test: 5% training"}))


def test_new_validation_shapes_get_their_exact_values(tmp_path):
    from flipnet.datasets import read_split
    from flipnet.nn.components.shapetrain import new_shape_values

    write_sparse_4x4(tmp_path / "sparse.h5")
    split = read_split(tmp_path / "sparse.h5", 0)
    lookup = ShapeLookup.fit(*split.train, 4, 4)
    keys, values = new_shape_values(lookup, *split.valid, 4, 4)
    assert keys.size > 100 and not np.isin(keys, lookup.keys).any()
    assert np.array_equal(values, exact_values(keys))


def children_all_known(keys, known):
    """For each shape key: whether every part of every option is in `known`."""
    from flipnet.datasets.components import options

    option_start, part_start, part_keys = options(keys)
    known_part = np.isin(part_keys, known)
    return np.array([known_part[part_start[option_start[i]]:part_start[option_start[i + 1]]].all()
                     for i in range(keys.size)])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """convmem2d trained for 3 epochs on the sparse 4x4 split, through the command."""
    where = tmp_path_factory.mktemp("convmem")
    write_sparse_4x4(where / "sparse.h5")
    done = run(["train", "convmem2d", "--data", where / "sparse.h5", "--bucket", 0, "--batch", 16,
                "--epochs", 3, "--results-dir", where / "r", "--resume"], where)
    assert done.returncode == 0, done.stderr
    assert f"no checkpoint at {where}/r/convmem2d.ckpt.npz: starting convmem2d from epoch 1" in done.stdout
    return where


@pytest.mark.slow
def test_the_run_reports_its_selection_and_the_known_new_split(trained):
    results = json.loads((trained / "r" / "convmem2d.json").read_text())
    curve = [entry["valid_error"] for entry in results["curve"]]
    assert results["valid_shape_error"] == min(curve) and results["best_epoch"] == 1 + curve.index(min(curve))
    assert "validation positions" in results["selection"]
    assert results["test_error_known_shapes"] == 0.0  # the table is exact where it speaks
    assert 0 < results["test_share_new_shapes"] < 1 and results["test_error_new_shapes"] > 0
    # the figures are those of positions: the error is carried by the new-shape share
    share = results["test_share_new_shapes"]
    assert np.isclose(results["test_error"], share * results["test_error_new_shapes"], atol=1e-3)


@pytest.mark.slow
def test_the_trained_model_reads_a_larger_board_and_one_ply_is_exact_over_known_children(trained):
    from flipnet.nn.core.kinds import read_model
    from flipnet.nn.evaluation.evaluate import on_board

    model, _ = read_model(trained / "r" / "convmem2d.npz")
    big = on_board(model, 5, 5, "5x5 positions")
    states = np.random.default_rng(0).integers(0, 1 << 25, size=3000, dtype=np.uint64)
    labels = table(FlipGame(5, 5))[states.astype(np.int64)]
    keys = Components(5, 5).keys(Components(5, 5).split(states))
    only_known = ((keys == 0) | np.isin(keys, model.known_shapes())).all(axis=1)
    predicted = big(states)
    assert only_known.any() and (~only_known).any()
    assert np.array_equal(predicted[only_known], labels[only_known])
    # shapes of 5x5 boards that no 4x4 board holds are read by the network in a 5x5 frame
    wide = np.unique(keys[(keys != 0) & ~np.isin(keys, model.known_shapes())])
    assert big.probabilities(wide).shape == (wide.size, 16)
    # one ply: a new shape whose children the table all holds gets its exact value
    candidates = np.unique(Components(4, 4).shapes(np.arange(1 << 16, dtype=np.uint64)))
    candidates = candidates[~np.isin(candidates, model.known_shapes())]
    covered = children_all_known(candidates, model.known_shapes())
    assert covered.sum() >= 5
    chosen = candidates[covered]
    assert np.array_equal(one_ply(model.probabilities, chosen), exact_values(chosen))
    # the hard rule, through the evaluator: the same exact values on positions of such shapes
    from flipnet.nn.evaluation.evaluate import predictor

    hard = predictor(model, "hard")
    assert np.array_equal(hard(Components(4, 4).render(chosen)), exact_values(chosen))


def write_sample5(path):
    """A sampled 5x5 file, 300 positions at each of densities 0.5 and 0.6, valued by the
    5x5 DP table: (states, labels)."""
    from flipnet.datasets import sampled

    rng = np.random.default_rng(5)
    states = [(rng.random((300, 25)) < d) @ (1 << np.arange(25, dtype=np.uint64)) for d in (0.5, 0.6)]
    states, density = np.concatenate(states), np.repeat(np.float32([0.5, 0.6]), 300)
    labels = table(FlipGame(5, 5))[states.astype(np.int64)].astype(np.uint8)
    attrs = {"format": sampled.FORMAT, "game": "flip", "rows": 5, "cols": 5, "densities": [0.5, 0.6]}
    sampled.write(path, sampled.Sample(states, labels, density, attrs))
    return states, labels


@pytest.mark.slow
def test_evaluate_on_a_larger_sample_splits_by_what_the_training_board_holds(trained):
    """`flipnet evaluate --data` on a sampled 5x5 file, the model trained on 4x4 boards:
    the error per density, and split by whether a component outgrows a 4x4 box, against
    the model's own predictions and a flood fill."""
    from flipnet.nn.core.kinds import read_model
    from flipnet.nn.evaluation.evaluate import on_board
    from test_components import box, largest_cells, reference_components

    states, labels = write_sample5(trained / "sample5.h5")
    got = run(["evaluate", trained / "r" / "convmem2d.npz", "--data", trained / "sample5.h5",
               "--out", trained / "sample5.json"], trained)
    assert got.returncode == 0, got.stderr
    record = json.loads((trained / "sample5.json").read_text())
    assert record["board"] == "5x5" and record["trained_board"] == "4x4"
    model, _ = read_model(trained / "r" / "convmem2d.npz")
    wrong = on_board(model, 5, 5, "5x5 positions")(states) != labels
    beyond = np.array([any(max(box(m, 5)) > 4 for m in reference_components(int(s), 5, 5)) for s in states])
    for d, part in ((0.5, slice(0, 300)), (0.6, slice(300, 600))):
        e = record["parts"][f"density {d:g}"]
        assert e["states"] == 300 and np.isclose(e["error"], wrong[part].mean())
        assert np.isclose(e["share_beyond_training_board"], beyond[part].mean())
        assert np.isclose(e["error_within_training_board"], wrong[part][~beyond[part]].mean())
        assert np.isclose(e["error_beyond_training_board"], wrong[part][beyond[part]].mean())
        largest = np.array([largest_cells(int(s), 5, 5) for s in states[part]])
        assert e["positions_by_largest_component"] == {
            str(n): [int((largest == n).sum()), int(wrong[part][largest == n].sum())] for n in np.unique(largest)}
    assert beyond.any() and wrong[beyond].mean() > wrong[~beyond].mean()
    assert got.stdout.count("(components that fit 4x4 ") == 2, got.stdout


@pytest.mark.slow
def test_a_board_whose_frame_outgrows_64_cells_is_one_line(trained):
    """A size-free model reads a board's shapes in a square frame of its longer side: an
    8-cell row is read (its 8x8 frame is 64 cells), a 9-cell row is refused by name."""
    fits = run(["predict", trained / "r" / "convmem2d.npz", "1" * 8], trained)
    assert fits.returncode == 0 and "true 1" in fits.stdout, fits.stderr  # Dawson's Kayles G(8) = 1
    got = run(["predict", trained / "r" / "convmem2d.npz", "1" * 9], trained)
    assert got.returncode == 2 and stderr_lines(got.stderr) == [
        "flipnet predict: error: convmem2d draws a 1x9 board's shapes in a 9x9 frame of 81 cells; "
        "frames are 64-bit masks, so a board's longer side is at most 8"]


@pytest.mark.slow
def test_one_ply_on_forked_processes_gives_the_same_values(trained, monkeypatch):
    """`flipnet evaluate --one-ply --workers N`: chunks of new shapes valued by forked
    processes, the values of one process (several chunks: 5x5 positions, chunks of 32)."""
    from flipnet.nn.evaluation import evaluate

    model, meta = evaluate.read_model(trained / "r" / "convmem2d.npz")
    big = evaluate.on_board(model, 5, 5, "5x5 positions")
    states = np.random.default_rng(1).integers(0, 1 << 25, size=400, dtype=np.uint64)
    monkeypatch.setattr(evaluate, "CHUNK", 32)
    alone = evaluate.predictor(big, "soft")(states)
    assert np.array_equal(evaluate.predictor(big, "soft", workers=3)(states), alone)
    keys = Components(5, 5).keys(Components(5, 5).split(states))
    assert np.unique(keys[(keys != 0) & ~np.isin(keys, model.known_shapes())]).size > 3 * 32


@pytest.mark.slow
def test_evaluate_gives_the_rows_of_the_table(trained):
    alone = run(["evaluate", trained / "r" / "convmem2d.npz", "--out", trained / "alone.json"], trained)
    ply = run(["evaluate", trained / "r" / "convmem2d.npz", "--one-ply", "--out", trained / "ply.json"], trained)
    assert alone.returncode == 0 and ply.returncode == 0, alone.stderr + ply.stderr
    a = json.loads((trained / "alone.json").read_text())["parts"]["test"]
    b = json.loads((trained / "ply.json").read_text())["parts"]["test"]
    results = json.loads((trained / "r" / "convmem2d.json").read_text())
    assert np.isclose(a["error"], results["test_error"])
    assert a["error_known_shapes"] == b["error_known_shapes"] == 0.0  # one ply only on new shapes
    assert b["error_new_shapes"] < a["error_new_shapes"]  # children in a 5% table: the mex helps
    shared = run(["evaluate", trained / "r" / "convmem2d.npz", "--one-ply", "--workers", 2, "--out",
                  trained / "shared.json"], trained)
    assert shared.returncode == 0, shared.stderr
    assert json.loads((trained / "shared.json").read_text())["parts"] == json.loads((trained / "ply.json").read_text())["parts"]
    hard = run(["evaluate", trained / "r" / "convmem2d.npz", "--one-ply", "--mex", "hard", "--out",
                trained / "hard.json"], trained)
    assert hard.returncode == 0 and "+ 1-ply mex (hard) on new shapes" in hard.stdout, hard.stderr
    record = json.loads((trained / "hard.json").read_text())
    assert record["lookahead"] == "hard" and record["parts"]["test"]["error_known_shapes"] == 0.0


@pytest.mark.slow
def test_ctrl_c_keeps_the_last_epoch_and_resume_finishes_the_same_run(tmp_path):
    from flipnet.nn.core.store import load_npz

    write_sparse_4x4(tmp_path / "sparse.h5")
    common = ["train", "convmem2d", "--data", tmp_path / "sparse.h5", "--bucket", 0, "--batch", 16,
              "--schedule", "constant",  # cosine would depend on --epochs, which differs here
              "--results-dir", tmp_path / "r"]
    checkpoint = tmp_path / "r" / "cut.ckpt.npz"
    proc = start([*common, "--epochs", 100000, "--out", "cut"], tmp_path)
    # after two epochs, so the resumed part has a different learning rate history than one epoch
    code, _, err = interrupt_when(
        proc, lambda: checkpoint.exists() and load_npz(checkpoint, "checkpoint")[1]["epoch"] >= 2, settle=0.5)
    assert code == 130, err
    _, meta = load_npz(checkpoint, "checkpoint")
    epoch = meta["epoch"]
    assert stderr_lines(err) == [f"flipnet train: interrupted after epoch {epoch}; resume with --resume"]
    assert not (tmp_path / "r" / "cut.npz").exists() and not list((tmp_path / "r").glob("*.tmp"))
    resumed = run([*common, "--epochs", epoch + 1, "--out", "cut", "--resume"], tmp_path)
    straight = run([*common, "--epochs", epoch + 1, "--out", "straight"], tmp_path)
    assert resumed.returncode == 0 and straight.returncode == 0, resumed.stderr + straight.stderr
    a, _ = load_npz(tmp_path / "r" / "cut.npz")
    b, _ = load_npz(tmp_path / "r" / "straight.npz")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in b)


@pytest.mark.slow
def test_bad_datasets_and_files_get_one_line(tmp_path):
    from conftest import write_tiny_dataset

    write_tiny_dataset(tmp_path / "row.h5", cols=8)
    got = run(["train", "convmem2d", "--data", tmp_path / "row.h5", "--bucket", 0, "--results-dir",
               tmp_path / "r"], tmp_path)
    assert got.returncode == 2
    assert stderr_lines(got.stderr) == [f"flipnet train: error: {tmp_path}/row.h5 holds single rows; "
                                        "convmem2d reads 2D boards"]
    got = run(["train", "convmem2d", "--data", tmp_path / "row.h5", "--bucket", 0, "--validate-every", 5], tmp_path)
    assert stderr_lines(got.stderr)[0].endswith("holds single rows; convmem2d reads 2D boards")
    write_sparse_4x4(tmp_path / "sparse.h5")
    got = run(["train", "convmem2d", "--data", tmp_path / "sparse.h5", "--bucket", 0, "--validate-every", 5], tmp_path)
    assert got.returncode == 2 and stderr_lines(got.stderr) == [
        "flipnet train: error: convmem2d validates at the end of each epoch only: drop --validate-every"]
    write_tiny_dataset(tmp_path / "full.h5", rows=3, cols=3)  # 70% training: every shape is fixed
    got = run(["train", "convmem2d", "--data", tmp_path / "full.h5", "--bucket", 0, "--results-dir",
               tmp_path / "r"], tmp_path)
    assert got.returncode == 2 and "nothing to choose an epoch on" in stderr_lines(got.stderr)[0]
    assert not (tmp_path / "r" / "convmem2d.json").exists()
    np.savez(tmp_path / "fake.npz", __meta__=np.array(json.dumps({"model": "convmem2d", "rows": 4})))
    got = run(["evaluate", tmp_path / "fake.npz", "--data", tmp_path / "full.h5"], tmp_path)
    assert got.returncode == 2
    assert stderr_lines(got.stderr) == [f"flipnet evaluate: error: {tmp_path}/fake.npz: field metadata "
                                        "architecture is missing"]


@pytest.mark.slow
def test_errors_by_size_count_every_shape_once_against_the_exact_values(trained):
    """`flipnet by-size`: the taught column is a seeded sample of the table, the new column
    every validation shape the table lacks; each error is the network's argmax against the
    shape's exact value (the DP table's), size by size."""
    from flipnet.datasets import read_split
    from flipnet.nn.core.kinds import read_model
    from test_components import reference_components

    got = run(["by-size", trained / "r" / "convmem2d.npz", "--sample", 200, "--seed", 3,
               "--out", trained / "sizes.json"], trained)
    assert got.returncode == 0, got.stderr
    record = json.loads((trained / "sizes.json").read_text())
    model, _ = read_model(trained / "r" / "convmem2d.npz")
    assert record["sample"] == 200 and record["table_shapes"] == len(model.table.keys)
    taught = model.table.keys[np.sort(np.random.default_rng(3).choice(len(model.table.keys), 200,
                                                                      replace=False))]
    # the new shapes: every component of a validation position (a flood fill) that the table lacks
    comps = Components(4, 4)
    parts = {m for state in read_split(trained / "sparse.h5", 0).valid[0].tolist()
             for m in reference_components(int(state), 4, 4)}
    keys_of_parts = np.unique(comps.keys(np.array(sorted(parts), np.uint64)))
    new = keys_of_parts[~np.isin(keys_of_parts, model.table.keys)]
    assert record["new"] == new.size > 0
    for name, keys in (("taught", taught), ("new", new)):
        wrong = model.network_probabilities(keys).argmax(axis=1) != exact_values(keys)
        cells = key_shape(keys)[2]
        assert np.isclose(record[f"{name}_error"], wrong.mean())
        for row in record["sizes"]:
            at = cells == row["cells"]
            assert row[name] == at.sum()
            assert row[f"{name}_error"] == (wrong[at].mean() if at.any() else None)
    assert got.stdout.startswith("convmem2d on ")  # the run's name
    assert f"on 200 of the table's {len(model.table.keys)} taught shapes (seed 3)" in got.stdout
    assert got.stdout.splitlines()[-1].split()[0] == "all"
    lookup = run(["train", "lookup2d", "--data", trained / "sparse.h5", "--bucket", 0,
                  "--results-dir", trained / "l"], trained)
    assert lookup.returncode == 0, lookup.stderr
    refused = run(["by-size", trained / "l" / "lookup2d.npz"], trained)
    assert refused.returncode == 2 and stderr_lines(refused.stderr) == [
        "flipnet by-size: error: errors by size read a convmem2d model (a table and a network); "
        "lookup2d is not one"]


def canonical(mask, cols):
    """A shape up to the 8 rotations and reflections: the least of its cell lists, each
    drawing moved to the origin."""
    cells = [divmod(i, cols) for i in range(64) if mask >> i & 1]
    drawings = []
    for turn in range(8):
        moved = [(c, r) if turn & 4 else (r, c) for r, c in cells]
        moved = [(-r if turn & 1 else r, -c if turn & 2 else c) for r, c in moved]
        top, left = min(r for r, _ in moved), min(c for _, c in moved)
        drawings.append(tuple(sorted((r - top, c - left) for r, c in moved)))
    return min(drawings)


@pytest.mark.slow
def test_by_size_beyond_sets_the_network_beside_guesses_by_size_on_shapes_larger_than_taught(trained):
    """`flipnet by-size --beyond`: every distinct shape of the sample's positions at one
    density whose box fits no 4x4 board (a flood fill, shapes told apart up to symmetry),
    valued by the 5x5 DP table; per size, the network's error (its answer for the shape
    alone on a 5x5 board), the table's size guess and the most common value's."""
    from flipnet.nn.core.kinds import read_model
    from flipnet.nn.evaluation.evaluate import on_board
    from test_components import box, reference_components

    states, _ = write_sample5(trained / "beyond5.h5")
    got = run(["by-size", trained / "r" / "convmem2d.npz", "--beyond", trained / "beyond5.h5",
               "--density", 0.6, "--out", trained / "beyond5.json"], trained)
    assert got.returncode == 0, got.stderr
    record = json.loads((trained / "beyond5.json").read_text())
    shapes = {}
    for state in states[300:]:
        for mask in reference_components(int(state), 5, 5):
            if max(box(mask, 5)) > 4:
                shapes.setdefault(canonical(mask, 5), mask)
    masks = np.array(list(shapes.values()), np.uint64)
    exact = table(FlipGame(5, 5))[masks.astype(np.int64)].astype(np.int64)
    model, _ = read_model(trained / "r" / "convmem2d.npz")
    network = on_board(model, 5, 5, "5x5 positions")(masks)
    cells = np.array([bin(int(m)).count("1") for m in masks])
    table_cells = np.bincount(key_shape(model.table.keys)[2], minlength=26)
    assert record["shapes"] == len(masks) > 20 and record["density"] == 0.6
    assert record["board"] == "5x5" and record["trained_board"] == "4x4"
    assert [row["cells"] for row in record["sizes"]] == sorted(set(cells))
    best_wrong = 0
    for row in record["sizes"]:
        at = cells == row["cells"]
        guess = model.table.by_size[row["cells"]]
        majority = np.bincount(exact[at]).max()
        best_wrong += at.sum() - majority
        assert (row["shapes"], row["table_shapes"], row["size_guess"]) == (at.sum(), table_cells[row["cells"]], guess)
        assert np.isclose(row["network_error"], np.mean(network[at] != exact[at]))
        assert np.isclose(row["size_guess_error"], np.mean(exact[at] != guess))
        assert np.isclose(row["fitted_reference_error"], 1 - majority / at.sum())
    assert np.isclose(record["network_error"], np.mean(network != exact))
    assert np.isclose(record["fitted_reference_error"], best_wrong / len(masks))
    assert got.stdout.splitlines()[-1].split()[0] == "all"
    refused = run(["by-size", trained / "r" / "convmem2d.npz", "--beyond", trained / "beyond5.h5",
                   "--density", 0.7], trained)
    assert refused.returncode == 2 and stderr_lines(refused.stderr) == [
        f"flipnet by-size: error: {trained}/beyond5.h5 holds densities 0.5, 0.6; not 0.7"]
    refused = run(["by-size", trained / "r" / "convmem2d.npz", "--beyond", trained / "beyond5.h5",
                   "--data", trained / "sparse.h5"], trained)
    assert refused.returncode == 2 and stderr_lines(refused.stderr) == [
        "flipnet by-size: error: --beyond reads the sample it names: it takes no --data or --bucket"]
    refused = run(["by-size", trained / "r" / "convmem2d.npz", "--beyond", trained / "sparse.h5"], trained)
    assert refused.returncode == 2 and stderr_lines(refused.stderr) == [
        f"flipnet by-size: error: {trained}/sparse.h5 is not a flipnet sampled dataset "
        f"(format 'flipnet-sample-1')"]


@pytest.mark.slow
def test_ctrl_c_while_by_size_beyond_values_the_shapes_writes_nothing(trained):
    """A real SIGINT while the Cram solver values large 7x7 shapes: one line, exit 130, and
    no --out file."""
    from flipnet.datasets import sampled

    rng = np.random.default_rng(7)
    states = (rng.random((4, 49)) < 0.85) @ (1 << np.arange(49, dtype=np.uint64))
    attrs = {"format": sampled.FORMAT, "game": "flip", "rows": 7, "cols": 7, "densities": [0.85]}
    sampled.write(trained / "dense7.h5", sampled.Sample(states, np.zeros(4, np.uint8),
                                                        np.full(4, 0.85, np.float32), attrs))
    log = trained / "dense7.log"
    with open(log, "w") as err:
        proc = start(["by-size", trained / "r" / "convmem2d.npz", "--beyond", trained / "dense7.h5",
                      "--density", 0.85, "--out", trained / "dense7.json"], trained, stderr=err,
                     env=environment(FLIPNET_PROGRESS="1"))
        code, _, _ = interrupt_when(proc, lambda: "exact values" in log.read_text(), settle=1.0)
    assert code == 130
    lines = [line for line in stderr_lines(log.read_text()) if not line.startswith("exact values")]
    assert len(lines) == 1 and re.fullmatch(r"flipnet by-size: interrupted after [\d,]+ positions? searched",
                                            lines[0]), lines
    assert not (trained / "dense7.json").exists() and not list(trained.glob("dense7.json*"))


@pytest.mark.slow
def test_an_ensemble_takes_convmem2d_as_a_member(trained):
    """The product of experts reads convmem2d's own distributions: with two copies of the
    same model it is that model; on a larger board it reads every member's copy."""
    from flipnet.nn.components.ensemble import ComponentEnsemble
    from flipnet.nn.core.kinds import read_model

    members = [read_model(trained / "r" / "convmem2d.npz")[0] for _ in range(2)]
    ensemble = ComponentEnsemble(members)
    keys = some_keys(4, 4, 300, seed=5)
    assert np.allclose(ensemble.probabilities(keys), members[0].probabilities(keys), atol=1e-6)
    states = np.random.default_rng(1).integers(0, 1 << 25, size=500, dtype=np.uint64)
    assert np.array_equal(ensemble.for_board(5, 5)(states), members[0].for_board(5, 5)(states))


@pytest.mark.slow
def test_predict_reads_a_position_of_any_board_with_or_without_one_ply(trained):
    position = "11011/11111/01110/11011/10111"
    state = sum(1 << i for i, ch in enumerate(position.replace("/", "")) if ch == "1")
    true = int(table(FlipGame(5, 5))[state])
    from flipnet.nn.core.kinds import read_model
    from flipnet.nn.evaluation.evaluate import on_board, predictor

    model, meta = read_model(trained / "r" / "convmem2d.npz")
    on5 = on_board(model, 5, 5, "a 5x5 position")
    for extra, said, ply in (([], "", False), (["--one-ply"], " with one ply of lookahead", "soft")):
        got = run(["predict", trained / "r" / "convmem2d.npz", position, *extra], trained)
        assert got.returncode == 0, got.stderr
        predicted = int(predictor(on5, ply)(np.array([state], np.uint64))[0])
        verdict = "right" if predicted == true else "wrong"
        assert got.stdout == f"{position}: predicted nim-value {predicted}{said}, true {true} ({verdict})\n"


@pytest.mark.slow
def test_predict_shows_the_prediction_alone_when_the_true_value_is_out_of_reach(trained):
    """The full 7x7 board's value takes the solver most of an hour: past --timeout the
    prediction is shown with the reason the true value is missing, and the exit is 0."""
    full = "/".join(["1" * 7] * 7)
    start = time.perf_counter()
    got = run(["predict", trained / "r" / "convmem2d.npz", full, "--timeout", "1"], trained)
    assert got.returncode == 0, got.stderr
    assert re.fullmatch(rf"{full}: predicted nim-value \d+; true value unknown: no answer within "
                        rf"--timeout 1 s \(.*\)\n", got.stdout), got.stdout
    assert time.perf_counter() - start < 60


@pytest.mark.slow
def test_the_network_sizes_and_gates_are_settings_kept_in_the_model_and_checked_on_resume(tmp_path):
    """One run of a network of other sizes, with residual gates: its sizes are kept in the
    model, its gates trained open, and a resume with other sizes refused."""
    from flipnet.nn.components.convmem import ConvMemory

    write_sparse_4x4(tmp_path / "sparse.h5")
    common = ["train", "convmem2d", "--data", tmp_path / "sparse.h5", "--bucket", 0, "--batch", 64,
              "--results-dir", tmp_path / "r", "--layers", 2, "--hidden", 7, "--residual-gates"]
    done = run([*common, "--channels", 5, "--epochs", 1], tmp_path, program=PYTHON_LINKER)
    assert done.returncode == 0, done.stderr
    model, meta = ConvMemory.read(tmp_path / "r" / "convmem2d.npz")
    assert meta["architecture"] == {"channels": 5, "layers": 2, "hidden": 7, "n_classes": 16,
                                    "residual_gates": True}
    assert meta["config"]["residual_gates"] and model.network.residual_gates
    assert all(model.network.get_values()[f"conv{k}_gate"] != 0 for k in range(2))  # opened
    c, pooled = 5, 3 * 5 + 1  # conv_in, two gated residual layers, hidden, out
    expected = (9 * c + c) + 2 * (9 * c * c + c + 1) + (pooled * 7 + 7) + (7 * 16 + 16)
    assert model.network.n_parameters() == expected
    assert json.loads((tmp_path / "r" / "convmem2d.json").read_text())["parameters"] == expected
    again = run([*common, "--channels", 6, "--epochs", 2, "--resume"], tmp_path, program=PYTHON_LINKER)
    assert again.returncode == 2 and stderr_lines(again.stderr) == [
        f"flipnet train: error: {tmp_path}/r/convmem2d.ckpt.npz was made with channels=5 (now 6); "
        "drop --resume to start over"]


def test_a_model_or_checkpoint_of_a_removed_variant_loads_only_at_its_neutral_settings(tmp_path):
    """A setting of a variant no longer kept: at its neutral value it is passed over, so a
    file written before it went still loads; used, it is one line naming the commit that has it."""
    from flipnet.nn.components.convmem import ConvMemory
    from flipnet.nn.core.store import save_npz
    from flipnet.nn.training.config import REMOVED_IN

    arrays, meta = load_npz(write_small_convmem(tmp_path / "m.npz"))
    save_npz(tmp_path / "neutral.npz", arrays, {**meta, "architecture": {**meta["architecture"], "loop_steps": 0,
                                                                         "global_pool": False}})
    model, _ = ConvMemory.read(tmp_path / "neutral.npz")
    assert model.network.architecture() == meta["architecture"]
    save_npz(tmp_path / "looped.npz", arrays, {**meta, "architecture": {**meta["architecture"], "loop_steps": 2}})
    with pytest.raises(FlipnetError, match=rf"^{tmp_path}/looped.npz was made with --loop-steps: a variant "
                                           rf"flipnet no longer has \(commit {REMOVED_IN} has it\)$"):
        ConvMemory.read(tmp_path / "looped.npz")
    from flipnet.nn.training.config import without_removed  # a checkpoint's saved settings, likewise

    assert without_removed({"lr": 0.1, "size_balance": 0.0, "draw_boards": ""}, "c") == {"lr": 0.1}
    with pytest.raises(FlipnetError, match="^c was made with --draw-boards, --size-balance: a variant"):
        without_removed({"lr": 0.1, "size_balance": 0.5, "draw_boards": "6x6:10"}, "c")


def write_small_convmem(path):
    """A small convmem2d model file (an untrained network, a table of a few 4x4 shapes)."""
    from flipnet.nn.components.convmem import ConvMemory

    states = np.random.default_rng(0).integers(0, 1 << 16, size=200, dtype=np.uint64)
    table = ShapeLookup.fit(states, np.zeros(200, np.int64), 4, 4)
    ConvMemory(MaskedConvNet(0, channels=3, layers=1, hidden=5, residual_gates=True), table, 4, 4, True,
               np.zeros(0, np.uint64)).save(path, {"config": {}})
    return path


@pytest.mark.slow
def test_gated_residual_layers_start_as_the_shallow_network_and_learn_their_gates(py_mode):
    gated, shallow = MaskedConvNet(6, layers=3, residual_gates=True), MaskedConvNet(0, layers=0)
    added = set(gated.names) - set(MaskedConvNet(6, layers=3).names)
    assert added == {"conv0_gate", "conv1_gate", "conv2_gate"}
    shallow.set_values({k: gated.get_values()[k] for k in shallow.names})
    keys = some_keys(4, 4, 30, seed=8)
    assert np.allclose(gated.probabilities(keys, 4), shallow.probabilities(keys, 4), atol=1e-6)
    # at zero the gates still get a gradient (else they would stay shut), the branches none yet
    cells_in = pt.matrix("cells", dtype="float32")
    params = dict(zip(gated.names, gated.params))
    loss = log_softmax(gated.logits(cells_in, 4))[:, 0].sum()
    wrt = [params[f"conv{k}_{part}"] for k in range(3) for part in ("gate", "W")]
    grads = pytensor.function([cells_in], pytensor.grad(loss, wrt))(render_cells(keys, 4))
    assert all(abs(g) > 1e-3 for g in grads[0::2]) and all(not g.any() for g in grads[1::2])


def test_no_parameter_is_0d_and_gates_kept_as_scalars_still_load():
    """Numba code that PyTensor loads from its compile cache updated 0-d parameters a
    rounding away from freshly compiled code, so a run's weights depended on the cache:
    no parameter is 0-d, and the model files that kept each gate as a scalar still load."""
    kinds = dict(layers=3, residual_gates=True)
    net = MaskedConvNet(6, **kinds)
    assert all(p.get_value().ndim >= 1 for p in net.params)
    kept = {k: (np.float32(0.25 * (1 + i)) if k.endswith("_gate") else v)
            for i, (k, v) in enumerate(net.get_values().items())}
    loaded = MaskedConvNet(0, **kinds)
    loaded.set_values(kept)
    gates = [k for k in kept if k.endswith("_gate")]
    assert len(gates) == 3 and all(loaded.get_values()[k].tolist() == [kept[k]] for k in gates)
    with pytest.raises(ValueError, match="parameter conv0_gate has shape \\(2,\\), the network expects \\(1,\\)"):
        loaded.set_values({**kept, "conv0_gate": np.zeros(2)})


def test_a_shape_that_fills_its_frame_reads_as_in_a_larger_one_with_negative_activations(py_mode):
    net = MaskedConvNet(4, channels=3, layers=2, hidden=8, residual_gates=True)
    rng = np.random.default_rng(5)  # gates at -3: the residual branches drive channels below zero
    net.set_values({k: (np.float32(-3) if k.endswith("_gate") else v + rng.normal(0, 0.3, v.shape))
                    for k, v in net.get_values().items()})
    square = Components(3, 3).shapes(np.array([(1 << 9) - 1], np.uint64))  # all 9 cells
    in_own = logits_function(net, 3)(render_cells(square, 3))
    for side in (4, 5):
        assert np.allclose(logits_function(net, side)(render_cells(square, side)), in_own, atol=1e-5)
    assert np.allclose(in_own[0], direct_logits(net, render_cells(square, 3)[0]), atol=1e-4)


@pytest.mark.slow
def test_drawn_shapes_are_new_and_their_one_ply_labels_exact_where_the_table_holds_the_children(trained):
    from flipnet.nn.components.drawn import draw_shapes, one_ply_labels
    from flipnet.nn.core.kinds import read_model

    model, _ = read_model(trained / "r" / "convmem2d.npz")
    keys = draw_shapes(4, 4, 3000, seed=5, known_keys=model.known_shapes())
    boards = np.random.default_rng([5, 2]).integers(0, 1 << 16, size=3000, dtype=np.uint64)
    on_boards = np.unique(Components(4, 4).shapes(boards))
    assert keys.size > 20 and np.array_equal(keys, np.setdiff1d(on_boards[on_boards != 0], model.known_shapes()))
    labels = one_ply_labels(model, keys)
    covered = children_all_known(keys, model.known_shapes())
    assert covered.sum() >= 3
    assert np.array_equal(labels[covered], exact_values(keys[covered]))


@pytest.mark.slow
def test_validation_and_labels_shared_with_forked_processes_are_the_same_bits(trained, monkeypatch):
    """A run with --workers shares its validation and its 1-ply labelling with forked
    processes (`base/forked.py`): each chunk is computed alone, so the answers are the
    one-process answers exactly, over several chunks (the shapes of 5x5 boards)."""
    from flipnet.nn.components import drawn
    from flipnet.nn.components.maskconv import CHUNK
    from flipnet.nn.core.kinds import read_model

    model, _ = read_model(trained / "r" / "convmem2d.npz")
    model = model.for_board(5, 5)
    keys = drawn.draw_shapes(5, 5, 20000, seed=8, known_keys=model.known_shapes())
    assert keys.size > 2 * CHUNK
    alone = model.network_probabilities(keys)
    for workers in (2, 3):
        assert np.array_equal(model.network_probabilities(keys, workers), alone)
    monkeypatch.setattr(drawn, "CHUNK", 128)  # several chunks to label, in less time
    labels = drawn.one_ply_labels(model, keys[:500])
    assert np.array_equal(drawn.one_ply_labels(model, keys[:500], workers=3), labels)
    assert len(np.unique(labels)) > 1  # labels that could differ


def test_ctrl_c_while_labelling_stops_after_the_chunk_it_came_in():
    """A real SIGINT to this process, under flipnet's handler, while the first chunk of
    drawn shapes is valued: that chunk ends, no other starts, one line says nothing was kept;
    in the last chunk, the same (the labels are whole, but the run was asked to stop).
    (Through the command, 4x4 boards hold 1,279 shapes in all: fewer than one chunk.)"""
    import os
    import signal

    from flipnet.base import signals
    from flipnet.base.errors import Interrupted
    from flipnet.nn.components import drawn

    keys = drawn.draw_shapes(5, 5, 20000, seed=3, known_keys=np.zeros(0, np.uint64))
    assert keys.size > 2 * drawn.CHUNK

    class Uniform:  # stands in for a model: every value equally likely
        def __init__(self, interrupt_at=None):
            self.interrupt_at, self.calls = interrupt_at, []

        def probabilities(self, part_keys):
            if len(self.calls) == self.interrupt_at:  # Ctrl-C in the middle of that chunk
                os.kill(os.getpid(), signal.SIGINT)
            self.calls.append(len(part_keys))
            return np.full((len(part_keys), 16), 1 / 16)

    n_chunks = -(-keys.size // drawn.CHUNK)  # one call of the model a chunk
    cut, last, whole, first_chunk = Uniform(0), Uniform(n_chunks - 1), Uniform(), Uniform()
    before = signal.getsignal(signal.SIGINT)
    signals.install()
    try:
        with pytest.raises(Interrupted, match="^interrupted while labelling the drawn shapes; nothing was saved$"):
            drawn.one_ply_labels(cut, keys)
        assert drawn.one_ply_labels(whole, keys).shape == keys.shape  # the flag does not outlive its block
        with pytest.raises(Interrupted):  # in the last chunk, with no chunk after it to stop before
            drawn.one_ply_labels(last, keys)
    finally:
        signal.signal(signal.SIGINT, before)
    one_ply(first_chunk.probabilities, keys[:drawn.CHUNK])
    assert cut.calls == first_chunk.calls and len(whole.calls) == n_chunks == len(last.calls)


@pytest.mark.slow
def test_ctrl_c_while_the_command_labels_its_drawn_shapes_saves_nothing(trained, tmp_path):
    """A real SIGINT to `flipnet train --draw` while it values the drawn shapes (every
    new shape of 200,000 4x4 boards, in one chunk, the last). No later chunk's start
    would see the request, so the labelling itself must (before, the run went on to train)."""
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        proc = start(["train", "convmem2d", "--data", trained / "sparse.h5", "--bucket", 0, "--batch", 16,
                      "--epochs", 1, "--results-dir", tmp_path / "r", "--init", trained / "r" / "convmem2d.npz",
                      "--draw", 200_000, "--out", "cut"], tmp_path, stderr=err,
                     env=environment(FLIPNET_PROGRESS="1"))  # its bar says when labelling starts
        code, _, _ = interrupt_when(proc, lambda: "1-ply labels, 4x4 shapes" in log.read_text(), settle=0.2)
    lines = stderr_lines(log.read_text())
    assert code == 130, lines
    assert lines[-1] == "flipnet train: interrupted while labelling the drawn shapes; nothing was saved"
    written = files_in(tmp_path / "r") if (tmp_path / "r").exists() else set()
    assert not {name for name in written if name.startswith("cut")}


@pytest.mark.slow
def test_a_run_on_two_processes_repeats_bit_for_bit_and_keeps_its_count_on_resume(trained, tmp_path):
    """--workers 2: the same weights twice, the one-process run's loss to rounding, and
    a resume with another count refused (it would round differently)."""
    common = ["train", "convmem2d", "--data", trained / "sparse.h5", "--bucket", 0, "--batch", 16,
              "--epochs", 2, "--results-dir", tmp_path / "r"]
    for name, workers in (("two", 2), ("again", 2), ("one", 1)):
        done = run([*common, "--workers", workers, "--out", name], tmp_path)
        assert done.returncode == 0, done.stderr
    two, again, one = (load_npz(tmp_path / "r" / f"{name}.npz")[0] for name in ("two", "again", "one"))
    assert two.keys() == again.keys() and all(np.array_equal(two[k], again[k]) for k in two)
    results = {name: json.loads((tmp_path / "r" / f"{name}.json").read_text()) for name in ("two", "one")}
    assert results["two"]["config"]["workers"] == 2 and results["two"]["overrides"]["workers"] == {
        "recipe": 1, "run": 2}
    assert results["two"]["curve"][0]["loss"] == pytest.approx(results["one"]["curve"][0]["loss"], rel=1e-3)
    resumed = run([*common, "--out", "two", "--resume"], tmp_path)
    assert resumed.returncode == 2 and stderr_lines(resumed.stderr) == [
        f"flipnet train: error: {tmp_path}/r/two.ckpt.npz was made with workers=2 (now 1); drop "
        "--resume to start over"]


@pytest.mark.slow
def test_ctrl_c_to_the_process_group_stops_a_two_process_run_and_its_helper(trained, tmp_path):
    """A terminal's Ctrl-C reaches every process of the job: the helper ignores it, the
    run stops at its next safe point with one line, and no process of the group is left."""
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        proc = start(["train", "convmem2d", "--data", trained / "sparse.h5", "--bucket", 0, "--batch", 16,
                      "--epochs", 1000, "--workers", 2, "--results-dir", tmp_path / "r", "--out", "cut"],
                     tmp_path, stderr=err, env=environment(FLIPNET_PROGRESS="1"), group=True)
        code, _, _ = interrupt_when(proc, lambda: "train cut" in log.read_text(), settle=1.0, group=True)
    lines = stderr_lines(log.read_text())
    assert code == 130, lines
    assert re.fullmatch(r"flipnet train: interrupted (after epoch \d+; resume with --resume|before the "
                        r"first epoch ended; nothing was saved)", lines[-1]), lines
    assert not any("Traceback" in line or "KeyboardInterrupt" in line for line in lines)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # the group is empty: the helper ended with the run


@pytest.mark.slow
def test_a_run_from_init_learns_the_drawn_shapes_and_reports_them(trained, tmp_path):
    from flipnet.nn.components.convmem import ConvMemory
    from flipnet.nn.components.drawn import one_ply_labels

    init = trained / "r" / "convmem2d.npz"
    common = ["train", "convmem2d", "--data", trained / "sparse.h5", "--bucket", 0, "--batch", 16,
              "--epochs", 3, "--lr", 0.01, "--results-dir", tmp_path / "r", "--init", init]
    done = run([*common, "--draw", 2000, "--out", "taught"], tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "r" / "taught.json").read_text())
    model, meta = ConvMemory.read(tmp_path / "r" / "taught.npz")
    start, start_meta = ConvMemory.read(init)
    # the drawn shapes: those of 2,000 seeded random boards (drawn here) the table lacks
    boards = np.random.default_rng([2016, 2]).integers(0, 1 << 16, size=2000, dtype=np.uint64)
    on_boards = np.unique(Components(4, 4).shapes(boards))
    assert np.array_equal(model.drawn, np.setdiff1d(on_boards[on_boards != 0], start.known_shapes()))
    # learnt: against the start's 1-ply labels of them (the run's targets for these shapes; no
    # exact value enters), the cross-entropy fell, where the same run without them let it rise
    blind = run([*common, "--out", "blind"], tmp_path)
    assert blind.returncode == 0, blind.stderr
    labels = one_ply_labels(start, model.drawn)

    def loss(network):
        probs = network.network_probabilities(model.drawn)
        return -np.mean(np.log(probs[np.arange(labels.size), labels] + 1e-12))

    without = ConvMemory.read(tmp_path / "r" / "blind.npz")[0]
    assert loss(model) < 0.97 * min(loss(start), loss(without)), (loss(model), loss(start), loss(without))
    assert results["drawn_shapes"] == model.drawn.size > 0 and results["init"] == str(init)
    assert results["pipeline_seconds"] == pytest.approx(results["seconds"] + start_meta["pipeline_seconds"])
    # the start's own validation figure is recorded beside the chosen epoch's
    assert 0 < results["start_valid_shape_error"] < 1
    share, not_drawn = results["test_share_new_shapes"], results["test_share_new_shapes_not_drawn"]
    assert 0 < not_drawn < share
    # the known/new split still refers to the training labels, and adds up
    drawn_only = share - not_drawn
    assert np.isclose(results["test_error"], drawn_only * results["test_error_new_shapes_all_drawn"]
                      + not_drawn * results["test_error_new_shapes_not_drawn"], atol=1e-3)
    # a network of another size cannot start from it: one line, before any work
    other = run([*common, "--layers", 3], tmp_path)
    assert other.returncode == 2 and stderr_lines(other.stderr) == [
        f"flipnet train: error: {init} has a network of channels=32, layers=4, hidden=128; this "
        "run's differs: set --channels, --layers, --hidden and --residual-gates to match"]
