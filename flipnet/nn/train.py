"""The training loop: shuffle, one compiled epoch, validate, keep the best, checkpoint.

Defaults reproduce the paper (`models.protocol`); every setting is a field of
`TrainConfig` and a flag of `flipnet train`. A run writes, under `results/`:
    <name>.json      metrics of the best-validation model (see `_results`)
    <name>.npz       its parameters (for `flipnet evaluate` and `flipnet predict`)
    <name>.ckpt.npz  a checkpoint after every epoch, for `--resume`
"""

import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytensor

from flipnet.atomic import write_text
from flipnet.data import read_split
from flipnet.errors import FlipnetError, Interrupted
from flipnet.nn import FLOAT, optim
from flipnet.nn.compile import Predictor, epoch_function, run_epoch
from flipnet.nn.metrics import confusion, error_rate, per_class_error
from flipnet.nn.models import MODELS, build, protocol
from flipnet.nn.store import load_npz, save_model, save_npz
from flipnet.progress import bar
from flipnet.symmetry import Symmetries


@dataclass
class TrainConfig:
    model: str
    data: str
    bucket: int
    epochs: int
    lr: float
    batch: int
    optimizer: str = "sgd"
    momentum: float = 0.9
    weight_decay: float = 0.0  # weight matrices: an L2 penalty's gradient (sgd, momentum); AdamW's decay (adam)
    schedule: str = "constant"  # or "cosine", "onecycle" (see SCHEDULES)
    shuffle: str = "epoch"  # "epoch": a new order every epoch; "once": one order for the whole run
    seed: int = 2016
    patience: int = 0  # stop after this many epochs without a better validation error; 0: never
    validate_every: int = 0  # also validate after every N-th minibatch of the run; 0: epoch ends only
    augment: str = "none"  # or "symmetry": each epoch, every state moved by a random board symmetry
    tta: bool = False  # predict by averaging over the board's symmetries
    name: str = ""  # the run's file names; default: the model name
    results_dir: str = "results"

    @classmethod
    def for_model(cls, model, **overrides):
        """The paper's protocol for `model`, with the given settings replaced (None: keep)."""
        if model not in MODELS:
            raise FlipnetError(f"unknown model {model!r}: choose from {', '.join(MODELS)}")
        settings = {**protocol(model), **{k: v for k, v in overrides.items() if v is not None}}
        config = cls(model=model, **settings)
        config.name = config.name or model
        config.check()
        return config

    def check(self):
        for field, low in (("epochs", 1), ("batch", 1), ("bucket", 0), ("patience", 0),
                           ("validate_every", 0)):
            if getattr(self, field) < low:
                raise FlipnetError(f"--{field} must be at least {low}, got {getattr(self, field)}")
        if not self.lr > 0:
            raise FlipnetError(f"--lr must be positive, got {self.lr}")
        if self.shuffle not in ("epoch", "once"):
            raise FlipnetError(f"unknown shuffle {self.shuffle!r}: choose from epoch, once")
        if self.schedule not in SCHEDULES:
            raise FlipnetError(f"unknown schedule {self.schedule!r}: choose from {', '.join(SCHEDULES)}")
        if self.augment not in ("none", "symmetry"):
            raise FlipnetError(f"unknown augment {self.augment!r}: choose from none, symmetry")
        if self.weight_decay < 0:
            raise FlipnetError(f"--weight-decay must not be negative, got {self.weight_decay}")
        if self.optimizer not in optim.OPTIMIZERS:
            raise FlipnetError(f"unknown optimizer {self.optimizer!r}: choose from {', '.join(optim.OPTIMIZERS)}")

    def path(self, suffix):
        return Path(self.results_dir) / f"{self.name}{suffix}"


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


# settings that may differ between a checkpoint and a resumed run
_RESUMABLE_CHANGES = {"epochs", "patience"}


def train(config, resume=False, log=print):
    started = time.perf_counter()
    split = read_split(config.data, config.bucket)
    model = _build_for(config, split)
    model.fit(split.train[0])
    optimizer = optim.make(config.optimizer, model.dense_params, config.momentum, config.weight_decay)
    symmetries = Symmetries(model.rows, model.cols) if config.augment != "none" or config.tta else None
    run = _Run.fresh(config, model)
    if resume and config.path(".ckpt.npz").exists():
        run = _Run.resume(config, model, optimizer)
        log(f"resuming {config.name} after epoch {run.epoch} of {config.epochs}")
    elif resume:
        log(f"no checkpoint at {config.path('.ckpt.npz')}: starting {config.name} from epoch 1")

    train_states, train_labels = split.train[0], split.train[1].astype(np.int64)
    if config.augment == "none":  # else the states change every epoch, and so their inputs
        train_states = model.prepare(train_states)
    n_batches = len(train_states) // config.batch
    if n_batches == 0:
        raise FlipnetError(f"batch {config.batch} is larger than the {len(train_states)} training states")
    predict = Predictor(model, symmetries=symmetries if config.tta else None)
    valid_inputs = None if config.tta else model.prepare(split.valid[0])  # prepared once

    def validate():
        predicted = predict(split.valid[0]) if config.tta else predict.on_inputs(valid_inputs)
        return error_rate(predicted, split.valid[1])

    epoch_fn = epoch_function(model, optimizer) if run.epoch < config.epochs else None
    schedule = SCHEDULES[config.schedule]
    # --shuffle once: one order for the run, drawn from a generator seeded like the model's
    # initialisation (the reference run of `make train-1d` was made with exactly this order)
    fixed_order = np.random.default_rng(config.seed).permutation(len(train_states)) \
        if config.shuffle == "once" else None

    with bar(config.epochs, f"train {config.name}", unit="epoch", initial=run.epoch) as progress:
        try:
            while run.epoch < config.epochs and not run.patience_ran_out(config.patience):
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
                    loss_sum += run_epoch(epoch_fn, batches[part], labels[part], lr) * (stop - done)
                    seconds += time.perf_counter() - tick
                    valid_error = validate()
                    run.check(model, valid_error, stop / n_batches)
                    done, tick = stop, time.perf_counter()
                loss = loss_sum / n_batches
                run.record(loss, valid_error, seconds)
                run.save(config, model, optimizer, time.perf_counter() - started)
                progress.update()
                progress.set_postfix(loss=f"{loss:.4f}", valid=f"{valid_error:.4%}",
                                     best=f"{run.best_valid:.4%}@{run.best_at:g}")
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted; the checkpoint holds epoch {run.epoch}: continue with "
                              f"the same command and --resume") from None

    model.set_values(run.best_params)
    results = _results(config, model, split, predict, run, time.perf_counter() - started)
    save_model(config.path(".npz"), model, {"config": dataclasses.asdict(config),
                                            "best_epoch": run.best_epoch})
    write_text(config.path(".json"), json.dumps(results, indent=1) + "\n")
    return results


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
    top = max(int(labels.max()) for _, labels in (split.train, split.valid, split.test) if labels.size)
    if top >= model.n_classes:
        raise FlipnetError(f"{config.data} has nim-value {top}; model {model.name} has "
                           f"{model.n_classes} classes")
    return model


class _Run:
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
        saved = meta["config"]
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

    def check(self, model, valid_error, fraction):
        """A validation `fraction` of the way through the current epoch: keep the model
        when it is the best so far."""
        at = round(self.epoch + fraction, 6)
        self.checks.append((at, valid_error))
        if valid_error < self.best_valid:
            self.best_at, self.best_valid, self.best_params = at, valid_error, model.get_values()

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
    test_states, test_labels = split.test
    predicted = predict(test_states)
    counts = confusion(predicted, test_labels, model.n_classes)
    epoch_seconds = [c["seconds"] for c in run.curve]
    return {
        "model": config.model,
        "name": config.name,
        "config": dataclasses.asdict(config),
        "paper_protocol": all(getattr(config, k) == v for k, v in protocol(config.model).items())
        and config.optimizer == "sgd" and config.schedule == "constant" and not config.patience
        and config.shuffle == protocol(config.model).get("shuffle", "epoch"),
        "seed": config.seed,
        "bucket": config.bucket,
        "sizes": split.sizes(),
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
        "per_class_test_error": per_class_error(counts),
        "confusion": counts.tolist(),
        "seconds": run.total_seconds(elapsed_now),
        "train_seconds": float(sum(epoch_seconds)),
        "seconds_per_epoch": float(np.median(epoch_seconds[1:] or epoch_seconds)),
        **_new_shape_errors(model, split, predicted != test_labels),
    }


def _new_shape_errors(model, split, wrong):
    """For a model that reads components: the test error on positions made only of
    shapes met in training, and on those holding a shape no training position has
    (what a memory of training shapes cannot help with)."""
    if not hasattr(model, "components"):
        return {}
    met = np.unique(model.components.shapes(split.train[0]))
    masks = model.components.encode(split.test[0], model.slots)
    new = ((masks != 0) & ~np.isin(masks, met)).any(axis=1)
    return {"test_share_new_shapes": float(new.mean()),
            "test_error_known_shapes": float(wrong[~new].mean()) if (~new).any() else 0.0,
            "test_error_new_shapes": float(wrong[new].mean()) if new.any() else 0.0}
