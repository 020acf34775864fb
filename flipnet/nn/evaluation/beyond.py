"""Where a size-free convmem2d network errs on shapes larger than any it was taught, by cells.

The distinct shapes of a sampled larger board's positions (at one density) whose box does
not fit the training board are valued exactly by the Cram solver (an analysis, never a
prediction: no model reads these values), and each size's row sets the network beside:
- the guess by size: the value the training board's table holds most often at that size
  (lookup2d's rule, the overall majority where the table has none), what the training
  labels alone say of such shapes;
- an upper reference fitted on these shapes' exact values: the value most common among
  them at that size. It reads the very values it is scored on, so no model that knows
  only the size can beat it; it is not a guess a model could make.
A network that computes values beats both; one that learnt only what size tells lands
between them or above.
"""

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.base.progress import bar
from flipnet.datasets.components import BITS, Components, key_shape, outgrows
from flipnet.datasets.sampled import read as read_sample
from flipnet.nn.components.convmem import ConvMemory
from flipnet.nn.components.lookup import N_CLASSES
from flipnet.nn.core.kinds import read_model
from flipnet.nn.evaluation.evaluate import on_board, run_config


CHUNK = 32  # shapes a solver call values: the bar moves, and Ctrl-C is heard, between calls


def shapes_beyond(keys_of_positions, board):
    """The distinct nonzero keys for which `outgrows` the `board` (rows, cols) holds."""
    keys = np.unique(np.asarray(keys_of_positions, np.uint64))
    keys = keys[keys != 0]
    return keys[outgrows(keys, board)]


def exact_values(keys, solver):
    """Each shape key's value by the Cram solver (a key holds its canonical h x w frame),
    with a bar: a 7x7 sample's large shapes take minutes."""
    h, w, _ = key_shape(keys)
    frames = list(zip((np.asarray(keys, np.uint64) & np.uint64((1 << BITS) - 1)).tolist(),
                      h.tolist(), w.tolist()))
    values = np.empty(len(frames), np.int64)
    with bar(len(frames), "exact values", unit="shape") as line:
        for start in range(0, len(frames), CHUNK):
            part = frames[start:start + CHUNK]
            values[start:start + len(part)] = solver.component_values(part)
            line.update(len(part))
    return values


def errors_beyond(model, states, rows, cols, solver):
    """{"shapes", the three errors, "sizes": [{cells, shapes, table_shapes, the three
    errors, size_guess}]} (network, guess by size, fitted reference) of convmem2d `model` (its network alone) on the shapes of
    `states` (rows x cols positions) that do not fit the board it was trained on."""
    components = Components(rows, cols)
    keys = shapes_beyond(components.keys(components.split(states)), (model.rows, model.cols))
    if keys.size == 0:
        raise FlipnetError(f"no shape of these {rows}x{cols} positions is larger than the "
                           f"{model.rows}x{model.cols} board the model was trained on")
    exact = exact_values(keys, solver)
    guess = on_board(model, rows, cols, "the sample").network_probabilities(keys).argmax(axis=1)
    table = model.table
    cells = key_shape(keys)[2]
    table_cells = np.bincount(key_shape(table.keys)[2], minlength=cells.max() + 1)
    size_guess = table.size_guess(cells)
    fitted_wrong, sizes = 0, []
    for n in np.unique(cells):
        at = cells == n
        counts = np.bincount(exact[at], minlength=N_CLASSES)
        fitted_wrong += at.sum() - counts.max()
        sizes.append({"cells": int(n), "shapes": int(at.sum()), "table_shapes": int(table_cells[n]),
                      "network_error": float(np.mean(guess[at] != exact[at])),
                      "size_guess": int(size_guess[at][0]),
                      "size_guess_error": float(np.mean(size_guess[at] != exact[at])),
                      "fitted_reference_error": 1.0 - counts.max() / at.sum()})
    return {"shapes": int(keys.size), "network_error": float(np.mean(guess != exact)),
            "size_guess_error": float(np.mean(size_guess != exact)),
            "fitted_reference_error": float(fitted_wrong / keys.size), "sizes": sizes}


def errors_beyond_file(model_file, sample_file, density=0.5, solver=None):
    """`errors_beyond` of a saved convmem2d model on a sampled dataset's positions drawn at
    `density`; every check before the solver starts."""
    model, meta = read_model(model_file)
    if not isinstance(model, ConvMemory):
        raise FlipnetError(f"errors beyond the training board read a convmem2d model (a table and "
                           f"a network); {model.name} is not one")
    sample = read_sample(sample_file)
    densities = [float(d) for d in sample.attrs["densities"]]
    if not any(np.isclose(density, d) for d in densities):
        raise FlipnetError(f"{sample_file} holds densities {', '.join(f'{d:g}' for d in densities)}; "
                           f"not {density:g}")
    if solver is None:
        from flipnet.solve.engine import Engine, Settings

        solver = Engine(Settings(progress=False, table_log=26, workers=1, endgame="off")).search()
    rows, cols = int(sample.attrs["rows"]), int(sample.attrs["cols"])
    states, _ = sample.at(density)
    return {"run": run_config(meta).get("name") or model.name, "file": str(model_file), "data": str(sample_file),
            "board": f"{rows}x{cols}", "trained_board": f"{model.rows}x{model.cols}", "density": density,
            **errors_beyond(model, states, rows, cols, solver)}


def beyond_header(record):
    """The line above `beyond_lines`: what was measured, on what."""
    return (f"{record['run']} (trained on {record['trained_board']}) on the {record['shapes']} distinct "
            f"shapes of {record['data']}'s {record['board']} positions at density {record['density']:g} "
            f"that do not fit {record['trained_board']}, valued exactly: error of the network, of the "
            f"training table's guess by size (its value) and of an upper reference fitted on these "
            f"shapes' exact values (their most common value at each size)")


def beyond_lines(record):
    """The record as aligned text: one line per size, then the totals."""
    lines = [f"{'cells':>5} {'shapes':>7} {'taught':>7} {'network':>8} {'guess by size':>13} {'fitted ref':>10}"]
    for row in record["sizes"]:
        lines.append(f"{row['cells']:>5} {row['shapes']:>7} {row['table_shapes']:>7} "
                     f"{row['network_error']:>8.1%} {row['size_guess_error']:>8.1%} ({row['size_guess']:>2}) "
                     f"{row['fitted_reference_error']:>10.1%}")
    lines.append(f"{'all':>5} {record['shapes']:>7} {'':>7} {record['network_error']:>8.1%} "
                 f"{record['size_guess_error']:>8.1%} {'':>4} {record['fitted_reference_error']:>10.1%}")
    return lines
