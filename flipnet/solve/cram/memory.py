"""How the search kernels touch memory: arrays without reference counting, and prefetching.

Numba counts references to every array it passes to a function that is not inlined:
an atomic increment on the way in and a decrement on the way out. In the Cram search
that is tens of atomic operations per option of every node, and a profile (perf, 3x14)
put 44% of the time in NRT_incref and NRT_decref. A *borrowed* array is the same view
of the same memory with no owner record (meminfo NULL), for which Numba's incref and
decref return at once. It must not outlive the array it was borrowed from: the kernels
borrow only their arguments, the solver's arrays (scratch buffers included), which the
calling thread holds until the kernel returns.

What is left is waiting for memory: the table and the endgame database are read at
random, each read a cache miss. `prefetch` asks for a line without waiting for it, so
a node asks for all its options' lines first and reads them after.

The table itself is zeroed memory the kernel hands out as it is touched. NumPy asks for
2 MB pages for any large array, and where the kernel gives them only on request
(`transparent_hugepage` "madvise", its default on many systems), the first touch of each
2 MB zeroes all of it, after compacting memory to find one: a question touching a few
thousand entries of a 1 GB table cost seconds. `zeroed_table` asks for ordinary pages.
A search of a large component touches nearly all of them, though, and two workers that
fault pages of one mapping in at once wait for each other (5x7: two workers no faster
than one); `populate` maps them all first, in one call, and then in 2 MB pages: zeroed
in one pass they cost no stall, and a probe of a table read at random no longer misses
the TLB as well (mapping 2^28 entries: 3.3 s instead of 10.8 s; 6x7 on two workers 12-17%
faster).

How large a table may be is the least of what bounds the process (`usable_memory`): the
machine is only one of them, and a container's limit or `ulimit -v` refuses a mapping the
machine could hold. FLIPNET_MEMORY_LIMIT is one more bound, the one a process sharing the
machine is given (a Dask worker's piece of a long solve: `base/cluster.py`).
"""

import mmap
import os

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from flipnet.base import signals
from flipnet.solve.cram.limits import memory_limit  # noqa: F401 - a limit's text, read by the settings


@intrinsic
def borrowed(typingctx, array):
    """The same array view with no owner: no reference counting, no freeing."""

    def codegen(context, builder, signature, args):
        view = cgutils.create_struct_proxy(array)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring element `index` of a C-contiguous array (counted flat) into
    its caches, and go on: the search locates every option's parts before it reads one,
    so their cache misses overlap instead of coming one after another."""

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        address = builder.gep(view.data, [args[1]])
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
                                              "llvm.prefetch.p0")
        builder.call(hint, [builder.bitcast(address, byte), i32(0), i32(3), i32(1)])  # read, keep, data
        return context.get_dummy_value()

    return types.void(array, types.intp), codegen


def zeroed_table(rows, columns, dtype=np.uint64):
    """A zeroed (rows, columns) array in ordinary 4 kB pages, each zeroed on its first
    touch; where the platform has no such advice, `np.zeros`."""
    size = rows * columns * np.dtype(dtype).itemsize
    advice = getattr(mmap, "MADV_NOHUGEPAGE", None)
    if advice is None or size == 0:
        return np.zeros((rows, columns), dtype)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    memory.madvise(advice)
    return np.frombuffer(memory, dtype).reshape(rows, columns)


MADV_POPULATE_WRITE = getattr(mmap, "MADV_POPULATE_WRITE", 23)  # Linux 5.14 and later


POPULATE_CHUNK = 64 << 20  # bytes mapped a call: a stop asked for between two is heard within a second


def populate(table, huge_pages=True, progress=None, stopped=signals.requested):
    """Map every page of a `zeroed_table` now, writable, its contents kept, in 2 MB pages
    where the system gives them (those not yet touched) if `huge_pages`, else in 4 kB
    pages; True if done (False where the platform cannot: the pages then come as they are
    touched). It maps POPULATE_CHUNK bytes at a time (8 GB: 0.7 s with the memory free,
    25 s where the system first had to find it): `stopped()` true (by default: a stop
    asked for, base/signals.py) ends it between two, the pages left coming as they are
    touched, and `progress(bytes)` is told of each."""
    memory = table.base  # views of views, then NumPy's memoryview of the mapping
    while isinstance(memory, np.ndarray):
        memory = memory.base
    if isinstance(memory, memoryview):
        memory = memory.obj
    if not isinstance(memory, mmap.mmap):
        return False
    try:
        if huge_pages and hasattr(mmap, "MADV_HUGEPAGE"):  # read at random: in 4 kB pages, a TLB miss a probe
            memory.madvise(mmap.MADV_HUGEPAGE)
        return _madvise_without_the_gil(memory, MADV_POPULATE_WRITE, progress, stopped)
    except (OSError, ValueError):
        return False


def _madvise_without_the_gil(memory, advice, progress=None, stopped=signals.requested):
    """`memory.madvise(advice)` through libc, chunk by chunk, which lets other threads run
    while the kernel works (Python's own call holds the GIL: faulting a 512 MB table in
    took the explorer's request threads 1.5 s of silence) and a stop be heard between
    chunks (one call for an 8 GB table kept a Ctrl-C waiting 9 s, as the system found
    memory for it at 250 MB a second); False if stopped."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    view = np.frombuffer(memory, dtype=np.uint8)
    try:
        start = view.ctypes.data
        for offset in range(0, view.size, POPULATE_CHUNK):
            if stopped():
                return False
            length = min(POPULATE_CHUNK, view.size - offset)
            if libc.madvise(ctypes.c_void_p(start + offset), ctypes.c_size_t(length), ctypes.c_int(advice)):
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            if progress is not None:
                progress(length)
        return True
    finally:
        del view


def usable_memory(limit=None):
    """Bytes a table may count on, or None where the platform says nothing: the least of the
    machine's memory, a control group's limit (a container's), the process's address-space
    limit (`ulimit -v`), the room left to commit where the kernel refuses to overcommit, the
    memory available now, and `limit` (bytes, the settings' memory limit). Each bounds what
    a mapping may take before the kernel refuses it or a full container kills the process."""
    bounds = [_physical_memory(), _cgroup_limit(), _address_space_limit(), limit]
    meminfo = _meminfo()
    if "MemAvailable" in meminfo:
        bounds.append(meminfo["MemAvailable"])
    if _read_int("/proc/sys/vm/overcommit_memory") == 2 and {"CommitLimit", "Committed_AS"} <= meminfo.keys():
        bounds.append(max(meminfo["CommitLimit"] - meminfo["Committed_AS"], 0))
    known = [bound for bound in bounds if bound is not None]
    return min(known) if known else None


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _cgroup_limit():
    """The memory limit of this process's control group, version 2 or 1 (None: none)."""
    limits = [_read_int(path) for path in _cgroup_limit_files()]
    limits = [limit for limit in limits if limit is not None and limit < 1 << 60]  # v1: a huge number, no limit
    return min(limits, default=None)


def _cgroup_limit_files():
    """The files that may hold the limit: the group's own (from /proc/self/cgroup) and the root's."""
    files = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
    try:
        with open("/proc/self/cgroup") as lines:
            groups = [fields[1:] for fields in (line.rstrip("\n").split(":", 2) for line in lines) if len(fields) == 3]
    except (OSError, ValueError):
        return files
    for controllers, group in groups:
        if controllers == "":
            files.append(f"/sys/fs/cgroup{group.rstrip('/')}/memory.max")
        elif "memory" in controllers.split(","):
            files.append(f"/sys/fs/cgroup/memory{group.rstrip('/')}/memory.limit_in_bytes")
    return files


def _address_space_limit():
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, AttributeError, ValueError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def address_space_room():
    """Bytes this process may still map under its address-space limit (`ulimit -v`), or
    None where there is no limit or no way to read what it maps now."""
    limit = _address_space_limit()
    if limit is None:
        return None
    try:
        with open("/proc/self/status") as lines:
            mapped = next(int(line.split()[1]) * 1024 for line in lines if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    return max(limit - mapped, 0)


def _meminfo():
    """/proc/meminfo's fields in bytes ({} where there is none)."""
    fields = {}
    try:
        with open("/proc/meminfo") as lines:
            for line in lines:
                name, _, rest = line.partition(":")
                parts = rest.split()
                if parts and parts[0].isdigit():
                    fields[name] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    except OSError:
        pass
    return fields


def _read_int(path):
    try:
        with open(path) as text:
            return int(text.read().strip())
    except (OSError, ValueError):  # absent, or "max"
        return None
