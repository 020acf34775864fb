"""Where a convmem2d network errs, by a shape's number of cells: on the shapes it was
taught (the table's) beside the new shapes of validation positions.

Side by side the two columns say what the network lacks. Errors on new shapes far above
those on taught ones mean it memorises (more data or regularisation would help); the same
errors on both mean it underfits (a network that fits better would help: depth, epochs).
The taught column reads a seeded sample of the table, since all 170,305 5x5 shapes
through 8 symmetries take minutes; the new column reads every validation shape the table
lacks that its position's label values exactly (`new_shape_values`). No test label.
"""

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.datasets import read_split
from flipnet.datasets.components import key_shape
from flipnet.nn.components.convmem import ConvMemory
from flipnet.nn.components.shapetrain import new_shape_values
from flipnet.nn.core.kinds import read_model
from flipnet.nn.evaluation.evaluate import trained_data


def errors_by_size(model, split, sample=20_000, seed=0):
    """{"sizes": [{cells, taught, taught_error, new, new_error}], the totals, the sample}
    of a convmem2d `model` (its network alone, the table not consulted) on `split`."""
    table = model.table
    picked = np.sort(np.random.default_rng(seed).choice(
        len(table.keys), min(sample, len(table.keys)), replace=False))
    columns = {"taught": (table.keys[picked], table.values[picked]),
               "new": new_shape_values(table, *split.valid, model.rows, model.cols)}
    wrong_by = {name: (key_shape(keys)[2], model.network_probabilities(keys).argmax(axis=1) != values)
                for name, (keys, values) in columns.items()}
    sizes = []
    for n in np.unique(np.concatenate([cells for cells, _ in wrong_by.values()])):
        row = {"cells": int(n)}
        for name, (cells, wrong) in wrong_by.items():
            at = cells == n
            row[name], row[f"{name}_error"] = int(at.sum()), _mean(wrong[at])
        sizes.append(row)
    return {"model": model.name, "sample": int(picked.size), "table_shapes": int(len(table.keys)),
            "seed": seed, "sizes": sizes,
            **{f"{name}_error": _mean(wrong) for name, (_, wrong) in wrong_by.items()},
            **{name: int(wrong.size) for name, (_, wrong) in wrong_by.items()}}


def errors_by_size_file(model_file, data=None, bucket=None, sample=20_000, seed=0):
    """`errors_by_size` of a saved convmem2d model on the split it was trained on (or
    `data`); every check before the split is read."""
    if sample < 1:
        raise FlipnetError(f"--sample must be at least 1, got {sample}")
    model, meta = read_model(model_file)
    if not isinstance(model, ConvMemory):
        raise FlipnetError(f"errors by size read a convmem2d model (a table and a network); "
                           f"{model.name} is not one")
    trained, data, bucket = trained_data(model_file, meta, data, bucket)
    split = read_split(data, bucket)
    if (int(split.attrs["rows"]), int(split.attrs["cols"])) != (model.rows, model.cols):
        raise FlipnetError(f"{data} holds {split.attrs['rows']}x{split.attrs['cols']} boards; "
                           f"{model_file} was trained on {model.rows}x{model.cols}")
    return {"run": trained.get("name") or model.name, "file": str(model_file), "data": str(data),
            "bucket": bucket, **errors_by_size(model, split, sample, seed)}


def header(record):
    """The line above `table_lines`: what was measured, on what."""
    return (f"{record['run']} on {record['data']} (bucket {record['bucket']}): the network's errors "
            f"by cells, on {record['sample']} of the table's {record['table_shapes']} taught shapes "
            f"(seed {record['seed']}) and on the {record['new']} new shapes of validation positions")


def table_lines(record):
    """The record as aligned text: one line per size, then the totals."""
    def pct(x):
        return "-" if x is None else f"{x:.1%}"

    lines = [f"{'cells':>5} {'taught':>7} {'error':>6} {'new':>7} {'error':>6}"]
    for row in record["sizes"]:
        lines.append(f"{row['cells']:>5} {row['taught']:>7} {pct(row['taught_error']):>6} "
                     f"{row['new']:>7} {pct(row['new_error']):>6}")
    lines.append(f"{'all':>5} {record['taught']:>7} {pct(record['taught_error']):>6} "
                 f"{record['new']:>7} {pct(record['new_error']):>6}")
    return lines


def _mean(wrong):
    return float(wrong.mean()) if wrong.size else None
