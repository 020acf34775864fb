"""Model files and training checkpoints: .npz archives written atomically.

A model file holds the parameters by name, any buffers the model derived from its
training data (a vocabulary), and a JSON `__meta__` entry (model name, board shape,
run config). A checkpoint also holds optimizer state, the best parameters
so far, the learning curve and the shuffling RNG, so a run resumes exactly.
"""

import json
import zipfile
from pathlib import Path

import numpy as np

from flipnet.base.errors import BadInput, FlipnetError
from flipnet.base.files import atomic_path
from flipnet.base.shipped import META, PACKED


def save_npz(path, arrays, meta):
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays, **{META: np.array(json.dumps(meta))})


def load_npz(path, what="model file"):
    """(arrays, meta) of a flipnet .npz file; a one-line FlipnetError for anything else
    (a missing, truncated or foreign file, Python objects inside, non-finite numbers)."""
    path = Path(path)
    if not path.is_file():
        raise FlipnetError(f"{what} {path} not found" if not path.exists() else f"{what} {path} is not a file")
    with open(path, "rb") as f:
        if f.read(4) != b"PK\x03\x04":  # an .npz is a zip archive
            raise FlipnetError(f"{path} is not a flipnet {what} (not an .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
        meta = json.loads(str(arrays.pop(META)))
        if not isinstance(meta, dict):
            raise BadInput("its metadata is not a JSON object")
    except KeyError:
        raise FlipnetError(f"{path} is not a flipnet {what} (no {META} entry)") from None
    except ValueError as exc:
        # numpy's own text for object arrays suggests allow_pickle: never load those
        reason = "it holds Python objects" if "allow_pickle" in str(exc) else str(exc).split("\n")[0]
        raise FlipnetError(f"{path} is not a flipnet {what} ({reason})") from None
    except (OSError, EOFError, zipfile.BadZipFile, UnicodeDecodeError):
        raise FlipnetError(f"{path} is not a flipnet {what} (truncated or corrupt?)") from None
    _widen(arrays, meta, path)
    for name, array in arrays.items():
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise FlipnetError(f"{path}: {name} holds values that are not finite (NaN or infinity)")
    return arrays, meta


def read_meta(path):
    """The metadata of a flipnet .npz file without reading its arrays; None for any other file."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            meta = json.loads(str(archive[META]))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, UnicodeDecodeError):
        return None
    return meta if isinstance(meta, dict) else None


def _widen(arrays, meta, path):
    """Give the arrays of a packed file (a shipped model, `base/shipped.py`) back the
    integer types they were trained with."""
    packed = meta.pop(PACKED, {})
    try:
        for name, dtype in packed.items():
            arrays[name] = arrays[name].astype(np.dtype(dtype), casting="safe")
    except (KeyError, TypeError, AttributeError) as exc:
        raise FlipnetError(f"{path}: its {PACKED} entry does not fit its arrays ({exc})") from None


def save_model(path, model, meta):
    meta = {"model": model.name, "rows": model.rows, "cols": model.cols, **meta}
    save_npz(path, {**model.get_values(), **model.buffers()}, meta)
