"""The training loop: shuffle, one compiled epoch, validate, keep the best, checkpoint.

A run is a recipe's settings (`nn/recipes.py`, `nn/config.py`) and writes, under
`results/`:
    <name>.json      metrics of the best-validation model (see `_results`)
    <name>.npz       its parameters (for `flipnet evaluate` and `flipnet predict`)
    <name>.ckpt.npz  a checkpoint after every epoch, for `--resume`
Ctrl-C is answered between compiled calls: the run stops with the checkpoint of its
last finished epoch intact, and `--resume` continues exactly where it would have.
"""

import contextlib
import dataclasses
import fcntl
import math
import os
import time

import numpy as np
import pytensor

from flipnet.base import signals
from flipnet.base.denormals import flushed
from flipnet.base.errors import FlipnetError, Interrupted
from flipnet.base.files import check_writable, ensure_dir, write_json
from flipnet.base.progress import bar
from flipnet.datasets import read_split
from flipnet.datasets.components import shape_split_errors
from flipnet.datasets.symmetry import Symmetries
from flipnet.nn import FLOAT, optim
from flipnet.nn.compile import Predictor, epoch_function, run_epoch
from flipnet.nn.config import SCHEDULE_NAMES, without_removed
from flipnet.nn.metrics import confusion, error_rate, evaluated, majority_error, per_class_error
from flipnet.nn.models import build, check_labels
from flipnet.nn.recipes import overrides, paper_protocol
from flipnet.nn.store import load_npz, save_model, save_npz


def _one_cycle(lr, done, total):
    """Linear warm-up from lr/10 over the first tenth of the epochs, then a cosine to ~0."""
    warm = max(1, total // 10)
    if done < warm:
        return lr * (0.1 + 0.9 * done / warm)
    return lr * (1 + np.cos(np.pi * (done - warm) / (total - warm))) / 2


# learning rate of the epoch after `done` of `total`, from the base rate `lr`
SCHEDULES = {
    "constant": lambda lr, done, total: lr,
    "cosine": lambda lr, done, total: lr * (1 + np.cos(np.pi * done / total)) / 2,
    "onecycle": _one_cycle,
}
assert tuple(SCHEDULES) == SCHEDULE_NAMES

# settings that may differ between a checkpoint and a resumed run
_RESUMABLE_CHANGES = {"epochs", "patience"}


def train(config, resume=False, overwrite=False, log=print):
    started = time.perf_counter()
    config.check()
    split = read_split(config.data, config.bucket)
    model = _build_for(config, split)
    with claimed(config, resume, overwrite), flushed(config.flush_denormals):
        model.fit(split.train[0])
        optimizer = optim.make(config.optimizer, model.dense_params, config.momentum, config.weight_decay,
                               config.clip_norm)
        symmetries = Symmetries(model.rows, model.cols) if config.augment != "none" or config.tta else None
        run = Run.fresh(config, model)
        if resume and config.path(".ckpt.npz").exists():
            run = Run.resume(config, model, optimizer)
            log(f"resuming {config.name} after epoch {run.epoch} of {config.epochs}")
        elif resume:
            log(f"no checkpoint at {config.path('.ckpt.npz')}: starting {config.name} from epoch 1")

        train_states, train_labels = split.train[0], split.train[1].astype(np.int64)
        if config.augment == "none":  # else the states change every epoch, and so their inputs
            train_states = model.prepare(train_states)
        n_batches = len(train_states) // config.batch
        if n_batches == 0:
            raise FlipnetError(f"--batch {config.batch} is larger than the {len(train_states)} training states")
        predict = Predictor(model, symmetries=symmetries if config.tta else None)
        valid_states, valid_labels = evaluated(split.valid, config.eval_batch)
        valid_inputs = None if config.tta else model.prepare(valid_states)  # prepared once

        def validate():
            predicted = predict(valid_states) if config.tta else predict.on_inputs(valid_inputs)
            return error_rate(predicted, valid_labels)

        def stop_if_asked():
            if signals.requested():
                raise Interrupted(run.interrupted_message())

        epoch_fn = epoch_function(model, optimizer) if run.epoch < config.epochs else None
        schedule = SCHEDULES[config.schedule]
        # --shuffle once: one order for the run, drawn from a generator seeded like the model's
        # initialisation (the reference run of `make train-1d` was made with exactly this order)
        fixed_order = np.random.default_rng(config.seed).permutation(len(train_states)) \
            if config.shuffle == "once" else None

        with bar(config.epochs, f"train {config.name}", unit="epoch", initial=run.epoch) as progress, \
                signals.deferred():
            try:
                while run.epoch < config.epochs and not run.patience_ran_out(config.patience):
                    stop_if_asked()  # before any work too: a Ctrl-C that came while compiling
                    order = fixed_order if config.shuffle == "once" else run.rng.permutation(len(train_states))
                    order = order[:n_batches * config.batch]
                    states = train_states[order]
                    if config.augment == "symmetry":
                        states = model.prepare(symmetries.random_images(states, run.rng))
                    lr = np.asarray(schedule(config.lr, run.epoch, config.epochs), dtype=FLOAT)
                    batches = states.reshape(n_batches, config.batch, *model.input_shape)
                    labels = train_labels[order].reshape(n_batches, -1)
                    tick, seconds, loss_sum, done = time.perf_counter(), 0.0, 0.0, 0
                    for stop in check_points(run.epoch, n_batches, config.validate_every):
                        part = slice(done, stop)
                        loss_sum += run_epoch(epoch_fn, batches[part], labels[part], lr,
                                              between_calls=stop_if_asked) * (stop - done)
                        seconds += time.perf_counter() - tick
                        if not math.isfinite(loss_sum):
                            raise FlipnetError(run.diverged_message(config))
                        valid_error = validate()
                        run.check(model, valid_error, stop / n_batches, config.improvement_threshold)
                        done, tick = stop, time.perf_counter()
                    loss = loss_sum / n_batches
                    run.record(loss, valid_error, seconds)
                    run.save(config, model, optimizer, time.perf_counter() - started)
                    progress.update()
                    progress.set_postfix(loss=f"{loss:.4f}", valid=f"{valid_error:.4%}",
                                         best=f"{run.best_valid:.4%}@{run.best_at:g}")
                    stop_if_asked()
            except KeyboardInterrupt:  # a second Ctrl-C: the checkpoint on disk is still whole
                raise Interrupted(run.interrupted_message()) from None

        model.set_values(run.best_params)
        results = _results(config, model, split, predict, run, time.perf_counter() - started)
        save_model(config.path(".npz"), model, {"config": dataclasses.asdict(config),
                                                "best_epoch": run.best_epoch})
        write_json(config.path(".json"), results)
    return results


@contextlib.contextmanager
def claimed(config, resume, overwrite):
    """Hold the run's name for the run: refuse one that is running in another process,
    and a finished or interrupted one unless it is resumed or overwritten. Checks that the
    results directory can be written before any training starts."""
    ensure_dir(config.results_dir)
    for suffix in (".json", ".npz", ".ckpt.npz"):
        check_writable(config.path(suffix))
    lock_path = config.path(".lock")
    with open(lock_path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise FlipnetError(f"run {config.name!r} is already running in another process "
                               f"({lock_path} is locked)") from None
        try:
            existing = [config.path(s) for s in (".json", ".npz", ".ckpt.npz") if config.path(s).exists()]
            if existing and not (resume or overwrite):
                raise FlipnetError(f"{existing[0]} exists: pass --resume to continue that run or "
                                   f"--overwrite to start it over")
            if overwrite and not resume:
                for path in existing:
                    path.unlink()
            yield
        finally:
            with contextlib.suppress(OSError):
                os.unlink(lock_path)


def check_points(epoch, n_batches, every):
    """Where epoch `epoch` (0-based) stops to validate: after every `every`-th minibatch
    of the run, counted across epochs as Theano's tutorial loop counted them, and at the
    epoch's end; as minibatch counts from the epoch's start."""
    if not every:
        return [n_batches]
    first = every - (epoch * n_batches) % every
    return [*range(first, n_batches, every), n_batches]


def _build_for(config, split):
    """The model, shaped for the dataset's boards, after checking that it fits the labels."""
    rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
    try:
        model = build(config.model, config.seed, rows, cols)
    except ValueError as exc:
        raise FlipnetError(f"{config.data} holds {rows}x{cols} boards: {exc}") from None
    check_labels(model, split, config.data)
    return model


class Run:
    """What a run has done so far: the part of the state a checkpoint must carry."""

    def __init__(self, epoch, curve, best_at, best_valid, best_params, rng, elapsed_before):
        self.epoch, self.curve = epoch, curve
        self.best_at, self.best_valid, self.best_params = best_at, best_valid, best_params
        self.rng, self.elapsed_before = rng, elapsed_before
        self.checks = []  # the current epoch's validations: (epochs done, error)

    @property
    def best_epoch(self):
        """The epoch whose training led to the best model (best_at rounded up)."""
        return int(np.ceil(self.best_at - 1e-9))

    @classmethod
    def fresh(cls, config, model):
        return cls(0, [], 0.0, float("inf"), model.get_values(),
                   np.random.default_rng([config.seed, 1]), 0.0)

    @classmethod
    def resume(cls, config, model, optimizer):
        path = config.path(".ckpt.npz")
        arrays, meta = load_npz(path, "checkpoint")
        made_in = meta.get("floatX", "float32")  # checkpoints from before FLIPNET_FLOAT: float32
        if made_in != FLOAT:
            raise FlipnetError(f"{path} was made in {made_in}, this run is in {FLOAT} (FLIPNET_FLOAT); "
                               "drop --resume to start over")
        saved = without_removed(meta["config"], path)
        changed = {k for k in saved if saved[k] != getattr(config, k)} - _RESUMABLE_CHANGES
        if changed:
            diffs = ", ".join(f"{k}={saved[k]!r} (now {getattr(config, k)!r})" for k in sorted(changed))
            raise FlipnetError(f"{path} was made with {diffs}; drop --resume to start over")
        model.set_values({n: arrays[f"param/{n}"] for n in model.names})
        for i, var in enumerate(optimizer.state):
            var.set_value(arrays[f"optimizer/{i}"])
        rng = np.random.default_rng()
        rng.bit_generator.state = meta["rng"]
        best = {n: arrays[f"best/{n}"] for n in model.names}
        best_at = meta.get("best_at", meta["best_epoch"])  # checkpoints before validate_every
        return cls(meta["epoch"], meta["curve"], best_at, meta["best_valid"], best,
                   rng, meta["elapsed"])

    def check(self, model, valid_error, fraction, threshold=1.0):
        """A validation `fraction` of the way through the current epoch: keep the model
        when its error is below `threshold` times the best so far (1.0: any improvement;
        the 2D script's 0.99: a small improvement does not replace the best)."""
        at = round(self.epoch + fraction, 6)
        self.checks.append((at, valid_error))
        if valid_error < self.best_valid * threshold:
            self.best_at, self.best_valid, self.best_params = at, valid_error, model.get_values()

    def interrupted_message(self):
        if self.epoch == 0:
            return "interrupted before the first epoch ended; nothing was saved"
        return f"interrupted after epoch {self.epoch}; resume with --resume"

    def diverged_message(self, config):
        kept = (f"the checkpoint keeps epoch {self.epoch}" if self.epoch else "nothing was saved")
        return (f"training diverged in epoch {self.epoch + 1}: the loss is not finite "
                f"(--lr {config.lr:g} is too large?); {kept}")

    def record(self, loss, valid_error, seconds):
        """The end of an epoch, whose last check measured `valid_error`."""
        self.epoch += 1
        entry = {"epoch": self.epoch, "loss": loss, "valid_error": valid_error, "seconds": seconds}
        if len(self.checks) > 1:
            entry["checks"] = [{"at": at, "valid_error": error} for at, error in self.checks]
        self.curve.append(entry)
        self.checks = []

    def patience_ran_out(self, patience):
        return bool(patience) and self.epoch - self.best_epoch >= patience

    def save(self, config, model, optimizer, elapsed_now):
        arrays = {f"param/{n}": v for n, v in model.get_values().items()}
        arrays.update({f"best/{n}": v for n, v in self.best_params.items()})
        arrays.update({f"optimizer/{i}": var.get_value() for i, var in enumerate(optimizer.state)})
        meta = {"config": dataclasses.asdict(config), "epoch": self.epoch, "curve": self.curve,
                "best_at": self.best_at, "best_epoch": self.best_epoch, "best_valid": self.best_valid,
                "rng": self.rng.bit_generator.state, "elapsed": self.elapsed_before + elapsed_now,
                "floatX": FLOAT}
        save_npz(config.path(".ckpt.npz"), arrays, meta)

    def total_seconds(self, elapsed_now):
        return self.elapsed_before + elapsed_now


def _results(config, model, split, predict, run, elapsed_now):
    test_states, test_labels = evaluated(split.test, config.eval_batch)
    predicted = predict(test_states)
    counts = confusion(predicted, test_labels, model.n_classes)
    epoch_seconds = [c["seconds"] for c in run.curve]
    return {
        "model": config.model,
        "name": config.name,
        "recipe": config.recipe,
        "config": dataclasses.asdict(config),
        "overrides": {k: {"recipe": a, "run": b} for k, (a, b) in overrides(config).items()},
        "paper_protocol": paper_protocol(config),
        "seed": config.seed,
        "bucket": config.bucket,
        "board": f"{model.rows}x{model.cols}",
        "sizes": split.sizes(),
        "evaluated": {"valid": len(evaluated(split.valid, config.eval_batch)[0]), "test": len(test_states)},
        "parameters": int(model.n_parameters()),
        "backend": {"pytensor": pytensor.__version__, "linker": str(pytensor.config.linker),
                    "mode": str(pytensor.config.mode), "floatX": FLOAT},
        "curve": run.curve,
        "epochs_run": run.epoch,
        "stopped_early": run.epoch < config.epochs,
        "best_epoch": run.best_epoch,
        "best_at": run.best_at,  # in epochs: 12.5 is halfway through epoch 13
        "valid_error": run.best_valid,
        "test_error": error_rate(predicted, test_labels),
        "baseline_test_error": majority_error(split.train[1], test_labels),
        "per_class_test_error": per_class_error(counts),
        "confusion": counts.tolist(),
        "seconds": run.total_seconds(elapsed_now),
        "train_seconds": float(sum(epoch_seconds)),
        "seconds_per_epoch": float(np.median(epoch_seconds[1:] or epoch_seconds)),
        **shape_split_errors(model.rows, model.cols, split.train[0], test_states, predicted != test_labels),
    }
