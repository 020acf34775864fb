"""Error rates, per-class errors and confusion matrices of predictions."""

import numpy as np

from flipnet.base.errors import FlipnetError


def evaluated(part, eval_batch=0):
    """(states, labels) an error is measured on: all of them, or with `eval_batch`, whole
    minibatches of that size only (the scripts' n // batch batches; the remainder, the
    largest states of the set, is never evaluated)."""
    states, labels = part
    if eval_batch:
        keep = len(states) // eval_batch * eval_batch
        if len(states) and not keep:
            raise FlipnetError(f"--eval-batch {eval_batch} is more than the {len(states)} positions it would "
                               f"measure: no error would be measured (--eval-batch 0 measures them all)")
        return states[:keep], labels[:keep]
    return states, labels


def error_rate(predicted, labels):
    return float(np.mean(np.asarray(predicted) != np.asarray(labels))) if len(labels) else float("nan")


def majority_error(train_labels, test_labels):
    """The no-learning baseline: the error of always answering the most common training value."""
    if not len(test_labels):
        return float("nan")
    return error_rate(np.full(len(test_labels), np.bincount(train_labels).argmax()), test_labels)


def confusion(predicted, labels, n_classes):
    """counts[true class, predicted class]."""
    counts = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(counts, (np.asarray(labels, dtype=np.int64), np.asarray(predicted, dtype=np.int64)), 1)
    return counts


def per_class_error(counts):
    """{class: error among the states of that class} for the classes present."""
    totals = counts.sum(axis=1)
    return {str(c): float(1 - counts[c, c] / totals[c]) for c in range(len(counts)) if totals[c]}
