import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipnet.solve.nim import Nimber, nim_mul

small = st.integers(0, 255)


def test_known_products_and_printing():
    assert nim_mul(2, 2) == 3 and nim_mul(4, 4) == 6 and nim_mul(2, 3) == 1
    assert nim_mul(16, 16) == 24  # F * F = F + F/2 (nim-sum) for F = 16
    assert repr(Nimber(5)) == "*5" and repr(Nimber(4) + Nimber(7)) == "*3"
    assert Nimber.sum(Nimber(v) for v in (1, 2, 3, 4, 5)) == 1
    assert sum(map(Nimber, [4, 7])) == Nimber(3)  # the builtin sum works too


def test_group_laws_on_a_range():
    values = [Nimber(v) for v in range(32)]
    zero = Nimber(0)
    for a, b in itertools.product(values, repeat=2):
        assert a + b == b + a and a + zero == a and a + a == zero and a - b == a + b


def test_field_laws_below_16():
    values = [Nimber(v) for v in range(16)]
    for a, b, c in itertools.product(values, repeat=3):
        assert a * (b + c) == a * b + a * c
        assert (a * b) * c == a * (b * c)
        assert a * b == b * a
        assert a * b < 16  # closed: the nimbers below 2^(2^2) are a field
    for a in values[1:]:
        assert a * a.inverse() == 1


@given(small, small, small)
def test_field_laws_below_256(a, b, c):
    a, b, c = Nimber(a), Nimber(b), Nimber(c)
    assert a * (b + c) == a * b + a * c
    assert (a * b) * c == a * (b * c)
    assert int(a * b) < 256


@given(st.integers(1, (1 << 32) - 1))
def test_inverses(a):
    x = Nimber(a)
    assert x * x.inverse() == 1 and x / x == 1


def test_no_inverse_of_zero_and_bad_values():
    with pytest.raises(ZeroDivisionError):
        Nimber(0).inverse()
    with pytest.raises(ValueError, match="non-negative integer"):
        Nimber(-1)
