"""The component models beside their no-learning baseline (`make beyond`, then `make compare`).

Reads the evaluations `make beyond` writes, `results/eval-MODEL-BOARD[-1ply].json`: each
model alone and with one ply of lookahead (the mex over the model's own values of the
children, used only on shapes it never met), on the 5x5 test set (split by positions made
of known shapes and positions holding a new one) and on the sampled 6x6 and 7x7 boards,
which no model trained on. `lookup2d` is the baseline: shape values read from training
labels, no learning. A figure that is missing is shown as `-`; a model with no evaluation
at all is named below the table, with the command that makes them.
"""

import textwrap

from flipnet.base.files import read_json
from flipnet.report.sources import result_files

BEST = "convmem2d-gated12-80-distil6m-r2"
# the models of record, each with its 1-ply row (the steps between convmem2d and the best
# model are in docs/findings.md)
MODELS = (
    ("lookup2d", "training labels' shape values, else the size's commonest value"),
    ("xormem2d", "a network on a 5x5 frame's cells + a memory of training shapes"),
    ("featmem2d", "size-free, on shape descriptions + the memory"),
    ("convmem2d", "size-free, the lookup table + a masked convolution for the rest"),
    (BEST, "convmem2d with 12 gated layers, taught its own one ply on random boards' shapes"),
)
LARGE = ("6x6", "7x7")
DENSITY = "density 0.5"


def _eval(files, model, board, one_ply):
    path = files.path(f"eval-{model}-{board}{'-1ply' if one_ply else ''}.json")
    return read_json(path, "evaluation") if path is not None else None


def _pct(x):
    return "-" if x is None else f"{100 * x:.2f}%"


def _large_cell(errors):
    """A larger board's error; where the evaluation split it, the error on positions whose
    components all fit the training board and on those holding a larger one."""
    cell = _pct(errors.get("error"))
    if errors.get("share_beyond_training_board") is not None:
        cell += (f"; {_pct(errors['error_within_training_board'])} / "
                 f"{_pct(errors['error_beyond_training_board'])} "
                 f"({errors['share_beyond_training_board']:.1%})")
    return cell


def _row(files, model, one_ply):
    small = _eval(files, model, "5x5", one_ply)
    test = (small or {}).get("parts", {}).get("test", {})
    large, evaluated = [], small is not None
    for board in LARGE:
        record = _eval(files, model, board, one_ply)
        large.append(_large_cell((record or {}).get("parts", {}).get(DENSITY, {})))
        evaluated |= record is not None
    trained = files.path(f"{model}.json")
    run = read_json(trained, "results file") if trained is not None else {}
    valid = run.get("valid_error")
    epochs = f"epoch {run.get('best_epoch', '?')} of {run.get('config', {}).get('epochs', '?')}"
    chosen = ("no training" if model == "lookup2d" else
              f"{epochs} by validation ({_pct(valid)})" if run else "-")
    if "valid_shape_error" in run:  # chosen on the validation shapes the table lacks
        chosen = f"{epochs} by new validation shapes ({_pct(run['valid_shape_error'])})"
    rule = " of most likely values" if (small or {}).get("lookahead") == "hard" else ""
    name = f"`{model}`" + (f" + 1-ply mex{rule}" if one_ply else "") + (
        " (shipped)" if files.is_shipped(trained) else "")
    return (f"| {name} | {_pct(test.get('error'))} | {_pct(test.get('error_known_shapes'))} | "
            f"{_never_drawn(test)} | {_drawn(test)} | {large[0]} | {large[1]} | {chosen} |"), evaluated


def _never_drawn(test):
    """The error on positions holding a shape that neither the training labels nor the
    model's own drawn boards hold (for a model that drew none: every new shape), and
    their share."""
    if "error_new_shapes_not_drawn" in test:
        error, share = test["error_new_shapes_not_drawn"], test["share_new_shapes_not_drawn"]
    else:
        error, share = test.get("error_new_shapes"), test.get("share_new_shapes")
    return _pct(error) + (f" ({share:.1%})" if share else "")


def _drawn(test):
    """The error on positions whose new shapes the model all drew and labelled itself."""
    if "error_new_shapes_all_drawn" not in test:
        return "none drawn"
    share = test["share_new_shapes"] - test["share_new_shapes_not_drawn"]
    return _pct(test["error_new_shapes_all_drawn"]) + f" ({share:.1%})"


def markdown(results_dir="results"):
    """The table, or '' when no evaluation has been run; `results_dir`: a folder, or a
    ResultFiles that falls back on the shipped results."""
    rows, missing, files = [], [], result_files(results_dir)
    for model, _ in MODELS:
        lines = [_row(files, model, one_ply) for one_ply in (False, True)]
        if any(evaluated for _, evaluated in lines):
            rows += [line for line, _ in lines]
        else:
            missing.append(f"`{model}`")
    if not rows:
        return ""
    header = ["### Beyond the paper: shapes and boards never seen in training", "",
              "A shape is *seen* when the training labels fix its value, *drawn* when the model met it",
              "on random boards it labelled itself (its own one ply).", "",
              "| model | 5x5 test | known shapes | new, never drawn | new, drawn only | 6x6, d=0.5 | "
              "7x7, d=0.5 | how chosen |",
              "|---|---|---|---|---|---|---|---|"]
    legend = [
        "",
        "Shares of the test set in brackets. 6x6 and 7x7: random boards (`make data-large`), never",
        "trained on. 1-ply rows: the mex of the model's own values of the children, on unseen shapes.",
        "No exact value is read at prediction time; docs/findings.md has the rest.",
        *([f"Not evaluated here yet (`make beyond`): {', '.join(missing)}."] if missing else []),
        *textwrap.wrap("Models: " + "; ".join(f"`{m}`, {text}" for m, text in MODELS) + ".", 95)]
    return "\n".join(header + rows + legend) + "\n"
