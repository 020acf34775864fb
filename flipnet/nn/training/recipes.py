"""Every named training recipe, as data: which network, which dataset, which settings.

`flipnet train RECIPE` runs one (flags override single settings), `flipnet train --list`
prints them, the Makefile's train targets name them, and a run's results record the
recipe, the settings that differ from it, and `paper_protocol`: true exactly when the
recipe is one of the paper's and no setting of the protocol was changed (the seed and
the run's name and place are not part of a protocol: the study states no seed).
"""

import dataclasses
from dataclasses import dataclass

from flipnet.base.errors import FlipnetError
from flipnet.datasets import DATASETS
from flipnet.nn.training.config import FIELDS, TrainConfig

NOT_PROTOCOL = frozenset({"seed", "name", "results_dir"})


# convmem2d's network is trained on the lookup table's shapes (nn/components/shapetrain.py)
CONVMEM = {"model": "convmem2d", "data": "flip2d", "bucket": 1, "optimizer": "adam", "lr": 0.003,
           "batch": 512, "epochs": 24, "schedule": "cosine", "shuffle": "epoch", "clip_norm": 2.0,
           "augment": "symmetry", "tta": True, "flush_denormals": True}

# the distillation stage (8 epochs at 0.001 on the table and drawn shapes valued by the
# start's own one ply) from convmem2d-gated12, on the new shapes of 6M random boards
GATED12_DISTIL6M = {**CONVMEM, "layers": 12, "residual_gates": True, "init": "results/convmem2d-gated12.npz",
                    "draw": 6_000_000, "lr": 0.001, "epochs": 8}
# the best model's three stages on both cores (nn/components/parallel.py), the first over 80 epochs
GATED12_80 = {**CONVMEM, "layers": 12, "epochs": 80, "residual_gates": True, "workers": 2}
GATED12_80_DISTIL6M = {**GATED12_DISTIL6M, "workers": 2, "init": "results/convmem2d-gated12-80.npz"}


@dataclass(frozen=True)
class Recipe:
    """A named run, and what the rest of flipnet knows of the model it makes: the Makefile's
    target that trains it (`tests/test_recipes.py` checks the Makefile against it), whether
    it is a model of record that ships and whether that target checks the file trained
    again against the shipped one (`nn/evaluation/shipping.py` reads both), and the group of
    tests that pins its settings and weights (`tests/recipe_pins.py`)."""

    name: str
    summary: str  # one line, for `flipnet train --list`
    settings: dict  # TrainConfig fields; "data" names a dataset of the registry
    paper: bool = False  # one of the original study's protocols
    target: str = ""  # the make target that trains it (`make train RECIPE=NAME` trains any)
    stages: tuple = ()  # the recipes its target trains in turn, ending with this one (default: this one)
    ships: bool = False  # a model of record: `flipnet models --ship` takes it
    checked: bool = False  # its target checks the file trained against the one that ships
    pins: str = ""  # its group of tests/test_recipe_pins_*.py: paper, xor, convmem or convmem-two-cores

    @property
    def trained_by(self):
        """The recipes its make target trains, in turn."""
        return self.stages or (self.name,)

    def config(self):
        settings = dict(self.settings)
        settings["data"] = str(DATASETS[settings["data"]].path())
        return TrainConfig(recipe=self.name, name=self.name, **settings)


# What the original scripts did (docs/sources.md, "What the original scripts do"): one
# shuffled order walked every epoch, validation once an epoch, test error of the best-
# validation model, errors over whole minibatches only.
PAPER_1D = dict(data="flip1d", bucket=0, optimizer="sgd", lr=0.01, batch=20, epochs=1000,
                schedule="constant", shuffle="once", validate_every=0,
                improvement_threshold=1.0, eval_batch=20)
PAPER_2D = dict(data="flip2d", bucket=1, optimizer="sgd", lr=0.02, batch=50, epochs=200,
                schedule="constant", shuffle="once", validate_every=0,
                improvement_threshold=0.99, eval_batch=50)
# flipnet's faster schedules: same split, SGD at a larger rate with a cosine decay to 0.
# flipnet's own recipes flush subnormal floats (base/denormals.py): the same figures,
# 1.7x faster for convmlp2d, 13-23x an epoch for xornet2d; the paper's recipes keep
# IEEE arithmetic, as Theano had it.
FAST_1D = dict(data="flip1d", bucket=0, optimizer="sgd", lr=0.05, batch=20, epochs=250,
               schedule="cosine", shuffle="once", augment="symmetry", tta=True, flush_denormals=True)
FAST_2D = dict(data="flip2d", bucket=1, optimizer="sgd", lr=0.05, batch=50, schedule="cosine",
               shuffle="epoch", flush_denormals=True)
XORNET = dict(optimizer="adam", lr=0.002, batch=256, epochs=30, schedule="onecycle", shuffle="epoch",
              flush_denormals=True)

RECIPES = {r.name: r for r in (
    Recipe("conv1d", "the paper's 1D conv net, its protocol",
           {"model": "conv1d", **PAPER_1D}, paper=True,
           target="train-1d", ships=True, checked=True, pins="paper"),
    Recipe("fc1d", "the paper's 1D dense comparison net, its protocol",
           {"model": "fc1d", **PAPER_1D}, paper=True,
           target="train-1d-fc", ships=True, pins="paper"),
    Recipe("conv1d-fast", "the 1D conv net: SGD 0.05 cosine, 250 epochs, reversal "
           "augmentation and averaging", {"model": "conv1d", **FAST_1D},
           target="train-1d-fast", ships=True, checked=True, pins="paper"),
    Recipe("xornet1d", "beyond the paper: XOR of the runs' learnt values",
           {"model": "xornet1d", "data": "flip1d", "bucket": 0, **XORNET, "epochs": 20},
           target="train-1d-best", ships=True, checked=True, pins="xor"),
    Recipe("mlp2d", "the paper's 2D MLP, its protocol: 200 epochs",
           {"model": "mlp2d", **PAPER_2D}, paper=True,
           target="train-2d", ships=True, checked=True, pins="paper"),
    Recipe("mlp2d-long", "the paper's 2D protocol run for 400 epochs",
           {"model": "mlp2d", **PAPER_2D, "epochs": 400},
           target="train-2d-long", pins="paper"),
    Recipe("logreg2d", "logistic regression, the paper's 2D protocol",
           {"model": "logreg2d", **PAPER_2D}, paper=True,
           target="train-2d-logreg", ships=True, pins="paper"),
    Recipe("mlp2d-fast", "the 2D MLP: SGD 0.05 cosine, 50 epochs, symmetry augmentation and "
           "averaging", {"model": "mlp2d", **FAST_2D, "epochs": 50, "augment": "symmetry", "tta": True},
           target="train-2d-fast", ships=True, checked=True, pins="paper"),
    Recipe("convmlp2d", "the paper's conv block + MLP: SGD 0.05 cosine, 20 epochs",
           {"model": "convmlp2d", **FAST_2D, "epochs": 20},
           target="train-2d-conv", ships=True, pins="paper"),
    Recipe("xornet2d", "beyond the paper: XOR of the components' learnt values",
           {"model": "xornet2d", "data": "flip2d", "bucket": 1, **XORNET},
           target="train-2d-xornet", pins="xor"),
    Recipe("xormem2d", "xornet2d with a memory of the training shapes",
           {"model": "xormem2d", "data": "flip2d", "bucket": 1, **XORNET},
           target="train-2d-xormem", ships=True, checked=True, pins="xor"),
    Recipe("lookup2d", "baseline, no learning: component values read from the training labels, "
           "an unseen shape given its size's most common value",
           {"model": "lookup2d", "data": "flip2d", "bucket": 1},
           target="train-2d-lookup", ships=True, checked=True, pins="xor"),
    Recipe("featmem2d", "beyond the paper, size-free: a network on shape descriptions, with a "
           "memory of training shapes",
           {"model": "featmem2d", "data": "flip2d", "bucket": 1, **XORNET},
           target="train-2d-featmem", ships=True, pins="xor"),
    Recipe("convmem2d", "beyond the paper, size-free: the lookup table, and a masked convolution "
           "over a shape's cells trained on it for the shapes it lacks", CONVMEM,
           target="train-2d-convmem", ships=True, pins="convmem"),
    Recipe("convmem2d-deep", "convmem2d with 8 residual layers instead of 4",
           {**CONVMEM, "layers": 8},
           target="train-2d-convmem-deep", pins="convmem"),
    Recipe("convmem2d-deep48", "convmem2d-deep trained for 48 epochs instead of 24",
           {**CONVMEM, "layers": 8, "epochs": 48},
           target="train-2d-convmem-deep48", pins="convmem"),
    Recipe("convmem2d-deep12", "convmem2d-deep48 with 12 residual layers over 56 epochs",
           {**CONVMEM, "layers": 12, "epochs": 56},
           target="train-2d-deep12", pins="convmem"),
    Recipe("convmem2d-gated12", "convmem2d-deep12 whose residual branches start shut behind learnt "
           "gates (ReZero): it starts shallow and grows into its depth",
           {**CONVMEM, "layers": 12, "epochs": 56, "residual_gates": True},
           target="train-2d-gated12", pins="convmem"),
    Recipe("convmem2d-gated12-distil6m", "convmem2d-gated12 taught 8 epochs more on the new shapes of 6M "
           "random boards, valued by its own 1-ply mex: the best on one core", GATED12_DISTIL6M,
           target="train-2d-gated12-distil6m", pins="convmem"),
    Recipe("convmem2d-gated12-80", "convmem2d-gated12 over 80 epochs, each step shared by two "
           "processes: the best model's first stage", GATED12_80,
           pins="convmem-two-cores"),
    Recipe("convmem2d-gated12-80-distil6m", "the distillation stage from convmem2d-gated12-80, on two "
           "processes: the best model's second stage", GATED12_80_DISTIL6M,
           pins="convmem-two-cores"),
    Recipe("convmem2d-gated12-80-distil6m-r2", "the distillation again, from convmem2d-gated12-80-distil6m "
           "and with its 1-ply labels: the best 2D model by validation",
           {**GATED12_80_DISTIL6M, "init": "results/convmem2d-gated12-80-distil6m.npz"},
           target="train-2d-best", ships=True, checked=True, pins="convmem-two-cores",
           stages=("convmem2d-gated12-80", "convmem2d-gated12-80-distil6m", "convmem2d-gated12-80-distil6m-r2")),
)}


def recipe(name):
    if name not in RECIPES:
        raise FlipnetError(f"unknown recipe {name!r}: `flipnet train --list` shows them "
                           f"({', '.join(RECIPES)})")
    return RECIPES[name]


def config_for(recipe_name, /, **overrides):
    """The recipe's settings with `overrides` replacing single ones (None: keep), checked."""
    base = recipe(recipe_name).config()
    unknown = set(overrides) - set(FIELDS)
    if unknown:
        raise FlipnetError(f"unknown settings {sorted(unknown)}")
    return dataclasses.replace(base, **{k: v for k, v in overrides.items() if v is not None}).check()


def overrides(config):
    """{setting: (recipe's value, run's value)} for every setting the run changed."""
    base = recipe(config.recipe).config()
    return {name: (getattr(base, name), getattr(config, name)) for name in FIELDS
            if getattr(base, name) != getattr(config, name)}


def paper_protocol(config):
    """True exactly when the run is a paper recipe with no protocol setting changed."""
    return recipe(config.recipe).paper and not set(overrides(config)) - NOT_PROTOCOL


def listing():
    """One line per recipe, for `flipnet train --list`."""
    width = max(len(n) for n in RECIPES)
    return "\n".join(f"{r.name:<{width}}  {'[paper] ' if r.paper else ''}{r.summary}{_made_by(r)}"
                     for r in RECIPES.values())


def _made_by(r):
    """" (make TARGET)" of the target that trains the recipe, alone or as a stage."""
    targets = [o.target for o in RECIPES.values() if o.target and r.name in o.trained_by]
    return f" (make {targets[0]})" if targets else ""
