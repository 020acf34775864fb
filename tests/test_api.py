"""`import flipnet`: the public names against independent computations (a memoised
recursion, the tables, the internal predictors), their doctests, and an import that
leaves the host process as it was."""

import doctest
import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import recursive_values

import flipnet
from flipnet.base.errors import FlipnetError
from flipnet.games import FlipGame

PUBLIC_MODULES = ["flipnet", "flipnet.api.positions", "flipnet.api.solves", "flipnet.api.data", "flipnet.api.models"]
pytestmark = pytest.mark.usefixtures("python_linker_module")  # the models' graphs: conftest.python_mode


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """A data directory of the suite's own: the doctests build the 5x5 table there."""
    path = tmp_path_factory.mktemp("data")
    old = os.environ.get("FLIPNET_DATA")
    os.environ["FLIPNET_DATA"] = str(path)
    yield path
    if old is None:
        del os.environ["FLIPNET_DATA"]
    else:
        os.environ["FLIPNET_DATA"] = old


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_the_docstrings_examples_run(module, data_dir):
    result = doctest.testmod(importlib.import_module(module),
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, result


def test_every_public_name_is_typed_and_documented():
    import inspect

    for name in flipnet.__all__:
        if name in ("__version__", "games"):
            continue
        obj = getattr(flipnet, name)
        assert (obj.__doc__ or "").strip(), name
        if inspect.isfunction(obj):
            signature = inspect.signature(obj)
            assert signature.return_annotation is not inspect.Signature.empty, name
            assert all(p.annotation is not inspect.Parameter.empty for p in signature.parameters.values()
                       if p.name not in ("position", "positions", "name_or_path", "states")), name


def brute(game):
    """Values of every state of a small board by plain recursion (conftest)."""
    return recursive_values(game)


@pytest.mark.parametrize("rows, cols", [(2, 3), (3, 3), (1, 7), (3, 4)])
def test_value_and_every_move_against_a_recursion(rows, cols):
    game = FlipGame(rows, cols)
    truth = brute(game)
    rng = np.random.default_rng(rows * 10 + cols)
    for state in rng.integers(0, 1 << game.n_cells, size=25).tolist():
        text = game.format(state)
        result = flipnet.value(text, moves="all")
        assert result.value == truth[state] and result.winner == ("first" if truth[state] else "second")
        children = {game.format(game.play(state, m)): truth[game.play(state, m)] for m in game.legal_moves(state)}
        assert {m.position: m.value for m in result.moves} == children
        assert [m.value for m in result.moves] == sorted(m.value for m in result.moves)  # best first
        assert {m.position for m in result.winning_moves} == {p for p, v in children.items() if v == 0}
        assert flipnet.value(text).winning_moves == result.winning_moves
        xor = 0
        for part in result.components:  # each component alone, valued by the recursion
            xor ^= part.value
            assert truth[game.parse(part.position)] == part.value
        assert xor == result.value
        cells = sum(bin(game.parse(p.position)).count("1") for p in result.components)
        assert cells == bin(state).count("1") - sum(1 for r, c in game.cells(state)  # lone cells left out
                                                  if not any((n in game.cells(state)) for n in
                                                             ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))))


def test_value_takes_arrays_and_other_games():
    assert flipnet.value(np.array([[1, 1, 0], [0, 1, 1]])).position == "110/011"
    assert flipnet.value([1, 3, 5], "nim").value == 1 ^ 3 ^ 5
    misere = flipnet.value("1,1,1", "nim", misere=True)
    assert misere.rule == "misere" and misere.value == 0 and misere.components is None
    grid = flipnet.value("1111/1111/1111/1111", "gridnim", moves=False)
    assert grid.rule == "misere" and grid.value == 0  # the source's game: misère, the full board lost
    halfnim = flipnet.value(9, "halfnim", moves="all")
    assert [m.position for m in halfnim.winning_moves] == ["7"]  # 7 = 2^3 - 1 is lost


def test_values_equals_value_in_every_form():
    rng = np.random.default_rng(5)
    game = FlipGame(4, 4)
    states = rng.integers(0, 1 << 16, size=200, dtype=np.uint64)
    texts = [game.format(int(s)) for s in states]
    one_by_one = [flipnet.value(t, moves=False).value for t in texts]
    assert flipnet.values(texts).tolist() == one_by_one
    assert flipnet.values(states, shape=(4, 4)).tolist() == one_by_one
    assert flipnet.values(flipnet.unpack(states, 4, 4)).tolist() == one_by_one
    mixed = ["11/11", "111/111", "1111111", "11/11"]  # several boards in one call
    assert flipnet.values(mixed).tolist() == [flipnet.value(t).value for t in mixed]
    heaps = np.array([[1, 3, 5], [2, 2, 0]])
    assert flipnet.values(heaps, "nim").tolist() == [7, 0]


def test_bad_positions_are_one_line_errors():
    with pytest.raises(ValueError, match="bad character 'x'"):
        flipnet.value("11x/111")
    with pytest.raises(FlipnetError, match="needs its shape"):
        flipnet.values(np.array([3], np.uint64))
    with pytest.raises(FlipnetError, match="values\\(\\) takes many positions"):
        flipnet.values("1111")
    with pytest.raises(FlipnetError, match="timeout must be a positive number"):
        flipnet.value("11", timeout=0)


def test_a_timeout_is_a_timeout_error():
    board = "1111111/1111111/1111111/1111111/1111111/1111110"  # over 3 s of search with the endgame database
    with pytest.raises(TimeoutError, match="no answer within --timeout 0.3 s"):
        flipnet.value(board, moves=False, timeout=0.3)


def test_load_dataset_reads_the_split_and_unpacks(tmp_path, monkeypatch):
    from conftest import write_tiny_dataset

    from flipnet.datasets import read_split

    monkeypatch.setenv("FLIPNET_DATA", str(tmp_path))
    path = tmp_path / "flip1d.h5"
    values = write_tiny_dataset(path, cols=8)  # a 1x8 table where flip1d's file is looked for
    split = read_split(path, 0)
    for part in ("train", "valid", "test"):
        states, labels = getattr(split, part)
        got = flipnet.load_dataset("flip1d", part, bucket=0)
        assert np.array_equal(got.states, states) and np.array_equal(got.labels, labels)
        assert got.states.dtype == np.uint64 and len(got) == len(states)
    whole = flipnet.load_dataset("flip1d", "all")
    assert np.array_equal(whole.labels, values) and len(whole) == 256
    boards = whole.boards()
    assert boards.dtype == np.uint8 and boards.shape == (256, 1, 8)  # the file's board
    assert np.array_equal(boards[:, 0, :] @ (1 << np.arange(8)), np.arange(256))
    states, labels = whole  # it unpacks as a pair
    assert states is whole.states and labels is whole.labels


def test_load_dataset_builds_a_missing_table_once(tmp_path, monkeypatch):
    monkeypatch.setenv("FLIPNET_DATA", str(tmp_path / "made" / "here"))  # two levels that do not exist yet
    train = flipnet.load_dataset("flip1d")
    built = tmp_path / "made" / "here" / "flip1d.h5"
    assert built.exists() and train.rows == 1 and train.cols == 20
    when = built.stat().st_mtime_ns
    assert np.array_equal(flipnet.load_dataset("flip1d").states, train.states) and built.stat().st_mtime_ns == when
    # the study's 1D split: bucket 0, test a sixth of each class (docs/sources.md)
    test = flipnet.load_dataset("flip1d", "test")
    assert 17_000 < len(test) < 18_000


def test_load_dataset_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("FLIPNET_DATA", str(tmp_path))
    with pytest.raises(FlipnetError, match="no dataset named 'flip3d': flip1d, flip2d, flip6x6, flip7x7"):
        flipnet.load_dataset("flip3d")
    with pytest.raises(FlipnetError, match=r"flip7x7.h5 is missing: `flipnet data --only flip7x7"):
        flipnet.load_dataset("flip7x7")
    assert not (tmp_path / "flip7x7.h5").exists()
    (tmp_path / "flip1d.h5").write_bytes(b"")
    with pytest.raises(FlipnetError):
        flipnet.load_dataset("flip1d", "everything")


SHIPPED_NETWORKS = ["conv1d", "mlp2d", "xornet1d", "xormem2d", "lookup2d", "best"]


@pytest.mark.parametrize("name", SHIPPED_NETWORKS)
def test_load_model_predicts_as_the_internal_predictor(name):
    from flipnet.base.shipped import resolve
    from flipnet.nn.core.kinds import read_model
    from flipnet.nn.evaluation.evaluate import predictor

    model = flipnet.load_model(name)
    network, _ = read_model(resolve(name)[0])
    rows, cols = network.rows, network.cols
    states = np.random.default_rng(0).integers(0, 1 << (rows * cols), size=300, dtype=np.uint64)
    expected = predictor(network)(states)
    assert np.array_equal(model.predict(states), expected)
    game = FlipGame(rows, cols)
    texts = [game.format(int(s)) for s in states[:20]]
    assert model.predict(texts).tolist() == expected[:20].tolist()
    assert model.predict(texts[0]) == int(expected[0])
    probs = model.probabilities(states)
    assert probs.shape[0] == len(states) and np.allclose(probs.sum(axis=1), 1.0)
    if not network.values_shapes:  # a network of positions: its value is its most likely one
        assert np.array_equal(probs.argmax(axis=1), expected)
    assert model.info["source"] == "shipped" and "test error" in model.info["figures"]


def test_xor_distributions_against_a_sum_over_every_combination():
    from flipnet.datasets.components import Components
    from flipnet.nn.core.xor import position_distributions

    components = Components(4, 4)
    states = np.random.default_rng(2).integers(0, 1 << 16, size=40, dtype=np.uint64)
    rng = np.random.default_rng(3)
    table = {}

    def shape_probabilities(keys):
        return np.array([table.setdefault(int(k), rng.dirichlet(np.ones(8))) for k in keys])

    got = position_distributions(components, states, shape_probabilities, 8)
    for state, row in zip(states, got):
        keys = [int(k) for k in components.keys(components.split(np.array([state])))[0] if k]
        expected = np.zeros(8)
        expected[0] = 1.0
        for key in keys:  # one component at a time: P(x ^ v) from P(x) and the shape's P(v)
            expected = np.array([sum(expected[x] * table[key][x ^ v] for x in range(8)) for v in range(8)])
        assert np.allclose(row, expected, atol=1e-12)


def test_the_best_models_distribution_is_the_xor_of_its_shapes():
    """A 7x7 position: a large shape the table lacks (the network's distribution) beside
    one it holds (certain, value 1): the position's distribution is the first one with each
    value v moved to v XOR 1."""
    model = flipnet.load_model("best")
    text = "0010111/1011111/0101011/0010110/0010110/1000100/0100010"
    (new, _, known_new), (old, value, known_old) = model.components(text)
    assert (known_new, known_old, value) == (False, True, 1)
    network = model.probabilities(new)
    assert network.max() < 0.99 and model.probabilities(old)[1] == 1.0
    assert np.allclose(model.probabilities(text), network[np.arange(16) ^ 1], atol=1e-12)


@pytest.mark.slow
def test_one_ply_and_boards_of_other_sizes():
    best = flipnet.load_model("best")
    texts = ["111111/111111/110011/111111", "1111111/1111111/1111111"]
    alone, ply = best.predict(texts), best.predict(texts, one_ply=True)
    truth = flipnet.values(texts)
    assert alone.shape == ply.shape == truth.shape == (2,)
    mlp = flipnet.load_model("mlp2d")
    with pytest.raises(ValueError, match="3 rows given, a 5x5 board has 5"):
        mlp.predict("111/111/111")
    with pytest.raises(FlipnetError, match="one ply of lookahead needs a model that values components"):
        mlp.predict("11111/11111/11111/11111/11111", one_ply=True)


def test_models_lists_the_shipped_and_the_trained(tmp_path, monkeypatch):
    from conftest import write_tiny_dataset

    from flipnet.nn.training.recipes import config_for
    from flipnet.nn.training.run import run

    shipped = [m for m in flipnet.models() if m.source == "shipped"]
    assert {m.name for m in shipped} >= {"conv1d", "mlp2d", "lookup2d", "convmem2d-gated12-80-distil6m-r2"}
    assert all(m.kind and m.board and "test error" in m.figures for m in shipped)
    monkeypatch.chdir(tmp_path)
    write_tiny_dataset(tmp_path / "tiny.h5", cols=4, rows=3)
    run(config_for("lookup2d", data=str(tmp_path / "tiny.h5"), bucket=0, eval_batch=0))
    here = [m for m in flipnet.models() if m.source == "trained here"]
    assert [(m.name, m.kind, m.board) for m in here] == [("lookup2d", "lookup2d", "3x4")]
    results = json.loads((tmp_path / "results" / "lookup2d.json").read_text())
    assert here[0].figures["test error"] == results["test_error"]
    model = flipnet.load_model("lookup2d")  # the trained one comes first
    assert model.info["source"] == "trained here" and model.board == "3x4"
    assert model.info["figures"]["test error"] == results["test_error"]


IMPORT = """
import os, sys, json
before = dict(os.environ)
import pytensor
floatx = pytensor.config.floatX
import flipnet
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "pytensor", "numba") or m.startswith("flipnet."))
import flipnet.nn
result = flipnet.load_model("mlp2d").predict("11111/11111/11111/11111/11111")
print(json.dumps({"env_same": dict(os.environ) == before, "floatX": [floatx, pytensor.config.floatX],
                  "flipnet_modules": [m for m in loaded if m.startswith("flipnet.")], "result": int(result)}))
"""


def test_importing_flipnet_changes_nothing_in_the_host_process():
    """No environment variable, no allocator setting (flipnet.base.heap is not even
    imported), no PyTensor setting: floatX is float32 only inside flipnet's graph builders."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "FLIPNET_HEAP")}
    out = subprocess.run([sys.executable, "-c", IMPORT], capture_output=True, text=True, env=env, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["env_same"] and got["floatX"] == ["float64", "float64"]
    assert got["flipnet_modules"] == []  # `import flipnet` alone loads nothing else of flipnet
    assert 0 <= got["result"] <= 9


def test_no_model_is_asked_what_it_has_outside_the_interface():
    """Code asks a model through the protocol's names (nn/core/interface.py), never with
    hasattr or getattr on the model."""
    import ast
    from pathlib import Path

    package = Path(flipnet.__file__).parent
    found = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("hasattr", "getattr") and node.args:
                subject = ast.unparse(node.args[0])
                if "model" in subject or subject in ("other", "m", "predictor"):
                    found.append(f"{path.relative_to(package)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, found


def test_every_kind_is_one_registry_entry():
    from flipnet.nn.core.kinds import KINDS, build
    from flipnet.nn.training.recipes import RECIPES

    assert {r.settings["model"] for r in RECIPES.values()} <= set(KINDS)
    for name, kind in KINDS.items():
        assert callable(kind.trainer()) and callable(kind.rebuilder())
        if kind.build:
            model = build(name, 0, *((1, 8) if kind.board == "row" else (3, 3)))
            assert model.name == name


def test_docs_api_md_is_what_the_docstrings_say():
    """docs/api.md is generated from the public names (`make api-docs`): it names every
    one, with the signature and docstring it has now."""
    from pathlib import Path

    from flipnet.api.reference import markdown

    page = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    assert page == markdown(), "docs/api.md is out of date: make api-docs"
    for name in flipnet.__all__:
        if name not in ("__version__",):
            assert f"## {name}" in page, name


@pytest.mark.parametrize("call, message", [
    (lambda d: flipnet.long_solve(11, d / "f"), "long_solve takes a flip board as text"),
    (lambda d: flipnet.long_solve("111/111", d), "is a directory, not a checkpoint file"),
    (lambda d: flipnet.long_solve("111/111", 3.5), "checkpoint is a file's path, not float"),
    (lambda d: flipnet.long_solve("111/111", scheduler="tcp://x:1"), "scheduler is for the pieces of a solve"),
    (lambda d: flipnet.long_solve("111/111", pieces=True, timeout=3), "timeout limits one search"),
    (lambda d: flipnet.long_solve("111/111", pieces=True, piece_checkpoints=d), "piece_checkpoints is for the pieces on a cluster"),
    (lambda d: flipnet.long_solve("11x/111", d / "f"), "bad character 'x' at row 1, column 3"),
    (lambda d: flipnet.standing(d / "none.ckpt"), "no such file"),
    (lambda d: flipnet.standing(d), "is a directory"),
])
def test_a_long_solve_refuses_what_it_cannot_do_naming_the_argument(tmp_path, call, message):
    with pytest.raises(FlipnetError, match=message.replace("(", r"\(")):
        call(tmp_path)
    assert not (tmp_path / "f").exists()  # refused before any file is written


def test_a_long_solve_in_pieces_keeps_each_answer_and_agrees_with_one_search(tmp_path):
    board = "1111/1111/1111/1111/1110"  # 19 cells: each piece is valued by the plain recursion
    path = tmp_path / "pieces.ckpt"
    solved = flipnet.long_solve(board, path, pieces=True)
    game = FlipGame(5, 4)
    truth = brute(game)
    state = game.parse(board)
    assert solved.result.value == truth[state] and solved.pieces_read == 0 and solved.pieces > 0
    assert {m.position for m in solved.result.winning_moves} == \
        {game.format(game.play(state, m)) for m in game.legal_moves(state) if truth[game.play(state, m)] == 0}
    again = flipnet.long_solve(board, path, pieces=True)
    assert again.result.value == solved.result.value and again.pieces_read == solved.pieces
