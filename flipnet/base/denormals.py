"""Flush-to-zero for float arithmetic, for training runs whose gradients underflow.

When a network's softmax saturates, the errors it sends back fall below float32's
smallest normal number (1.2e-38). x86 CPUs handle such subnormal numbers in microcode,
and a matrix product full of them is about 150 times slower (a 512x512 float32 product:
1.5 s for five against 0.01 s, this machine). A run of xormem2d (seed 1) went from 20 s
to 150 s an epoch after its ninth epoch that way, 92% of the time in OpenBLAS's sgemm
(15 s flushed), and xornet2d takes 2.4 to 4.7 min an epoch from its third (12 s flushed).
Flushing changed no figure of any recipe (docs/results.md).

The FTZ and DAZ bits of the SSE control register (MXCSR) make the CPU read and write
them as zero, as TensorFlow's CPU threads do. Theano did not, so the paper's recipes
keep IEEE arithmetic; a recipe turns this on with `flush_denormals` (`--flush-denormals`).

MXCSR belongs to a thread: `flushed` sets the bits for the calling thread (and threads it
starts inside the block, which copy it) and restores them on the way out. A BLAS thread
pool started before keeps its own: flipnet runs BLAS in the calling thread
(OPENBLAS_NUM_THREADS=1 unless set: the command's start, base/process.py, and the Makefile
for processes that load numpy first). On other CPUs `flushed` changes nothing.
"""

import contextlib
import platform

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from flipnet.base.kernels import njit

FTZ, DAZ = 1 << 15, 1 << 6  # MXCSR: flush results to zero, read inputs as zero
SUPPORTED = platform.machine().lower() in ("x86_64", "amd64")


def _mxcsr_call(builder, name, slot):
    fnty = ir.FunctionType(ir.VoidType(), [ir.PointerType(ir.IntType(8))])
    fn = cgutils.get_or_insert_function(builder.module, fnty, f"llvm.x86.sse.{name}")
    builder.call(fn, [builder.bitcast(slot, ir.PointerType(ir.IntType(8)))])


@intrinsic
def _swap_mxcsr(typingctx, value):
    """Load `value` into MXCSR; the previous value."""

    def codegen(context, builder, signature, args):
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        _mxcsr_call(builder, "stmxcsr", slot)
        old = builder.load(slot)
        builder.store(args[0], slot)
        _mxcsr_call(builder, "ldmxcsr", slot)
        return old

    return types.int32(types.int32), codegen


@intrinsic
def _read_mxcsr(typingctx):
    def codegen(context, builder, signature, args):
        slot = cgutils.alloca_once(builder, ir.IntType(32))
        _mxcsr_call(builder, "stmxcsr", slot)
        return builder.load(slot)

    return types.int32(), codegen


@njit(cache=True)
def swap_mxcsr(value):
    return _swap_mxcsr(value)


@njit(cache=True)
def read_mxcsr():
    return _read_mxcsr()


@contextlib.contextmanager
def flushed(enabled=True):
    """Subnormal floats read and written as zero in this thread inside the block (x86-64;
    elsewhere, or with enabled=False, nothing changes)."""
    if not (enabled and SUPPORTED):
        yield False
        return
    old = read_mxcsr()
    swap_mxcsr(old | FTZ | DAZ)
    try:
        yield True
    finally:
        swap_mxcsr(read_mxcsr() & ~(FTZ | DAZ) | (old & (FTZ | DAZ)))
