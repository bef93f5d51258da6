"""Session 23: the product-size limit of ``require_point_work`` at the edge of its byte rounding.

The documented estimate (``exactdp/kernel/grid_point.py``, ``require_point_work``) is
2·(2W − 1)·(2H − 1)·⌊(T + bits(Y) + bits(n) + 16)/8⌋ bytes against ``MAX_POINT_BYTES`` = 2^28.
Session 19 pinned the limit itself (T = 1644 read, T = 1652 refused). The "+ 16" is pinned
here: at T = 1651 the numerator is 1687 ≡ 7 (mod 8), the last T whose quotient is still 210.
Ground truth is the formula, evaluated in the test.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from exactdp.errors import InstanceTooLarge
from exactdp.kernel.grid_point import MAX_POINT_BYTES, require_point_work
from exactdp.spaces.metrics.masked import GridShape


def _size(slots: int, table_bits: int, ybits: int, nbits: int) -> int:
    return slots * ((table_bits + ybits + nbits + 16) // 8)


# kills "line 414: 16 -> 17": with + 17, T = 1651 gives ⌊1688/8⌋ = 211 bytes per slot, over 2^28
def test_product_size_rounding_at_the_exact_edge():
    grid, n = GridShape(400, 400, "manhattan", F(1)), 160_000
    rhs, mans = (F(1),) * n, (3,) * n
    slots, nbits = 2 * 799 * 799, n.bit_length()
    assert MAX_POINT_BYTES == 2**28 and nbits == 18
    assert (1651 + 2 + nbits + 16) % 8 == 7
    assert _size(slots, 1651, 2, nbits) == 268_128_420 <= 2**28 < slots * 211
    require_point_work(grid, rhs, F(1, 9), mans, 2, 1651)  # the largest T at 210 bytes per slot: read
    with pytest.raises(InstanceTooLarge, match="269405222 bytes"):
        require_point_work(grid, rhs, F(1, 9), mans, 2, 1652)  # control: one bit more, 211 bytes: refused
