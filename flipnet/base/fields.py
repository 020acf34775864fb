"""The fields of a file flipnet reads (a manifest, a checkpoint's metadata, a results
file), each taken with its type checked, so a damaged file is one `DamagedFile` line that
names the file and the field, never a KeyError from deep inside."""

import numbers

import numpy as np

from flipnet.base.errors import DamagedFile, brief

_MISSING = object()
KINDS = {int: "a whole number", float: "a number", str: "a string", bool: "true or false", list: "a list",
         dict: "an object", np.ndarray: "an array"}


def is_number(value):
    """A JSON number (not true or false)."""
    return _is(value, float)


def _is(value, kind):
    if kind is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    return isinstance(value, kind)


class Fields:
    """A JSON object read from `path`; `where` is its place in the file ("models.mlp2d.")."""

    def __init__(self, data, path, where=""):
        if not isinstance(data, dict):
            raise DamagedFile(f"{path}: {where.rstrip('.') or 'the file'} is not an object")
        self.data, self.path, self.where = data, path, where

    def take(self, key, kind, default=_MISSING):
        """The field `key`, which must be of `kind` (int, float, str, bool, list, dict, or a
        tuple of them); `default` where it may be absent."""
        if key not in self.data:
            if default is not _MISSING:
                return default
            raise DamagedFile(f"{self.path}: field {self.where}{key} is missing")
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not any(_is(value, k) for k in kinds):
            wanted = " or ".join(KINDS.get(k, k.__name__) for k in kinds)
            raise DamagedFile(f"{self.path}: field {self.where}{key} is {brief(value)}, not {wanted}")
        return value

    def inside(self, key, default=_MISSING):
        """The object `key` as Fields of its own."""
        value = self.take(key, dict, default)
        return Fields(value, self.path, f"{self.where}{key}.") if value is not None else None

    def board(self):
        """(rows, cols) of a model file's metadata, each a whole number from 1 to 64."""
        rows, cols = self.take("rows", int), self.take("cols", int)
        for key, n in (("rows", rows), ("cols", cols)):
            if not 1 <= n <= 64:
                raise self.fail(key, f"is {n}, not 1 to 64")
        return rows, cols

    def array(self, key):
        """The array `key` of a model file (its arrays read as Fields)."""
        return self.take(key, np.ndarray)

    def fail(self, key, why):
        """A DamagedFile naming this field, for a check a type cannot say."""
        return DamagedFile(f"{self.path}: field {self.where}{key} {why}")
