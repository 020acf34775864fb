"""PNG figures for `flipnet compare`: learning curves, confusion matrices, class balance.

matplotlib draws off-screen (the Agg backend), so no display is needed.
"""

import numpy as np

from flipnet.base.files import atomic_path, ensure_dir


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
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


def write_all(runs, datasets, out_dir):
    """Every figure into out_dir; the paths written."""
    written = []
    if runs or datasets:
        out_dir = ensure_dir(out_dir)
    if runs:
        learning_curves(runs, out_dir / "learning-curves.png")
        confusion_matrices(runs, out_dir / "confusion.png")
        written += [out_dir / "learning-curves.png", out_dir / "confusion.png"]
    if datasets:
        class_distribution(datasets, out_dir / "class-distribution.png")
        written.append(out_dir / "class-distribution.png")
    return written
