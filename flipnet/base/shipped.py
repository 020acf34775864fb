"""Trained files that ship with flipnet (data/models/) and the manifest that vouches for them.

A model is asked for by name: `results/NAME.npz` when the user trained one, else the
shipped file, whose sha256 must match the manifest's before anything reads it. The
manifest (data/models/manifest.json) records, for each shipped model, its recipe, seed,
the provenance of the run that trained it, the command that trains it again, its files
with their sizes and sha256s, where its figures are (one record per figure, pointing into
the shipped results of data/results/) and its error count on a fixed slice of the test
split, which the tests recompute.

Model files ship packed: integer arrays in the smallest type that holds them, every
array compressed, and the archive written with fixed timestamps, so the same weights
always give the same bytes (a retrained model is compared with the shipped one by sha256).
"""

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from flipnet.base.errors import DamagedFile, FlipnetError
from flipnet.base.fields import Fields
from flipnet.base.files import RESULTS_DIR, atomic_path, read_json
from flipnet.base.places import checkout, shipped_dir, shown

SHIPPED = shipped_dir()  # the checkout's data/, or the package data of an installed copy
MODELS_DIR = SHIPPED / "models"
RESULTS_SHIPPED = SHIPPED / "results"
ALIASES = {"best": "convmem2d-gated12-80-distil6m-r2"}  # the names users type for a model of record
SLICE = 2000  # positions of the fixed test slice the manifest counts errors on (shipping.slice_of_test)
META = "__meta__"  # a flipnet .npz file's metadata entry (nn/core/store.py)
PACKED = "packed_dtypes"  # in the metadata of a packed file: {array: its type before narrowing}
EPOCH = (1980, 1, 1, 0, 0, 0)  # every entry's timestamp in a packed archive


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def smallest(array):
    """An integer array in the smallest type that holds its values (others unchanged)."""
    if array.dtype.kind not in "iu" or array.size == 0:
        return array
    low, high = int(array.min()), int(array.max())
    for kind in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64):
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return array.astype(kind)
    return array


def packed_bytes(path):
    """The bytes of the packed copy of a flipnet .npz file: the same arrays and metadata,
    integer arrays narrowed (their types kept in the metadata's PACKED entry, restored on
    loading), compressed, entries in name order with fixed timestamps."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays[META]))
    narrowed = {name: smallest(array) for name, array in arrays.items() if name != META}
    meta[PACKED] = {name: arrays[name].dtype.str for name, array in sorted(narrowed.items())
                    if array.dtype != arrays[name].dtype}
    narrowed[META] = np.array(json.dumps(meta))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in sorted(narrowed):
            entry = io.BytesIO()
            np.lib.format.write_array(entry, narrowed[name], allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, entry.getvalue(), compresslevel=9)
    return out.getvalue()


def pack(source, target):
    """Write the packed copy of `source` to `target` (atomically); its sha256."""
    data = packed_bytes(source)
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def manifest_path():
    return MODELS_DIR / "manifest.json"


def manifest():
    """The manifest of the shipped models (an empty one where none ships), its file
    records checked field by field: a damaged manifest is one line naming the field."""
    path = manifest_path()
    if not path.exists():
        return {"models": {}}
    data = read_json(path, "manifest")
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise DamagedFile(f"{path}: not a manifest of shipped models (no 'models' object)")
    fields = Fields(data, path)
    models = fields.inside("models")
    for name in data["models"]:
        entry = models.inside(name)
        _file_record(entry.inside("file"))
        for i, record in enumerate(entry.take("results", list, [])):
            _file_record(Fields(record, path, f"{entry.where}results[{i}]."))
        figures = entry.inside("figures", {}) or Fields({}, path)
        for figure in figures.data:
            where = figures.inside(figure)
            where.take("file", str)
            if not all(isinstance(key, str) for key in where.take("keys", list)):
                raise where.fail("keys", "is not a list of names")
    for i, record in enumerate(fields.take("results", list, [])):
        _file_record(Fields(record, path, f"results[{i}]."))
    return data


def _file_record(record):
    """A file's record: its path inside the shipped files, size and sha256."""
    where = record.take("path", str)
    if where.startswith("/") or not where or "\\" in where:
        raise record.fail("path", f"is {where!r}, not a path inside the shipped files")
    if record.take("bytes", int) < 0:
        raise record.fail("bytes", "is negative")
    digest = record.take("sha256", str)
    if len(digest) != 64 or any(ch not in "0123456789abcdef" for ch in digest):
        raise record.fail("sha256", f"is {digest[:20]!r}, not 64 hexadecimal digits")


def canonical(name):
    """The model a name stands for (an alias such as 'best' resolved)."""
    return ALIASES.get(name, name)


def checked(path, record):
    """`path`, after checking it against its manifest record (size and sha256)."""
    if not path.is_file():
        raise FlipnetError(f"shipped file {path} is missing: {_restore(path)}")
    size, digest = path.stat().st_size, sha256(path)
    if digest != record["sha256"]:
        why = (f"{size} bytes, not {record['bytes']}: truncated?" if size != record["bytes"]
               else "the same size, other bytes: changed?")
        raise FlipnetError(f"shipped file {shown(path)} does not match the manifest's sha256 ({why}); "
                           f"{_restore(path)}")
    return path


def _restore(path):
    """How a user gets a shipped file back: from git in a checkout, else by reinstalling."""
    if checkout():
        return f"restore it with `git checkout -- {shown(path)}`"
    return "reinstall flipnet to restore it (`pip install --force-reinstall flipnet`)"


def shipped_file(name):
    """The checked path of a shipped model's file."""
    data = manifest()
    entry = data["models"].get(canonical(name))
    if entry is None:
        raise FlipnetError(f"no shipped model named {name!r}: {listing(data)}")
    return checked(MODELS_DIR / entry["file"]["path"], entry["file"])


def looks_like_path(spec):
    """Whether a model's name is written as a path: with a '/' (./mlp2d, runs/x.npz) or a
    file's suffix (x.npz). Anything else is a name, whatever the current directory holds."""
    return "/" in spec or spec in (".", "..") or spec.endswith((".npz", ".json", ".txt"))


def resolve(spec, suffix=".npz", results_dir=RESULTS_DIR):
    """(path, how) of a model asked for by path or by name. `how` is None for a path; for a
    name it says which file was chosen: the user's trained one, or the shipped one."""
    if looks_like_path(spec):
        return Path(spec), None
    data = manifest()
    name = canonical(spec)
    trained = Path(results_dir) / f"{name}{suffix}"
    if trained.is_file():
        return trained, f"{name}: {trained} (trained here)"
    if name not in data["models"]:
        raise FlipnetError(f"no model named {spec!r} in {results_dir}/ and none ships by that name: "
                           f"{listing(data, suffix)}")
    if not data["models"][name]["file"]["path"].endswith(suffix):  # the NIM perceptron, the ES: another kind
        raise FlipnetError(f"the shipped {name!r} is not a model this reads ({suffix} files): "
                           f"{listing(data, suffix)}")
    path = shipped_file(name)
    return path, f"{name}: the shipped {shown(path)} (sha256 checked)"


def listing(data, suffix=None):
    """The shipped models' names (of one kind of file, `suffix`, where given), aliases too."""
    kept = {name for name, entry in data["models"].items()
            if suffix is None or entry["file"]["path"].endswith(suffix)}
    names = sorted(kept) + [f"{a} ({n})" for a, n in sorted(ALIASES.items()) if n in kept]
    return f"shipped: {', '.join(names)}" if names else "no model ships in this copy"
