"""Recipes, or any flipnet command, over several seeds, each run a task on Dask distributed
(`base/cluster.py`).

A recipe's task runs the very command `flipnet train RECIPE --seed S --out NAME-seedS`
with the sweep's training flags (a `--run` command, itself with the seed put in), in a
directory of its own on whichever worker takes it, and hands back the files it wrote;
this process writes them, each atomically, where that command run here would have. So a sweep's files are a sequential run's: the same weights
bit for bit and the same results but for the clock's readings (`CLOCK_KEYS`), whether the
task ran here or on a cluster, and whether or not a worker died under it (the scheduler
runs it again elsewhere). A worker needs flipnet and the datasets the recipe reads
(`data_dir()`, or `--data`); files named by a relative path (`--data`, `--init`) are
sent to it with the task.

A run whose files exist is kept (a sweep stopped by Ctrl-C, run again, runs only what
is missing), unless `--overwrite`.
"""

import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from flipnet.base.checks import MAX_SEED
from flipnet.base.errors import BadInput, FlipnetError
from flipnet.base.files import check_writable

# Keys of a run's results that read the clock (or the calendar): the only ones a rerun changes
CLOCK_KEYS = ("seconds", "train_seconds", "seconds_per_epoch", "date")
MAX_SEEDS = 1000
INPUT_SETTINGS = ("data", "init")  # settings that name a file the run reads
OUTPUT_FLAGS = ("--out", "--results", "--weights", "-o", "--output")  # a --run command's files
TASK_RESULTS = "results"  # a task's results folder, in its own directory, where the user's lies elsewhere


def seed_list(text):
    """The seeds of "1-5", "1,3,7" or "1-3,9", in order, each once; a one-line error naming
    the bad part otherwise."""
    seeds = []
    for part in str(text).split(","):
        found = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not found:
            raise BadInput(f"--seeds: cannot read {part.strip()!r} (give seeds like 1-5, 1,3,7 or 1-3,9)")
        low, high = int(found.group(1)), int(found.group(2) or found.group(1))
        if low > high:
            raise BadInput(f"--seeds: {part.strip()} runs backwards")
        if high > MAX_SEED:
            raise BadInput(f"--seeds: seed {high} is past the largest, {MAX_SEED}")
        if high - low + 1 + len(seeds) > MAX_SEEDS:
            raise BadInput(f"--seeds: more than {MAX_SEEDS} seeds")
        seeds += [s for s in range(low, high + 1) if s not in seeds]
    return seeds


def flags_of(settings):
    """The command-line flags that give `settings` (the sweep's training settings)."""
    from flipnet.nn.training.config import FIELDS, _flag

    flags = []
    for name, value in settings.items():
        if FIELDS[name].metadata["flag"] is False:  # the recipe's own (model, recipe)
            continue
        if FIELDS[name].type in (bool, "bool"):
            flags.append(_flag(name) if value else "--no-" + _flag(name)[2:])
        else:
            flags += [_flag(name), repr(value) if isinstance(value, float) else str(value)]
    return flags


@dataclass
class Run:
    """One task of a sweep: the `flipnet` command it runs (`argv`), the files it writes
    (`outputs`, relative paths in the task's own folder), where this process writes each
    of them (`places`: the same paths, unless the user named a folder outside the one the
    sweep runs in), the files it reads that go with it (`inputs`, relative path: bytes)
    and the cores it takes."""
    name: str
    argv: list
    outputs: list
    inputs: dict = field(default_factory=dict)
    threads: int = 1
    places: list = None

    def __post_init__(self):
        if self.places is None:
            self.places = list(self.outputs)

    def done(self):
        return all(Path(path).is_file() for path in self.places)


def recipe_runs(recipe, settings, seeds):
    """A recipe's run of each seed: `flipnet train RECIPE --seed S --out NAME-seedS` with
    `settings` (a sweep's training flags), every setting checked here, before any task."""
    from flipnet.nn.training import recipes

    settings = {k: v for k, v in settings.items() if k != "recipe"}
    if "seed" in settings:
        raise BadInput("a sweep takes its seeds from --seeds, not --seed")
    base = settings.pop("name", None) or recipe
    results_dir = Path(settings.get("results_dir") or "results")
    if not _inside(results_dir):  # the task writes in its own folder; this process, there
        check_writable(results_dir)  # its parent there, before any task
        settings["results_dir"] = TASK_RESULTS
    inputs = _inputs(settings.get(name) for name in INPUT_SETTINGS)
    runs = []
    for seed in seeds:
        name = f"{base}-seed{seed}"
        config = recipes.config_for(recipe, **{**settings, "seed": seed, "name": name})
        outputs = [str(config.path(suffix)) for suffix in (".json", ".npz")]
        places = [str(results_dir / Path(path).name) for path in outputs]
        runs.append(Run(name, ["train", recipe, *flags_of(settings), "--seed", str(seed), "--out", name],
                        outputs, inputs, config.workers, places))
    return runs


def command_runs(template, seeds):
    """The run of each seed of a flipnet command given as text with {seed} in it (`--run`):
    its outputs are the files its output flags name (OUTPUT_FLAGS), each of them with {seed}."""
    if "{seed}" not in template:
        raise BadInput(f"--run {template!r}: put {{seed}} where each run's seed goes")
    try:
        words = shlex.split(template)
    except ValueError as exc:
        raise BadInput(f"--run {template!r}: {exc}") from None
    if words and words[0] == "flipnet":
        words = words[1:]
    if not words or words[0] in ("sweep", "train"):
        raise BadInput(f"--run {template!r}: give another flipnet command (flipnet sweep RECIPE runs recipes)")
    outputs = [words[i + 1] for i, word in enumerate(words[:-1]) if word in OUTPUT_FLAGS]
    for path in outputs:
        if not _inside(Path(path)):
            raise BadInput(f"--run's output {path}: a sweep's --run writes under the directory it runs in "
                           f"(a relative path), where each task's files come back")
        if "{seed}" not in path:
            raise BadInput(f"--run: output {path} has no {{seed}}: every run would write the same file")
    if not outputs:
        raise BadInput(f"--run {template!r}: name what each run writes ({', '.join(OUTPUT_FLAGS)})")
    runs = []
    for seed in seeds:
        argv = [word.replace("{seed}", str(seed)) for word in words]
        written = [path.replace("{seed}", str(seed)) for path in outputs]
        runs.append(Run(Path(written[0]).stem, argv, written))
    return runs


def _inside(path):
    """Whether a path lies under the directory the sweep runs in, as it does in a task's."""
    return not Path(path).is_absolute() and ".." not in Path(path).parts


def _inputs(paths):
    """{relative path: bytes} of the files named by a relative path."""
    inputs = {}
    for value in paths:
        if value and not Path(value).is_absolute():
            try:
                inputs[value] = Path(value).read_bytes()
            except OSError as exc:
                raise FlipnetError(f"cannot read {value}: {exc.strerror or exc}") from None
    return inputs


def run_sweeps(runs, scheduler=None, jobs=None, overwrite=False, log=print):
    """Every run not done (all with `overwrite`) as a task, all on one cluster: the
    scheduler at `scheduler`, else `jobs` local worker processes; each run's files
    written here as it ends. Returns {run name: one-line error} of the runs that failed."""
    from flipnet.base.cluster import command_task, connected, distributed, run_tasks
    from flipnet.base.files import atomic_path
    from flipnet.base.progress import bar

    distributed()  # installed, or one line saying how, before anything is written
    todo = []
    for run in runs:
        if not overwrite and run.done():
            log(f"{run.name}: {run.places[0]} exists, kept (--overwrite runs it again)")
            continue
        for path in run.places:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            check_writable(path)
        todo.append(run)
    if not todo:
        return {}
    places = {run.name: dict(zip(run.outputs, run.places)) for run in todo}

    def write(name, files):
        for path, data in files.items():
            with atomic_path(places[name][path]) as tmp:
                tmp.write_bytes(data)
        progress.write(f"{name}: wrote {', '.join(places[name][path] for path in files)}", file=sys.stdout)

    tasks = [(run.name, (run.argv, run.inputs, run.outputs)) for run in todo]
    with connected(scheduler, jobs, max(run.threads for run in todo)) as client, \
            bar(len(tasks), "sweep", unit="run") as progress:
        return run_tasks(client, command_task, tasks, "run", write, progress)


def same_but_the_clock(a, b):
    """Whether two results records are the same but for `CLOCK_KEYS`."""
    return _without_clock(a) == _without_clock(b)


def _without_clock(value):
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k not in CLOCK_KEYS}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value
