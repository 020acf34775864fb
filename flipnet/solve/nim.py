"""Nimbers and the two rules every solver here is built on: the mex of a set of values
(the Sprague-Grundy value of a position is the mex of its options' values) and the
nim-sum (the value of a sum of games is the XOR of theirs). Misere Nim's closed form too.

`Nimber`: `+` and `-` are XOR, `*` is nim-multiplication.

The nimbers below 2^(2^k) form a field. Multiplication splits a number at the Fermat
2-power F = 2^(2^(k-1)) above its half, x = x1 F + x0, and uses F * F = F + F/2 (nimber
arithmetic) with z * F = z F (ordinary) for z < F:
    x * y = (x1 y1 + x1 y0 + x0 y1) F + x0 y0 + (x1 y1) * (F/2)
"""

from functools import lru_cache, reduce, total_ordering
from operator import xor
from flipnet.base.errors import BadInput


def mex(values):
    """The smallest non-negative integer not among `values`."""
    seen = set(values)
    v = 0
    while v in seen:
        v += 1
    return v


def nim_sum(values):
    """XOR of the values: the value of a sum of games."""
    return reduce(xor, values, 0)


def misere_nim_wins(heaps):
    """Whether the player to move wins misere Nim on `heaps` (1) or loses (0).

    Misere Nim is won like normal Nim while some heap holds 2 or more; when every heap
    holds at most 1, the player to move wins iff the number of 1-heaps is even.
    """
    if max(heaps, default=0) <= 1:
        return int(sum(heaps) % 2 == 0)
    return int(nim_sum(heaps) != 0)


def nim_outcome(heaps, misere=False):
    """Normal play: the nim-sum. Misere: 1 if the player to move wins, else 0."""
    return misere_nim_wins(heaps) if misere else nim_sum(heaps)


def nim_winning_moves(heaps, misere=False):
    """The moves (heap index, count) after which the opponent loses, without listing every
    move: a heap of size h can only go to h ^ s (the nim-sum then 0), to 0 or to 1 (a
    last row of ones of the right parity), so only those are tried, each in O(1)."""
    s = nim_sum(heaps)
    big = sum(h >= 2 for h in heaps)
    ones = sum(h == 1 for h in heaps)
    moves = []
    for i, h in enumerate(heaps):
        for target in sorted({h ^ s, 0, 1}):
            if target >= h:
                continue
            after_sum = s ^ h ^ target
            if not misere:
                loses = after_sum == 0
            elif big - (h >= 2) == 0 and target <= 1:  # only heaps of 0 and 1 left
                loses = (ones - (h == 1) + (target == 1)) % 2 == 1
            else:
                loses = after_sum == 0
            if loses:
                moves.append((i, h - target))
    return moves


@lru_cache(maxsize=1 << 16)
def nim_mul(a, b):
    if a < 2 or b < 2:
        return a * b
    half = 1
    while 2 * half < max(a, b).bit_length():
        half *= 2
    low = (1 << half) - 1
    a1, a0, b1, b0 = a >> half, a & low, b >> half, b & low
    top = nim_mul(a1, b1)
    return (top ^ nim_mul(a1, b0) ^ nim_mul(a0, b1)) << half ^ nim_mul(a0, b0) ^ nim_mul(top, 1 << (half - 1))


def nim_pow(a, e):
    result = 1
    while e:
        if e & 1:
            result = nim_mul(result, a)
        a = nim_mul(a, a)
        e >>= 1
    return result


def nim_inverse(a):
    """a^(q - 2) in the smallest field of q = 2^(2^k) elements that holds a."""
    if a == 0:
        raise ZeroDivisionError("the nimber 0 has no inverse")
    size = 1
    while (1 << size) <= a:
        size *= 2
    return nim_pow(a, (1 << size) - 2)


@total_ordering
class Nimber:
    """A nimber, printed as *n. Ordered like integers (handy for sorting, not arithmetic)."""

    __slots__ = ("value",)

    def __init__(self, value):
        if isinstance(value, Nimber):
            value = value.value
        if not isinstance(value, int) or value < 0:
            raise BadInput(f"a nimber is a non-negative integer, not {value!r}")
        self.value = value

    def __add__(self, other):
        return Nimber(self.value ^ Nimber(other).value)

    __radd__ = __sub__ = __rsub__ = __add__  # every nimber is its own negative

    def __neg__(self):
        return self

    def __mul__(self, other):
        return Nimber(nim_mul(self.value, Nimber(other).value))

    __rmul__ = __mul__

    def inverse(self):
        return Nimber(nim_inverse(self.value))

    def __truediv__(self, other):
        return self * Nimber(other).inverse()

    def __pow__(self, exponent):
        return Nimber(nim_pow(self.value, exponent))

    def __eq__(self, other):
        return isinstance(other, (Nimber, int)) and self.value == Nimber(other).value

    def __lt__(self, other):
        return self.value < Nimber(other).value

    def __hash__(self):
        return hash(self.value)

    def __int__(self):
        return self.value

    def __bool__(self):
        return self.value != 0

    def __repr__(self):
        return f"*{self.value}"

    @staticmethod
    def sum(values):
        """The nim-sum of many: what decides a sum of games."""
        return Nimber(nim_sum(Nimber(v).value for v in values))
