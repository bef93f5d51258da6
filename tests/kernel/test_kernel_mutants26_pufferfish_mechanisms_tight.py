"""Session 26: a Gaussian δ claimed to within 2^-1012, so tight that the kernel
(exactdp/kernel/pufferfish_mechanisms.py, ``gaussian_hockey``) can prove it only at the top of
its precision ladder (1024 bits), with its undecided leaves bisected to the stated width.
Mutants that leave more slack there survived as "sound" (they only refuse more); a true claim
at the edge of what the genuine kernel proves tells them apart.

Ground truth (closed form, checked here at 1,400 bits with mpmath): A = N(0, 1), B = N(1, 1),
ε = 1/3. g_A(y) − e^ε g_B(y) > 0 ⟺ −y²/2 > ε − (y − 1)²/2 ⟺ y < 1/2 − ε, so
δ(A, B) = Φ(1/2 − ε) − e^ε Φ(−1/2 − ε); the reverse direction is the mirror image (y ↦ 1 − y)
and gives the same value, so the document's δ = max of both is that number, ≈ 0.28381.
The genuine kernel's enclosure at 1024 bits is about 2^-1020 wide (the balls' radii; measured
when this test was written), inside the claim's ±2^-1012 with a margin of 2^8.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from exactdp.engine.documents import write_dist
from exactdp.errors import PrecisionLimitReached
from exactdp.kernel.jsonio import envelope
from exactdp.kernel.pufferfish_mechanisms import check_pufferfish_mechanisms


def _delta() -> F:
    """δ at 1,400 bits, as an exact rational (error below 2^-1390)."""
    with mpmath.workprec(1400):
        e = mpmath.mpf(1) / 3
        d = mpmath.ncdf(mpmath.mpf(1) / 2 - e) - mpmath.exp(e) * mpmath.ncdf(-mpmath.mpf(1) / 2 - e)
        m, x = mpmath.mpf(d).man_exp
        return F(int(m)) * F(2) ** int(x)


def _doc(lo: F, hi: F) -> dict:
    question = {"P": write_dist({0: 1}), "Q": write_dist({1: 1}), "sigma": "1", "level": {"eps": "1/3"}}
    return envelope("pufferfish-gaussian-delta", question, {"delta": {"lo": str(lo), "hi": str(hi)}},
                    {"prec": 128, "rel_tol": "1/100"})


def test_the_closed_form_is_the_documents_delta():
    d = _delta()
    assert abs(d - F(28381183019049161920327, 10**23)) < F(1, 10**22)
    with mpmath.workprec(200):  # the reverse direction: Φ(1/2 + ε)^c − e^ε·Φ(−1/2 + ε)^c
        e = mpmath.mpf(1) / 3
        rev = (1 - mpmath.ncdf(e - mpmath.mpf(1) / 2)) - mpmath.exp(e) * (1 - mpmath.ncdf(e + mpmath.mpf(1) / 2))
        assert abs(rev - mpmath.mpf(d.numerator) / d.denominator) < mpmath.mpf(2) ** -190


# kills "line 297: Add -> Sub" (undecided leaves of width 2^-(prec//2 − 8): a slack 2^32 times
# larger, about 2^-1008 at 1024 bits) and "line 297: 2 -> 3" at the site prec // 3 (leaves of
# width 2^-349 at 1024 bits: a slack near 2^-698): both leave the upper end outside the claim
# at every precision, so the true claim is undecided under them
def test_a_delta_claimed_to_2_to_the_minus_1012_verifies_at_1024_bits():
    d, r = _delta(), F(1, 2**1012)
    assert check_pufferfish_mechanisms(_doc(d - r, d + r)) is True
    # ground truth on both sides: a claim beside the true δ is refused, never accepted
    assert check_pufferfish_mechanisms(_doc(d + 2 * r, d + 3 * r)) is False
    with pytest.raises(PrecisionLimitReached):  # too tight for 1024 bits: undecided, not False
        check_pufferfish_mechanisms(_doc(d - F(1, 2**1040), d + F(1, 2**1040)))
