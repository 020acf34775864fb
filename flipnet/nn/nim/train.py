"""Training runs of the NIM perceptron: `make train-nim` (one network, resumable) and
`flipnet survey-nim` (one network per initial-weight seed, many at once).

Both train in slices of epochs, one compiled call each, so Ctrl-C is answered between
calls (the state is whole there) and a slice of work is saved before stopping:
train-nim keeps a checkpoint beside its results file, survey-nim the seeds it finished
(with --out). Slicing does not change the arithmetic: the same per-sample updates run
in the same order.
"""

import time
from pathlib import Path

import numpy as np

from flipnet.base import signals
from flipnet.base.checks import check_range
from flipnet.base.errors import DamagedFile, FlipnetError, Interrupted
from flipnet.base.fields import Fields
from flipnet.base.files import read_json, write_json
from flipnet.base.provenance import provenance
from flipnet.base.progress import bar
from flipnet.nn.core.store import load_npz, save_npz
from flipnet.nn.nim.mlp import DECODE_THRESHOLD, SEED, NimMLP, build_database, compare, train_weights

SLICE_EPOCHS = 250  # epochs between checkpoints of train-nim (0.06 s)
SURVEY_SLICE = 50  # networks per compiled call of survey-nim
MAX_SURVEY = 100_000  # seeds per survey: about ten hours here


def checkpoint_path(results_path):
    return Path(results_path).with_suffix(".ckpt.npz")


def train_run(epochs, seed=SEED, database_seed=0, checkpoint=None, resume=False):
    """What `make train-nim` does: build the database, train (the first, compiling call kept
    out of the timing), compare with the DP. Returns (mlp, rows, report). With
    `checkpoint`, the weights are saved after every slice of epochs, and `resume`
    continues from there."""
    start = time.perf_counter()
    database = build_database(seed=database_seed)
    mlp, done = NimMLP(seed=seed), 0
    settings = {"seed": seed, "database_seed": database_seed}
    if resume and checkpoint and Path(checkpoint).exists():  # a bad checkpoint is told before the compile
        done = _restore(mlp, checkpoint, settings, epochs)
    NimMLP(seed=seed).train(database, 1)  # Numba compiles on the first call
    train_seconds = 0.0

    def stop_if_asked():
        if signals.requested():
            kept = f"the checkpoint holds epoch {done}; resume with --resume" if checkpoint and done \
                else "nothing was written"
            raise Interrupted(f"interrupted after epoch {done} of {epochs}; {kept}")

    with bar(epochs, "train-nim", unit="epoch", initial=done) as progress, signals.deferred():
        while done < epochs:
            stop_if_asked()  # before any work too: a Ctrl-C that came before the block began
            tick = time.perf_counter()
            step = min(SLICE_EPOCHS, epochs - done)
            mlp.train(database, step)
            done += step
            train_seconds += time.perf_counter() - tick
            if checkpoint:
                save_npz(checkpoint, {"w": mlp.w, "wo": mlp.wo}, {**settings, "epochs_done": done})
            progress.update(step)
            stop_if_asked()
    rows, diff_winning, diff_losing = compare(mlp, database)
    _, half_winning, half_losing = compare(mlp, database, threshold=0.5)
    report = {"epochs": epochs, "seed": seed, "database_seed": database_seed, "eta": mlp.eta,
              "threshold": DECODE_THRESHOLD, "diff_winning": diff_winning,
              "diff_losing": diff_losing, "diff_winning_at_0.5": half_winning,
              "diff_losing_at_0.5": half_losing,
              "moves": [{"n": n, "dp": k, "network": net} for n, k, net in rows],
              "train_seconds": train_seconds, "seconds": time.perf_counter() - start, "trained": provenance()}
    return mlp, rows, report


def _restore(mlp, checkpoint, settings, epochs):
    arrays, meta = load_npz(checkpoint, "checkpoint")
    fields = Fields(meta, checkpoint)
    for key, value in settings.items():
        if meta.get(key) != value:
            raise FlipnetError(f"{checkpoint} was made with {key}={meta.get(key)!r} (now {value!r}); "
                               f"drop --resume to start over")
    done = fields.take("epochs_done", int)
    if done < 0:
        raise fields.fail("epochs_done", f"is {done}")
    if done > epochs:
        raise FlipnetError(f"{checkpoint} holds {done} epochs, more than --epochs {epochs}")
    for name, like in (("w", mlp.w), ("wo", mlp.wo)):
        if name not in arrays or arrays[name].shape != like.shape:
            raise DamagedFile(f"{checkpoint}: array {name} is missing or not of shape {like.shape}")
    mlp.w, mlp.wo = arrays["w"], arrays["wo"]
    return done


def train_many(seeds, database, epochs):
    """One network per initial-weight seed, all trained at once (one scan over a stack of
    networks, each updated exactly as `NimMLP.train` would): a list of NimMLP."""
    nets = [NimMLP(seed=seed) for seed in seeds]
    w, wo = train_weights(np.stack([m.w for m in nets]), np.stack([m.wo for m in nets]), database, epochs)
    for mlp, net_w, net_wo in zip(nets, w, wo):
        mlp.w, mlp.wo = net_w, net_wo
    return nets


def survey(seeds, epochs, database_seed=0, after_slice=None):
    """How often the original configuration reaches the DP's moves: train one network per
    seed and compare each with the DP. [(seed, diff_winning, diff_losing)]; `after_slice`
    is called with each slice's results."""
    database = build_database(seed=database_seed)
    found = []
    for i in range(0, len(seeds), SURVEY_SLICE):
        part = seeds[i:i + SURVEY_SLICE]
        results = [(seed, *compare(mlp, database)[1:])
                   for seed, mlp in zip(part, train_many(part, database, epochs))]
        found += results
        if after_slice:
            after_slice(results)
    return found


def parse_seed_range(text):
    """'FROM:TO' -> the seeds FROM..TO-1, checked before anything is allocated."""
    low, sep, high = text.partition(":")
    try:
        low, high = int(low), int(high)
    except ValueError:
        raise FlipnetError(f"--seeds must be FROM:TO (two integers), got {text!r}") from None
    if not sep or not 0 <= low < high:
        raise FlipnetError(f"--seeds must be FROM:TO with 0 <= FROM < TO, got {text!r}")
    if high - low > MAX_SURVEY:
        raise FlipnetError(f"--seeds {text} is {high - low} seeds; a survey takes at most {MAX_SURVEY}")
    if high > 2 ** 63:
        raise FlipnetError(f"--seeds must stay below 2^63, got {text!r}")
    return range(low, high)


def survey_to_file(seeds, epochs, database_seed=0, out=None, resume=False):
    """`survey` with a progress bar, Ctrl-C between slices, and (with `out`) the results
    kept seed by seed in a JSON file that `resume` continues."""
    settings = {"epochs": epochs, "database_seed": database_seed}
    done = {}
    if out and resume and Path(out).exists():
        done = _surveyed(out, settings)
    todo = [s for s in seeds if s not in done]

    def keep(results):
        for seed, win, lose in results:
            done[seed] = (seed, win, lose)
        progress.update(len(results))
        if out:
            write_json(out, {**settings, "seeds": [{"seed": s, "diff_winning": w, "diff_losing": l}
                                                   for s, w, l in sorted(done.values())]})
        stop_if_asked()

    def stop_if_asked():
        if signals.requested():
            kept = (f"{out} holds them; resume with --resume" if done else "nothing was written") if out \
                else "pass --out FILE to keep them"
            raise Interrupted(f"interrupted after {len(done)} of {len(seeds)} seeds; {kept}")

    if out:
        from flipnet.base.files import check_writable

        check_writable(out)
    with bar(len(seeds), "survey-nim", unit="net", initial=len(seeds) - len(todo)) as progress, \
            signals.deferred():
        stop_if_asked()  # a Ctrl-C that came before the block began
        survey(todo, epochs, database_seed, after_slice=keep)
    return [done[s] for s in seeds]


def _surveyed(path, settings):
    fields = Fields(read_json(path, "survey file"), path)
    for key, value in settings.items():
        found = fields.take(key, type(value))
        if found != value:
            raise FlipnetError(f"{path} was made with {key}={found!r} (now {value!r}); drop --resume to start over")
    done = {}
    for i, entry in enumerate(fields.take("seeds", list)):
        seed = Fields(entry, path, f"seeds.{i}.")
        s = seed.take("seed", int)
        done[s] = (s, seed.take("diff_winning", list), seed.take("diff_losing", list))
    return done


MAX_EPOCHS = 1_000_000


def check_epochs(epochs):
    return check_range("--epochs", epochs, 1, MAX_EPOCHS)


def run_lines(rows, report):
    """What `flipnet train-nim` prints: each pile's move by the table and by the network,
    then the piles it misses."""
    lines = ["n: DP move, (network move)"]
    for i in range(0, len(rows), 4):
        lines.append("   ".join(f"{n:3d}: {k:2d}, ({net:2d})" for n, k, net in rows[i:i + 4]))
    lines += [f"diff on winning piles ({len(report['diff_winning'])}): {report['diff_winning']}",
              f"diff on losing piles ({len(report['diff_losing'])}, any legal move is as good there): "
              f"{report['diff_losing']}",
              f"with a 0.5 threshold instead of 0.2: {len(report['diff_winning_at_0.5'])} winning, "
              f"{len(report['diff_losing_at_0.5'])} losing"]
    return lines


def survey_lines(found):
    """What `flipnet survey-nim` prints: each seed's misses, then how they spread."""
    from collections import Counter

    lines = [f"seed {seed:5d}: winning piles missed {len(win)} {win}, losing piles {lose}"
             for seed, win, lose in found]
    counts = Counter(len(win) for _, win, _ in found)
    lines.append("seeds by winning piles missed: " + ", ".join(f"{k} missed: {counts[k]}" for k in sorted(counts)))
    perfect = [seed for seed, win, _ in found if not win]
    lines.append(f"seeds with no winning pile missed: {perfect or 'none'} ({len(perfect)} of {len(found)})")
    return lines
