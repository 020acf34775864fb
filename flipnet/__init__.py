"""flipnet: learning Sprague-Grundy values with neural networks.

Exact solvers and datasets for the flip game and its Nim relatives, the 2016 Theano
study's networks rebuilt as PyTensor graphs, and playable agents.
"""

import os

__version__ = "0.1.0"

# BLAS in the calling thread unless the caller chose otherwise (before numpy loads; the
# Makefile does the same): flush-to-zero (base/denormals.py) holds in that thread only,
# and an OpenBLAS worker thread computing part of a product kept subnormal numbers (slow
# ones), so a run started as `flipnet train` ended with other figures than under make.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from flipnet.base.heap import keep_freed_memory  # noqa: E402  (after the BLAS setting)

# Large arrays freed by a training step stay in the heap for the next one (base/heap.py);
# FLIPNET_HEAP=system leaves the C library's allocator as it is.
if os.environ.get("FLIPNET_HEAP", "keep") != "system":
    keep_freed_memory()
