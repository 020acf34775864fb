"""One entry for every recipe: the registry of trainers names, for each model, the stage
that trains it; a network is trained on positions (`paper/train.py`) unless the registry
says otherwise."""

import importlib

# model -> (module, function): the lookup baseline is built from the training labels,
# convmem2d's network is trained on that table's shapes
TRAINERS = {"lookup2d": ("flipnet.nn.components.lookup", "run"),
            "convmem2d": ("flipnet.nn.components.shapetrain", "train_shapes")}
DEFAULT_TRAINER = ("flipnet.nn.paper.train", "train")


def trainer(model):
    """The function that trains `model`, imported when first asked for."""
    module, name = TRAINERS.get(model, DEFAULT_TRAINER)
    return getattr(importlib.import_module(module), name)


def run(config, resume=False, overwrite=False):
    """The results of the recipe's run (see `paper.train.train`, `components.shapetrain.train_shapes`,
    `components.lookup.run`)."""
    return trainer(config.model)(config, resume=resume, overwrite=overwrite)
