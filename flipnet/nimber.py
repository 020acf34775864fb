"""Nimbers: `+` and `-` are XOR, `*` is nim-multiplication.

The nimbers below 2^(2^k) form a field. Multiplication splits a number at the Fermat
2-power F = 2^(2^(k-1)) above its half, x = x1 F + x0, and uses F * F = F + F/2 (nimber
arithmetic) with z * F = z F (ordinary) for z < F:
    x * y = (x1 y1 + x1 y0 + x0 y1) F + x0 y0 + (x1 y1) * (F/2)
"""

from functools import lru_cache, total_ordering


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
            raise ValueError(f"a nimber is a non-negative integer, not {value!r}")
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
        total = Nimber(0)
        for v in values:
            total = total + v
        return total
