"""Every setting of a training run, declared once.

`TrainConfig`'s fields are the settings; each field's metadata holds its command-line
help, so `flipnet train` builds its flags from here (`add_flags`) and a recipe
(`nn/recipes.py`) is just a dict of field values. Defaults are neutral; the paper's
values live in the paper recipes.
"""

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path

from flipnet.base.errors import FlipnetError

SCHEDULE_NAMES = ("constant", "cosine", "onecycle")
OPTIMIZER_NAMES = ("sgd", "momentum", "adam")
MAX_SEED = 2 ** 63 - 1
FLOAT32_TINY, FLOAT32_MAX = 1.1754944e-38, 3.4028235e38  # the smallest normal and the largest float32
ARCHITECTURE_LIMITS = {"channels": 512, "layers": 32, "hidden": 4096, "loop_steps": 8}  # far past what trains here
SIZED_MODELS = ("convmem2d",)  # the models whose network sizes (and --init, --draw) are settings
MAX_OPTION_WEIGHT = 100.0  # --option-weight: past this the value's own loss is noise beside it
MAX_DRAWN_BOARDS = 1 << 24  # --draw: 128 MB of board states, far more than is worth labelling here
MAX_DRAWN_SIDE = 7  # --draw-boards: a shape key holds 52 cells, and 7x7 is the largest square in it
MAX_WORKERS = 8  # --workers: processes of one training step
MAX_LOOP_EXTRA = 8  # --loop-extra: a 5x5 shape at --loop-steps 2 takes 10 steps; 8 more is past 9x9's


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
    loop_steps: int = setting(0, "convmem2d: after the residual layers, one shared residual layer "
                                 "taken N times per cell of a shape's longest side, so larger "
                                 "shapes get more steps (0: none)", metavar="N")
    loop_extra: int = setting(0, "convmem2d with --loop-steps: while training, each minibatch's "
                                 "shapes take a random 0..E steps more than their count (the "
                                 "run's seeded generator), so the shared step learns to hold its "
                                 "answer when larger shapes take it more often (0: not)", metavar="E")
    global_pool: bool = setting(False, "convmem2d: each residual layer also reads the mean and "
                                       "maximum of the layer below over the shape's cells")
    equivariant: bool = setting(False, "convmem2d: D4 group convolutions, the same answer for "
                                       "every rotation and reflection by construction (nn/d4.py)")
    residual_gates: bool = setting(False, "convmem2d: each residual layer's branch is scaled by a "
                                          "learnt number that starts at zero (ReZero): the network "
                                          "starts shallow and grows into its depth")
    size_blind: bool = setting(False, "convmem2d: the readout sees the mean and maximum over a shape's "
                                      "cells only, no sum and no count, so it cannot key on the shape's "
                                      "size (a 5x5 board's large shapes are all dense)")
    init: str = setting("", "convmem2d: start from this convmem2d model file's network (trained "
                            "on the same split, same sizes)", metavar="FILE")
    draw: int = setting(0, "convmem2d with --init: also train on the new shapes of N seeded random "
                           "boards, valued by the --init model's 1-ply mex (nn/drawn.py)", metavar="N")
    draw_boards: str = setting("", "convmem2d with --init: also train on the new shapes of seeded random "
                                   "boards of other sizes, valued the same way: 'ROWSxCOLS:N' (N boards), "
                                   "comma-separated, sides up to 7", metavar="SIZES")
    workers: int = setting(1, "convmem2d: processes that share each training step, one core each "
                              "(nn/parallel.py); the weights are the same for the same seed and "
                              "number of workers", metavar="N")
    option_weight: float = setting(0.0, "convmem2d: also teach each cell's set of option values "
                                        "read from the training labels, with this weight beside the "
                                        "value's loss (nn/options.py; 0: not)", metavar="W")
    size_balance: float = setting(0.0, "convmem2d: each epoch draws its shapes with replacement, a "
                                       "shape's chance proportional to (taught shapes of its cell count)^-A, "
                                       "so the large shapes a 5x5 board holds few of are met more often "
                                       "(0: every shape once an epoch)", metavar="A")
    name: str = setting("", "run name: results/NAME.json, .npz, .ckpt.npz (default: the recipe)",
                        flag="--out", metavar="NAME")
    results_dir: str = setting("results", "where runs are written")

    def path(self, suffix):
        return Path(self.results_dir) / f"{self.name}{suffix}"

    def architecture(self):
        """{channels, layers, hidden, loop_steps}: the network sizes this run sets (0: the
        model's own)."""
        return {name: getattr(self, name) for name in ARCHITECTURE_LIMITS}

    def board_draws(self):
        """[(rows, cols, boards)] of --draw-boards; a one-line error naming a bad part."""
        draws = []
        for part in filter(None, (p.strip() for p in self.draw_boards.split(","))):
            size, _, count = part.partition(":")
            rows, _, cols = size.partition("x")
            if not (rows.isdigit() and cols.isdigit() and count.isdigit()):
                raise FlipnetError(f"--draw-boards: {part!r} is not ROWSxCOLS:N (e.g. 6x6:600000)")
            rows, cols, count = int(rows), int(cols), int(count)
            if not (1 <= rows <= MAX_DRAWN_SIDE and 1 <= cols <= MAX_DRAWN_SIDE):
                raise FlipnetError(f"--draw-boards: {part!r} has a side outside 1..{MAX_DRAWN_SIDE}")
            if not 1 <= count <= MAX_DRAWN_BOARDS:
                raise FlipnetError(f"--draw-boards: {part!r} draws a number of boards outside 1..{MAX_DRAWN_BOARDS}")
            if any((rows, cols) == (r, c) for r, c, _ in draws):
                raise FlipnetError(f"--draw-boards: {rows}x{cols} is given twice")
            draws.append((rows, cols, count))
        return draws

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
        if not (math.isfinite(self.option_weight) and 0 <= self.option_weight <= MAX_OPTION_WEIGHT):
            raise FlipnetError(f"--option-weight must be a number in 0..{MAX_OPTION_WEIGHT}, got {self.option_weight}")
        if not (math.isfinite(self.size_balance) and 0 <= self.size_balance <= 1):
            raise FlipnetError(f"--size-balance must be a number in 0..1, got {self.size_balance}")
        if self.model and self.model not in SIZED_MODELS:
            for given, which in ((self.init or self.draw or self.draw_boards, "--init and --draw are settings"),
                                 (self.global_pool, "--global-pool is a setting"),
                                 (self.equivariant, "--equivariant is a setting"),
                                 (self.residual_gates, "--residual-gates is a setting"),
                                 (self.size_blind, "--size-blind is a setting"),
                                 (self.option_weight, "--option-weight is a setting"),
                                 (self.size_balance, "--size-balance is a setting")):
                if given:
                    raise FlipnetError(f"{which} of {', '.join(SIZED_MODELS)}, not of {self.model}")
        if self.size_balance and self.shuffle == "once":
            raise FlipnetError("--size-balance draws every epoch anew: it takes no --shuffle once")
        if not 1 <= self.workers <= MAX_WORKERS:
            raise FlipnetError(f"--workers must be in 1..{MAX_WORKERS}, got {self.workers}")
        if self.workers > 1 and self.model and self.model not in SIZED_MODELS:
            raise FlipnetError(f"--workers is a setting of {', '.join(SIZED_MODELS)}, not of {self.model}")
        if self.workers > 1 and self.option_weight:
            raise FlipnetError("--workers takes no --option-weight: the option sets are taught in one process")
        if self.equivariant and self.channels % 8:
            raise FlipnetError(f"--equivariant needs --channels in fields of 8, got {self.channels}")
        if self.equivariant and (self.global_pool or self.option_weight or self.loop_steps or self.size_blind):
            raise FlipnetError("--equivariant takes no --global-pool, --option-weight, --loop-steps or --size-blind")
        if not 0 <= self.loop_extra <= MAX_LOOP_EXTRA:
            raise FlipnetError(f"--loop-extra must be in 0..{MAX_LOOP_EXTRA}, got {self.loop_extra}")
        if self.loop_extra and not self.loop_steps:
            raise FlipnetError("--loop-extra needs --loop-steps: it adds steps to the shared loop")
        if self.draw and not self.init:
            raise FlipnetError("--draw needs --init: the drawn shapes are valued by that model's 1-ply mex")
        if self.board_draws() and not self.init:
            raise FlipnetError("--draw-boards needs --init: the drawn shapes are valued by that model's 1-ply mex")
        for name in ("optimizer", "schedule", "shuffle", "augment"):
            choices = FIELDS[name].metadata["choices"]
            if getattr(self, name) not in choices:
                raise FlipnetError(f"unknown {name} {getattr(self, name)!r}: choose from {', '.join(choices)}")
        if not self.name or "/" in self.name or self.name in (".", "..") or "\0" in self.name:
            raise FlipnetError(f"--out must be a plain run name (no '/'), got {self.name!r}")
        return self


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _flag(name):
    return FIELDS[name].metadata["flag"] or f"--{name.replace('_', '-')}"


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
