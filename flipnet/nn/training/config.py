"""Every setting of a training run, declared once.

`TrainConfig`'s fields are the settings; each field's metadata holds its command-line
help, so `flipnet train` builds its flags from here (`add_flags`) and a recipe
(`nn/training/recipes.py`) is just a dict of field values. Defaults are neutral; the paper's
values live in the paper recipes.
"""

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path

from flipnet.base.checks import MAX_SEED
from flipnet.base.errors import FlipnetError
from flipnet.nn.core.kinds import KINDS

SCHEDULE_NAMES = ("constant", "cosine", "onecycle")
OPTIMIZER_NAMES = ("sgd", "momentum", "adam")
FLOAT32_TINY, FLOAT32_MAX = 1.1754944e-38, 3.4028235e38  # the smallest normal and the largest float32
ARCHITECTURE_LIMITS = {"channels": 512, "layers": 32, "hidden": 4096}  # far past what trains here
SIZED_MODELS = tuple(k.name for k in KINDS.values() if k.sized)  # network sizes (and --init, --draw) are settings
MAX_DRAWN_BOARDS = 1 << 24  # --draw: 128 MB of board states, far more than is worth labelling here
MAX_WORKERS = 8  # --workers: processes of one training step
# Settings of variants tried and not kept (docs/findings.md), with their neutral values: a
# results file or checkpoint that has one at that value still loads; any other value is refused.
REMOVED_SETTINGS = {"loop_steps": 0, "loop_extra": 0, "global_pool": False, "equivariant": False,
                    "size_blind": False, "draw_boards": "", "option_weight": 0.0, "size_balance": 0.0,
                    "option_head": False}
REMOVED_IN = "615dc0e"  # the last commit that has them


def setting(default, help, flag=None, choices=None, metavar=None):
    """A TrainConfig field with what its command-line flag needs (flag=False: no flag)."""
    return field(default=default, metadata={"help": help, "flag": flag, "choices": choices,
                                            "metavar": metavar})


@dataclass
class TrainConfig:
    model: str = setting("", "the network", flag=False)
    recipe: str = setting("", "the named recipe the settings came from", flag=False)
    data: str = setting("", "HDF5 dataset file (default: the recipe's)", metavar="FILE")
    bucket: int = setting(0, "which of the 10 buckets of the split")
    epochs: int = setting(1, "passes over the training states")
    lr: float = setting(0.01, "learning rate")
    batch: int = setting(20, "minibatch size")
    optimizer: str = setting("sgd", "sgd (the paper's), momentum or adam", choices=OPTIMIZER_NAMES)
    momentum: float = setting(0.9, "momentum coefficient, in [0, 1)")
    weight_decay: float = setting(0.0, "shrink weight matrices: sgd/momentum add decay * W to the "
                                       "gradient (an L2 penalty decay/2 |W|^2), adam decouples it (AdamW)")
    clip_norm: float = setting(0.0, "scale each minibatch's gradients down to at most this global "
                                     "L2 norm (0: never)")
    schedule: str = setting("constant", "learning rate per epoch: constant (the paper's), cosine "
                                        "or onecycle (warm-up, then cosine)", choices=SCHEDULE_NAMES)
    shuffle: str = setting("epoch", "one training order for the whole run (once, the paper's) "
                                    "or a new one every epoch", choices=("epoch", "once"))
    seed: int = setting(2016, "initialisation and shuffling seed")
    patience: int = setting(0, "stop after this many epochs without a better validation error "
                               "(0: run every epoch)")
    validate_every: int = setting(0, "also validate after every N-th minibatch, counted across "
                                     "epochs (0: at the end of each epoch only)", metavar="N")
    improvement_threshold: float = setting(1.0, "a validation becomes the new best only below "
                                                "this times the best so far (the 2D script: 0.99)")
    eval_batch: int = setting(0, "validation and test errors over whole minibatches of this "
                                 "size only, the remainder dropped, as the scripts did (0: all)",
                              metavar="N")
    augment: str = setting("none", "symmetry: train on a random rotation/reflection of each "
                                   "state every epoch", choices=("none", "symmetry"))
    tta: bool = setting(False, "predict by averaging over the board's symmetries")
    flush_denormals: bool = setting(False, "treat subnormal floats (float32: below 1.2e-38) as "
                                           "zero while training: far faster once gradients "
                                           "underflow (x86-64; base/denormals.py)")
    channels: int = setting(0, "convmem2d: channels of each convolution (0: the network's "
                               "default, 32)")
    layers: int = setting(0, "convmem2d: residual convolution layers (0: the default, 4)")
    hidden: int = setting(0, "convmem2d: units of the dense layer after pooling (0: the "
                             "default, 128)")
    residual_gates: bool = setting(False, "convmem2d: each residual layer's branch is scaled by a "
                                          "learnt number that starts at zero (ReZero): the network "
                                          "starts shallow and grows into its depth")
    init: str = setting("", "convmem2d: start from this convmem2d model file's network (trained "
                            "on the same split, same sizes)", metavar="FILE")
    draw: int = setting(0, "convmem2d with --init: also train on the new shapes of N seeded random "
                           "boards, valued by the --init model's 1-ply mex (nn/components/drawn.py)", metavar="N")
    workers: int = setting(1, "convmem2d: processes that share each training step, one core each "
                              "(nn/components/parallel.py); the weights are the same for the same seed and "
                              "number of workers", metavar="N")
    name: str = setting("", "run name: results/NAME.json, .npz, .ckpt.npz (default: the recipe)",
                        flag="--out", metavar="NAME")
    results_dir: str = setting("results", "where runs are written")

    def path(self, suffix):
        return Path(self.results_dir) / f"{self.name}{suffix}"

    def architecture(self):
        """{channels, layers, hidden}: the network sizes this run sets (0: the model's own)."""
        return {name: getattr(self, name) for name in ARCHITECTURE_LIMITS}

    def check(self):
        """A one-line FlipnetError for the first setting out of range."""
        for name, low in (("epochs", 1), ("batch", 1), ("bucket", 0), ("patience", 0),
                          ("validate_every", 0), ("eval_batch", 0), ("seed", 0)):
            if getattr(self, name) < low:
                raise FlipnetError(f"{_flag(name)} must be at least {low}, got {getattr(self, name)}")
        for name, high in (("epochs", 1_000_000), ("batch", 1 << 24), ("eval_batch", 1 << 24), ("seed", MAX_SEED)):
            if getattr(self, name) > high:
                raise FlipnetError(f"{_flag(name)} must be at most {high}, got {getattr(self, name)}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise FlipnetError(f"--lr must be a positive finite number, got {self.lr}")
        for name in ("lr", "weight_decay", "clip_norm"):  # the weights are float32: a rate must be one
            value = getattr(self, name)
            if math.isfinite(value) and value and not FLOAT32_TINY <= abs(value) <= FLOAT32_MAX:
                raise FlipnetError(f"{_flag(name)} {value:g} is outside what float32 holds "
                                   f"({FLOAT32_TINY:.1e} to {FLOAT32_MAX:.1e})")
        if not 0 <= self.momentum < 1:
            raise FlipnetError(f"--momentum must be in [0, 1), got {self.momentum}")
        if not (math.isfinite(self.weight_decay) and self.weight_decay >= 0):
            raise FlipnetError(f"--weight-decay must be a finite number >= 0, got {self.weight_decay}")
        if not (math.isfinite(self.clip_norm) and self.clip_norm >= 0):
            raise FlipnetError(f"--clip-norm must be a finite number >= 0, got {self.clip_norm}")
        if not 0 < self.improvement_threshold <= 1:
            raise FlipnetError(f"--improvement-threshold must be in (0, 1], got {self.improvement_threshold}")
        for name, high in ARCHITECTURE_LIMITS.items():
            if not 0 <= getattr(self, name) <= high:
                raise FlipnetError(f"{_flag(name)} must be in 0..{high}, got {getattr(self, name)}")
        if self.model and self.model not in SIZED_MODELS and any(self.architecture().values()):
            given = ", ".join(_flag(name) for name, value in self.architecture().items() if value)
            raise FlipnetError(f"{given}: only {', '.join(SIZED_MODELS)} takes its size from "
                               f"settings; {self.model}'s is fixed")
        if not 0 <= self.draw <= MAX_DRAWN_BOARDS:
            raise FlipnetError(f"--draw must be in 0..{MAX_DRAWN_BOARDS}, got {self.draw}")
        if self.model and self.model not in SIZED_MODELS:
            for given, which in ((self.init or self.draw, "--init and --draw are settings"),
                                 (self.residual_gates, "--residual-gates is a setting")):
                if given:
                    raise FlipnetError(f"{which} of {', '.join(SIZED_MODELS)}, not of {self.model}")
        check_workers(self.workers)
        if self.workers > 1 and self.model and self.model not in SIZED_MODELS:
            raise FlipnetError(f"--workers is a setting of {', '.join(SIZED_MODELS)}, not of {self.model}")
        if self.draw and not self.init:
            raise FlipnetError("--draw needs --init: the drawn shapes are valued by that model's 1-ply mex")
        for name in ("optimizer", "schedule", "shuffle", "augment"):
            choices = FIELDS[name].metadata["choices"]
            if getattr(self, name) not in choices:
                raise FlipnetError(f"unknown {name} {getattr(self, name)!r}: choose from {', '.join(choices)}")
        if not self.name or "/" in self.name or self.name in (".", "..") or "\0" in self.name:
            raise FlipnetError(f"--out must be a plain run name (no '/'), got {self.name!r}")
        return self


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def without_removed(settings, where):
    """`settings` (a saved run's, or a model file's architecture) less the removed settings
    it holds at their neutral value; a one-line error naming `where` for one it used."""
    used = sorted(k for k, v in settings.items() if k in REMOVED_SETTINGS and v != REMOVED_SETTINGS[k])
    if used:
        raise FlipnetError(f"{where} was made with {', '.join(_flag(k) for k in used)}: a variant flipnet "
                           f"no longer has (commit {REMOVED_IN} has it)")
    return {k: v for k, v in settings.items() if k not in REMOVED_SETTINGS}


def _flag(name):
    return (FIELDS[name].metadata["flag"] if name in FIELDS else None) or f"--{name.replace('_', '-')}"


def add_flags(parser):
    """One flag per setting, default None ("keep the recipe's value")."""
    import argparse

    for name, f in FIELDS.items():
        meta = f.metadata
        if meta["flag"] is False:
            continue
        kwargs = {"dest": name, "default": None, "help": meta["help"]}
        if f.type in (bool, "bool"):
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs["type"] = {"int": int, "float": float, "str": str}.get(f.type, f.type)
            if meta["choices"]:
                kwargs["choices"] = meta["choices"]
            if meta["metavar"]:
                kwargs["metavar"] = meta["metavar"]
        parser.add_argument(_flag(name), **kwargs)


def given_settings(args):
    """The settings a parsed command line sets (flags left out are None)."""
    return {name: getattr(args, name) for name in FIELDS if getattr(args, name, None) is not None}


def check_workers(workers):
    """--workers of a training run or an evaluation: processes of one core each."""
    if not 1 <= workers <= MAX_WORKERS:
        raise FlipnetError(f"--workers must be in 1..{MAX_WORKERS}, got {workers}")
    return workers
