"""The epoch loop both trainers share: an order per epoch, one learning rate, steps until
each check point, validation, the best model kept, a checkpoint after every epoch.

A run writes, under `results/`:
    <name>.json      metrics of the best-validation model
    <name>.npz       its parameters (for `flipnet evaluate` and `flipnet predict`)
    <name>.ckpt.npz  a checkpoint after every epoch, for `--resume`
Ctrl-C is answered between steps: the run stops with the checkpoint of its last finished
epoch intact, and `--resume` continues exactly where it would have. What a trainer brings
is its step (`paper/train.py`: compiled epochs of positions; `components/shapetrain.py`:
minibatches of shapes) and its validation.
"""

import contextlib
import dataclasses
import fcntl
import math
import os
import time

import numpy as np

from flipnet.base import signals
from flipnet.base.errors import BadInput, DamagedFile, FlipnetError, Interrupted
from flipnet.base.fields import Fields
from flipnet.base.files import check_writable, ensure_dir
from flipnet.base.progress import bar
from flipnet.nn import FLOAT
from flipnet.nn.core.store import load_npz, save_npz
from flipnet.nn.training.config import SCHEDULE_NAMES, without_removed


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


def run_epochs(config, run, model, optimizer, started, n_examples, steps, validate, digits=4):
    """Train until the recipe's epochs are done or its patience runs out.

    `steps(order, lr)` readies one epoch of the examples in `order` (a permutation cut to
    whole batches) and returns `part(first, stop)`: the summed loss of minibatches
    first..stop-1. `validate()` gives the validation error that chooses the kept model.
    The order is drawn from the run's generator unless the recipe shuffles once, in one
    order drawn from a generator seeded like the model's initialisation."""
    n_batches = n_examples // config.batch
    schedule = SCHEDULES[config.schedule]
    fixed_order = np.random.default_rng(config.seed).permutation(n_examples) if config.shuffle == "once" else None
    with bar(config.epochs, f"train {config.name}", unit="epoch", initial=run.epoch) as progress, \
            signals.deferred():
        try:
            while run.epoch < config.epochs and not run.patience_ran_out(config.patience):
                run.stop_if_asked()  # before any work too: a Ctrl-C that came while compiling
                order = fixed_order if config.shuffle == "once" else run.rng.permutation(n_examples)
                lr = np.asarray(schedule(config.lr, run.epoch, config.epochs), dtype=FLOAT)
                part = steps(order[:n_batches * config.batch], lr)
                tick, seconds, loss_sum, done = time.perf_counter(), 0.0, 0.0, 0
                for stop in check_points(run.epoch, n_batches, config.validate_every):
                    loss_sum += part(done, stop)
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
                progress.set_postfix(loss=f"{loss:.4f}", valid=f"{valid_error:.{digits}%}",
                                     best=f"{run.best_valid:.{digits}%}@{run.best_at:g}")
                run.stop_if_asked()
        except KeyboardInterrupt:  # a second Ctrl-C: the checkpoint on disk is still whole
            raise Interrupted(run.interrupted_message()) from None


def start(config, model, optimizer, resume, log):
    """The run's state: from its checkpoint when resumed and one exists, else fresh."""
    if resume and config.path(".ckpt.npz").exists():
        run = Run.resume(config, model, optimizer)
        log(f"resuming {config.name} after epoch {run.epoch} of {config.epochs}")
        return run
    if resume:
        log(f"no checkpoint at {config.path('.ckpt.npz')}: starting {config.name} from epoch 1")
    return Run.fresh(config, model)


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


def _shaped(array, like, where):
    if array.shape != like.shape:
        raise DamagedFile(f"{where} has shape {array.shape}, the run's has {like.shape}")
    return array


# settings that may differ between a checkpoint and a resumed run
_RESUMABLE_CHANGES = {"epochs", "patience"}


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
        """The run a checkpoint holds, each field checked before use: a damaged checkpoint
        is one line naming the file and the field, never resumed."""
        path = config.path(".ckpt.npz")
        arrays, meta = load_npz(path, "checkpoint")
        fields = Fields(meta, path)
        made_in = fields.take("floatX", str, "float32")  # checkpoints from before FLIPNET_FLOAT: float32
        if made_in != FLOAT:
            raise FlipnetError(f"{path} was made in {made_in}, this run is in {FLOAT} (FLIPNET_FLOAT); "
                               "drop --resume to start over")
        saved = without_removed(fields.take("config", dict), path)
        unknown = sorted(set(saved) - {f.name for f in dataclasses.fields(config)})
        if unknown:
            raise fields.fail("config", f"names settings no run has: {', '.join(unknown)}")
        changed = {k for k in saved if saved[k] != getattr(config, k)} - _RESUMABLE_CHANGES
        if changed:
            diffs = ", ".join(f"{k}={saved[k]!r} (now {getattr(config, k)!r})" for k in sorted(changed))
            raise FlipnetError(f"{path} was made with {diffs}; drop --resume to start over")
        epoch, curve = fields.take("epoch", int), fields.take("curve", list)
        planned = saved.get("epochs", config.epochs)
        if not 0 <= epoch <= max(planned, config.epochs) or len(curve) != epoch:
            raise fields.fail("epoch", f"is {epoch} of a run of {planned} epochs with {len(curve)} in its curve")
        if not all(isinstance(e, dict) and isinstance(e.get("valid_error"), (int, float)) for e in curve):
            raise fields.fail("curve", "is not a list of {epoch, valid_error} records")
        wanted = [f"param/{n}" for n in model.names] + [f"best/{n}" for n in model.names] + \
            [f"optimizer/{i}" for i in range(len(optimizer.state))]
        missing = [name for name in wanted if name not in arrays]
        if missing:
            raise DamagedFile(f"{path}: array {missing[0]} is missing ({len(missing)} of {len(wanted)} missing)")
        try:
            model.set_values({n: arrays[f"param/{n}"] for n in model.names})
            for i, var in enumerate(optimizer.state):
                var.set_value(_shaped(arrays[f"optimizer/{i}"], var.get_value(), f"{path}: array optimizer/{i}"))
            rng = np.random.default_rng()
            rng.bit_generator.state = fields.take("rng", dict)
        except BadInput as exc:
            raise DamagedFile(f"{path}: {exc}") from None
        except (TypeError, ValueError, KeyError):  # numpy's refusal of a state it did not write
            raise fields.fail("rng", "is not the state of numpy's default generator") from None
        best = {n: arrays[f"best/{n}"] for n in model.names}
        best_at = fields.take("best_at", float, None)
        best_at = fields.take("best_epoch", int) if best_at is None else best_at  # checkpoints before validate_every
        return cls(epoch, curve, best_at, fields.take("best_valid", float), best,
                   rng, fields.take("elapsed", float))

    def check(self, model, valid_error, fraction, threshold=1.0):
        """A validation `fraction` of the way through the current epoch: keep the model
        when its error is below `threshold` times the best so far (1.0: any improvement;
        the 2D script's 0.99: a small improvement does not replace the best)."""
        at = round(self.epoch + fraction, 6)
        self.checks.append((at, valid_error))
        if valid_error < self.best_valid * threshold:
            self.best_at, self.best_valid, self.best_params = at, valid_error, model.get_values()

    def stop_if_asked(self):
        """Answer a Ctrl-C (or SIGTERM) that came since the last look: the checkpoint on
        disk is whole, so the run stops here."""
        if signals.requested():
            raise Interrupted(self.interrupted_message())

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
