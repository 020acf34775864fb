"""One error contract through every door: what a user can fix is a `FlipnetError` (one
line naming the argument, the value or the file's field); anything else is a bug, which the
CLI reports as one (exit 1) and the explorer as a 500 while it goes on serving. Damaged
files are refused field by field, a name is never read as a path, and a writer killed
outright leaves nothing behind once a flipnet command writes to the same place again."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from cli_cases import FLIPNET, environment, run, stderr_lines
from conftest import write_tiny_dataset

import flipnet
from flipnet.base.errors import BadInput, BadType, DamagedFile, FlipnetError
from flipnet.base.files import atomic_path, remove_dead_temporaries

BOARD = "11011/11111/01110/11011/10111"

# (id, call, the error's class, text the message must contain)
API_CASES = [
    ("cell-half", lambda: flipnet.value(np.array([[1, 0.5], [1, 1]])), BadInput, "cell (0, 1) is"),
    ("cell-nan", lambda: flipnet.value(np.array([[1, 1], [np.nan, 1]])), BadInput, "cell (1, 0) is"),
    ("cell-negative", lambda: flipnet.value([[1, -1], [1, 1]]), BadInput, "a cell is 0 (empty) or 1 (full)"),
    ("cell-text", lambda: flipnet.value(np.array([["1", "1"]])), BadType, "cells are 0 and 1"),
    ("array-empty", lambda: flipnet.value(np.zeros((0, 0))), BadInput, "empty array"),
    ("array-3d", lambda: flipnet.value(np.ones((2, 2, 2))), BadInput, "this one has 3"),
    ("misere-string", lambda: flipnet.value("11", misere="no"), BadType, "misere is True, False or None, not 'no'"),
    ("misere-number", lambda: flipnet.value("11", misere=1), BadType, "misere is True, False or None"),
    ("workers-0", lambda: flipnet.value("111/111", workers=0), BadInput, "workers must be from 1 to 256, got 0"),
    ("workers-huge", lambda: flipnet.value("111/111", workers=257), BadInput, "workers must be from 1 to 256, got 257"),
    ("workers-float", lambda: flipnet.value("111/111", workers=1.0), BadType, "workers is a whole number"),
    ("timeout-text", lambda: flipnet.value("11", timeout="5"), BadType, "timeout is a number of seconds"),
    ("timeout-negative", lambda: flipnet.value("11", timeout=-1), BadInput, "timeout must be a positive"),
    ("moves-number", lambda: flipnet.value("11", moves=2), BadInput, "moves is True, False or 'all', not 2"),
    ("game-number", lambda: flipnet.value("11", game=5), BadType, "game is a name"),
    ("game-unknown", lambda: flipnet.value("11", game="chess"), BadInput, "unknown game 'chess'"),
    ("max-take-text", lambda: flipnet.value("111/111", "gridnim", max_take="2"), BadType, "max_take is a whole"),
    ("nim-float-heap", lambda: flipnet.value([1, 2.5], "nim"), BadType, "heap 2 of position is 2.5"),
    ("nim-negative-heap", lambda: flipnet.value([1, -2], "nim"), BadInput, "heap 2 of position is negative"),
    ("halfnim-underscore", lambda: flipnet.value("1_0", "halfnim"), BadInput, "pile size in digits, not '1_0'"),
    ("halfnim-zero", lambda: flipnet.value(0, "halfnim"), BadInput, "position must be at least 1, got 0"),
    ("halfnim-all-moves", lambda: flipnet.value(2 ** 63, "halfnim", moves="all"), BadInput,
     "moves are listed for piles of at most"),
    ("bits-outside", lambda: flipnet.values(np.array([3, 1 << 9], np.uint64), shape=(2, 2)), BadInput,
     "bit board 1 (512) has bits beyond the 4 cells of a 2x2 board"),
    ("bits-negative", lambda: flipnet.values(np.array([-1]), shape=(2, 2)), BadInput, "bit board 0 is negative"),
    ("bits-float", lambda: flipnet.values(np.array([1.5]), shape=(2, 2)), BadType, "bit boards are integers"),
    ("bits-no-shape", lambda: flipnet.values(np.array([3])), BadInput, "needs its shape=(rows, cols)"),
    ("shape-zero", lambda: flipnet.values(np.array([1]), shape=(0, 2)), BadInput, "shape must be at least 1x1"),
    ("shape-text", lambda: flipnet.values(np.array([1]), shape="2x2"), BadType, "shape is (rows, cols)"),
    ("cells-half", lambda: flipnet.values(np.full((1, 2, 2), 0.5)), BadInput, "cell (0, 0) is"),
    ("values-2d", lambda: flipnet.values(np.ones((2, 2))), BadInput, "not 2 dimensions"),
    ("values-one", lambda: flipnet.values(5), BadType, "a list of texts or an array, not int"),
    ("values-text", lambda: flipnet.values("11/11"), BadType, "values() takes many positions"),
    ("values-no-cells", lambda: flipnet.values(np.zeros((2, 0, 3), np.int64)), BadInput,
     "positions of 0x3 cells: a board has at least one cell"),
    ("unpack-zero-shape", lambda: flipnet.unpack(0, 0, 5), BadInput, "shape must be at least 1x1, got 0x5"),
    ("unpack-negative", lambda: flipnet.unpack(-3, 2, 2), BadInput, "bit board 0 is negative (-3)"),
    ("unpack-outside", lambda: flipnet.unpack(16, 2, 2), BadInput, "has bits beyond the 4 cells of a 2x2 board"),
    ("unpack-past-a-word", lambda: flipnet.unpack(1 << 70, 8, 8), BadInput, "bit boards of at most 64 cells"),
    ("make-shape-number", lambda: flipnet.games.make("flip", shape=5), BadInput,
     "shape is (rows, cols) or text like '5x5', not 5"),
    ("make-shape-text", lambda: flipnet.games.make("flip", shape="5by5"), BadInput, "bad shape '5by5'"),
    ("dataset-name", lambda: flipnet.load_dataset(3), BadInput, "no dataset named 3"),
    ("dataset-split", lambda: flipnet.load_dataset("flip1d", 2), BadType, "split is a name"),
    ("dataset-bucket-float", lambda: flipnet.load_dataset("flip1d", "test", bucket=1.5), BadType,
     "bucket is a whole number, not 1.5"),
    ("dataset-bucket-text", lambda: flipnet.load_dataset("flip1d", "test", bucket="1"), BadType,
     "bucket is a whole number, not '1'"),
    ("predict-float-cells", lambda: flipnet.load_model("mlp2d").predict(np.full((1, 5, 5), 0.5)), BadInput,
     "cell (0, 0) is"),
    ("predict-bits-outside", lambda: flipnet.load_model("mlp2d").predict(np.array([1 << 30], np.uint64)),
     BadInput, "bits beyond the 25 cells of a 5x5 board"),
]


@pytest.mark.parametrize("call, kind, message", [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_the_api_refuses_what_it_cannot_take_by_name(call, kind, message):
    with pytest.raises(kind) as caught:
        call()
    assert isinstance(caught.value, FlipnetError)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_what_the_api_takes_it_reads_exactly():
    """The forms the checks let through give the values an independent reading gives."""
    text = "110/011"
    assert flipnet.value(np.array([[1., 1, 0], [0, 1, 1]])).value == flipnet.value(text).value
    assert flipnet.value(np.array([[True, True, False], [False, True, True]])).value == flipnet.value(text).value
    bits = np.array([0b1111, 0b0111], np.uint64)
    for game, misere in (("gridnim", None), ("flip", True)):  # the games valued by a table, from bit boards
        by_text = flipnet.values(["11/11", "11/10"], game, misere=misere)
        assert flipnet.values(bits, game, misere=misere, shape=(2, 2)).tolist() == by_text.tolist()
    assert flipnet.values(np.array([[1, 2], [3, 3]]), "nim").tolist() == [3, 0]
    assert flipnet.values(np.array(["11", "11/11"])).tolist() == flipnet.values(["11", "11/11"]).tolist()
    assert flipnet.values(np.zeros((0, 3, 3), np.int64)).shape == (0,)  # no positions: no values
    assert flipnet.games.make("flip", shape="3x4") == flipnet.games.make("flip", shape=(3, 4))
    assert flipnet.unpack([0b0110], 2, 2).tolist() == [[[0, 1], [1, 0]]]


@pytest.mark.slow
def test_every_shipped_model_gives_probabilities_of_one_position():
    """The models whose predictor averages over symmetries (mlp2d-fast, conv1d-fast) among them."""
    for entry in flipnet.models():
        if entry.source != "shipped":
            continue
        model = flipnet.load_model(entry.name)
        rows, cols = (int(n) for n in entry.board.split("x"))
        position = "/".join(["1" * cols] * rows)
        p = model.probabilities(position)
        assert p.ndim == 1 and abs(p.sum() - 1) < 1e-4 and int(np.argmax(p)) == model.predict(position), entry.name
        assert model.probabilities([]).shape[0] == 0, entry.name


# A shipped model file with one field damaged: (id, model, edit of (arrays, meta), message)
MODEL_FILES = [
    ("lookup-no-keys", "lookup2d", "del arrays['keys']", "array keys is missing"),
    ("lookup-rows-text", "lookup2d", "meta['rows'] = '5'", "metadata rows is '5', not a whole number"),
    ("lookup-cols-zero", "lookup2d", "meta['cols'] = 0", "metadata cols is 0, not 1 to 64"),
    ("lookup-short-values", "lookup2d", "arrays['values'] = arrays['values'][:3]", "array values has shape (3,)"),
    ("convmem-setting", "convmem2d-gated12-80-distil6m-r2", "meta['architecture']['colour'] = 1",
     "metadata architecture has settings this flipnet does not know: colour"),
    ("convmem-no-weights", "convmem2d-gated12-80-distil6m-r2", "del arrays['net/hidden_W']",
     "array net/hidden_W is missing"),
    ("convmem-average", "convmem2d-gated12-80-distil6m-r2", "meta['average'] = 'yes'",
     "metadata average is 'yes', not true or false"),
    ("network-model", "mlp2d", "meta['model'] = 5", "metadata model is 5, not a string"),
    ("network-shape", "mlp2d", "arrays['W0'] = arrays['W0'][:3]", "has shape (3,"),
]


@pytest.mark.parametrize("name, edit, message", [c[1:] for c in MODEL_FILES], ids=[c[0] for c in MODEL_FILES])
def test_a_damaged_model_file_is_refused_by_its_field(tmp_path, name, edit, message):
    from flipnet.base.shipped import resolve
    from flipnet.nn.core.store import load_npz, save_npz

    arrays, meta = load_npz(resolve(name)[0])
    arrays = dict(arrays)
    exec(edit)
    path = tmp_path / f"{name}.npz"
    save_npz(path, arrays, meta)
    with pytest.raises(DamagedFile) as caught:
        flipnet.load_model(path)
    assert str(path) in str(caught.value) and message in str(caught.value), str(caught.value)


def test_a_damaged_agent_or_survey_file_is_refused_by_its_field(tmp_path):
    from flipnet.nn.nim.train import _surveyed
    from flipnet.play.es import ESAgent

    path = tmp_path / "es.json"
    for weights, message in (([1, 2], "field weights is not a list of 5 finite numbers"),
                             ("x", "field weights is 'x', not a list")):
        path.write_text(json.dumps({"weights": weights}))
        with pytest.raises(DamagedFile, match=message):
            ESAgent.load(path)
    survey = tmp_path / "survey.json"
    survey.write_text(json.dumps({"epochs": 3, "database_seed": 1, "seeds": [{"seed": 1, "diff_winning": []}]}))
    with pytest.raises(DamagedFile, match="field seeds.0.diff_losing is missing"):
        _surveyed(survey, {"epochs": 3, "database_seed": 1})
    survey.write_text(json.dumps({"epochs": "3", "database_seed": 1, "seeds": []}))
    with pytest.raises(DamagedFile, match="field epochs is '3', not a whole number"):
        _surveyed(survey, {"epochs": 3, "database_seed": 1})


# --- a bug is a bug, under each door ------------------------------------------------

INJECT = textwrap.dedent("""
    import sys
    import flipnet.api.positions as positions
    def broken(*args, **kwargs):
        raise {error}
    positions.analyse = broken
    from flipnet.cli import main
    sys.exit(main({argv!r}))
""")


@pytest.mark.slow
@pytest.mark.parametrize("error", ["ValueError('deep inside')", "KeyError('file')", "TypeError('x')"])
def test_the_command_reports_an_internal_error_as_a_bug(tmp_path, error):
    proc = subprocess.run([sys.executable, "-c", INJECT.format(error=error, argv=["value", "nim", "1,2"])],
                          cwd=tmp_path, capture_output=True, text=True, env=environment(), timeout=120)
    lines = stderr_lines(proc.stderr)
    assert proc.returncode == 1, proc.stderr
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "internal error" in lines[0] and "a bug in flipnet" in lines[0] and "FLIPNET_DEBUG=1" in lines[0]
    shown = subprocess.run([sys.executable, "-c", INJECT.format(error=error, argv=["value", "nim", "1,2"])],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           env={**environment(), "FLIPNET_DEBUG": "1"})
    assert "Traceback" in shown.stderr


@pytest.mark.slow
def test_the_command_reports_a_users_error_with_status_2(tmp_path):
    proc = subprocess.run([sys.executable, "-c", INJECT.format(error="flipnet.BadInput('a bad heap')",
                                                               argv=["value", "nim", "1,2"])
                           .replace("import sys", "import sys, flipnet\nfrom flipnet.base.errors import BadInput\n"
                                    "flipnet.BadInput = BadInput")],
                          cwd=tmp_path, capture_output=True, text=True, env=environment(), timeout=120)
    assert proc.returncode == 2 and stderr_lines(proc.stderr) == ["flipnet value: error: a bad heap"], proc.stderr


def test_the_api_lets_a_bug_through_as_what_it_is(monkeypatch):
    import flipnet.api.positions as positions

    def broken(*args, **kwargs):
        raise ValueError("deep inside")

    monkeypatch.setattr(positions, "analyse", broken)
    with pytest.raises(ValueError, match="deep inside") as caught:
        flipnet.value("1,2", "nim")
    assert not isinstance(caught.value, FlipnetError)


def test_the_doors_catch_no_built_in_exception_as_a_users_error():
    """The CLI, the server and its questions take only FlipnetError as the user's."""
    import ast

    package = Path(flipnet.__file__).parent
    doors = sorted(str(p.relative_to(package)) for p in (package / "cli").glob("*.py"))
    assert len(doors) >= 5  # the command's package: its parser and each stage's commands
    for path in (*doors, "explore/server.py", "explore/questions.py"):
        tree = ast.parse((package / path).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                assert not names & {"ValueError", "TypeError", "KeyError", "AttributeError", "IndexError"}, \
                    f"{path}:{node.lineno} takes a built-in exception for a user's error"


# --- damaged files ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def checkpointed(tmp_path_factory):
    """A conv1d run of 1 epoch on a tiny table, stopped with its checkpoint."""
    d = tmp_path_factory.mktemp("run")
    write_tiny_dataset(d / "tiny1d.h5")
    argv = ["train", "conv1d", "--data", d / "tiny1d.h5", "--bucket", "0", "--epochs", "2", "--batch", "10",
            "--eval-batch", "0", "--results-dir", d / "runs", "--out", "r"]
    proc = run([*argv[:6], "--epochs", "1", *argv[8:]], d, program=[sys.executable, str(Path(__file__)
                                                                      .with_name("python_linker_command.py"))])
    assert proc.returncode == 0, proc.stderr
    return d, argv


def _damaged_checkpoint(source, target, edit):
    with np.load(source, allow_pickle=False) as archive:
        arrays = {k: archive[k] for k in archive.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    meta["config"]["results_dir"] = str(Path(target).parent)  # the run as it is resumed, but for the edit
    edit(arrays, meta)
    np.savez(target, **arrays, __meta__=np.array(json.dumps(meta)))


CHECKPOINTS = [
    ("epoch-text", lambda a, m: m.update(epoch="1"), "field epoch is '1', not a whole number"),
    ("epoch-beyond", lambda a, m: m.update(epoch=999), "field epoch is 999 of a run of 1 epochs"),
    ("no-config", lambda a, m: m.pop("config"), "field config is missing"),
    ("curve-number", lambda a, m: m.update(curve=3), "field curve is 3, not a list"),
    ("no-best", lambda a, m: [a.pop(k) for k in list(a) if k.startswith("best/")], "array best/"),
    ("rng-garbage", lambda a, m: m.update(rng={"x": 1}), "field rng is not the state"),
]


@pytest.mark.slow
@pytest.mark.parametrize("edit, message", [c[1:] for c in CHECKPOINTS], ids=[c[0] for c in CHECKPOINTS])
def test_a_damaged_checkpoint_is_refused_by_its_field(checkpointed, tmp_path, edit, message):
    d, argv = checkpointed
    runs = tmp_path / "runs"
    runs.mkdir()
    _damaged_checkpoint(d / "runs" / "r.ckpt.npz", runs / "r.ckpt.npz", edit)
    argv = [str(a) if a != d / "runs" else str(runs) for a in argv]
    proc = run([*argv, "--resume"], tmp_path, program=[sys.executable, str(Path(__file__)
                                                       .with_name("python_linker_command.py"))])
    lines = stderr_lines(proc.stderr)
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "r.ckpt.npz" in lines[0] and message in lines[0], lines[0]


MANIFESTS = [
    ("no-file", "del d['models']['mlp2d']['file']", "field models.mlp2d.file is missing"),
    ("no-sha256", "del d['models']['mlp2d']['file']['sha256']", "field models.mlp2d.file.sha256 is missing"),
    ("bytes-text", "d['models']['mlp2d']['file']['bytes'] = 'x'", "field models.mlp2d.file.bytes is 'x'"),
    ("file-number", "d['models']['mlp2d']['file'] = 3", "field models.mlp2d.file is 3, not an object"),
    ("sha-short", "d['models']['mlp2d']['file']['sha256'] = 'abc'", "not 64 hexadecimal digits"),
]


@pytest.mark.slow
@pytest.mark.parametrize("edit, message", [c[1:] for c in MANIFESTS], ids=[c[0] for c in MANIFESTS])
def test_a_damaged_manifest_is_refused_by_its_field(tmp_path, edit, message):
    import shutil

    from flipnet.base.shipped import SHIPPED

    shipped = tmp_path / "shipped"
    shutil.copytree(SHIPPED, shipped, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    path = shipped / "models" / "manifest.json"
    d = json.loads(path.read_text())
    exec(edit)
    path.write_text(json.dumps(d))
    proc = run(["predict", "mlp2d", BOARD], tmp_path, env=environment(FLIPNET_SHIPPED=str(shipped)))
    lines = stderr_lines(proc.stderr)
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "manifest.json" in lines[0] and message in lines[0], lines[0]


# --- names and paths ---------------------------------------------------------------------

@pytest.mark.slow
def test_a_folder_of_a_models_name_does_not_hide_the_model(tmp_path):
    (tmp_path / "mlp2d").mkdir()
    (tmp_path / "mlp2d.npz").mkdir()
    proc = run(["predict", "mlp2d", BOARD], tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == run(["predict", "mlp2d", BOARD], elsewhere).stdout and "shipped" in proc.stderr + proc.stdout
    as_path = run(["predict", "./mlp2d", BOARD], tmp_path)
    assert as_path.returncode == 2 and "model file mlp2d is not a file" in as_path.stderr


def test_a_name_is_not_a_path():
    from flipnet.base.shipped import looks_like_path

    assert not looks_like_path("mlp2d") and not looks_like_path("best")
    assert looks_like_path("./mlp2d") and looks_like_path("runs/x") and looks_like_path("x.npz")


# --- nothing left behind -------------------------------------------------------------------

def test_a_dead_writers_temporary_is_removed_and_a_live_ones_kept(tmp_path):
    target = tmp_path / "out.json"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    from flipnet.base.files import _HOST

    stale = tmp_path / f".out.json.{_HOST}.{dead.pid}.abcd1234.tmp"
    live = tmp_path / f".out.json.{_HOST}.{os.getppid()}.abcd1234.tmp"
    other_host = tmp_path / f".out.json.elsewhere.{dead.pid}.abcd1234.tmp"
    for path in (stale, live, other_host):
        path.write_text("partial")
    with atomic_path(target) as tmp:
        assert f".{_HOST}.{os.getpid()}." in tmp.name
        tmp.write_text("{}")
    assert not stale.exists() and live.exists() and other_host.exists() and target.read_text() == "{}"
    assert remove_dead_temporaries(target) == []


def _endgame(directory, **kwargs):
    return subprocess.Popen([*FLIPNET, "endgame", "--dir", str(directory)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=environment(), **kwargs)


def _wait_for_temporary(directory, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if list(directory.glob(".cram-endgame.bin.*.tmp")):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_a_killed_endgame_build_leaves_no_file_after_the_next_run(tmp_path):
    """kill -9 in the middle of the build leaves its temporary (nothing can remove it
    then); the next build in the same place removes it and leaves only its own files."""
    proc = _endgame(tmp_path)
    assert _wait_for_temporary(tmp_path)
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    left = list(tmp_path.glob(".cram-endgame.bin.*.tmp"))
    assert left and left[0].stat().st_size > 100 << 20  # the half-built file, as the kill left it
    again = _endgame(tmp_path)
    again.communicate(timeout=300)
    assert again.returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cram-endgame.bin", "cram-endgame.json"]


@pytest.mark.slow
def test_sigterm_stops_an_endgame_build_within_a_second(tmp_path):
    proc = _endgame(tmp_path)
    assert _wait_for_temporary(tmp_path)
    time.sleep(0.5)
    start = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert time.perf_counter() - start < 1.0, err
    assert proc.returncode == 143 and "interrupted" in err.splitlines()[-1]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_an_address_space_limit_ends_an_endgame_build_in_one_line(tmp_path):
    """Where the build cannot map its file beside what flipnet loads (OpenBLAS spun for
    ever in such a process), one line before the work, not a hang."""
    import resource

    def limit():
        # 650 MB: short of the build's room (the 226 MB map and its threads); at 800 MB it now fits
        resource.setrlimit(resource.RLIMIT_AS, (650_000 << 10, 650_000 << 10))

    start = time.perf_counter()
    proc = subprocess.run([*FLIPNET, "endgame", "--dir", str(tmp_path)], capture_output=True, text=True,
                          env=environment(), timeout=120, preexec_fn=limit)
    lines = stderr_lines(proc.stderr)
    assert time.perf_counter() - start < 30 and proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(lines) <= 2
    assert "address-space limit" in lines[-1] or "Cannot allocate memory" in lines[-1], lines[-1]
    assert list(tmp_path.iterdir()) == []


# --- the explorer ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def explorer(python_linker_module):
    from flipnet.explore.server import Explorer

    server = Explorer("127.0.0.1", 0, limit=1.0, default_model="best")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _ask(server, method, path, headers=None, body=None):
    import http.client

    port = server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path, body=body, headers={"Host": f"127.0.0.1:{port}", **(headers or {})})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, response.getheader("Content-Type"), data


def test_another_sites_page_may_not_start_or_cancel_work(explorer):
    port = explorer.server_address[1]
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Origin": "null"}, {"Sec-Fetch-Site": "same-site"}):
        for method, path in (("GET", "/api/position?position=11/11"), ("POST", "/api/cancel?question=1"),
                             ("GET", "/api/model?position=11/11")):
            status, kind, data = _ask(explorer, method, path, headers)
            assert status == 403 and kind == "application/json", (headers, path)
            assert "another site" in json.loads(data)["error"]
    status, _, data = _ask(explorer, "GET", "/api/position?position=11/11",
                           {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-origin"})
    assert status == 200 and json.loads(data)["question"] >= 1


@pytest.mark.parametrize("method", ["HEAD", "PUT", "DELETE", "OPTIONS", "PATCH", "BREW"])
def test_every_method_gets_a_json_line(explorer, method):
    status, kind, data = _ask(explorer, method, "/api/settings")
    assert status == 405 and kind == "application/json"
    if method != "HEAD":
        assert "GET and POST" in json.loads(data)["error"]


@pytest.mark.parametrize("length, status", [("-5", 400), ("abc", 400), ("99999999999999999999999", 400),
                                            ("2000", 413)])
def test_a_bad_content_length_is_refused_without_reading_the_body(explorer, length, status):
    import socket

    port = explorer.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"POST /api/cancel?question=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Content-Length: {length}\r\n\r\n".encode() + b"x" * 100)
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
        reply = reply.decode()
    head, _, body = reply.partition("\r\n\r\n")
    assert head.split()[1] == str(status) and "application/json" in head
    assert json.loads(body)["error"]


@pytest.mark.parametrize("params, message", [
    ("game=halfnim&position=1000000000000000000000000000000", "a HalfNim pile here is a number from 1 to 1000"),
    ("game=halfnim&position=9223372036854775808", "a HalfNim pile here"),
    ("game=halfnim&position=1001", "holds at most 1000 blocks"),
    ("game=gridnim&position=11111/11111/11111/11111/11111", "up to 20 full cells"),
    ("game=flip&misere=1&position=11111/11111/11111/11111/11111", "misère flip is valued here up to 20"),
])
def test_numbers_past_a_games_cap_are_refused_before_work(explorer, params, message):
    status, _, data = _ask(explorer, "GET", f"/api/position?{params}")
    assert status == 400 and message in json.loads(data)["error"]


def test_a_bug_under_the_server_is_a_500_and_it_goes_on(explorer, monkeypatch):
    from flipnet.explore import answers

    def broken(*args, **kwargs):
        raise KeyError("file")

    monkeypatch.setattr(answers, "network", broken)
    status, _, data = _ask(explorer, "GET", "/api/model?position=11/11")
    assert status == 500 and "a bug in flipnet" in json.loads(data)["error"]
    monkeypatch.setattr(answers, "position", broken)
    status, _, data = _ask(explorer, "GET", "/api/position?game=nim&position=1,2")
    assert status == 500 and json.loads(data)["status"] == "error" and "a bug" in json.loads(data)["error"]
    monkeypatch.undo()
    status, _, data = _ask(explorer, "GET", "/api/position?game=nim&position=1,3")
    assert status == 200 and json.loads(data)["answer"]["value"] == 2


@pytest.mark.slow
def test_the_limit_holds_on_a_large_board_and_the_table_is_capped(explorer):
    """A 7x8 board past a 1-second limit ends within another second, and the solver's
    table stays at the server's cap, not the 2^29 entries the command would take."""
    from flipnet.explore.server import TABLE_LOG

    board = "/".join(["1" * 8] * 7)
    start = time.perf_counter()
    status, _, data = _ask(explorer, "GET", f"/api/position?position={board}")
    answer = json.loads(data)
    while answer["status"] == "running":
        time.sleep(0.05)
        answer = json.loads(_ask(explorer, "GET", f"/api/question?question={answer['question']}")[2])
    assert answer["status"] == "error" and "no answer within" in answer["error"]
    assert time.perf_counter() - start < 2.0 + 1.0  # the limit, the second it may take to stop, and slack
    assert explorer.questions.solver.tt_log <= TABLE_LOG
