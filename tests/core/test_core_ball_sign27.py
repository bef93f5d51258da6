"""``ball_sign`` on balls that end exactly at 0 (session 27).

The kernel's three-way sign decisions (pufferfish mass signs, the sets margin, the linear
sign vector, ``sign_in_balls``) all read :func:`exactdp.arithmetic.ball.ball_sign`. A ball
whose lower end is exactly 0 — [0, 2r] — must stay UNDECIDED: arb's ``x >= 0`` is true on
it, so a ``>=`` for ``>`` in the primitive would read it as positive although the true value
may be 0. Such balls are built here directly: arb rounds a radius up to 30 bits, so
mid = 1 + 2⁻²⁹ with radius 1 (stored as 1 + 2⁻²⁹) has lower end exactly 0.
"""

from __future__ import annotations

from flint import arb, fmpq

from exactdp.arithmetic.ball import Sign, ball_sign, workprec
from exactdp.kernel.privacy import sign_in_balls

_M = fmpq(2**29 + 1, 2**29)  # 1 + 2^-29, the radius 1 after arb's upward rounding


def _tie(sign: int) -> arb:
    x = arb(sign * _M, 1)
    # ground truth of the construction: one end is exactly 0, the other is ±2(1 + 2^-29)
    assert (x.lower() if sign > 0 else x.upper()).is_zero()
    assert not (x.upper() if sign > 0 else x.lower()).is_zero()
    return x


def test_a_ball_with_lower_end_exactly_zero_is_undecided() -> None:
    x = _tie(1)
    assert x >= 0 and not x > 0  # arb's comparisons on the tie: only the strict one is safe
    assert ball_sign(x) is Sign.UNDECIDED


def test_a_ball_with_upper_end_exactly_zero_is_undecided() -> None:
    x = _tie(-1)
    assert x <= 0 and not x < 0
    assert ball_sign(x) is Sign.UNDECIDED


def test_balls_one_ulp_of_radius_off_the_tie_are_decided() -> None:
    off = fmpq(2**28 + 1, 2**28)  # mid 1 + 2^-28 > the stored radius 1 + 2^-29
    assert ball_sign(arb(off, 1)) is Sign.POSITIVE
    assert ball_sign(arb(-off, 1)) is Sign.NEGATIVE
    under = fmpq(2**30 + 1, 2**30)  # mid 1 + 2^-30 < the radius: the ball straddles 0
    assert ball_sign(arb(under, 1)) is Sign.UNDECIDED
    assert ball_sign(arb(-under, 1)) is Sign.UNDECIDED


def test_exact_balls_and_tiny_ones() -> None:
    assert ball_sign(arb(0)) is Sign.ZERO
    assert ball_sign(arb(3)) is Sign.POSITIVE and ball_sign(arb(-3)) is Sign.NEGATIVE
    with workprec(64):
        tiny = arb(2) ** -3000  # far below any double, still a decided sign
        assert ball_sign(tiny) is Sign.POSITIVE and ball_sign(-tiny) is Sign.NEGATIVE
        assert ball_sign(arb(0, tiny)) is Sign.UNDECIDED


def test_the_value_the_kernel_reads_is_truthy_only_when_decided() -> None:
    # the kernel sites read `ball_sign(x).value`: ±1 decides, 0 (exact zero ball) and None do not
    assert [ball_sign(b).value for b in (arb(2), arb(-2), arb(0), _tie(1), _tie(-1))] == [1, -1, 0, None, None]


def test_sign_in_balls_never_decides_a_tie_at_any_precision() -> None:
    calls: list[int] = []

    def f() -> arb:
        calls.append(1)
        return _tie(1)

    assert sign_in_balls(f, max_prec=1024) is None
    assert len(calls) == 3  # tried at 64, 256 and 1024 bits; the tie never tightens
