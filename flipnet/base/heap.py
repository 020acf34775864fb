"""Freed memory kept for reuse: a training step's arrays without a page fault each.

glibc's malloc hands out a block of more than 128 KiB (a threshold it raises as it
goes, up to 32 MiB) as a fresh mmap and gives it back with munmap when it is freed. A
convmem2d training step makes and frees a few dozen arrays of up to 15 MB, so every step
faulted in about 63,000 new pages, which the kernel zeroed first: 98 ms of a 300 ms step
(8 residual layers, batch 512) and 1,037 s of a 45-minute run. With the thresholds
raised, freed blocks stay in the heap and the next step gets them back: no faults, 1.4x
faster a step (`make bench`, section convmem). The cost: a process keeps up to its peak
memory until it ends, instead of returning it as it frees.

The `flipnet` command calls `keep_freed_memory()` as it starts (base/process.py), unless
FLIPNET_HEAP=system; importing flipnet as a library leaves the allocator alone.
Other C libraries have no `mallopt`; nothing changes there.
"""

import ctypes

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt parameters (malloc.h)
KEPT = {"mmap": 32 << 20, "trim": 1 << 30}  # 32 MiB: the largest threshold glibc always takes


def _mallopt():
    try:
        return ctypes.CDLL(None).mallopt  # the running program's symbols, libc's among them
    except (OSError, AttributeError, TypeError):
        return None


def keep_freed_memory():
    """Blocks below 32 MiB come from the heap and go back to it; True when the C library
    took the setting."""
    mallopt = _mallopt()
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, KEPT["mmap"])) and bool(mallopt(M_TRIM_THRESHOLD, KEPT["trim"]))
