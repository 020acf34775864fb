"""The component models beside their no-learning baseline (`make beyond`, then `make compare`).

Reads the evaluations `make beyond` writes, `results/eval-MODEL-BOARD[-1ply].json`: each
model alone and with one ply of lookahead (the mex over the model's own values of the
children, used only on shapes it never met), on the 5x5 test set (split by positions made
of known shapes and positions holding a new one) and on the sampled 6x6 and 7x7 boards,
which no model trained on. `lookup2d` is the baseline: shape values read from training
labels, no learning. A figure that is missing is shown as `-` with the command behind it.
"""

from pathlib import Path

from flipnet.base.files import read_json

MODELS = (
    ("lookup2d", "no learning: shape values read from training labels, unseen shapes get "
                 "their size's most common value"),
    ("xormem2d", "network on the cells of a 5x5 frame + memory of training shapes"),
    ("featmem2d", "size-free network on shape descriptions + memory of training shapes"),
    ("convmem2d", "size-free: the lookup table where the training labels fix a shape's value, a masked "
                  "convolution over the shape's cells (trained on the table) for the rest"),
    ("convmem2d-deep", "convmem2d with 8 residual layers instead of 4"),
    ("convmem2d-deep48", "convmem2d-deep trained for 48 epochs instead of 24"),
    ("convmem2d-deep12", "convmem2d-deep48 with 12 residual layers over 56 epochs, in the hour the "
                         "live-cell step leaves room for"),
    ("convmem2d-gated12", "convmem2d-deep12 with each residual branch behind a learnt gate that "
                          "starts at zero (ReZero)"),
    ("convmem2d-gated12-distil6m", "convmem2d-gated12 trained 8 epochs more with the new shapes of "
                                   "6M seeded random 5x5 boards, valued by its own 1-ply mex (no "
                                   "label beyond the training ones)"),
    ("convmem2d-gated12-80-distil6m-r2", "the same on two processes (--workers 2), so convmem2d-gated12 "
                                         "trains 80 epochs, then that distillation and a second round "
                                         "valued by its result's own 1-ply mex, all within the hour "
                                         "(make train-2d-best)"),
    ("xormem2d+featmem2d", "the xormem2d and featmem2d networks, their shape distributions "
                           "multiplied (normalised geometric mean); reads 5x5 only, as xormem2d"),
)
LARGE = ("6x6", "7x7")
DENSITY = "density 0.5"


def _eval(results_dir, model, board, one_ply):
    path = Path(results_dir) / f"eval-{model}-{board}{'-1ply' if one_ply else ''}.json"
    return read_json(path, "evaluation") if path.exists() else None


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


def _row(results_dir, model, one_ply):
    small = _eval(results_dir, model, "5x5", one_ply)
    test = (small or {}).get("parts", {}).get("test", {})
    large, evaluated = [], small is not None
    for board in LARGE:
        record = _eval(results_dir, model, board, one_ply)
        large.append(_large_cell((record or {}).get("parts", {}).get(DENSITY, {})))
        evaluated |= record is not None
    trained = Path(results_dir) / f"{model}.json"
    run = read_json(trained, "results file") if trained.exists() else {}
    valid = run.get("valid_error")
    epochs = f"epoch {run.get('best_epoch', '?')} of {run.get('config', {}).get('epochs', '?')}"
    chosen = ("no training" if model == "lookup2d" else
              f"{epochs} by validation ({_pct(valid)})" if run else "-")
    if "valid_shape_error" in run:  # chosen on the validation shapes the table lacks
        chosen = f"{epochs} by new validation shapes ({_pct(run['valid_shape_error'])} wrong)"
    if "+" in model:  # an ensemble: no run of its own
        valid = (small or {}).get("parts", {}).get("valid", {}).get("error")
        chosen = (f"the runs above; the geometric mean chosen on validation ({_pct(valid)}) over either "
                  f"alone and the arithmetic mean")
    rule = " of most likely values" if (small or {}).get("lookahead") == "hard" else ""
    name = f"`{model}`" + (f" + 1-ply mex{rule}" if one_ply else "")
    share = test.get("share_new_shapes")
    new = _pct(test.get("error_new_shapes")) + (f" ({share:.1%} of positions)" if share else "")
    if "error_new_shapes_not_drawn" in test:
        new += (f"; not drawn: {_pct(test['error_new_shapes_not_drawn'])} "
                f"({test['share_new_shapes_not_drawn']:.1%})")
    return (f"| {name} | {_pct(test.get('error'))} | {_pct(test.get('error_known_shapes'))} | {new} "
            f"| {large[0]} | {large[1]} | {chosen} |"), evaluated


def markdown(results_dir="results"):
    """The table, or '' when no evaluation has been run."""
    rows, seen = [], False
    for model, _ in MODELS:
        lines = [_row(results_dir, model, one_ply) for one_ply in (False, True)]
        rows += [line for line, _ in lines]
        seen |= any(evaluated for _, evaluated in lines)
    if not seen:
        return ""
    header = ["### Beyond the paper: values of shapes and boards never seen in training", "",
              "| model | 5x5 test | known shapes | new shapes | 6x6, d=0.5 | 7x7, d=0.5 | how chosen |",
              "|---|---|---|---|---|---|---|"]
    legend = [
        "", "Hand-coded in every row: the split into connected components, their canonical form "
        "under the 8 symmetries and the XOR of their values (Sprague-Grundy). Learnt: the value "
        "of each shape. 6x6 and 7x7: random boards, each cell full with probability 0.5 "
        "(`make data-large`), never trained on; after a semicolon, the error on positions "
        "whose components all fit a 5x5 box / on those holding a larger shape, which no "
        "training position can hold (their share); `-` where a model cannot read the board or "
        "the evaluation has not run (`make beyond`). The 1-ply rows use the game's moves and "
        "the mex of the model's own values of the children on shapes absent from training (the "
        "children's distributions, XOR-convolved; the most likely mex); no "
        "exact value is read at prediction time.",
        "", "Models: " + "; ".join(f"`{m}`: {text}" for m, text in MODELS) + "."]
    return "\n".join(header + rows + legend) + "\n"
