"""Sampled datasets of boards too large for a table: random positions with exact values.

The sampling protocol, stored with the file: for each density d, `per_density` positions
are drawn with every cell full independently with probability d (seeded), repeats
dropped (a later draw of a position already drawn is discarded), and every position is
valued by the Cram solver. A position the solver cannot finish within `budget` searched
positions is dropped too, and counted in the file's attributes (so a biased sample says
so); with the default budget the registered datasets drop none (the hardest, a 7x7
position at density 0.6 with a component of 42 cells, needs 20.3 million from an empty
table, a few minutes). The positions of a density are dealt in turn to two lanes, each
valued from an empty table (`CramSolver.values_of_sample`), so the file is the same, byte
for byte, whether one worker values the lanes in turn or two value them at once, and
whatever the solver was asked before.

Layout of a file:
    /states     uint64[n]    position, bit r*cols + c for cell (r, c)
    /nim_value  uint8[n]
    /density    float32[n]   the density it was drawn at
    attrs: format, game, rows, cols, rule, densities, per_density, seed, budget,
           dropped_unsolved (per density), protocol, flipnet_version

Valuing a sample takes minutes per density, so each density valued is kept at once
beside the file (`NAME.partial.npz`, with the protocol it was drawn under). A build
stopped by Ctrl-C or a crash starts again after the last density it finished; the
positions are drawn again from the seed (cheap, and the same), only their solving is
skipped. The partial file goes once the sample is written.
"""

import dataclasses
import json
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np

from flipnet import __version__
from flipnet.base.errors import FlipnetError, Interrupted
from flipnet.base.files import atomic_path
from flipnet.datasets.hdf5 import write_hdf5
from flipnet.solve.parts import WORD_CELLS

FORMAT = "flipnet-sample-1"
PROTOCOL = ("per density d: positions with every cell full independently with probability d, "
            "seeded; repeats dropped; valued exactly by the Cram solver, the positions dealt in turn "
            "to two lanes, each from an empty table; positions over the search budget (positions "
            "searched in one, without the endgame database) dropped and counted")


@dataclass(frozen=True)
class SampledDataset:
    name: str
    rows: int
    cols: int
    densities: tuple
    per_density: int
    description: str
    seed: int = 2016
    budget: int = 40_000_000  # searched positions per position (a few minutes here)

    @property
    def file(self):
        return f"{self.name}.h5"

    def path(self, data_dir="data"):
        return Path(data_dir) / self.file

    def progress_total(self):
        return self.per_density * len(self.densities)

    def seeded(self, seed=None):
        """The same protocol drawn with another seed (None: its own)."""
        return self if seed is None else dataclasses.replace(self, seed=seed)

    def build(self, path, seed=None, progress=None, workers=1, scheduler=None, engine=None):
        """Draw, value and write the sample (with another seed if given), its positions
        valued by `engine`'s search (None: an engine of default settings) on `workers`
        threads, at most two at once, or as tasks on the Dask scheduler at `scheduler` (the
        same file every way): (values, seconds)."""
        from flipnet.solve.engine import Engine

        valuer = Engine() if engine is None else engine
        valuer.use_workers(workers)
        sample, seconds = make_sample(self.seeded(seed), path, valuer, progress, scheduler)
        return sample.values, seconds


@dataclass
class Sample:
    states: np.ndarray
    values: np.ndarray
    density: np.ndarray
    attrs: dict

    def at(self, density):
        """(states, values) drawn at one density."""
        keep = np.isclose(self.density, density)
        return self.states[keep], self.values[keep]


def draw(spec, density, rng):
    """`per_density` distinct positions at `density` (each cell full with that probability)."""
    cells = spec.rows * spec.cols
    weights = np.uint64(1) << np.arange(cells, dtype=np.uint64)
    full = rng.random((spec.per_density, cells)) < density
    states = (full * weights).sum(axis=1, dtype=np.uint64)
    _, first = np.unique(states, return_index=True)
    return states[np.sort(first)]


def make_sample(spec, path, engine, progress=None, scheduler=None):
    """Draw, value and write the sampled dataset; (sample, seconds of solving).
    `progress(n)` hears of every n more positions valued (or found valued before). With
    `scheduler` (a Dask scheduler's address), each density's lanes are valued as tasks
    there (`_value_on_cluster`): the same file, byte for byte."""
    rng = np.random.default_rng(spec.seed)
    kept = valued_before(spec, path)
    drawn = {d: draw(spec, d, rng) for d in spec.densities}  # all drawn, so the generator goes on the same
    for d in list(kept):
        if kept[d][0].shape != drawn[d].shape:  # not this draw's: valued again
            del kept[d]
    if progress and kept:
        progress(sum(drawn[d].size for d in kept))
    todo = [d for d in spec.densities if d not in kept]
    try:
        if scheduler is not None and todo:
            _value_on_cluster(spec, path, drawn, todo, kept, engine, progress, scheduler)
        for d in todo:
            if d not in kept:
                kept[d] = _value(spec, drawn[d], engine, progress)
                _keep_partial(spec, path, kept)
    except Interrupted as exc:
        valued = [d for d in spec.densities if d in kept]
        where = (f"density {', '.join(f'{k:g}' for k in valued)} valued and kept in {partial_path(path)}"
                 if valued else "no density was valued yet")
        stopped = next(d for d in spec.densities if d not in kept)
        raise Interrupted(f"{exc} at density {stopped:g}; {where}: the same command goes on from there") from None
    states, values, density, dropped, seconds = [], [], [], [], []
    for d in spec.densities:
        valued, lost, took = kept[d]
        keep = valued >= 0
        states.append(drawn[d][keep])
        values.append(valued[keep].astype(np.uint8))
        density.append(np.full(int(keep.sum()), d, np.float32))
        dropped.append(lost)
        seconds.append(took)
    sample = Sample(np.concatenate(states), np.concatenate(values), np.concatenate(density), {
        "format": FORMAT, "game": "flip", "rows": spec.rows, "cols": spec.cols, "rule": "normal",
        "densities": list(spec.densities), "per_density": spec.per_density, "seed": spec.seed,
        "budget": spec.budget, "dropped_unsolved": dropped, "protocol": PROTOCOL,
        "flipnet_version": __version__})
    write(path, sample)
    partial_path(path).unlink(missing_ok=True)
    return sample, sum(seconds)


def _value_on_cluster(spec, path, drawn, todo, kept, engine, progress, scheduler):
    """Value the densities `todo` as tasks on the Dask scheduler at `scheduler`: each
    density's lanes (`CramSolver.values_of_sample`) a task each, valued as a lane is here
    (an empty table of the engine's table size, no database), so the values, and the positions
    over the budget, are the ones this machine finds. A density is kept (`_keep_partial`)
    as soon as its lanes are in."""
    from flipnet.base.cluster import connected, run_tasks
    from flipnet.solve.engine import SAMPLE_LANES, check_nimbers, value_lane

    lanes, settings = SAMPLE_LANES, engine.lane_settings()
    tasks = [((d, lane), (drawn[d][lane::lanes], spec.rows, spec.cols, spec.budget, settings))
             for d in todo for lane in range(lanes)]
    got = {}

    def done(key, result):
        d, lane = key
        got.setdefault(d, {})[lane] = result
        if progress:
            progress(result[0].size)
        if len(got[d]) == lanes:
            valued = np.zeros(drawn[d].size, np.int64)
            for k, (values, _) in got[d].items():
                valued[k::lanes] = values
            check_nimbers(valued, np.bitwise_count(drawn[d]), allow_unknown=True)
            kept[d] = (valued, int((valued < 0).sum()), max(took for _, took in got[d].values()))
            _keep_partial(spec, path, kept)

    with connected(scheduler) as client:
        failed = run_tasks(client, value_lane, tasks, "lane", done)
    if failed:
        (d, lane), error = next(iter(failed.items()))
        raise FlipnetError(f"density {d:g}, lane {lane}: {error} ({len(failed)} of {len(tasks)} lanes failed; "
                           f"the densities valued are kept)")


def _value(spec, drawn, engine, progress):
    """(values, -1 where over the budget; how many were; seconds) of one density's draw."""
    told = [0]

    def tell(done):
        if progress and done > told[0]:
            progress(done - told[0])
            told[0] = done

    start = time.perf_counter()
    valued = engine.values_of_sample(drawn, spec.rows, spec.cols, spec.budget, tell)
    return valued, int((valued < 0).sum()), time.perf_counter() - start


def resuming_note(spec, path, seed=None):
    """A line saying which densities an earlier build of `path` left valued, or None."""
    kept = valued_before(spec.seeded(seed), path)
    if not kept:
        return None
    return (f"going on with {path}: density {', '.join(f'{d:g}' for d in kept)} valued before "
            f"({partial_path(path)})")


def partial_path(path):
    """Where a build of `path` keeps the densities it has valued so far."""
    path = Path(path)
    return path.with_name(f"{path.stem}.partial.npz")


def _protocol_key(spec):
    """What the kept densities must have been drawn and valued under to be reused."""
    from flipnet.solve.engine import SAMPLE_LANES

    return json.dumps([spec.rows, spec.cols, list(spec.densities), spec.per_density, spec.seed, spec.budget,
                       SAMPLE_LANES])


def valued_before(spec, path):
    """{density: (values, dropped, seconds)} kept by an earlier build of `path` under the
    same protocol; {} if there is none (another protocol's or an unreadable file is
    ignored, and replaced once a density is valued)."""
    part = partial_path(path)
    if not part.exists():
        return {}
    try:
        with np.load(part) as f:
            if str(f["protocol"]) != _protocol_key(spec):
                return {}
            return {float(d): (f[f"values{i}"], int(lost), float(took))
                    for i, (d, lost, took) in enumerate(zip(f["densities"], f["dropped"], f["seconds"]))}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return {}


def _keep_partial(spec, path, kept):
    """Write the densities valued so far beside `path` (under a temporary name, renamed)."""
    order = list(kept)
    arrays = {f"values{i}": kept[d][0] for i, d in enumerate(order)}
    with atomic_path(partial_path(path)) as tmp, open(tmp, "wb") as f:
        np.savez(f, protocol=np.array(_protocol_key(spec)), densities=np.array(order, np.float64),
                 dropped=np.array([kept[d][1] for d in order], np.int64),
                 seconds=np.array([kept[d][2] for d in order]), **arrays)


def write(path, sample):
    def fill(f):
        f.create_dataset("states", data=sample.states, dtype=np.uint64)
        f.create_dataset("nim_value", data=sample.values, dtype=np.uint8)
        f.create_dataset("density", data=sample.density, dtype=np.float32)
        f.attrs.update(sample.attrs)

    write_hdf5(path, fill)


def read(path):
    """The sample in a file written by `build`; a one-line FlipnetError for anything else."""
    path = Path(path)
    if not path.exists():
        raise FlipnetError(f"{path} not found: run `flipnet data --only {path.stem}` to create it")
    try:
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") != FORMAT:
                raise FlipnetError(f"{path} is not a flipnet sampled dataset (format {FORMAT!r})")
            states, values, density = f["states"][()], f["nim_value"][()], f["density"][()]
            attrs = dict(f.attrs)
    except (OSError, KeyError) as exc:
        raise FlipnetError(f"{path} is not a readable sampled dataset ({type(exc).__name__})") from None
    if not states.shape == values.shape == density.shape or states.ndim != 1:
        raise FlipnetError(f"{path}: states, nim_value and density differ in length")
    cells = int(attrs["rows"]) * int(attrs["cols"])
    if cells < WORD_CELLS and states.size and int(states.max()) >> cells:
        raise FlipnetError(f"{path}: a state has a cell outside the {attrs['rows']}x{attrs['cols']} board")
    return Sample(states, values, density, attrs)
