"""How flipnet compiles its Numba kernels, so that a compiled kernel can travel.

Numba's cache keys a compiled kernel by its source file's modification time and by the
exact CPU it was compiled on. Neither survives an install: pip writes the files anew, and
another machine has another CPU. flipnet's kernels are cached instead

- beside their module, in `__numba_cache__`, stamped by the digest of the module's text
  (`ContentStampedLocator`): a wheel carries them (`make wheel`) and they stay valid
  wherever the same source is installed; and
- compiled for a portable x86-64 level (`PORTABLE_CPU`, x86-64-v3: AVX2, BMI2, FMA) where
  the host has its features: measured as fast as the host's own target on the Cram search
  (5x8, one worker: 2.12-2.19 s against 2.31-2.34 s), and the same code on every such
  machine.

A user's `NUMBA_CPU_NAME` or `NUMBA_CACHE_DIR` is kept: their choice wins. The CPU level
is a setting of the whole process, so other Numba code in it is compiled for it too.
Every module with kernels takes `njit` from here, which configures Numba first.

Loading the first kernel, Numba imports its NumPy support, which asks whether a BLAS is
at hand by importing SciPy's linear algebra: 0.09-0.18 s and 14 MB of every command's
start, for kernels that use none (`numba_blas_probe_skipped`).
"""

import hashlib
import importlib.abc
import importlib.util
import os
import platform
import sys
from functools import lru_cache
from pathlib import Path

import numba
from numba.core import caching, config

CACHE_FOLDER = "__numba_cache__"
PORTABLE_CPU = "x86-64-v3"
# LLVM's names of the features x86-64-v3 assumes (the v2 ones, then AVX2, BMI and the rest)
PORTABLE_FEATURES = ("cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3",
                     "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
PACKAGE = Path(__file__).resolve().parent.parent
# newer Numba spells these without the underscore
CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl
IN_TREE_LOCATOR = getattr(caching, "InTreeCacheLocator", None) or caching._InTreeCacheLocator


@lru_cache(maxsize=None)
def source_digest(path):
    """The digest of a module's text: the stamp its cached kernels carry."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class ContentStampedLocator(IN_TREE_LOCATOR):
    """flipnet's kernels in `__numba_cache__` beside their module, valid while the
    module's text is the same, whatever its file's time. Other code, and a process given
    NUMBA_CACHE_DIR, is left to Numba's own locators; so is an install whose folder cannot
    be written (a system's site-packages), which then caches where Numba would."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(os.path.dirname(self._py_file), CACHE_FOLDER)

    def get_source_stamp(self):
        return "sha256", source_digest(self._py_file)

    @classmethod
    def from_function(cls, py_func, py_file):
        if config.CACHE_DIR or not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None
        return super().from_function(py_func, py_file)


def host_has_portable_level():
    """Whether this machine runs x86-64-v3 code."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    return all(features.get(name, False) for name in PORTABLE_FEATURES)


@lru_cache(maxsize=None)
def configure():
    """Point Numba at flipnet's locator and, unless the user chose a CPU, at the portable
    level. Called before the first kernel is declared (the locator is chosen then) and so
    long before the first compile (the CPU is read then)."""
    if ContentStampedLocator not in CACHE_IMPL._locator_classes:
        CACHE_IMPL._locator_classes.insert(0, ContentStampedLocator)
    if config.CPU_NAME is None and host_has_portable_level():
        config.CPU_NAME, config.CPU_FEATURES = PORTABLE_CPU, ""
    numba_blas_probe_skipped()
    return config.CPU_NAME


class _RefuseLinearAlgebra(importlib.abc.MetaPathFinder):
    """An import of SciPy's linear algebra fails while it is in `sys.meta_path`."""

    def find_spec(self, name, path=None, target=None):
        if name == "scipy.linalg":
            raise ImportError("refused while Numba's NumPy support is imported")
        return None


def numba_blas_probe_skipped():
    """Import Numba's NumPy support without its BLAS probe (`import scipy.linalg.cython_blas`,
    0.09-0.18 s and 14 MB) and set the probe's answer from SciPy's files instead. Numba
    reads that answer in one place (`np.correlate` and `np.convolve` of floats then call
    BLAS, which their compile imports as before); its other linear algebra imports SciPy
    when a kernel using it compiles. False where Numba's support was imported already or
    its layout differs (the probe then ran as Numba wrote it)."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return False
    refusal = _RefuseLinearAlgebra()
    sys.meta_path.insert(0, refusal)
    try:
        import numba.np.arraymath as arraymath
    finally:
        sys.meta_path.remove(refusal)
    if not hasattr(arraymath, "_HAVE_BLAS"):
        return False
    arraymath._HAVE_BLAS = importlib.util.find_spec("scipy.linalg") is not None
    return True


def njit(*args, **kwargs):
    """numba.njit, with Numba configured for flipnet's kernels first."""
    configure()
    return numba.njit(*args, **kwargs)
