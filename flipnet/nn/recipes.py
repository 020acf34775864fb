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
from flipnet.nn.config import FIELDS, TrainConfig

NOT_PROTOCOL = frozenset({"seed", "name", "results_dir"})


# convmem2d's network is trained on the lookup table's shapes (nn/shapetrain.py)
CONVMEM = {"model": "convmem2d", "data": "flip2d", "bucket": 1, "optimizer": "adam", "lr": 0.003,
           "batch": 512, "epochs": 24, "schedule": "cosine", "shuffle": "epoch", "clip_norm": 2.0,
           "augment": "symmetry", "tta": True, "flush_denormals": True}

# convmem2d-distil's second stage (8 epochs at 0.001 on the table and drawn shapes valued
# by the start's own one ply) from convmem2d-gated12; its variants change the draw or the start
GATED12_DISTIL = {**CONVMEM, "layers": 12, "residual_gates": True, "init": "results/convmem2d-gated12.npz",
                  "draw": 2_000_000, "lr": 0.001, "epochs": 8}
# its second round: distil6m's draw again, valued by distil6m's own one ply
GATED12_DISTIL6M_R2 = {**GATED12_DISTIL, "draw": 6_000_000, "init": "results/convmem2d-gated12-distil6m.npz"}
# the same three stages on both cores (nn/parallel.py), the first stage over 80 epochs
GATED12_80 = {**CONVMEM, "layers": 12, "epochs": 80, "residual_gates": True, "workers": 2}
GATED12_80_DISTIL6M = {**GATED12_DISTIL, "draw": 6_000_000, "workers": 2,
                       "init": "results/convmem2d-gated12-80.npz"}
# the rounds study (make study-rounds): from convmem2d-gated12-24, distil6m's stage taken
# again and again, each round from the last and with its one ply; its control takes the
# same 8 epochs with no drawn shapes, so a round's gain is told from more epochs
ROUNDS_START = "convmem2d-gated12-24"
ROUND = {**GATED12_DISTIL, "draw": 6_000_000, "workers": 2}
ROUNDS, MORE_EPOCHS = 4, 2
# the study of drawing shapes by cell count (make study-sized): two strengths, fixed before it ran
SIZE_BALANCES = (0.5, 0.75)


@dataclass(frozen=True)
class Recipe:
    name: str
    summary: str  # one line, for `flipnet train --list`
    settings: dict  # TrainConfig fields; "data" names a dataset of the registry
    paper: bool = False  # one of the original study's protocols

    def config(self):
        settings = dict(self.settings)
        settings["data"] = str(DATASETS[settings["data"]].path())
        return TrainConfig(recipe=self.name, name=self.name, **settings)


def _rounds():
    """Recipes convmem2d-gated12-24-round1.. and -more1.. (its controls), each from the one before."""
    found = []
    for kind, count, draw in (("round", ROUNDS, ROUND["draw"]), ("more", MORE_EPOCHS, 0)):
        for k in range(1, count + 1):
            start = ROUNDS_START if k == 1 else f"{ROUNDS_START}-{kind}{k - 1}"
            what = (f"the new shapes of {draw // 1_000_000}M random boards valued by {start}'s own "
                    "1-ply mex" if draw else "no drawn shapes: the rounds' control")
            summary = f"{ROUND['epochs']} epochs more from {start}, {what} (make study-rounds)"
            found.append(Recipe(f"{ROUNDS_START}-{kind}{k}", summary,
                                {**ROUND, "draw": draw, "init": f"results/{start}.npz"}))
    return found


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
    Recipe("conv1d", "the paper's 1D conv net, its protocol (make train-1d)",
           {"model": "conv1d", **PAPER_1D}, paper=True),
    Recipe("fc1d", "the paper's 1D dense comparison net, its protocol (make train-1d-fc)",
           {"model": "fc1d", **PAPER_1D}, paper=True),
    Recipe("conv1d-fast", "the 1D conv net: SGD 0.05 cosine, 250 epochs, reversal "
           "augmentation and averaging (make train-1d-fast)", {"model": "conv1d", **FAST_1D}),
    Recipe("xornet1d", "beyond the paper: XOR of the runs' learnt values (make train-1d-best)",
           {"model": "xornet1d", "data": "flip1d", "bucket": 0, **XORNET, "epochs": 20}),
    Recipe("mlp2d", "the paper's 2D MLP, its protocol: 200 epochs (make train-2d)",
           {"model": "mlp2d", **PAPER_2D}, paper=True),
    Recipe("mlp2d-long", "the paper's 2D protocol run for 400 epochs (make train-2d-long)",
           {"model": "mlp2d", **PAPER_2D, "epochs": 400}),
    Recipe("logreg2d", "logistic regression, the paper's 2D protocol (make train-2d-logreg)",
           {"model": "logreg2d", **PAPER_2D}, paper=True),
    Recipe("mlp2d-fast", "the 2D MLP: SGD 0.05 cosine, 50 epochs, symmetry augmentation and "
           "averaging (make train-2d-fast)",
           {"model": "mlp2d", **FAST_2D, "epochs": 50, "augment": "symmetry", "tta": True}),
    Recipe("convmlp2d", "the paper's conv block + MLP: SGD 0.05 cosine, 20 epochs "
           "(make train-2d-conv)", {"model": "convmlp2d", **FAST_2D, "epochs": 20}),
    Recipe("xornet2d", "beyond the paper: XOR of the components' learnt values "
           "(make train-2d-xornet)", {"model": "xornet2d", "data": "flip2d", "bucket": 1, **XORNET}),
    Recipe("xormem2d", "xornet2d with a memory of the training shapes (make train-2d-xormem)",
           {"model": "xormem2d", "data": "flip2d", "bucket": 1, **XORNET}),
    Recipe("lookup2d", "baseline, no learning: component values read from the training labels, "
           "an unseen shape given its size's most common value (make train-2d-lookup)",
           {"model": "lookup2d", "data": "flip2d", "bucket": 1}),
    Recipe("featmem2d", "beyond the paper, size-free: a network on shape descriptions, with a "
           "memory of training shapes (make train-2d-featmem)",
           {"model": "featmem2d", "data": "flip2d", "bucket": 1, **XORNET}),
    Recipe("convmem2d", "beyond the paper, size-free: the lookup table, and a masked convolution "
           "over a shape's cells trained on it for the shapes it lacks (make train-2d-convmem)",
           CONVMEM),
    Recipe("convmem2d-wide", "convmem2d with a wider network: 48 channels, a 256-unit dense "
           "layer; tried, not kept (make train-2d-convmem-wide)", {**CONVMEM, "channels": 48, "hidden": 256}),
    Recipe("convmem2d-deep", "convmem2d with 8 residual layers instead of 4 (make "
           "train-2d-convmem-deep)", {**CONVMEM, "layers": 8}),
    Recipe("convmem2d-deep16", "convmem2d with 16 residual layers; tried, not kept (make "
           "train-2d-convmem-deep16)",
           {**CONVMEM, "layers": 16}),
    Recipe("convmem2d-deep48", "convmem2d-deep trained for 48 epochs instead of 24: the best 2D model "
           "by validation before the live-cell step (make train-2d-convmem-deep48)",
           {**CONVMEM, "layers": 8, "epochs": 48}),
    Recipe("convmem2d-deep88", "convmem2d-deep48 over 88 epochs: the live-cell convolution's "
           "2x faster step spent on epochs, within the hour; tried, not kept (make train-2d-deep88)",
           {**CONVMEM, "layers": 8, "epochs": 88}),
    Recipe("convmem2d-deep12", "convmem2d-deep48 with 12 residual layers over 56 epochs: the "
           "live-cell step spent on depth and epochs; the best 2D model by validation before "
           "gated residual layers (make train-2d-deep12)",
           {**CONVMEM, "layers": 12, "epochs": 56}),
    Recipe("convmem2d-deep16-42", "convmem2d-deep12's layer-epochs spent on depth: 16 residual "
           "layers over 42 epochs on live cells; tried, not kept (make train-2d-deep16-42)",
           {**CONVMEM, "layers": 16, "epochs": 42}),
    Recipe("convmem2d-gated12", "convmem2d-deep12 whose residual branches start shut behind learnt "
           "gates (ReZero): it starts as a shallow network, so it skips the plateau deep runs "
           "begin on; the best 2D model by validation before the distillation (make train-2d-gated12)",
           {**CONVMEM, "layers": 12, "epochs": 56, "residual_gates": True}),
    Recipe("convmem2d-gated16-42", "convmem2d-deep16-42 with convmem2d-gated12's gates: does depth "
           "pay at the same work once the network starts shallow; tried, not kept (make "
           "train-2d-gated16-42)",
           {**CONVMEM, "layers": 16, "epochs": 42, "residual_gates": True}),
    Recipe("convmem2d-global", "convmem2d-deep48 whose residual layers also read the mean and "
           "maximum over the shape's cells; tried, not kept (make train-2d-global)",
           {**CONVMEM, "layers": 8, "epochs": 48, "global_pool": True}),
    Recipe("convmem2d-canonical", "convmem2d-deep48 taught and read in each shape's canonical "
           "drawing only, no symmetry augmentation or averaging; tried, not kept (make "
           "train-2d-canonical)",
           {**CONVMEM, "layers": 8, "epochs": 48, "augment": "none", "tta": False}),
    Recipe("convmem2d-batch256", "convmem2d-deep48 with minibatches of 256: twice the steps an "
           "epoch, 44 epochs to stay within the hour; tried, not kept (make train-2d-batch256)",
           {**CONVMEM, "layers": 8, "epochs": 44, "batch": 256}),
    Recipe("convmem2d-d4", "convmem2d-deep48 with D4 group convolutions: 4 fields of 8 channels, "
           "the same answer for every drawing by construction, so no augmentation or averaging; "
           "tried, not kept (make train-2d-d4)",
           {**CONVMEM, "layers": 8, "epochs": 48, "equivariant": True, "augment": "none", "tta": False}),
    Recipe("convmem2d-d4-wide", "convmem2d-d4 with 6 fields of 8 channels (48), 1.75x the cost of "
           "a step, so 26 epochs to stay within the hour; tried, not kept (make train-2d-d4-wide)",
           {**CONVMEM, "layers": 8, "channels": 48, "epochs": 26, "equivariant": True,
            "augment": "none", "tta": False}),
    Recipe("convmem2d-options", "convmem2d-deep48 also taught each cell's set of option values "
           "read from the training labels (weight 1); tried, not kept (make train-2d-options)",
           {**CONVMEM, "layers": 8, "epochs": 48, "option_weight": 1.0}),
    Recipe("convmem2d-distil", "convmem2d-deep taught more: 8 epochs more on the new shapes of 2M "
           "random boards, valued by convmem2d-deep's own 1-ply mex; tried, not kept (make "
           "train-2d-distil)",
           {**CONVMEM, "layers": 8, "init": "results/convmem2d-deep.npz", "draw": 2_000_000,
            "lr": 0.001, "epochs": 8}),
    Recipe("convmem2d-gated12-distil", "convmem2d-distil's 8 epochs from convmem2d-gated12: its "
           "own 1-ply values of the new shapes of 2M random boards; tried, not kept (make "
           "train-2d-gated12-distil)",
           GATED12_DISTIL),
    Recipe("convmem2d-gated12-distil6m", "convmem2d-gated12-distil with the new shapes of 6M "
           "random boards instead of 2M; the best 2D model by validation within the hour on one "
           "core, convmem2d-gated12's training included (make train-2d-gated12-distil6m)",
           {**GATED12_DISTIL, "draw": 6_000_000}),
    Recipe("convmem2d-gated12-distil6m-r2", "convmem2d-gated12-distil6m's 8 epochs again, from "
           "distil6m and with its 1-ply labels: a second round pays, but the three stages take "
           "over the hour; tried, not kept (make train-2d-gated12-distil6m-r2)",
           GATED12_DISTIL6M_R2),
    Recipe("convmem2d-gated12-distil-larger", "convmem2d-gated12-distil6m-r2 also taught the new "
           "shapes of 600k 6x6 and 300k 7x7 random boards, valued by distil6m's own 1-ply mex: the "
           "network teaches itself larger boards; no value of a board larger than 5x5 is read, but "
           "it reads larger boards, so it is not 'trained on 5x5 only' (make train-2d-distil-larger)",
           {**GATED12_DISTIL6M_R2, "draw_boards": "6x6:600000,7x7:300000"}),
    Recipe("convmem2d-gated12-80", "convmem2d-gated12 over 80 epochs, each step shared by two "
           "processes (--workers 2, nn/parallel.py: 2x the steps an hour); the first of three stages "
           "(make train-2d-two-cores)", GATED12_80),
    Recipe("convmem2d-gated12-80-distil6m", "convmem2d-gated12-distil6m's second stage from "
           "convmem2d-gated12-80, on two processes (make train-2d-two-cores)", GATED12_80_DISTIL6M),
    Recipe("convmem2d-gated12-80-distil6m-r2", "its second round, from convmem2d-gated12-80-distil6m "
           "and with its 1-ply labels, on two processes: the three stages within the hour; the best "
           "2D model by validation (make train-2d-best)",
           {**GATED12_80_DISTIL6M, "init": "results/convmem2d-gated12-80-distil6m.npz"}),
    Recipe("convmem2d-loop", "convmem2d with 2 residual layers, then one shared residual layer "
           "taken twice per cell of a shape's longest side (10 steps for a 5x5 shape, 14 for a "
           "7x7 one), gated, 24 epochs: computation that grows with the shape (make train-2d-loop)",
           {**CONVMEM, "layers": 2, "loop_steps": 2, "residual_gates": True}),
    Recipe("convmem2d-loop-extra", "convmem2d-loop trained with 0..4 random extra steps per "
           "minibatch, on two processes: a 7x7 shape's 14 steps are steps a 5x5 shape took in "
           "training, so the loop may learn to hold its answer when taken longer (make "
           "train-2d-loop-extra)",
           {**CONVMEM, "layers": 2, "loop_steps": 2, "loop_extra": 4, "residual_gates": True, "workers": 2}),
    Recipe("convmem2d-loop-extra-wide", "convmem2d-loop-extra with 48 channels instead of 32, "
           "so that it may fit the 5x5 shapes as its control does (make train-2d-loop-extra-wide)",
           {**CONVMEM, "channels": 48, "layers": 2, "loop_steps": 2, "loop_extra": 4, "residual_gates": True,
            "workers": 2}),
    Recipe("convmem2d-gated12-24", "convmem2d-gated12 over 24 epochs, as convmem2d-loop: its "
           "control, the same for every shape size (make train-2d-gated12-24)",
           {**CONVMEM, "layers": 12, "residual_gates": True}),
    *_rounds(),
    Recipe("convmem2d-gated12-24-blind", "convmem2d-gated12-24 whose readout sees the mean and maximum "
           "over a shape's cells only, no sum and no count (--size-blind): the 5x5 board's large shapes "
           "are all dense, so a readout keyed on size meets the larger boards' sparse large shapes "
           "with nothing like them; on two processes (make train-2d-blind)",
           {**CONVMEM, "layers": 12, "residual_gates": True, "size_blind": True, "workers": 2}),
    *(Recipe(f"convmem2d-gated12-24-sized{round(a * 100)}", f"convmem2d-gated12-24 with each epoch's "
             f"shapes drawn by cell count (--size-balance {a}): the large shapes, few on a 5x5 board "
             f"and most of the larger boards' error, met more often (make study-sized)",
             {**CONVMEM, "layers": 12, "residual_gates": True, "size_balance": a}) for a in SIZE_BALANCES),
    Recipe("resmlp2d", "experimental: a residual MLP on live cells (AdamW, one-cycle, 30 epochs)",
           {"model": "resmlp2d", "data": "flip2d", "bucket": 1, "optimizer": "adam", "lr": 0.002,
            "batch": 512, "epochs": 30, "schedule": "onecycle", "shuffle": "epoch",
            "augment": "symmetry", "tta": True, "flush_denormals": True}),
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
    return "\n".join(f"{r.name:<{width}}  {'[paper] ' if r.paper else ''}{r.summary}"
                     for r in RECIPES.values())
