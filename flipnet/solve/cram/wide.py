"""128-bit masks in Numba: a component whose box has more than 64 cells, as one integer.

`U128` is LLVM's i128 given to Numba as a type of its own, with Python's operators (`&`,
`|`, `^`, `~`, `<<`, `>>`, `+`, `-`, comparisons, truth), mixed freely with uint64 words
(zero-extended). So the kernels of `bits` and `search`, written once with operators, compile
a second time for wide components with the same code, and LLVM turns each operation into
two machine words' instructions. The helpers below (`zero_like`, `low`, `load`, ...) say
what differs between the widths where an operator cannot: a constant of the mask's own
width, a mask held in an array (two words a mask for wide ones), a narrow key inside a wide
search.
"""

import inspect
import operator

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, lower_builtin, models, overload, register_model

WIDE_CELLS = 128  # cells of the largest box a wide mask holds
_I128 = ir.IntType(128)
_I64 = ir.IntType(64)


class U128Type(types.Type):
    def __init__(self):
        super().__init__(name="U128")


U128 = U128Type()


@register_model(U128Type)
class _U128Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _I128)


def _as_i128(context, builder, value, ty):
    """A U128 as it is; an integer as a uint64 made 128 bits wide."""
    if isinstance(ty, U128Type):
        return value
    return builder.zext(context.cast(builder, value, ty, types.uint64), _I128)


@intrinsic
def wide(typingctx, lo, hi):
    """The 128-bit mask of two words."""
    def codegen(context, builder, signature, args):
        lo, hi = (_as_i128(context, builder, a, t) for a, t in zip(args, signature.args))
        return builder.or_(lo, builder.shl(hi, ir.Constant(_I128, 64)))

    return U128(lo, hi), codegen


@intrinsic
def _low_word(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.trunc(args[0], _I64)

    return types.uint64(x), codegen


@intrinsic
def _high_word(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.trunc(builder.lshr(args[0], ir.Constant(_I128, 64)), _I64)

    return types.uint64(x), codegen


def _binary(name, result):
    @intrinsic
    def op(typingctx, a, b):
        def codegen(context, builder, signature, args):
            x, y = (_as_i128(context, builder, v, t) for v, t in zip(args, signature.args))
            return getattr(builder, name)(x, y) if result is U128 else builder.icmp_unsigned(name, x, y)

        return (result if result is U128 else types.boolean)(a, b), codegen

    return op


def _shift(name):
    @intrinsic
    def op(typingctx, a, n):
        def codegen(context, builder, signature, args):
            return getattr(builder, name)(args[0], _as_i128(context, builder, args[1], signature.args[1]))

        return U128(a, n), codegen

    return op


@intrinsic
def _invert(typingctx, a):
    def codegen(context, builder, signature, args):
        return builder.not_(args[0])

    return U128(a), codegen


@intrinsic
def _truth(typingctx, a):
    def codegen(context, builder, signature, args):
        return builder.icmp_unsigned("!=", args[0], ir.Constant(_I128, 0))

    return types.boolean(a), codegen


def _either_wide(a, b):
    return (isinstance(a, U128Type) or isinstance(b, U128Type)) and all(
        isinstance(t, (U128Type, types.Integer)) for t in (a, b))


def _register_binary(fn, impl):
    def typing(a, b):
        if _either_wide(a, b):
            return lambda a, b: impl(a, b)

    overload(fn)(typing)


def _register_shift(fn, impl):
    def typing(a, n):
        if isinstance(a, U128Type) and isinstance(n, types.Integer):
            return lambda a, n: impl(a, n)

    overload(fn)(typing)


for _fns, _name in (((operator.and_, operator.iand), "and_"), ((operator.or_, operator.ior), "or_"),
                    ((operator.xor, operator.ixor), "xor"), ((operator.add, operator.iadd), "add"),
                    ((operator.sub, operator.isub), "sub")):
    for _fn in _fns:
        _register_binary(_fn, _binary(_name, U128))
for _fn, _pred in ((operator.eq, "=="), (operator.ne, "!="), (operator.lt, "<"), (operator.le, "<="),
                   (operator.gt, ">"), (operator.ge, ">=")):
    _register_binary(_fn, _binary(_pred, types.boolean))
for _fns, _name in (((operator.lshift, operator.ilshift), "shl"), ((operator.rshift, operator.irshift), "lshr")):
    for _fn in _fns:
        _register_shift(_fn, _shift(_name))


@overload(operator.invert)
def _ov_invert(a):
    if isinstance(a, U128Type):
        return lambda a: _invert(a)


@lower_builtin(bool, U128Type)
def _lower_bool(context, builder, signature, args):
    return builder.icmp_unsigned("!=", args[0], ir.Constant(_I128, 0))


@overload(operator.truth)
def _ov_truth(a):
    if isinstance(a, U128Type):
        return lambda a: _truth(a)


@overload(operator.not_)
def _ov_not(a):
    if isinstance(a, U128Type):
        return lambda a: not _truth(a)


def _bit_op(name, wide_result, *flag):
    """An LLVM bit intrinsic on a uint64 or a U128: its count (int64) or the mask it makes."""

    @intrinsic
    def op(typingctx, x):
        is_wide = isinstance(x, U128Type)

        def codegen(context, builder, signature, args):
            value = args[0] if is_wide else context.cast(builder, args[0], signature.args[0], types.uint64)
            out = getattr(builder, name)(value, *(context.get_constant(types.boolean, f) for f in flag))
            if wide_result:
                return out
            return builder.trunc(out, _I64) if is_wide else out

        if wide_result:
            return (U128 if is_wide else types.uint64)(x), codegen
        return (types.int64 if is_wide else types.uint64)(x), codegen

    return op


count_ones = _bit_op("ctpop", False)
trailing_zeros = _bit_op("cttz", False, False)
leading_zeros = _bit_op("ctlz", False, False)
bit_reversed = _bit_op("bitreverse", True)


def _refuse(*args):
    raise TypeError("a Numba function: call it from a kernel")


def by_width(narrow_impl, wide_impl):
    """A Numba function (inlined) whose first argument is a mask: `narrow_impl` compiled
    for a uint64 (or any integer), `wide_impl` for a U128; both take the same arguments."""
    def stub(*args):
        _refuse()

    def typing(*args):
        return wide_impl if isinstance(args[0], U128Type) else narrow_impl

    stub.__signature__ = typing.__signature__ = inspect.signature(narrow_impl)
    overload(stub, inline="always")(typing)
    return stub


zero_like = by_width(lambda x: np.uint64(0), lambda x: wide(np.uint64(0), np.uint64(0)))  # no bit, x's width
one_like = by_width(lambda x: np.uint64(1), lambda x: wide(np.uint64(1), np.uint64(0)))  # bit 0 only
width_of = by_width(lambda x: 64, lambda x: 128)  # bits of x's type
is_wide = by_width(lambda x: False, lambda x: True)
low = by_width(lambda x: np.uint64(x), lambda x: _low_word(x))  # the lowest 64 bits
high = by_width(lambda x: np.uint64(0), lambda x: _high_word(x))  # the next 64 (0 for a word)
like = by_width(lambda x, a: np.uint64(a), lambda x, a: wide(np.uint64(a), np.uint64(0)))  # word a, x's width


def load(array, i):
    """The mask at row i of an array of masks: array[i] of words, (array[i, 0], array[i, 1])
    of wide ones."""
    _refuse()


def load2(array, i, j):
    """The mask at [i, j] of a table of masks (a third axis of two words: wide ones)."""
    _refuse()


def store(x, array, i):
    """array[i] = x, for a word or a wide mask (two words)."""
    _refuse()


def store2(x, array, i, j):
    _refuse()


@overload(load, inline="always")
def _ov_load(array, i):
    if array.ndim == 2:
        return lambda array, i: wide(array[i, 0], array[i, 1])
    return lambda array, i: array[i]


@overload(load2, inline="always")
def _ov_load2(array, i, j):
    if array.ndim == 3:
        return lambda array, i, j: wide(array[i, j, 0], array[i, j, 1])
    return lambda array, i, j: array[i, j]


@overload(store, inline="always")
def _ov_store(x, array, i):
    if array.ndim == 2:
        def impl(x, array, i):
            array[i, 0], array[i, 1] = low(x), high(x)
        return impl

    def impl(x, array, i):
        array[i] = low(x)
    return impl


@overload(store2, inline="always")
def _ov_store2(x, array, i, j):
    if array.ndim == 3:
        def impl(x, array, i, j):
            array[i, j, 0], array[i, j, 1] = low(x), high(x)
        return impl

    def impl(x, array, i, j):
        array[i, j] = low(x)
    return impl


def split_words(masks):
    """(low words, high words) of Python integers below 2^128, as uint64 arrays."""
    masks = [int(m) for m in masks]
    return (np.array([m & 0xFFFFFFFFFFFFFFFF for m in masks], np.uint64),
            np.array([m >> 64 for m in masks], np.uint64))
