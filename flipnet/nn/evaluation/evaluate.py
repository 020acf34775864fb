"""Error rates of a saved model (`flipnet evaluate`): on the parts of a table's split, or
on a sampled dataset of a larger board, per density; optionally with one ply of
lookahead for the shapes the model never met in training.

The same checks as training: the file's boards must be ones the model can read, its
labels within the model's classes; errors are measured as the run measured them (whole
minibatches only when its recipe said so). Every 2D figure is split into positions made
only of shapes met in training and positions holding a new shape; a larger board's
figures also into positions whose components all fit the training board and those
holding one that outgrows it (a shape no training position can hold); and both by the
cells of each position's largest component, where size-free networks meet sizes their
training board holds few shapes of.
"""

import numpy as np

from flipnet.base.errors import BadInput, FlipnetError
from flipnet.base.progress import bar
from flipnet.datasets import locate, read_split
from flipnet.datasets.components import (Components, beyond_board_errors, beyond_board_positions,
                                         errors_by_largest_component, largest_component_cells,
                                         new_shape_positions, split_errors)
from flipnet.datasets.sampled import FORMAT as SAMPLE_FORMAT
from flipnet.datasets.sampled import read as read_sample
from flipnet.nn.components.ensemble import ComponentEnsemble
from flipnet.nn.components.oneply import CHUNK, one_hot, one_ply_chunks
from flipnet.nn.core.metrics import error_rate, evaluated
from flipnet.nn.core.model import check_labels
from flipnet.nn.core.kinds import read_model


def on_board(model, rows, cols, where):
    """The model reading rows x cols positions: itself, or (size-free models) its copy."""
    if (rows, cols) == (model.rows, model.cols):
        return model
    if not model.size_free:
        reads = (f"{model.name} reads the cells of {model.rows}x{model.cols} shapes only (not size-free)"
                 if model.values_shapes else f"the model reads {model.rows}x{model.cols}")
        raise FlipnetError(f"{where} holds {rows}x{cols} boards; {reads}")
    return model.for_board(rows, cols)


def known_shapes(model):
    """The shapes of the model's training positions."""
    if model.known_shapes() is not None:
        return model.known_shapes()
    config = run_config(model.meta)
    split = read_split(locate(config["data"]), config.get("bucket", 0))
    return np.unique(Components(model.rows, model.cols).shapes(split.train[0]))


def predictor(model, lookahead=False, workers=1):
    """states -> values: the model alone, or with one ply of lookahead on the shapes it
    never met in training (the 'model + 1-ply mex' rows). `lookahead`: False, "soft"
    (or True: the most likely mex of the children's distributions, `nn/components/oneply.py`) or
    "hard" (the mex of the children's most likely values). The lookahead values chunks
    of shapes with a progress bar, shared with `workers` forked processes: the same
    values whatever the number."""
    if not lookahead:
        return model.predict
    if not model.values_shapes:
        raise FlipnetError(f"one ply of lookahead needs a model that values components; {model.name} does not")
    value, probs = model.shape_values, model.shape_probabilities
    if lookahead == "hard":
        probs = one_hot(value, model.n_classes)
    elif lookahead not in (True, "soft"):
        raise BadInput(f"unknown mex rule {lookahead!r}: soft or hard")
    met = known_shapes(model)
    components = model.components

    def shape_values(shapes):
        values = np.zeros(len(shapes), np.int64)
        seen = np.isin(shapes, met)
        if seen.any():
            values[seen] = value(shapes[seen])
        if not seen.all():
            new = shapes[~seen]
            with bar(len(new), "1-ply values", unit="shape") as progress:
                values[~seen] = one_ply_chunks(probs, new, CHUNK, workers,
                                               lambda _, part: progress.update(len(part)))
        return values

    if workers > 1:
        model.compile()  # once, before the forks

    return lambda states: components.position_values(states, shape_values)


def _split_errors(predicted, labels, states, model, met, trained_board=None):
    """The error, split by known and new shapes (2D), and on a larger board than the
    model's training board (`trained_board`) by whether a component outgrows it."""
    wrong = np.asarray(predicted) != np.asarray(labels)
    out = {"error": float(wrong.mean()) if wrong.size else None, "states": int(len(states))}
    if met is not None and model.rows > 1:
        drawn = model.drawn_shapes()  # convmem2d's shapes taught by 1-ply labels
        new, undrawn = new_shape_positions(model.rows, model.cols, met, states, drawn)
        out.update(split_errors(wrong, new, undrawn if len(drawn) else None))
        out.update(errors_by_largest_component(wrong, largest_component_cells(model.rows, model.cols, states)))
    if trained_board is not None and trained_board != (model.rows, model.cols):
        out.update(beyond_board_errors(wrong, beyond_board_positions(model.rows, model.cols,
                                                                     trained_board, states)))
    return out


def run_config(meta):
    """The settings a model file's run was trained with ({} where it keeps none)."""
    return meta.get("config", {}) if isinstance(meta.get("config"), dict) else {}


def trained_data(model_file, meta, data=None, bucket=None):
    """(the run's settings, dataset, bucket): `data` and `bucket` where given, else those
    the model file says it was trained on."""
    trained = run_config(meta)
    data = data or (trained.get("data") and locate(trained["data"]))
    if not data:
        raise FlipnetError(f"{model_file} does not say which dataset it was trained on: pass --data")
    return trained, data, trained.get("bucket", 0) if bucket is None else bucket


def evaluate_file(model_file, data=None, bucket=None, lookahead=False, partners=(), workers=1):
    """{"model", "data", "board", "lookahead", "parts": {name: errors}} for a table's split
    (train, valid, test) or a sample (one part per density, and the model's
    "trained_board"). With `partners` (more model files), the ensemble of all of them
    (`ComponentEnsemble`). `workers`: processes for the lookahead (the same figures)."""
    model, meta = read_model(model_file)
    if partners:
        model = ComponentEnsemble([model] + [read_model(f)[0] for f in partners],
                                  where=" and ".join(map(str, [model_file, *partners])))
    trained, data, bucket = trained_data(model_file, meta, data, bucket)
    met = known_shapes(model) if model.rows > 1 else None
    record = {"model": model.name, "file": str(model_file), "data": str(data), "lookahead": lookahead}
    if _is_sample(data):
        sample = read_sample(data)
        rows, cols = int(sample.attrs["rows"]), int(sample.attrs["cols"])
        trained_board = (model.rows, model.cols)
        record["trained_board"] = f"{model.rows}x{model.cols}"
        model = on_board(model, rows, cols, data)
        predict = predictor(model, lookahead, workers)
        parts = {}
        for density in sample.attrs["densities"]:
            states, labels = sample.at(density)
            parts[f"density {density:g}"] = _split_errors(predict(states), labels, states, model, met,
                                                          trained_board)
    else:
        split = read_split(data, bucket)
        rows, cols = int(split.attrs["rows"]), int(split.attrs["cols"])
        if (rows, cols) != (model.rows, model.cols):
            raise FlipnetError(f"{data} holds {rows}x{cols} boards; the model reads {model.rows}x{model.cols}")
        check_labels(model, split, data)
        predict = predictor(model, lookahead, workers)
        eval_batch = int(trained.get("eval_batch", 0) or 0)
        parts = {}
        for part in ("train", "valid", "test"):
            states, labels = evaluated(getattr(split, part), eval_batch if part != "train" else 0)
            parts[part] = _split_errors(predict(states), labels, states, model, met if part == "test" else None)
        record["bucket"] = bucket
    record.update(board=f"{rows}x{cols}", parts=parts)
    return record


def _is_sample(path):
    import h5py

    try:
        with h5py.File(path, "r") as f:
            return f.attrs.get("format") == SAMPLE_FORMAT
    except OSError:
        return False


__all__ = ["error_rate", "evaluate_file", "load", "predictor", "trained_data"]


def record_lines(record, how=""):
    """What `flipnet evaluate` prints: each part's error, split by known and new shapes,
    and by components that fit the training board or not, where the record has them."""
    def pct(x):
        return "-" if x is None else f"{x:.4%}"

    where = f", bucket {record['bucket']}" if "bucket" in record else ""
    lines = [f"{record['model']}{how} on {record['data']} ({record['board']}{where}):"]
    for part, e in record["parts"].items():
        split = (f"  (known shapes {pct(e['error_known_shapes'])}, new shapes {pct(e['error_new_shapes'])} "
                 f"on {e['share_new_shapes']:.1%} of positions)" if "share_new_shapes" in e else "")
        if "share_beyond_training_board" in e:
            split += (f"\n{'':24}(components that fit {record['trained_board']} "
                      f"{pct(e['error_within_training_board'])}, a larger one "
                      f"{pct(e['error_beyond_training_board'])} on {e['share_beyond_training_board']:.1%} "
                      f"of positions)")
        lines.append(f"  {part:<12} {pct(e['error']):>9} error on {e['states']} positions{split}")
    return lines
