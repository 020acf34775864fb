"""Model files and training checkpoints: .npz archives written atomically.

A model file holds the parameters by name, any buffers the model derived from its
training data (a vocabulary), and a JSON `__meta__` entry (model name, board shape,
run config). A checkpoint also holds optimizer state, the best parameters
so far, the learning curve and the shuffling RNG, so a run resumes exactly.
"""

import json
from pathlib import Path

import numpy as np

from flipnet.atomic import atomic_path
from flipnet.errors import FlipnetError

META = "__meta__"


def save_npz(path, arrays, meta):
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays, **{META: np.array(json.dumps(meta))})


def load_npz(path, what="model file"):
    path = Path(path)
    if not path.exists():
        raise FlipnetError(f"{what} {path} not found")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
        meta = json.loads(str(arrays.pop(META)))
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise FlipnetError(f"{path} is not a flipnet {what} ({exc.__class__.__name__}: {exc})") from None
    return arrays, meta


def save_model(path, model, meta):
    meta = {"model": model.name, "rows": model.rows, "cols": model.cols, **meta}
    save_npz(path, {**model.get_values(), **model.buffers()}, meta)


def load_model(path):
    """(model with the stored parameters, meta)."""
    from flipnet.nn.models import build

    arrays, meta = load_npz(path)
    if "model" not in meta:
        raise FlipnetError(f"{path} is not a flipnet model file (no model name)")
    try:
        model = build(meta["model"], seed=0, rows=meta["rows"], cols=meta["cols"])
    except (ValueError, KeyError) as exc:
        raise FlipnetError(f"{path}: cannot rebuild its model: {exc}") from None
    missing = (set(model.names) | set(model.buffers())) - set(arrays)
    if missing:
        raise FlipnetError(f"{path} lacks parameters {sorted(missing)} of model {meta['model']}")
    try:
        model.set_buffers(arrays)
        model.set_values(arrays)
    except ValueError as exc:
        raise FlipnetError(f"{path}: {exc}") from None
    return model, meta
