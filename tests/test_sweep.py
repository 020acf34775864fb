"""`flipnet sweep`: a recipe's seeds as tasks on Dask distributed, through the real command.

The cluster test starts a scheduler and two workers as a user would (`dask scheduler`,
`dask worker --nworkers 2`, separate processes on 127.0.0.1), kills one worker while it trains, and
compares every file the sweep wrote with the runs of `flipnet train` one seed at a time.
"""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from cli_cases import dask_cluster, wait_for
from conftest import write_tiny_dataset

from flipnet.base.errors import BadInput
from flipnet.nn.training.sweep import same_but_the_clock, seed_list

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

# a run of a few seconds: long enough to be killed in the middle, short enough to run here; the
# settings of test_interrupts.py's runs, so that one compile of the graph serves both
TRAINING = ["--data", "tiny.h5", "--bucket", "0", "--epochs", "40", "--batch", "10", "--eval-batch", "0"]
# a command of about a second, with nothing to compile
ARENA = "arena nim --misere --against random-row --matches 20000 --agents optimal,random-row"


def test_seeds_are_read_as_ranges_and_lists():
    assert seed_list("1-5") == [1, 2, 3, 4, 5]
    assert seed_list("1,3,7") == [1, 3, 7]
    assert seed_list("1-3,9,2") == [1, 2, 3, 9]
    for text, message in (("1-x", "cannot read '1-x'"), ("5-1", "5-1 runs backwards"), ("", "cannot read ''"),
                          ("1-5000", "more than 1000 seeds")):
        with pytest.raises(BadInput, match=message):
            seed_list(text)


def test_the_clock_is_all_that_may_differ():
    a = {"test_error": 0.1, "seconds": 3.0, "curve": [{"epoch": 1, "seconds": 1.0}], "trained": {"date": "x"}}
    assert same_but_the_clock(a, {**a, "seconds": 9.0, "curve": [{"epoch": 1, "seconds": 2.0}]})
    assert not same_but_the_clock(a, {**a, "test_error": 0.2})


def flipnet(args, cwd, **kwargs):
    env = {**os.environ, "FLIPNET_PROGRESS": "0", **kwargs.pop("env", {})}
    return subprocess.run([sys.executable, "-m", "flipnet", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, **kwargs)


def same_files(left, right, names):
    """Every run's weights bit for bit, its results but for the clock."""
    for name in names:
        with np.load(left / f"{name}.npz") as a, np.load(right / f"{name}.npz") as b:
            assert sorted(a.files) == sorted(b.files)
            for key in a.files:
                if key != "meta":
                    assert a[key].tobytes() == b[key].tobytes(), (name, key)
        assert same_but_the_clock(json.loads((left / f"{name}.json").read_text()),
                                  json.loads((right / f"{name}.json").read_text())), name


def trainers(parent_pid, command="train"):
    """The `flipnet train` (or `command`) processes below a process."""
    try:
        children = psutil.Process(parent_pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    found = []
    for child in children:
        try:
            if command in child.cmdline()[3:4]:  # python -m flipnet COMMAND ...
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


@pytest.fixture(scope="module")
def sequential(tmp_path_factory):
    """Seeds 1 and 2 trained one at a time by `flipnet train`, as the sweep names them."""
    place = tmp_path_factory.mktemp("sequential")
    write_tiny_dataset(place / "tiny.h5")
    for seed in (1, 2):
        done = flipnet(["train", "conv1d", *TRAINING, "--seed", seed, "--out", f"conv1d-seed{seed}"], place)
        assert done.returncode == 0, done.stderr
    return place / "results"


@pytest.mark.slow
def test_a_sweep_on_a_cluster_survives_a_killed_worker_and_writes_the_sequential_files(tmp_path, sequential):
    write_tiny_dataset(tmp_path / "tiny.h5")
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    with dask_cluster(tmp_path, env) as (address, workers, started):
        sweep = subprocess.Popen([sys.executable, "-m", "flipnet", "sweep", "conv1d", "--seeds", "1-2", *TRAINING,
                                  "--scheduler", address], cwd=tmp_path, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env={**os.environ, "FLIPNET_PROGRESS": "0"})
        started.append(sweep)
        # the first worker seen training is killed (its nanny starts a fresh one), with its task
        victims = wait_for(lambda: trainers(workers.pid), 120, "task under way")
        victims[0].parent().kill()  # the worker process whose task started the run, not its nanny
        # the run ends with its worker (FLIPNET_DIE_WITH_PARENT): a clean stop, at the first safe point
        # after the compile under way, which can take over 10 s on a busy machine
        for victim in victims:
            wait_for(lambda: not victim.is_running() or victim.status() == psutil.STATUS_ZOMBIE, 30,
                     "end of the killed worker's run")
        out, err = sweep.communicate(timeout=300)
        assert sweep.returncode == 0, err
        assert "2 of 2 runs done" in out
        same_files(tmp_path / "results", sequential, ["conv1d-seed1", "conv1d-seed2"])
        assert sorted(p.name for p in (tmp_path / "results").iterdir()) == \
            ["conv1d-seed1.json", "conv1d-seed1.npz", "conv1d-seed2.json", "conv1d-seed2.npz"]


@pytest.mark.slow
def test_a_sweep_writes_into_an_absolute_folder_what_it_writes_here(tmp_path, sequential):
    """The task trains in a folder of its own; this process writes its files into the
    folder named, wherever it is: the same files as `flipnet train`'s."""
    write_tiny_dataset(tmp_path / "tiny.h5")
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    done = subprocess.run([sys.executable, "-m", "flipnet", "sweep", "conv1d", "--seeds", "1", *TRAINING, "--jobs", "1",
                           "--results-dir", str(elsewhere)], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "FLIPNET_PROGRESS": "0"}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"conv1d-seed1: wrote {elsewhere}/conv1d-seed1.json" in done.stdout
    same_files(elsewhere, sequential, ["conv1d-seed1"])
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_a_failed_run_is_one_line_a_ctrl_c_keeps_what_is_done_and_a_rerun_does_the_rest(tmp_path):
    """Through --run: any flipnet command over seeds, each run's --out file brought back."""
    argv = [sys.executable, "-m", "flipnet", "sweep", "--seeds", "1-2", "--jobs", "1",
            "--run", f"{ARENA} --seed {{seed}} --out results/arena-seed{{seed}}.json"]
    env = {**os.environ, "FLIPNET_PROGRESS": "0"}
    # a run that dies (killed under its task) is reported by its name; the other one finishes
    sweep = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    first = wait_for(lambda: trainers(sweep.pid, "arena"), 120, "task under way")[0]
    first.kill()
    out, err = sweep.communicate(timeout=300)
    assert sweep.returncode == 1, err
    failed = [line for line in err.splitlines() if line.startswith("flipnet sweep: arena-seed")]
    assert len(failed) == 1 and "ended with status -9" in failed[0], err
    assert "Traceback" not in err and "1 of 2 runs done, 1 failed" in out
    lost = 1 if "arena-seed1:" in failed[0] else 2
    kept = 3 - lost
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [f"arena-seed{kept}.json"]

    # Ctrl-C while the missing run goes on: exit 130, no run left going, nothing half-written
    sweep = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    runs = wait_for(lambda: trainers(sweep.pid, "arena"), 120, "task under way")
    sweep.send_signal(signal.SIGINT)
    out, err = sweep.communicate(timeout=60)
    assert sweep.returncode == 130, err
    assert err == "flipnet sweep: interrupted: 0 of 1 tasks done and kept, the rest cancelled\n"
    assert f"arena-seed{kept}: results/arena-seed{kept}.json exists, kept" in out
    for run in runs:
        wait_for(lambda: not run.is_running() or run.status() == psutil.STATUS_ZOMBIE, 20, "end of the run")
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [f"arena-seed{kept}.json"]

    # the same command again runs only the missing seed: then every file is the command's own
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"arena-seed{lost}: wrote results/arena-seed{lost}.json" in done.stdout
    alone = flipnet([*ARENA.split(), "--seed", lost, "--out", "alone.json"], tmp_path)
    assert alone.returncode == 0, alone.stderr
    assert same_but_the_clock(json.loads((tmp_path / "results" / f"arena-seed{lost}.json").read_text()),
                              json.loads((tmp_path / "alone.json").read_text()))


@pytest.mark.slow
def test_a_sweep_without_dask_or_without_a_scheduler_says_so_in_one_line(tmp_path):
    """(What a sweep is given is checked in test_bad_input.py's corpus.)"""
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "distributed.py").write_text("raise ImportError('no distributed here')\n")
    done = flipnet(["sweep", "conv1d", "--seeds", "1-2"], tmp_path,
                   env={"PYTHONPATH": f"{hidden}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert done.returncode == 2
    assert done.stderr == 'flipnet sweep: error: this needs Dask distributed, an optional extra: ' \
                          'pip install "flipnet[distributed]"\n'
    start = time.monotonic()
    done = flipnet(["sweep", "conv1d", "--seeds", "1", "--scheduler", "tcp://127.0.0.1:9"], tmp_path,
                   env={"FLIPNET_CONNECT_SECONDS": "2"})
    assert done.returncode == 2 and time.monotonic() - start < 30
    assert done.stderr.startswith("flipnet sweep: error: no Dask scheduler answers at tcp://127.0.0.1:9 within 2 s")
    assert len(done.stderr.splitlines()) == 1
