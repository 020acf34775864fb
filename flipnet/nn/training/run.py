"""A recipe's run: the trainer its model's kind names (`nn/core/kinds.py`) runs it."""

from flipnet.nn.core.kinds import kind


def run(config, resume=False, overwrite=False):
    """The results of the recipe's run (see `paper.train.train`, `components.shapetrain.train_shapes`,
    `components.lookup.run`)."""
    return kind(config.model).trainer()(config, resume=resume, overwrite=overwrite)
