"""A run's results (results/NAME.json), the same keys for every kind of model: what ran,
on what, its errors on the validation and test parts beside the no-learning baseline, its
learning curve where it has one, and what only its kind reports."""

import dataclasses

import numpy as np

from flipnet.base.provenance import provenance
from flipnet.datasets.components import shape_split_errors
from flipnet.nn.core.metrics import confusion, error_rate, evaluated, majority_error, per_class_error
from flipnet.nn.training.recipes import overrides, paper_protocol


def run_record(config, model, board, sizes):
    """The opening of every run's results: what ran (recipe, settings, the ones changed,
    whether it is the paper's protocol), on what, and the code and CPU that ran it."""
    return {"model": model, "name": config.name, "recipe": config.recipe,
            "config": dataclasses.asdict(config),
            "overrides": {k: {"recipe": a, "run": b} for k, (a, b) in overrides(config).items()},
            "paper_protocol": paper_protocol(config), "seed": config.seed, "bucket": config.bucket,
            "board": board, "sizes": sizes, "trained": provenance()}


def results_record(config, model, split, predict, seconds, run=None, valid_error=None, reports=None,
                   drawn=None):
    """The results of a run of `model` (its kind, board and classes) on `split`:
    `predict(states) -> values` as the run is evaluated; `seconds` of the whole run; `run`
    (`training/loop.py`) its epochs, where it has them; `valid_error` the selection's
    figure (default: `predict`'s on the validation part); `reports`, the keys only this
    kind reports; `drawn`, the shapes it also learnt from its own labels (a split of the
    test errors of its own)."""
    valid_states, valid_labels = evaluated(split.valid, config.eval_batch)
    test_states, test_labels = evaluated(split.test, config.eval_batch)
    predicted = predict(test_states)
    counts = confusion(np.minimum(predicted, model.n_classes - 1), test_labels, model.n_classes)
    record = {**run_record(config, model.name, f"{model.rows}x{model.cols}", split.sizes()),
              "evaluated": {"valid": len(valid_states), "test": len(test_states)}, **(reports or {})}
    if run is not None:
        record.update(curve=run.curve, epochs_run=run.epoch, stopped_early=run.epoch < config.epochs,
                      best_epoch=run.best_epoch, best_at=run.best_at)  # best_at in epochs: 12.5 is mid-epoch 13
    record.update({
        "valid_error": error_rate(predict(valid_states), valid_labels) if valid_error is None else valid_error,
        "test_error": error_rate(predicted, test_labels),
        "baseline_test_error": majority_error(split.train[1], test_labels),
        "per_class_test_error": per_class_error(counts),
        "confusion": counts.tolist(),
        "seconds": seconds,
    })
    if run is not None:
        epoch_seconds = [c["seconds"] for c in run.curve]
        record.update(train_seconds=float(sum(epoch_seconds)),
                      seconds_per_epoch=float(np.median(epoch_seconds[1:] or epoch_seconds)) if epoch_seconds else 0.0)
    more = () if drawn is None else (drawn,)
    record.update(shape_split_errors(model.rows, model.cols, split.train[0], test_states, predicted != test_labels,
                                     *more))
    return record
