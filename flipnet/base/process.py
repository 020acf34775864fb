"""What the `flipnet` command sets in its own process before NumPy loads; importing
flipnet as a library sets none of it (the host program's process is its own).

- BLAS in the calling thread unless the caller chose otherwise (OPENBLAS_NUM_THREADS=1):
  flush-to-zero (base/denormals.py) holds in that thread only, and an OpenBLAS worker
  thread computing part of a product kept subnormal numbers (slow ones), so a run
  started as `flipnet train` ended with other figures than under make, which sets the same.
- Large freed arrays kept in the heap for the next training step (base/heap.py), unless
  FLIPNET_HEAP=system.
- With FLIPNET_DIE_WITH_PARENT=PID (a sweep's task sets it), a SIGTERM, a clean stop, when
  the process that started it ends, even killed (Linux): a task's training never outlives
  the worker that ran it.
"""

import os


def set_up_command():
    """Set the command's process up; call it before anything imports NumPy."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if os.environ.get("FLIPNET_HEAP", "keep") != "system":
        from flipnet.base.heap import keep_freed_memory

        keep_freed_memory()
    if os.environ.get("FLIPNET_DIE_WITH_PARENT"):
        _die_with_parent(os.environ.pop("FLIPNET_DIE_WITH_PARENT"))


def _die_with_parent(parent):
    """SIGTERM this process when its parent ends; at once if it already has."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: Linux only
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != parent:  # it ended before the call above
        os.kill(os.getpid(), signal.SIGTERM)


def resident_bytes():
    """This process's resident memory (Linux's /proc), or None where it cannot be read."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
