"""A real SIGINT sent to the real command while it works: one line, exit 130, the last
finished piece of work kept whole, and `--resume` ending exactly where an uninterrupted
run ends. (Ctrl-C used to surface as a Numba SystemError traceback, or a segfault.)"""

import json
import re
import time

import numpy as np
import pytest
from cli_cases import (FLIPNET, SCRIPT, environment, interrupt_when, program_cpu_seconds, run, start,
                       stderr_lines)
from conftest import write_tiny_dataset

pytestmark = pytest.mark.slow


def _timeless(curve):
    return [{k: v for k, v in entry.items() if k != "seconds"} for entry in curve]


def test_train_stops_after_a_finished_epoch_and_resumes_exactly(tmp_path):
    from flipnet.nn.core.store import load_npz

    data = tmp_path / "tiny.h5"
    write_tiny_dataset(data)
    common = ["train", "conv1d", "--data", data, "--bucket", 0, "--batch", 10, "--eval-batch", 0,
              "--results-dir", tmp_path / "r"]
    checkpoint = tmp_path / "r" / "cut.ckpt.npz"
    proc = start([*common, "--epochs", 100000, "--out", "cut"], tmp_path)
    code, _, err = interrupt_when(proc, checkpoint.exists, settle=1.0)
    assert code == 130, err
    [line] = stderr_lines(err)
    _, meta = load_npz(checkpoint, "checkpoint")
    epoch = meta["epoch"]
    assert line == f"flipnet train: interrupted after epoch {epoch}; resume with --resume"
    assert not list((tmp_path / "r").glob("*.tmp")) and not (tmp_path / "r" / "cut.lock").exists()

    total = epoch + 3
    resumed = run([*common, "--epochs", total, "--out", "cut", "--resume"], tmp_path)
    straight = run([*common, "--epochs", total, "--out", "straight"], tmp_path)
    assert resumed.returncode == 0 and straight.returncode == 0, resumed.stderr + straight.stderr
    a = json.loads((tmp_path / "r" / "cut.json").read_text())
    b = json.loads((tmp_path / "r" / "straight.json").read_text())
    assert _timeless(a["curve"]) == _timeless(b["curve"]) and a["test_error"] == b["test_error"]
    params_a, _ = load_npz(tmp_path / "r" / "cut.npz")
    params_b, _ = load_npz(tmp_path / "r" / "straight.npz")
    assert all(np.array_equal(params_a[k], params_b[k]) for k in params_b)


def test_a_second_run_on_the_same_name_is_refused_while_the_first_works(tmp_path):
    data = tmp_path / "tiny.h5"
    write_tiny_dataset(data)
    common = ["train", "conv1d", "--data", data, "--bucket", 0, "--batch", 10, "--eval-batch", 0,
              "--results-dir", tmp_path / "r"]
    proc = start([*common, "--epochs", 100000, "--out", "busy"], tmp_path)
    checkpoint = tmp_path / "r" / "busy.ckpt.npz"
    try:
        while not checkpoint.exists():
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        second = run([*common, "--epochs", 2, "--out", "busy", "--resume"], tmp_path)
        assert second.returncode == 2
        assert stderr_lines(second.stderr) == [
            f"flipnet train: error: run 'busy' is already running in another process ({tmp_path}/r/busy.lock is locked)"]
    finally:
        proc.kill()
        proc.communicate()


def test_train_nim_keeps_its_checkpoint_and_resumes_exactly(tmp_path):
    from flipnet.nn.core.store import load_npz

    checkpoint = tmp_path / "cut.ckpt.npz"
    proc = start(["train-nim", "--epochs", 1000000, "--weights", tmp_path / "cut.txt",
                  "--results", tmp_path / "cut.json"], tmp_path)
    code, _, err = interrupt_when(proc, checkpoint.exists, settle=0.3)
    assert code == 130, err
    _, meta = load_npz(checkpoint, "checkpoint")
    done = meta["epochs_done"]
    assert stderr_lines(err) == [f"flipnet train-nim: interrupted after epoch {done} of 1000000; the "
                                 f"checkpoint holds epoch {done}; resume with --resume"]
    assert not (tmp_path / "cut.txt").exists()  # no weights from a run that did not finish
    total = done + 250
    resumed = run(["train-nim", "--epochs", total, "--weights", tmp_path / "cut.txt",
                   "--results", tmp_path / "cut.json", "--resume"], tmp_path)
    straight = run(["train-nim", "--epochs", total, "--weights", tmp_path / "straight.txt",
                    "--results", tmp_path / "straight.json"], tmp_path)
    assert resumed.returncode == straight.returncode == 0, resumed.stderr + straight.stderr
    assert (tmp_path / "cut.txt").read_text() == (tmp_path / "straight.txt").read_text()


def test_survey_nim_keeps_the_seeds_it_finished_and_resumes(tmp_path):
    out = tmp_path / "survey.json"
    argv = ["survey-nim", "--seeds", "0:200", "--epochs", 60, "--out", out]
    proc = start(argv, tmp_path)
    code, _, err = interrupt_when(proc, out.exists, settle=0.0)
    assert code == 130, err
    [line] = stderr_lines(err)
    kept = len(json.loads(out.read_text())["seeds"])
    assert line == (f"flipnet survey-nim: interrupted after {kept} of 200 seeds; {out} holds them; "
                    f"resume with --resume")
    assert 0 < kept < 200
    resumed = run([*argv, "--resume", "--json"], tmp_path)
    straight = run(["survey-nim", "--seeds", "0:200", "--epochs", 60, "--json"], tmp_path)
    assert resumed.returncode == straight.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == json.loads(straight.stdout)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_long_search_stops_at_once(tmp_path, workers):
    """Interrupted once its progress line shows the search under way (a fixed delay was
    not enough on a loaded machine: the signal came while it still loaded its modules);
    with two workers, both stop."""
    board = "/".join(["1" * 9] * 7)  # 7x9: hours of search
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        # a table of 1 GB, not the machine's half: its mapping is not what this test stops
        proc = start(["value", "flip", board, "--no-moves", "--workers", workers], tmp_path, stderr=err,
                     env=environment(FLIPNET_PROGRESS="1", FLIPNET_MEMORY_LIMIT="2G"))
        code, out, _ = interrupt_when(proc, lambda: "search:" in log.read_text(), settle=0.0)  # its bar, not the table's
    assert code == 130 and out == ""
    lines = stderr_lines(log.read_text())
    assert not any("Traceback" in line for line in lines), lines
    line = lines[-1]
    assert re.fullmatch(r"flipnet value: interrupted after [\d,]+ positions? searched", line), line


def test_a_timeout_holds_while_the_table_is_mapped(tmp_path):
    """7x9 maps a table of gigabytes before its search, which can take tens of seconds where
    the memory is slow to come: `--timeout 1` holds through it, in a fresh process whose
    solver is loaded inside the question, and names the limit as given."""
    board = "/".join(["1" * 9] * 7)
    begun = time.perf_counter()
    done = run(["value", "flip", board, "--no-moves", "--timeout", "1"], tmp_path)
    took = time.perf_counter() - begun
    assert done.returncode == 2 and stderr_lines(done.stderr)[-1].startswith(
        "flipnet value: error: no answer within --timeout 1 s ("), done.stderr
    assert took < 1 + 6, took  # the limit, and the command's start (its imports, Numba's cache)


@pytest.mark.parametrize("program, after", [(FLIPNET, 0.2), (FLIPNET, 0.3), (FLIPNET, 0.5),
                                            (SCRIPT, 0.2), (SCRIPT, 0.3)],
                         ids=["module-0.2", "module-0.3", "module-0.5", "script-0.2", "script-0.3"])
def test_ctrl_c_while_python_imports_is_one_line_too(tmp_path, program, after):
    """A SIGINT in the first moments (imports, compilation) ends with one line and 130 as
    well; a Ctrl-C inside scipy's import (under pytensor's, ~0.3 s in) used to end the
    process by SIGINT instead (signals.CtrlC), and the installed script, which had no
    handler until main() ran, printed a traceback. The run has data and a long way to go,
    so the signal cannot land after it ended. (Before about 0.1 s Python itself is
    starting, and a Ctrl-C there is Python's traceback, whatever the program.) A Ctrl-C
    whose exception was lost on the way is answered before the first epoch, not after it.
    `after` counts the CPU seconds of the command's program (cli_cases.program_cpu_seconds):
    on a loaded machine 0.2 s of wall time can still be Python's start."""
    data = tmp_path / "tiny.h5"
    write_tiny_dataset(data)
    proc = start(["train", "conv1d", "--data", data, "--bucket", 0, "--epochs", 100000,
                  "--eval-batch", 0, "--results-dir", tmp_path / "r"], tmp_path, program=program)
    code, _, err = interrupt_when(proc, lambda: program_cpu_seconds(proc) >= after, settle=0)
    assert code == 130, err
    assert len(stderr_lines(err)) == 1, err
    [line] = stderr_lines(err)
    assert line in ("flipnet train: interrupted", "flipnet: interrupted",
                    "flipnet train: interrupted before the first epoch ended; nothing was saved"), line


def test_sigterm_stops_an_endgame_build_like_ctrl_c(tmp_path):
    """`timeout` and `kill` send SIGTERM: the build stops at its next safe point, says so
    in one line, exits 143 (128 + 15), and leaves no temporary file behind."""
    import signal

    cache = tmp_path / "cache"
    cache.mkdir()
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        proc = start(["endgame", "--dir", cache], tmp_path, stderr=err)
        deadline = time.monotonic() + 120
        while not any(p.name.endswith(".tmp") for p in cache.iterdir()):  # writing has begun
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 143, log.read_text()
    assert stderr_lines(log.read_text()) == ["flipnet endgame: interrupted"]
    assert list(cache.iterdir()) == []


def test_sigterm_while_a_training_graph_compiles_stops_at_once(tmp_path):
    """Numba compiles the epoch's graph before the epoch loop (tens of seconds in an empty
    cache, here a cache of the test's own), where a stop is answered at once rather than
    after the first minibatches."""
    import signal

    write_tiny_dataset(tmp_path / "tiny.h5")
    env = environment(PYTENSOR_FLAGS=f"base_compiledir={tmp_path / 'compiled'}")
    proc = start(["train", "conv1d", "--data", tmp_path / "tiny.h5", "--bucket", 0, "--batch", 10, "--eval-batch", 0,
                  "--epochs", 1, "--results-dir", tmp_path / "r"], tmp_path, env=env)
    time.sleep(6)  # imports and the data read done: the compile is under way (it takes tens of seconds)
    assert proc.poll() is None
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert time.monotonic() - sent < 3, err
    assert proc.returncode == 143 and stderr_lines(err) == ["flipnet train: interrupted"], err
    assert not (tmp_path / "r").exists() or not list((tmp_path / "r").iterdir())  # no epoch: nothing kept
