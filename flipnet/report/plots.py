"""PNG figures for `flipnet compare`: learning curves, confusion matrices, class balance,
and the two findings a person would rather look at than read: a network's error on larger
boards' shapes by cells beside the guesses by size, and what one ply adds.

matplotlib draws off-screen (the Agg backend), so no display is needed.
"""

import contextlib
import logging
import os
import sys

import numpy as np

from flipnet.base.files import atomic_path, ensure_dir


@contextlib.contextmanager
def _stderr_silenced():
    """Nothing written to file descriptor 2 inside (a child process's writes included)."""
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    # The first use on a machine lists its fonts (fc-list) and caches the list; where that
    # cache cannot be written (a full disk) both complain on stderr, crowding out the
    # one-line error the figure's own write then ends in. Without the cache it still draws.
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    with _stderr_silenced():
        import matplotlib.font_manager  # noqa: F401 - builds the font list here, quietly
        import matplotlib.pyplot as plt
    return plt


def _label(name, result):
    """The run's name, and its model's when the name does not say it."""
    model = result.get("model", name)
    return name if name.startswith(model) else f"{name} ({model})"


def _save(fig, path):
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")


def _board(result):
    """The board a run was trained on: recorded by newer runs, else read off its data path."""
    if "board" in result:
        return result["board"]
    return "1x20" if "flip1d" in str(result.get("config", {}).get("data", "")) else "5x5"


def learning_curves(runs, path):
    """Validation error per epoch of every run, one panel per board (1x20, 5x5)."""
    plt = _pyplot()
    groups = {}
    for name, result in sorted(runs.items()):
        groups.setdefault(_board(result), []).append((name, result))
    fig, axes = plt.subplots(1, len(groups), figsize=(6.5 * len(groups), 4.2), squeeze=False)
    for ax, (title, members) in zip(axes[0], groups.items()):
        for name, result in members:
            epochs = [c["epoch"] for c in result["curve"]]
            errors = [100 * c["valid_error"] for c in result["curve"]]
            ax.plot(epochs, errors, label=f"{_label(name, result)} (test {100 * result['test_error']:.2f}%)", lw=1.2)
        # log scale down to 0.1%, linear below it, so runs that reach 0 still show
        ax.set_yscale("symlog", linthresh=0.1, linscale=0.5)
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("epoch")
        ax.set_ylabel("validation error (%), symlog: linear below 0.1%")
        ax.set_title(f"{title} board: validation error per epoch")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, title="validation curves (test error of the best epoch)", title_fontsize=8)
    _save(fig, path)
    plt.close(fig)


def confusion_matrices(runs, path):
    """Test-set confusion matrix of every run (rows: true value, columns: predicted),
    normalised per true class (each row sums to 1), so rare classes show as clearly as
    common ones; one colour bar for all."""
    plt = _pyplot()
    names = sorted(runs)
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.3 * cols, 4.0 * rows), squeeze=False)
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    fig.subplots_adjust(hspace=0.35, wspace=0.3)
    for ax, name in zip(axes.flat, names):
        counts = np.asarray(runs[name]["confusion"], dtype=float)
        used = np.flatnonzero(counts.sum(axis=0) + counts.sum(axis=1))
        top = int(used.max()) + 1 if used.size else 1
        counts = counts[:top, :top]  # classes no state has and no prediction used
        share = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        image = ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
        ax.set_title(f"{_label(name, runs[name])}: test {100 * runs[name]['test_error']:.2f}%", fontsize=9)
        ax.set_xlabel("predicted value")
        ax.set_ylabel("true value")
        ticks = np.arange(counts.shape[0])
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
    fig.suptitle("test confusion, normalised per true class (row sums 1)", fontsize=10)
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="share of the true class")
    _save(fig, path)
    plt.close(fig)


def class_distribution(datasets, path):
    """How many states have each nim-value, per dataset (log scale: the top classes are rare)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(datasets), figsize=(5.5 * len(datasets), 3.8), squeeze=False)
    for ax, (title, counts) in zip(axes[0], datasets.items()):
        values = np.arange(len(counts))
        ax.bar(values, counts, color="#4477aa")
        ax.set_yscale("log")
        ax.set_ylim(top=np.max(counts) * 40)  # room for the labels above the bars
        ax.set_xticks(values)
        ax.set_xlabel("nim-value")
        ax.set_ylabel("states")
        ax.set_title(f"{title}: {int(np.sum(counts)):,} states")
        for v, c in zip(values, counts):
            ax.text(v, c, f"{int(c):,}", ha="center", va="bottom", fontsize=7, rotation=90)
    _save(fig, path)
    plt.close(fig)


def error_by_size(records, path):
    """One panel per larger board: the error on its shapes that no 5x5 board holds, by
    cells, of the network, of the 5x5 table's guess by size and of the upper reference
    fitted on those very shapes' exact values. `records`: board -> the record of
    `flipnet by-size --beyond`."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(records), figsize=(5 * len(records), 3.6), squeeze=False, sharey=True)
    for ax, (board, record) in zip(axes[0], sorted(records.items())):
        cells = [row["cells"] for row in record["sizes"]]
        for key, label, style in (("network_error", record["run"], "o-"),
                                  ("size_guess_error", "guess by size (the 5x5 table's)", "s--"),
                                  ("fitted_reference_error", "upper reference fitted on these shapes", "^:")):
            ax.plot(cells, [100 * row.get(key, np.nan) for row in record["sizes"]], style, label=label,
                    markersize=3)
        ax.set_title(f"{board}, d = {record['density']:g}: {record['shapes']:,} shapes larger than 5x5 holds",
                     fontsize=9)
        ax.set_xlabel("cells of the shape")
        ax.set_ylim(0, 100)
    axes[0][0].set_ylabel("% valued wrong")
    axes[0][0].legend(fontsize=7)
    _save(fig, path)
    plt.close(fig)


def one_ply_gain(rows, path):
    """Grouped bars: each model's error alone and with one ply, on each board.
    `rows`: [(model, board, error alone, error with one ply)]."""
    plt = _pyplot()
    boards = list(dict.fromkeys(board for _, board, _, _ in rows))
    models = list(dict.fromkeys(model for model, _, _, _ in rows))
    fig, axes = plt.subplots(1, len(boards), figsize=(4.2 * len(boards), 3.6), squeeze=False)
    for ax, board in zip(axes[0], boards):
        at = {model: (alone, ply) for model, b, alone, ply in rows if b == board}
        x = np.arange(len(models))
        ax.bar(x - 0.2, [100 * at.get(m, (np.nan, np.nan))[0] for m in models], 0.4, label="alone")
        ax.bar(x + 0.2, [100 * at.get(m, (np.nan, np.nan))[1] for m in models], 0.4, label="+ 1-ply mex")
        ax.set_xticks(x)
        ax.set_xticklabels(models, rotation=30, ha="right", fontsize=7)
        ax.set_title(board, fontsize=9)
    axes[0][0].set_ylabel("% of positions wrong")
    axes[0][0].legend(fontsize=7)
    _save(fig, path)
    plt.close(fig)


def findings_inputs(results_dir, model):
    """What the two findings figures read from results/: the by-size records of `model`
    on the larger boards, and every model of record's errors alone and with one ply
    (5x5: positions holding a new shape; 6x6 and 7x7: density 0.5)."""
    from flipnet.base.files import read_json
    from flipnet.report.beyond import LARGE, MODELS
    from flipnet.report.sources import result_files

    files = result_files(results_dir)
    records = {board: read_json(path, "by-size record") for board in LARGE
               if (path := files.path(f"bysize-beyond-{model}-{board}.json")) is not None}
    rows = []
    for name, _ in MODELS:
        for board, part, key in (("5x5 new shapes", "test", "error_new_shapes"),
                                 *((board, "density 0.5", "error") for board in LARGE)):
            file = board.split()[0]
            pair = [files.path(f"eval-{name}-{file}{suffix}.json") for suffix in ("", "-1ply")]
            if all(p is not None for p in pair):
                alone, ply = (read_json(p, "evaluation")["parts"].get(part, {}).get(key) for p in pair)
                if alone is not None and ply is not None:
                    rows.append((name, board, alone, ply))
    return records, rows


def write_all(runs, datasets, out_dir, results_dir=None, model=None):
    """Every figure into out_dir (the findings' two where `results_dir` holds their
    inputs, for `model`); the paths written."""
    written = []
    records, rows = findings_inputs(results_dir, model) if results_dir else ({}, [])
    if runs or datasets or records or rows:
        out_dir = ensure_dir(out_dir)
    if records:
        error_by_size(records, out_dir / "error-by-size.png")
        written.append(out_dir / "error-by-size.png")
    if rows:
        one_ply_gain(rows, out_dir / "one-ply.png")
        written.append(out_dir / "one-ply.png")
    if runs:
        learning_curves(runs, out_dir / "learning-curves.png")
        confusion_matrices(runs, out_dir / "confusion.png")
        written += [out_dir / "learning-curves.png", out_dir / "confusion.png"]
    if datasets:
        class_distribution(datasets, out_dir / "class-distribution.png")
        written.append(out_dir / "class-distribution.png")
    return written
