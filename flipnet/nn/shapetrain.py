"""convmem2d's run: the lookup table from the training labels, then a masked convolution
trained on the table's shapes and values.

Training on shapes instead of positions: a position's loss reaches a component network
only through the XOR of all its components, while the table already spells out 170k
shape values of the 5x5 training positions, and 14x fewer examples. Validation is what
the network is for: the shapes the table lacks that are the only such component of some
validation position, valued as that position's label XOR the table's values of its
other components. The epoch is chosen there; test figures are on test positions, as
for every run. Checkpoints, resume and Ctrl-C as in `nn/train.py`, whose run state this
reuses.

With `init`, the network starts from another convmem2d model's; with `draw`, it is also
taught the new shapes of random boards, valued by that model's 1-ply mex (`nn/drawn.py`).
The labels are made again on `--resume`, from the same file and seed: the same labels.
"""

import contextlib
import dataclasses
import math
import time

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.base import signals
from flipnet.base.denormals import flushed
from flipnet.base.errors import FlipnetError, Interrupted
from flipnet.base.files import write_json
from flipnet.base.progress import bar
from flipnet.datasets import read_split
from flipnet.datasets.components import Components, key_shape, shape_split_errors
from flipnet.datasets.symmetry import cell_maps
from flipnet.nn import FLOAT, optim
from flipnet.nn.convmem import NAME, ConvMemory
from flipnet.nn.drawn import draw_shapes, one_ply_labels
from flipnet.nn.layers import mean_cross_entropy
from flipnet.nn.layouts import LiveCells
from flipnet.nn.lookup import ShapeLookup
from flipnet.nn.maskconv import ExtraSteps, MaskedConvNet, render_cells
from flipnet.nn.metrics import confusion, error_rate, evaluated, majority_error, per_class_error
from flipnet.nn.options import certain_share, masked_bce, option_targets, unpack
from flipnet.nn.parallel import SplitStep
from flipnet.nn.recipes import overrides, paper_protocol
from flipnet.nn.train import SCHEDULES, Run, claimed


def new_shape_values(table, states, labels, rows, cols):
    """(keys, values) of the shapes the table lacks that are the only such live component
    of some position: each valued by its position's label XOR the table's values of the
    others (exact, since labels are). Sorted by key."""
    components = Components(rows, cols)
    keys = components.keys(components.split(states))
    in_table = (keys == 0) | np.isin(keys, table.keys)
    alone = (~in_table).sum(axis=1) == 1
    rest = np.bitwise_xor.reduce(np.where(in_table, table.component_values(np.where(in_table, keys, 0)), 0),
                                 axis=1)
    new_keys = keys[alone][~in_table[alone]]
    values = np.asarray(labels, np.int64)[alone] ^ rest[alone]
    unique, first = np.unique(new_keys, return_index=True)
    return unique, values[first]


def step_function(network, optimizer, side, option_weight=0.0, layout=LiveCells, loop_extra=0):
    """f(cells (batch, side^2), values (batch,), lr, extra=0) -> loss: one optimizer step.
    With an option weight, f(cells, values, option sets, certain, lr): the value's
    cross-entropy plus that weight times the cells' option-set loss (both (batch, side^2,
    16) 0/1). `layout` (`nn/layouts.py`): where the network's rows are; the live cells by
    default. `loop_extra`: the step takes `extra` in 0..loop_extra more loop steps."""
    shapes = layout(side)
    values = pt.vector("values", dtype="int64")
    lr = pt.scalar("lr", dtype=FLOAT)
    more_steps = ExtraSteps(loop_extra)
    logits, option_logits = network.outputs_in(shapes, extra=more_steps.symbol, extra_max=loop_extra)
    loss = mean_cross_entropy(logits, values)
    targets = [values]
    if option_weight:
        sets, certain = pt.tensor3("sets", dtype=FLOAT), pt.tensor3("certain", dtype=FLOAT)
        loss = loss + np.asarray(option_weight, FLOAT) * masked_bce(option_logits, sets, certain)
        targets += [sets, certain]
    new_params, new_state = optimizer.step(network.params, pt.grad(loss, network.params), optimizer.state, lr)
    updates = list(zip(network.params + optimizer.state, new_params + new_state))
    fn = pytensor.function([*shapes.inputs, *targets, lr, *more_steps.inputs], loss, updates=updates)
    return lambda cells, *rest, extra=0: fn(*shapes.feed(cells), *rest, *more_steps.feed(extra))


def train_shapes(config, resume=False, overwrite=False, log=print):
    """`flipnet train convmem2d`: results/NAME.json, .npz and .ckpt.npz as `train.train`."""
    started = time.perf_counter()
    config.check()
    start, start_meta = ConvMemory.load(config.init) if config.init else (None, {})
    split = read_split(config.data, config.bucket)
    rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
    if rows == 1:
        raise FlipnetError(f"{config.data} holds single rows; {NAME} reads 2D boards")
    if config.validate_every:
        raise FlipnetError(f"{NAME} validates at the end of each epoch only: drop --validate-every")
    network = MaskedConvNet(config.seed, **{k: v for k, v in config.architecture().items() if v},
                            option_head=config.option_weight > 0, global_pool=config.global_pool,
                            equivariant=config.equivariant, residual_gates=config.residual_gates,
                            size_blind=config.size_blind)
    top = max(int(labels.max()) for _, labels in (split.train, split.valid, split.test) if labels.size)
    if top >= network.n_classes:
        raise FlipnetError(f"{config.data} has nim-value {top}; {NAME} has {network.n_classes} classes")
    if start is not None:
        _check_start(config, start, network, rows, cols)
    with claimed(config, resume, overwrite), flushed(config.flush_denormals):
        table = ShapeLookup.fit(split.train[0], split.train[1], rows, cols)
        model = ConvMemory(network, table, rows, cols, average=config.tta)
        if start is not None:
            if not np.array_equal(start.table.keys, table.keys):
                raise FlipnetError(f"{config.init} was trained on another split than {config.data} "
                                   f"bucket {config.bucket}: its table differs")
            network.set_values({**network.get_values(), **start.network.get_values()})
        valid_keys, valid_values = new_shape_values(table, *split.valid, rows, cols)
        if valid_keys.size == 0:
            raise FlipnetError(f"{config.data}: no validation position holds a shape the training "
                               f"labels leave open, so there is nothing to choose an epoch on")

        def validate():
            return error_rate(model.network_probabilities(valid_keys, config.workers).argmax(axis=1),
                              valid_values)

        drawn = _drawn(config, start, table, rows, cols)
        if start is not None:  # where the run started, and that start's own figure and time
            drawn["report"].update(init=config.init, start_valid_shape_error=validate(),
                                   init_pipeline_seconds=float(start_meta.get("pipeline_seconds", 0.0)))
        model.drawn = drawn["keys"]
        n_batches = (len(table.keys) + len(drawn["keys"])) // config.batch
        if n_batches == 0:
            raise FlipnetError(f"--batch {config.batch} is larger than the {len(table.keys)} "
                               f"shapes the training labels fix")
        optimizer = optim.make(config.optimizer, network.params, config.momentum, config.weight_decay,
                               config.clip_norm)
        run = Run.fresh(config, network)
        if resume and config.path(".ckpt.npz").exists():
            run = Run.resume(config, network, optimizer)
            log(f"resuming {config.name} after epoch {run.epoch} of {config.epochs}")
        elif resume:
            log(f"no checkpoint at {config.path('.ckpt.npz')}: starting {config.name} from epoch 1")
        taught = np.concatenate([table.keys, drawn["keys"]])
        frame = max([model.side] + [max(r, c) for r, c, _ in config.board_draws()])  # holds every taught shape
        cells = render_cells(taught, frame)
        values = np.concatenate([table.values, drawn["values"]]).astype(np.int64)
        images = np.stack(cell_maps(frame, frame))
        option_report = {}
        if config.option_weight:  # each cell's option values, as far as the table fixes them
            option_sets, option_certain = option_targets(taught, table, frame)
            option_report = {"option_weight": config.option_weight,
                             "option_answers_certain": certain_share(option_certain)}
        fixed_order = np.random.default_rng(config.seed).permutation(len(cells))  # --shuffle once
        chances = size_balanced_chances(taught, config.size_balance)

        with _steps(config, network, optimizer, frame, run.epoch < config.epochs) as step, \
                bar(config.epochs, f"train {config.name}", unit="epoch", initial=run.epoch) as progress, \
                signals.deferred():
            try:
                while run.epoch < config.epochs and not run.patience_ran_out(config.patience):
                    if chances is not None:  # --size-balance: as many shapes, drawn with replacement
                        order = run.rng.choice(len(cells), n_batches * config.batch, p=chances)
                    else:
                        order = fixed_order if config.shuffle == "once" else run.rng.permutation(len(cells))
                        order = order[:n_batches * config.batch]
                    lr = np.asarray(SCHEDULES[config.schedule](config.lr, run.epoch, config.epochs), FLOAT)
                    tick, loss_sum = time.perf_counter(), 0.0
                    for batch in order.reshape(n_batches, config.batch):
                        if signals.requested():
                            raise Interrupted(run.interrupted_message())
                        batch_cells, which = cells[batch], None
                        if config.augment == "symmetry":  # each shape moved by its own symmetry
                            which = images[run.rng.integers(len(images), size=len(batch))]
                            batch_cells = np.take_along_axis(batch_cells, which, axis=1)
                        targets = [values[batch]]
                        if config.option_weight:  # the cells' option sets move with the cells
                            targets += [unpack(_moved(option_sets[batch], which)),
                                        unpack(_moved(option_certain[batch], which))]
                        # --loop-extra: drawn after the batch's symmetries, and only with it,
                        # so a run without it draws as before
                        extra = int(run.rng.integers(config.loop_extra + 1)) if config.loop_extra else 0
                        loss_sum += float(step(batch_cells, *targets, lr, extra=extra))
                    if not math.isfinite(loss_sum):
                        raise FlipnetError(run.diverged_message(config))
                    seconds = time.perf_counter() - tick
                    valid_error = validate()
                    run.check(network, valid_error, 1.0, config.improvement_threshold)
                    run.record(loss_sum / n_batches, valid_error, seconds)
                    run.save(config, network, optimizer, time.perf_counter() - started)
                    progress.update()
                    progress.set_postfix(loss=f"{loss_sum / n_batches:.4f}", valid=f"{valid_error:.2%}",
                                         best=f"{run.best_valid:.2%}@{run.best_epoch}")
            except KeyboardInterrupt:  # a second Ctrl-C: the checkpoint on disk is still whole
                raise Interrupted(run.interrupted_message()) from None

        network.set_values(run.best_params)
        results = _results(config, model, split, run, len(valid_keys), time.perf_counter() - started)
        results.update(drawn["report"], **option_report)
        # the whole chain's time: this run's and the starting model's (which may have one too)
        results["pipeline_seconds"] = results["seconds"] + drawn["report"].get("init_pipeline_seconds", 0.0)
        model.save(config.path(".npz"), {"config": dataclasses.asdict(config), "best_epoch": run.best_epoch,
                                         "pipeline_seconds": results["pipeline_seconds"]})
        write_json(config.path(".json"), results)
    log(f"{config.name}: {len(table.keys)} shapes from the training labels, the network on "
        f"{len(valid_keys)} new validation shapes: {run.best_valid:.2%} wrong")
    return results


def size_balanced_chances(keys, exponent):
    """Each shape's chance of being drawn, proportional to (number of `keys` with its cell
    count) ** -exponent; None for exponent 0 (every shape once an epoch). At 1 every cell
    count gets the same share of the draws; at 0.5 a shape of a count 100x rarer is drawn
    10x as often as one of the common count."""
    if not exponent:
        return None
    _, _, cells = key_shape(keys)
    counts = np.bincount(cells)
    weights = counts[cells].astype(np.float64) ** -float(exponent)
    return weights / weights.sum()


@contextlib.contextmanager
def _steps(config, network, optimizer, frame, needed):
    """The run's training step (None if no epoch is left): in this process, or shared by
    --workers processes (`nn/parallel.py`), which leaving the block stops."""
    if not needed:
        yield None
    elif config.workers == 1:
        yield step_function(network, optimizer, frame, config.option_weight, loop_extra=config.loop_extra)
    else:
        with SplitStep(network, optimizer, frame, config.workers, config.batch,
                       config.flush_denormals, config.loop_extra) as step:
            yield step


def _moved(per_cell, which):
    """(batch, cells) arrays with each row's cells moved by its symmetry (None: as they are)."""
    return per_cell if which is None else np.take_along_axis(per_cell, which, axis=1)


def _check_start(config, start, network, rows, cols):
    """The --init model against this run's board and network, before any work."""
    if (start.rows, start.cols) != (rows, cols):
        raise FlipnetError(f"{config.init} reads {start.rows}x{start.cols} boards; {config.data} holds {rows}x{cols}")
    if start.network.option_head and not network.option_head:
        raise FlipnetError(f"{config.init} has an option head; this run has none: set --option-weight")
    if _sizes(start.network) != _sizes(network):
        sizes = ", ".join(f"{k}={v}" for k, v in _sizes(start.network).items() if k != "n_classes")
        raise FlipnetError(f"{config.init} has a network of {sizes}; this run's differs: set "
                           "--channels, --layers, --hidden, --loop-steps, --global-pool, "
                           "--equivariant, --residual-gates and --size-blind to match")


def _sizes(network):
    """A network's sizes: an option head may be added to one that had none (it starts fresh)."""
    return {k: v for k, v in network.architecture().items() if k != "option_head"}


def _drawn(config, start, table, rows, cols):
    """{"keys", "values", "report"} of the drawn shapes and their 1-ply labels (none
    without --draw or --draw-boards); the report says where they came from and what they
    cost. The data's board is drawn from the stream [seed, 2], each --draw-boards size
    from its own, [seed, 2, rows, cols]; a shape already drawn is not drawn again."""
    draws = ([(rows, cols, config.draw, ())] if config.draw else []) + \
        [(r, c, n, (r, c)) for r, c, n in config.board_draws()]
    keys, values, by_board = [np.zeros(0, np.uint64)], [np.zeros(0, np.int64)], {}
    if not draws:
        return {"keys": keys[0], "values": values[0], "report": {}}
    tick = time.perf_counter()
    for r, c, n_boards, stream in draws:
        new = draw_shapes(r, c, n_boards, config.seed, np.concatenate([table.keys, *keys]), stream)
        values.append(one_ply_labels(start.for_board(r, c), new, f"1-ply labels, {r}x{c} shapes",
                                     config.workers))
        keys.append(new)
        by_board[f"{r}x{c}" + ("" if stream == () else " (--draw-boards)")] = \
            {"boards": n_boards, "shapes": int(new.size)}
    keys, values = np.concatenate(keys), np.concatenate(values)
    report = {"drawn_boards": config.draw, "drawn_shapes": int(keys.size),
              "drawn_labels": f"the 1-ply soft mex of {config.init} (its table and network)",
              "label_seconds": time.perf_counter() - tick}
    if config.draw_boards:
        report["drawn_by_board"] = by_board
    return {"keys": keys, "values": values, "report": report}


def _results(config, model, split, run, n_valid_shapes, elapsed_now):
    """What `train.train` reports, for the table + network on positions, and the
    selection criterion beside it."""
    valid_states, valid_labels = evaluated(split.valid, config.eval_batch)
    test_states, test_labels = evaluated(split.test, config.eval_batch)
    predicted = model(test_states)
    counts = confusion(np.minimum(predicted, model.n_classes - 1), test_labels, model.n_classes)
    epoch_seconds = [c["seconds"] for c in run.curve]
    return {
        "model": NAME, "name": config.name, "recipe": config.recipe,
        "config": dataclasses.asdict(config),
        "overrides": {k: {"recipe": a, "run": b} for k, (a, b) in overrides(config).items()},
        "paper_protocol": paper_protocol(config), "seed": config.seed, "bucket": config.bucket,
        "board": f"{model.rows}x{model.cols}", "sizes": split.sizes(),
        "evaluated": {"valid": len(valid_states), "test": len(test_states)},
        "parameters": int(model.network.n_parameters()),
        "shapes_known": int(len(model.table.keys)),
        "selection": f"the epoch with the fewest errors on the {n_valid_shapes} shapes of validation "
                     f"positions the training labels leave open (valid_shape_error)",
        "valid_shape_error": run.best_valid,
        "curve": run.curve, "epochs_run": run.epoch, "stopped_early": run.epoch < config.epochs,
        "best_epoch": run.best_epoch, "best_at": run.best_at,
        "valid_error": error_rate(model(valid_states), valid_labels),
        "test_error": error_rate(predicted, test_labels),
        "baseline_test_error": majority_error(split.train[1], test_labels),
        "per_class_test_error": per_class_error(counts), "confusion": counts.tolist(),
        "seconds": run.total_seconds(elapsed_now),
        "train_seconds": float(sum(epoch_seconds)),
        "seconds_per_epoch": float(np.median(epoch_seconds[1:] or epoch_seconds)) if epoch_seconds else 0.0,
        **shape_split_errors(model.rows, model.cols, split.train[0], test_states, predicted != test_labels,
                             model.drawn),
    }
