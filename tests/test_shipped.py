"""The trained models that ship (data/models/): their files match the manifest, they load by
name and value the test split as the manifest's counts say, a changed file is refused in
one line, and a model trained again is told apart from the shipped one."""

import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from cli_cases import PYTHON_LINKER, environment, run

from flipnet.base import shipped
from flipnet.base.errors import FlipnetError
from flipnet.nn.core.store import load_npz, save_npz

LIMIT = 20 << 20  # bytes: everything that ships
MODELS = shipped.manifest()["models"]
NETWORKS = sorted(name for name, entry in MODELS.items() if "slice" in entry)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def study_data(tmp_path_factory):
    """The folder holding flip1d.h5 and flip2d.h5: data/ after `make data`, else built here
    (the same seeded splits)."""
    from flipnet.datasets import TABLES

    if all(spec.path(ROOT / "data").exists() for spec in TABLES):
        return ROOT / "data"
    out = tmp_path_factory.mktemp("data")
    for spec in TABLES:
        spec.build(spec.path(out), None, lambda n=1: None)
    return out


def test_the_models_of_record_ship_within_the_size_limit():
    assert {"conv1d-fast", "mlp2d-fast", "xornet1d", "lookup2d", "nim", "es"} <= set(MODELS)
    assert shipped.canonical("best") == "convmem2d-gated12-80-distil6m-r2"
    records = [r for entry in MODELS.values() for r in [entry["file"], *entry.get("results", [])]]
    records += shipped.manifest().get("results", [])  # the arena, seeds, timings
    assert sum(r["bytes"] for r in records) <= LIMIT
    for record in records:  # every file as the manifest says: size and digest, read here
        data = (shipped.MODELS_DIR / record["path"]).read_bytes()
        assert len(data) == record["bytes"] and hashlib.sha256(data).hexdigest() == record["sha256"]


# On the Python linker (`py_mode`): the counts are those of the shipped files' graphs; the
# network agent's test below values positions with a shipped model on the Numba path.
@pytest.mark.slow
@pytest.mark.parametrize("name", NETWORKS)
def test_each_shipped_model_values_the_test_slice_as_the_manifest_says(name, study_data, py_mode):
    from flipnet.datasets import read_split
    from flipnet.nn.core.kinds import read_model
    from flipnet.nn.evaluation.evaluate import predictor

    entry = MODELS[name]
    model, meta = read_model(shipped.shipped_file(name))
    assert meta["config"]["recipe"] == entry["recipe"] and meta["config"]["seed"] == entry["seed"]
    split = read_split(study_data / Path(meta["config"]["data"]).name, meta["config"].get("bucket", 0))
    step = len(split.test[0]) // shipped.SLICE  # every step-th test position, from the first
    states, labels = split.test[0][::step][:shipped.SLICE], split.test[1][::step][:shipped.SLICE]
    errors = int(np.sum(predictor(model)(states) != labels))
    assert (errors, len(states)) == (entry["slice"]["errors"], entry["slice"]["positions"])
    # the slice is spread over the split: its error within a few points of the test error shipped
    results = json.loads((shipped.RESULTS_SHIPPED / f"{name}.json").read_text())
    assert abs(errors / len(states) - results["test_error"]) < 0.03


def test_a_packed_file_loads_the_same_arrays_and_is_the_same_bytes_every_time(tmp_path):
    arrays = {"W": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
              "values": np.array([0, 3, 15, 2], np.int64), "keys": np.array([5, 1 << 40], np.uint64),
              "offsets": np.array([-3, 200], np.int64), "empty": np.zeros(0, np.int64)}
    save_npz(tmp_path / "m.npz", arrays, {"model": "x", "config": {"seed": 1}})
    first = shipped.pack(tmp_path / "m.npz", tmp_path / "a.npz")
    assert shipped.pack(tmp_path / "m.npz", tmp_path / "b.npz") == first
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    with np.load(tmp_path / "a.npz") as packed:  # stored narrow
        assert packed["values"].dtype == np.uint8 and packed["offsets"].dtype == np.int16
        assert packed["keys"].dtype == np.uint64
    loaded, meta = load_npz(tmp_path / "a.npz")
    assert meta == {"model": "x", "config": {"seed": 1}}
    for name, array in arrays.items():  # read back wide, equal
        assert loaded[name].dtype == array.dtype and np.array_equal(loaded[name], array)


def test_a_packed_file_whose_types_do_not_fit_is_refused(tmp_path):
    save_npz(tmp_path / "m.npz", {"values": np.array([1.5])}, {"model": "x", shipped.PACKED: {"values": "<i8"}})
    with pytest.raises(FlipnetError, match=r"m.npz: its packed_dtypes entry does not fit its arrays"):
        load_npz(tmp_path / "m.npz")


def _tampered_copy(tmp_path, change):
    copy = tmp_path / "shipped"
    shutil.copytree(shipped.SHIPPED / "models", copy / "models")
    shutil.copytree(shipped.SHIPPED / "results", copy / "results")
    path = copy / "models" / MODELS["xornet1d"]["file"]["path"]
    data = path.read_bytes()
    path.write_bytes(change(data))
    return copy


@pytest.mark.parametrize("change, why", [
    (lambda data: data[:len(data) // 2], r"\d+ bytes, not \d+: truncated\?"),
    (lambda data: data[:100] + bytes([data[100] ^ 1]) + data[101:], "the same size, other bytes: changed"),
])
@pytest.mark.slow
def test_a_changed_shipped_file_is_refused_in_one_line(tmp_path, change, why):
    env = environment(FLIPNET_SHIPPED=str(_tampered_copy(tmp_path, change)))
    done = run(["predict", "xornet1d", "1" * 20], cwd=tmp_path, env=env)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert "xornet1d.npz does not match the manifest's sha256" in line
    assert re.search(why, line), line
    checked = run(["models", "--check"], cwd=tmp_path, env=env)
    assert checked.returncode == 2 and "xornet1d.npz does not match" in checked.stderr


@pytest.mark.slow
def test_a_name_reads_the_run_trained_here_before_the_shipped_one(tmp_path):
    """Which file a name loads, through the command (its graphs on the Python linker: the
    predictions are the test slices' subject)."""
    shipped_run = run(["predict", "xornet1d", "11011" * 4], cwd=tmp_path, program=PYTHON_LINKER)
    assert shipped_run.returncode == 0, shipped_run.stderr
    assert shipped_run.stdout.splitlines()[0].startswith("loaded xornet1d: the shipped ")
    (tmp_path / "results").mkdir()
    shutil.copyfile(shipped.shipped_file("xornet1d"), tmp_path / "results" / "xornet1d.npz")
    here = run(["predict", "xornet1d", "11011" * 4], cwd=tmp_path, program=PYTHON_LINKER)
    assert here.stdout.splitlines()[0] == "loaded xornet1d: results/xornet1d.npz (trained here)"
    assert here.stdout.splitlines()[1:] == shipped_run.stdout.splitlines()[1:]
    unknown = run(["evaluate", "nosuchmodel"], cwd=tmp_path)
    assert unknown.returncode == 2 and len(unknown.stderr.splitlines()) == 1
    assert "no model named 'nosuchmodel'" in unknown.stderr and "xornet1d" in unknown.stderr


@pytest.mark.slow
def test_a_retrained_file_is_told_equal_or_different(tmp_path, study_data, py_mode):
    from flipnet.nn.evaluation.shipping import retrain_check

    results = tmp_path / "results"
    results.mkdir()
    arrays, meta = load_npz(shipped.shipped_file("xornet1d"))
    save_npz(results / "xornet1d.npz", arrays, meta)  # unpacked again: wide types, other bytes
    shutil.copyfile(shipped.RESULTS_SHIPPED / "xornet1d.json", results / "xornet1d.json")
    assert "equals the shipped xornet1d bit for bit" in retrain_check("xornet1d", results)
    save_npz(results / "xornet1d.npz", arrays, {**meta, "pipeline_seconds": 1234.5})  # a chain's time
    assert retrain_check("xornet1d", results) == (
        f"{results}/xornet1d.npz equals the shipped xornet1d bit for bit in every array and setting; "
        "only the wall time it records differs (pipeline_seconds 1,234 here, - shipped)")
    save_npz(results / "xornet1d.npz", arrays, {**meta, "pipeline_seconds": 1.0, "best_epoch": -1})
    assert "differs from the shipped xornet1d: test error" in retrain_check("xornet1d", results, study_data)
    arrays["b2"] = arrays["b2"] + np.float32(1e-7)  # one weight a little off
    save_npz(results / "xornet1d.npz", arrays, meta)
    line = retrain_check("xornet1d", results, study_data)
    assert "differs from the shipped xornet1d: test error" in line and "errors on the 2000 test positions" in line


def test_models_lists_each_shipped_model_with_the_figures_of_its_shipped_results(tmp_path):
    done = run(["models"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in NETWORKS:
        results = json.loads((shipped.RESULTS_SHIPPED / f"{name}.json").read_text())
        [line] = [i for i, text in enumerate(done.stdout.splitlines())
                  if text.startswith((f"{name}:", f"{name} (also"))]
        assert f"test error {results['test_error']:.2%}" in done.stdout.splitlines()[line + 1]
    for alias, name in shipped.ALIASES.items():
        assert (f"{name} (also '{alias}'):" in done.stdout) == (name in MODELS)


def test_the_network_agent_moves_to_a_position_its_model_values_zero(tmp_path, monkeypatch):
    from flipnet import games
    from flipnet.play.agents import make_agent

    from flipnet.play.agents import DEFAULT_NETWORKS

    monkeypatch.chdir(tmp_path)  # no results/ of runs trained here
    game = games.make("flip", shape=(5, 5))
    agent = make_agent("network", game)  # the best model of record that ships
    first = next(name for name in DEFAULT_NETWORKS[False] if shipped.canonical(name) in MODELS)
    assert agent.loaded.startswith(f"{shipped.canonical(first)}: the shipped ")
    rng = np.random.default_rng(0)
    for state in (int(s) for s in rng.integers(1, 1 << 25, 20)):
        moves = game.legal_moves(state)
        if not moves:
            continue
        values = agent.predict(np.array([game.play(state, m) for m in moves], np.uint64))
        move = agent(game, state, rng)
        assert move in moves
        if (values == 0).any():
            assert values[moves.index(move)] == 0


def test_compare_reads_a_shipped_run_where_none_was_trained_here_and_says_so(tmp_path):
    from flipnet.report import compare
    from flipnet.report.sources import ResultFiles

    claims = compare.load_claims(ROOT / "data" / "paper.json")
    rows = compare.compare(claims, ResultFiles(tmp_path, shipped.RESULTS_SHIPPED))
    from_shipped = [row for row in rows if row.shipped]
    assert from_shipped and all("(shipped)" in compare._ours_text(row) for row in from_shipped)
    assert not any(row.shipped for row in compare.compare(claims, tmp_path))
