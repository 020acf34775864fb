"""The trainer on positions: the study's networks and the XOR networks, each epoch a
compiled scan over its minibatches (`core/compile.py`), in the shared epoch loop
(`training/loop.py`: validation, checkpoints, exact resume, Ctrl-C).

A run writes results/NAME.json (see `_results`), .npz and .ckpt.npz.
"""

import dataclasses
import time

import numpy as np
import pytensor

from flipnet.base.denormals import flushed
from flipnet.base.errors import BadInput, FlipnetError
from flipnet.base.files import write_json
from flipnet.datasets import locate, read_split
from flipnet.datasets.symmetry import Symmetries
from flipnet.nn import FLOAT
from flipnet.nn.core import optim
from flipnet.nn.core.compile import Predictor, compile_now, epoch_function, run_epoch
from flipnet.nn.core.metrics import error_rate, evaluated
from flipnet.nn.core.kinds import build
from flipnet.nn.core.model import check_labels
from flipnet.nn.core.store import save_model
from flipnet.nn.training import loop
from flipnet.nn.training.loop import claimed
from flipnet.nn.training.record import results_record


def train(config, resume=False, overwrite=False, log=print):
    started = time.perf_counter()
    config.check()
    split = read_split(locate(config.data), config.bucket)
    model = _build_for(config, split)
    with claimed(config, resume, overwrite), flushed(config.flush_denormals):
        model.fit(split.train[0])
        optimizer = optim.make(config.optimizer, model.dense_params, config.momentum, config.weight_decay,
                               config.clip_norm)
        symmetries = Symmetries(model.rows, model.cols) if config.augment != "none" or config.tta else None
        run = loop.start(config, model, optimizer, resume, log)
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

        epoch_fn = epoch_function(model, optimizer) if run.epoch < config.epochs else None
        if epoch_fn is not None:  # compiled here, where a stop is answered at once, not in the loop
            compile_now(epoch_fn, model, config.batch)
            if len(valid_states):  # and the validation's function, on one state
                predict(valid_states[:1]) if config.tta else predict.on_inputs(valid_inputs[:1])

        def steps(order, lr):
            """The epoch's minibatches, each a compiled call's worth of the scan."""
            states = train_states[order]
            if config.augment == "symmetry":
                states = model.prepare(symmetries.random_images(states, run.rng))
            batches = states.reshape(n_batches, config.batch, *model.input_shape)
            labels = train_labels[order].reshape(n_batches, -1)
            return lambda first, stop: run_epoch(epoch_fn, batches[first:stop], labels[first:stop], lr,
                                                 between_calls=run.stop_if_asked) * (stop - first)

        loop.run_epochs(config, run, model, optimizer, started, len(train_states), steps, validate)

        model.set_values(run.best_params)
        results = _results(config, model, split, predict, run, time.perf_counter() - started)
        save_model(config.path(".npz"), model, {"config": dataclasses.asdict(config),
                                                "best_epoch": run.best_epoch})
        write_json(config.path(".json"), results)
    return results


def _build_for(config, split):
    """The model, shaped for the dataset's boards, after checking that it fits the labels."""
    rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
    try:
        model = build(config.model, config.seed, rows, cols)
    except BadInput as exc:
        raise BadInput(f"{config.data} holds {rows}x{cols} boards: {exc}") from None
    check_labels(model, split, config.data)
    return model


def _results(config, model, split, predict, run, elapsed_now):
    backend = {"pytensor": pytensor.__version__, "linker": str(pytensor.config.linker),
               "mode": str(pytensor.config.mode), "floatX": FLOAT}
    return results_record(config, model, split, predict, run.total_seconds(elapsed_now), run,
                          valid_error=run.best_valid,
                          reports={"parameters": int(model.n_parameters()), "backend": backend})
