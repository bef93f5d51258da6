"""A genuine ``exact`` threshold certificate whose witness has a *triple* root at s* (session 19).

The gap: ``threshold_exact.py`` line 172 (``_s_star_ok``) requires the multiplicity of s*'s
minimal polynomial g in the witness numerator N_w to be odd (x_w changes sign at s*):
``strip(nums[w], g)[0] % 2 == 0`` rejects. The mutant ``% 2`` -> ``% 3`` survived every test,
because every genuine certificate in the suite had multiplicity 1 (1 % 2 and 1 % 3 are both nonzero). Here
the multiplicity is 3: the real kernel accepts (3 % 2 = 1), the mutant rejects (3 % 3 = 0).

The instance: the 7-point metric ``DISTANCES`` (distances 1, 2, 3; q = 1, s = e^{-ε}) and the
prior ``PRIOR``. The prior was found by an LP over the priors with N_1(3/4) = N_1'(3/4) =
N_1''(3/4) = 0 (three linear conditions on π) that keeps every x_i(s) > 0 on (0, 3/4), and
then fixed exactly: π_4, π_5, π_6 = 4/25, 13/100, 3/25, the other four entries solve the three
conditions and Σπ = 1 (hence their long denominators). The regular mechanism x = Φ(s)⁻¹π is
N(s)/D(s) with

* N_1(s) = (4s − 3)³ · h(s), deg h = 8, h without a root in [0, 1];
* D(s) (degree 13) and N_0, N_3 without a root in (0, 1); N_2, N_4, N_5, N_6 have roots in
  (0, 1), all above 3/4.

So x ≥ 0 on (0, 3/4], x_1 changes sign at 3/4 (odd multiplicity) and ε* = ln(4/3) exactly;
the library's certificate claims s* = 3/4 (minimal polynomial 4s − 3) with witness 1.

(A forged certificate with an *even*-multiplicity s*, the other way to kill the mutant, was not
built: in random searches a double zero of x_w at the end of a holding run was a touch from
above after which x_w stayed ≥ 0 until some other row had failed first. Triple zeros with the
other rows positive below them appeared, in those searches, only for s* ≥ 2/3, as here.)

Ground truth is decided outside the kernel: rational arithmetic on the stated polynomials (the
identity Φ(s)N(s) = D(s)π at 16 points, more than the degree of either side), sympy's exact
root counts, and a 60-digit mpmath comparison of ln(4/3) with the ε-enclosure.
"""

from __future__ import annotations

import copy
from fractions import Fraction as F

import mpmath
import pytest
import sympy

from exactdp import epsilon_threshold
from exactdp.kernel.verify import verify_document
from exactdp.spaces.metrics import from_matrix

DISTANCES = [
    [0, 3, 3, 3, 2, 3, 3],
    [3, 0, 1, 1, 1, 1, 3],
    [3, 1, 0, 2, 2, 2, 2],
    [3, 1, 2, 0, 1, 2, 2],
    [2, 1, 2, 1, 0, 2, 3],
    [3, 1, 2, 2, 2, 0, 3],
    [3, 3, 2, 2, 3, 3, 0],
]
PRIOR = [F(v) for v in (
    "636230118203681713/4614569588592749098",
    "17456243242257862461/115364239714818727450",
    "581805956004631133/4614569588592749098",
    "40315512668554731169/230728479429637454900",
    "4/25", "13/100", "3/25",
)]
S_STAR = F(3, 4)
WITNESS = 1


def _poly(coeffs: list[str]) -> list[F]:
    """Coefficients, highest degree first (the documents' order)."""
    return [F(c) for c in coeffs]


def _at(p: list[F], s: F) -> F:
    v = F(0)
    for c in p:
        v = v * s + c
    return v


def _divmod_linear(p: list[F], a: int, b: int) -> tuple[list[F], F]:
    """p = (a·s + b)·quotient + remainder (synthetic division by the root −b/a)."""
    root, out, acc = F(-b, a), [], F(0)
    for c in p:
        acc = acc * root + c
        out.append(acc)
    rem = out.pop()
    return [c / a for c in out], rem


def _count_roots(p: list[F], lo: F, hi: F) -> int:
    s = sympy.Symbol("s")
    poly = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in p], s)
    return poly.count_roots(sympy.Rational(lo.numerator, lo.denominator),
                            sympy.Rational(hi.numerator, hi.denominator))


@pytest.fixture(scope="module")
def genuine():
    res = epsilon_threshold(from_matrix(DISTANCES), prior=PRIOR)
    assert res.method == "exact"
    doc = res.certificate.to_json()
    assert doc["kind"] == "exact" and doc["evidence"]["witness"] == WITNESS
    assert doc["claim"]["s_star"]["minimal_polynomial"] == ["4", "-3"]           # s* = 3/4
    assert doc["claim"]["s_star"]["isolating_interval"] == {"lo": "3/4", "hi": "3/4"}
    return doc


def test_prior_is_a_positive_distribution():
    assert sum(PRIOR) == 1 and min(PRIOR) > 0


def test_ground_truth_triple_root_at_s_star(genuine):
    ev = genuine["evidence"]
    nums = [_poly(p) for p in ev["numerators"]]
    den = _poly(ev["denominator"])
    # the identity Φ(s)N(s) = D(s)π as polynomials: both sides have degree ≤ 3 + 11 = 14,
    # so agreement at 16 distinct points proves it
    for k in range(1, 17):
        s = F(k, 17)
        for i in range(7):
            lhs = sum((s ** DISTANCES[i][j] * _at(nums[j], s) for j in range(7)), F(0))
            assert lhs == _at(den, s) * PRIOR[i]
    # N_1 = (4s − 3)³·h with h(3/4) ≠ 0: multiplicity exactly 3 (odd)
    h = nums[WITNESS]
    for _ in range(3):
        h, rem = _divmod_linear(h, 4, -3)
        assert rem == 0
    assert _at(h, S_STAR) != 0 and len(h) == 9
    # nothing else changes sign (nor has a pole) on (0, 3/4]: x ≥ 0 there
    assert _at(den, F(0)) != 0 and _count_roots(den, F(0), S_STAR) == 0
    assert _count_roots(h, F(0), F(1)) == 0
    for i, p in enumerate(nums):
        if i != WITNESS:
            assert _count_roots(p, F(0), S_STAR) == 0
        assert _at(p, F(0)) / _at(den, F(0)) == PRIOR[i] > 0     # x(0+) = π > 0
    # x_1 = N_1/D: ≥ 0 below 3/4, < 0 just above (the odd power changes sign)
    x1 = lambda s: _at(nums[WITNESS], s) / _at(den, s)  # noqa: E731
    assert x1(S_STAR - F(1, 10**6)) > 0 == x1(S_STAR) > x1(S_STAR + F(1, 10**6))
    # so ε* = −ln(3/4) = ln(4/3) exactly, inside the claimed enclosure
    lo, hi = F(genuine["claim"]["eps"]["lo"]), F(genuine["claim"]["eps"]["hi"])
    with mpmath.workdps(60):
        eps_star = mpmath.log(mpmath.mpf(4) / 3)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= eps_star <= mpmath.mpf(hi.numerator) / hi.denominator


@pytest.mark.parametrize("interval", [None, ("37/50", "19/25"), ("1/2", "4/5")])
def test_triple_root_s_star_verifies(genuine, interval):
    # the kernel must accept an s* of odd multiplicity 3 (the mutant "% 2" -> "% 3" rejects it),
    # with s* spelled as the exact point 3/4 or as an isolating interval around it
    doc = copy.deepcopy(genuine)
    if interval is not None:
        doc["claim"]["s_star"]["isolating_interval"] = {"lo": interval[0], "hi": interval[1]}
    verdict = verify_document(doc)
    assert verdict.verified is True and verdict.kind == "exact"


def test_a_wrong_s_star_is_still_rejected(genuine):
    # the control: s* = 4/5 (not a root of N_1) is refused
    bad = copy.deepcopy(genuine)
    bad["claim"]["s_star"]["minimal_polynomial"] = ["5", "-4"]
    bad["claim"]["s_star"]["isolating_interval"] = {"lo": "4/5", "hi": "4/5"}
    assert verify_document(bad).verified is False
