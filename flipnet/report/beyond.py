"""The component models beside their no-learning baseline (`make beyond`, then `make compare`).

Reads the evaluations `make beyond` writes, `results/eval-MODEL-BOARD[-1ply].json`: each
model alone and with one ply of lookahead (the mex over the model's own values of the
children, used only on shapes it never met), on the 5x5 test set (split by positions made
of known shapes and positions holding a new one) and on the sampled 6x6 and 7x7 boards,
which no model trained on. `lookup2d` is the baseline: shape values read from training
labels, no learning. A figure that is missing is shown as `-`; a model with no evaluation
at all is named below the table, with the command that makes them. A trained model with
evaluated runs of other seeds (`results/eval-MODEL-seedN-...`) shows the median over its
seeds and their range, and the seeds still to run.
"""

import textwrap

import numpy as np

from flipnet.base.files import read_json
from flipnet.report.sources import result_files

BEST = "convmem2d-gated12-80-distil6m-r2"
# the models of record, each with its 1-ply row (the steps between convmem2d and the best
# model are in docs/findings.md)
MODELS = (
    ("lookup2d", "training labels' shape values, else the size's commonest value"),
    ("xormem2d", "a 5x5-frame network + a memory of training shapes"),
    ("featmem2d", "size-free, on shape descriptions + the memory"),
    ("convmem2d", "the lookup table + a size-free masked convolution"),
    (BEST, "convmem2d, 12 gated layers, taught its own one ply"),
)
LARGE = ("6x6", "7x7")
DENSITY = "density 0.5"
# the runs of other seeds behind a trained model's rows (`make beyond-seeds`; the best model's
# pipeline from `make compare-seeds-best`) and the boards each is evaluated on
SEEDS = {"xormem2d": ((1, 2, 3, 4), ("5x5",)), BEST: ((1,), ("5x5", *LARGE))}


def _eval(files, model, board, one_ply):
    path = files.path(f"eval-{model}-{board}{'-1ply' if one_ply else ''}.json")
    return read_json(path, "evaluation") if path is not None else None


def _run_name(model, seed):
    return model if seed is None else f"{model}-seed{seed}"


def seeds_of(files, model):
    """([None, *seeds evaluated], [seeds to run]): None is the run of record (seed 2016); a
    seed counts once every evaluation of it is there, with and without one ply."""
    seeds, boards = SEEDS.get(model, ((), ()))
    done = [s for s in seeds if all(_eval(files, _run_name(model, s), board, one_ply) is not None
                                    for board in boards for one_ply in (False, True))]
    return [None, *done], [s for s in seeds if s not in done]


def _pct(x):
    return "-" if x is None else f"{100 * x:.2f}%"


def _median(values):
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else None


def _headline(values):
    """The median of the seeds' figures, and their range where there are several."""
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return _pct(_median(values))
    return f"{_pct(_median(values))} [{100 * min(values):.2f}..{100 * max(values):.2f}]"


def _large_cell(parts):
    """A larger board's error over the seeds' evaluations; where they split it, the error
    on positions whose components all fit the training board and on those holding a larger
    one."""
    cell = _headline([p.get("error") for p in parts])
    share = _median([p.get("share_beyond_training_board") for p in parts])
    if share is not None:
        cell += (f"; {_pct(_median([p.get('error_within_training_board') for p in parts]))} / "
                 f"{_pct(_median([p.get('error_beyond_training_board') for p in parts]))} ({share:.1%})")
    return cell


def _row(files, model, one_ply, seeds):
    """The row of a model (with one ply or not) over the evaluations of its seeds, and
    whether any evaluation of it is there."""
    def parts(board, part):
        records = [_eval(files, _run_name(model, seed), board, one_ply) for seed in seeds]
        return [r.get("parts", {}).get(part, {}) for r in records if r is not None], records[0]

    tests, small = parts("5x5", "test")
    large, evaluated = [], small is not None
    for board in LARGE:
        board_parts, record = parts(board, DENSITY)
        large.append(_large_cell(board_parts))
        evaluated |= record is not None
    trained = files.path(f"{model}.json")
    run = read_json(trained, "results file") if trained is not None else {}
    epochs = f"epoch {run.get('best_epoch', '?')} of {run.get('config', {}).get('epochs', '?')}"
    chosen = f"{epochs} by validation ({_pct(run.get('valid_error'))})"
    if "valid_shape_error" in run:  # chosen on the validation shapes the table lacks
        chosen = f"{epochs} by new validation shapes ({_pct(run['valid_shape_error'])})"
    chosen = ("no training" if model == "lookup2d" else "-" if not run else
              "the model above" if one_ply else  # the row above it names the selection
              f"seed {run.get('config', {}).get('seed', '?')}: {chosen}" +
              (f"; median of {len(seeds)} seeds" if len(seeds) > 1 else ""))
    rule = " of most likely values" if (small or {}).get("lookahead") == "hard" else ""
    name = f"`{model}`" + (f" + 1-ply mex{rule}" if one_ply else "") + (
        " (shipped)" if files.is_shipped(trained) else "")
    return (f"| {name} | {_headline([t.get('error') for t in tests])} | "
            f"{_pct(_median([t.get('error_known_shapes') for t in tests]))} | "
            f"{_never_drawn(tests)} | {_drawn(tests)} | {large[0]} | {large[1]} | {chosen} |"), evaluated


def _never_drawn(tests):
    """The error on positions holding a shape that neither the training labels nor the
    model's own drawn boards hold (for a model that drew none: every new shape), and
    their share."""
    if tests and "error_new_shapes_not_drawn" in tests[0]:
        errors = [t.get("error_new_shapes_not_drawn") for t in tests]
        share = _median([t.get("share_new_shapes_not_drawn") for t in tests])
    else:
        errors = [t.get("error_new_shapes") for t in tests]
        share = _median([t.get("share_new_shapes") for t in tests])
    return _headline(errors) + (f" ({share:.1%})" if share else "")


def _drawn(tests):
    """The error on positions whose new shapes the model all drew and labelled itself."""
    if not tests or "error_new_shapes_all_drawn" not in tests[0]:
        return "none drawn"
    share = _median([t["share_new_shapes"] - t["share_new_shapes_not_drawn"] for t in tests
                     if "share_new_shapes" in t and "share_new_shapes_not_drawn" in t])
    return _headline([t.get("error_new_shapes_all_drawn") for t in tests]) + (
        f" ({share:.1%})" if share is not None else "")


def markdown(results_dir="results"):
    """The table, or '' when no evaluation has been run; `results_dir`: a folder, or a
    ResultFiles that falls back on the shipped results."""
    rows, missing, to_run, spread, files = [], [], [], False, result_files(results_dir)
    for model, _ in MODELS:
        seeds, unrun = seeds_of(files, model)
        lines = [_row(files, model, one_ply, seeds) for one_ply in (False, True)]
        if any(evaluated for _, evaluated in lines):
            rows += [line for line, _ in lines]
            spread |= len(seeds) > 1
            if unrun:
                to_run.append(f"{model} {', '.join(map(str, unrun))}")
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
        "Shares of the test set in brackets. 6x6, 7x7: random boards (`make data-large`), never trained",
        "on. 1-ply: the mex of the model's own values of the children, on unseen shapes. No exact",
        "value is read at prediction; docs/findings.md has the rest.",
        *(["With seeds: medians over the seeds, [the range]; the name is the seed-2016 run."] if spread else []),
        *([f"Not evaluated here yet (`make beyond`): {', '.join(missing)}."] if missing else []),
        *textwrap.wrap("Models: " + "; ".join(f"`{m}`, {text}" for m, text in MODELS) + ".", 95),
        *([f"- seeds to run (`make beyond-seeds`): {'; '.join(to_run)}"] if to_run else [])]
    return "\n".join(header + rows + legend) + "\n"
