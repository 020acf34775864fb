"""convmem2d's run: the lookup table from the training labels, then a masked convolution
trained on the table's shapes and values.

Training on shapes instead of positions: a position's loss reaches a component network
only through the XOR of all its components, while the table already spells out 170k
shape values of the 5x5 training positions, and 14x fewer examples. Validation is what
the network is for: the shapes the table lacks that are the only such component of some
validation position, valued as that position's label XOR the table's values of its
other components. The epoch is chosen there; test figures are on test positions, as
for every run. Checkpoints, resume and Ctrl-C: the shared epoch loop (`training/loop.py`).

With `init`, the network starts from another convmem2d model's; with `draw`, it is also
taught the new shapes of random boards, valued by that model's 1-ply mex (`drawn.py`).
The labels are made again on `--resume`, from the same file and seed: the same labels.
"""

import contextlib
import dataclasses
import time

import numpy as np
import pytensor
import pytensor.tensor as pt

from flipnet.base.denormals import flushed
from flipnet.base.errors import FlipnetError
from flipnet.base.files import write_json
from flipnet.datasets import locate, read_split
from flipnet.datasets.components import Components
from flipnet.datasets.symmetry import cell_maps
from flipnet.nn import FLOAT, in_float
from flipnet.nn.components.convmem import NAME, ConvMemory
from flipnet.nn.components.drawn import draw_shapes, one_ply_labels
from flipnet.nn.components.layouts import LiveCells
from flipnet.nn.components.lookup import ShapeLookup
from flipnet.nn.components.maskconv import MaskedConvNet, render_cells
from flipnet.nn.components.parallel import SplitStep
from flipnet.nn.core import optim
from flipnet.nn.core.layers import mean_cross_entropy
from flipnet.nn.core.metrics import error_rate
from flipnet.nn.training import loop
from flipnet.nn.training.loop import claimed
from flipnet.nn.training.record import results_record


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


@in_float
def step_function(network, optimizer, side, layout=LiveCells):
    """f(cells (batch, side^2), values (batch,), lr) -> loss: one optimizer step.
    `layout` (`nn/components/layouts.py`): where the network's rows are; the live cells by default."""
    shapes = layout(side)
    values = pt.vector("values", dtype="int64")
    lr = pt.scalar("lr", dtype=FLOAT)
    loss = mean_cross_entropy(network.logits_in(shapes), values)
    new_params, new_state = optimizer.step(network.params, pt.grad(loss, network.params), optimizer.state, lr)
    updates = list(zip(network.params + optimizer.state, new_params + new_state))
    fn = pytensor.function([*shapes.inputs, values, lr], loss, updates=updates)
    return lambda cells, values, lr: fn(*shapes.feed(cells), values, lr)


def train_shapes(config, resume=False, overwrite=False, log=print):
    """`flipnet train convmem2d`: results/NAME.json, .npz and .ckpt.npz, as the trainer on
    positions writes them (`paper/train.py`)."""
    started = time.perf_counter()
    config.check()
    start, start_meta = ConvMemory.read(config.init) if config.init else (None, {})
    split = read_split(locate(config.data), config.bucket)
    rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
    if rows == 1:
        raise FlipnetError(f"{config.data} holds single rows; {NAME} reads 2D boards")
    if config.validate_every:
        raise FlipnetError(f"{NAME} validates at the end of each epoch only: drop --validate-every")
    network = MaskedConvNet(config.seed, **{k: v for k, v in config.architecture().items() if v},
                            residual_gates=config.residual_gates)
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
        run = loop.start(config, network, optimizer, resume, log)
        taught = np.concatenate([table.keys, drawn["keys"]])
        frame = model.side  # holds every taught shape
        cells = render_cells(taught, frame)
        values = np.concatenate([table.values, drawn["values"]]).astype(np.int64)
        images = np.stack(cell_maps(frame, frame))

        with _steps(config, network, optimizer, frame, run.epoch < config.epochs) as step:
            def steps(order, lr):
                """The epoch's minibatches of shapes, one optimizer step each."""
                batches = order.reshape(n_batches, config.batch)

                def part(first, stop):
                    loss_sum = 0.0
                    for batch in batches[first:stop]:
                        run.stop_if_asked()
                        batch_cells = cells[batch]
                        if config.augment == "symmetry":  # each shape moved by its own symmetry
                            which = images[run.rng.integers(len(images), size=len(batch))]
                            batch_cells = np.take_along_axis(batch_cells, which, axis=1)
                        loss_sum += float(step(batch_cells, values[batch], lr))
                    return loss_sum
                return part

            loop.run_epochs(config, run, network, optimizer, started, len(cells), steps, validate, digits=2)

        network.set_values(run.best_params)
        results = _results(config, model, split, run, len(valid_keys), time.perf_counter() - started)
        results.update(drawn["report"])
        # the whole chain's time: this run's and the starting model's (which may have one too)
        results["pipeline_seconds"] = results["seconds"] + drawn["report"].get("init_pipeline_seconds", 0.0)
        model.save(config.path(".npz"), {"config": dataclasses.asdict(config), "best_epoch": run.best_epoch,
                                         "pipeline_seconds": results["pipeline_seconds"]})
        write_json(config.path(".json"), results)
    log(f"{config.name}: {len(table.keys)} shapes from the training labels, the network on "
        f"{len(valid_keys)} new validation shapes: {run.best_valid:.2%} wrong")
    return results


@contextlib.contextmanager
def _steps(config, network, optimizer, frame, needed):
    """The run's training step (None if no epoch is left): in this process, or shared by
    --workers processes (`nn/components/parallel.py`), which leaving the block stops."""
    if not needed:
        yield None
    elif config.workers == 1:
        yield step_function(network, optimizer, frame)
    else:
        with SplitStep(network, optimizer, frame, config.workers, config.batch, config.flush_denormals) as step:
            yield step


def _check_start(config, start, network, rows, cols):
    """The --init model against this run's board and network, before any work."""
    if (start.rows, start.cols) != (rows, cols):
        raise FlipnetError(f"{config.init} reads {start.rows}x{start.cols} boards; {config.data} holds {rows}x{cols}")
    if start.network.architecture() != network.architecture():
        sizes = ", ".join(f"{k}={v}" for k, v in start.network.architecture().items() if k != "n_classes")
        raise FlipnetError(f"{config.init} has a network of {sizes}; this run's differs: set "
                           "--channels, --layers, --hidden and --residual-gates to match")


def _drawn(config, start, table, rows, cols):
    """{"keys", "values", "report"} of the drawn shapes and their 1-ply labels (none
    without --draw); the report says where they came from and what they cost. The boards
    are drawn from the stream [seed, 2]."""
    if not config.draw:
        return {"keys": np.zeros(0, np.uint64), "values": np.zeros(0, np.int64), "report": {}}
    tick = time.perf_counter()
    keys = draw_shapes(rows, cols, config.draw, config.seed, table.keys)
    values = one_ply_labels(start.for_board(rows, cols), keys, f"1-ply labels, {rows}x{cols} shapes", config.workers)
    report = {"drawn_boards": config.draw, "drawn_shapes": int(keys.size),
              "drawn_labels": f"the 1-ply soft mex of {config.init} (its table and network)",
              "label_seconds": time.perf_counter() - tick}
    return {"keys": keys, "values": values, "report": report}


def _results(config, model, split, run, n_valid_shapes, elapsed_now):
    """What the trainer on positions reports, for the table + network on positions, and the
    selection criterion beside it."""
    reports = {"parameters": int(model.network.n_parameters()), "shapes_known": int(len(model.table.keys)),
               "selection": f"the epoch with the fewest errors on the {n_valid_shapes} shapes of validation "
                            f"positions the training labels leave open (valid_shape_error)",
               "valid_shape_error": run.best_valid}
    return results_record(config, model, split, model, run.total_seconds(elapsed_now), run, reports=reports,
                          drawn=model.drawn)
